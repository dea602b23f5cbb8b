"""`kanban`: a team task board.

Description
    Boards of cards in columns (To do, In progress, Review, Done), with label, assignee
    and overdue filters, a search box and three sorts; a card's page (edit its title,
    description and due date; labels, assignee, priority, comments, attachments; move it
    with a Move button, to the top or the bottom of a column; archive or delete it after a
    confirmation; restore it); cards dragged with the mouse to a column and a place in it
    on the board (the Move form is the keyboard's way to the same transition); "my
    tasks" (pages or an endless list); a due-date calendar with an agenda; search across
    boards; the team page with invitations; a three-step new-board wizard. One board is
    archived and read-only on every site; one member has left the team.

Entities (`content.py`)
    Member, SeedBoard, SeedCard, SeedComment, Attachment, File.

Pages (`views/`: one module per kind)
    boards (/), board (/board/<id>), card (/card/<id>), my_tasks, calendar, search,
    members, member (/member/<id>), new_board (/boards/new).

State paths (`state.py`, `webfactory schema --family kanban` lists them all)
    boards.<id>.{name, description, archived, template, visibility, members}   entities
    cards.<id>.{board, title, column, assignee, priority, due, description,
                labels.<label>, attachments, archived}                        entities
    comments.<id>.{card, author, text}, invites.<email>.{name, email, role}    entities
    starred, watching, power_ups                                               session
    forms.{new_card, cards.<id>, comments.<id>, moves.<id>, places.<id>, invite,
           new_board}                                                          drafts
    views.<board>.*, search.q, my_tasks.page, calendar.*, team.sort, wizard.*  view
    user, board, card, member, my_tasks.count, search.count, calendar.next     page facts
    Positions, activity logs, comment dates and ids are bookkeeping (derived).

Queries (`queries.py`: `KanbanQueries`, and `facts` of the visitor's page)
    which cards a board shows, what is overdue, the agenda, the checks of the forms.

Transitions (`transitions/cards.py`, `transitions/workspace.py`: functions over the context)
    cards: create_card, set_card_field, format_text, save_card, choose_column,
    choose_place, move_card (the Move form, or a drop on the board), assign_card,
    set_priority, set_label, attach_file, write_comment, add_comment, archive_card,
    restore_card, delete_card;
    the rest: set_filter, set_sort, search_board, search_cards, turn_page, show_month,
    filter_calendar, sort_team, set_field, invite_member, next_wizard_step,
    previous_wizard_step, pick_board_member, create_board, restart_wizard;
    distractors: star_board, watch_card, add_power_up.

Tasks
    `dsl/tasks/kanban/*.task`.

Who may import this package: the site registry (through `FAMILY`) and the tests.
"""

from __future__ import annotations

from webfactory_env.sitegen.families.kanban.app import KanbanApp
from webfactory_env.sitegen.families.kanban.content import FAMILY_VERSION, generate
from webfactory_env.sitegen.registry import Family, register_family

FAMILY = Family(
    name="kanban",
    version=FAMILY_VERSION,
    description="A team task board: boards, columns and cards with filters, search and sort, "
    "card detail with comments and attachments, a due-date calendar, my tasks, the team "
    "page and a new-board wizard.",
    generate=generate,
    app_class=KanbanApp,
    kinds=(
        "Accordion",
        "Button",
        "Choice",
        "DatePicker",
        "Editor",
        "Field",
        "FileUpload",
        "Filter",
        "Form",
        "Item",
        "Link",
        "MenuItem",
        "More",
        "Option",
        "Sort",
        "Tab",
        "Toggle",
    ),
)
register_family(FAMILY)

__all__ = ["FAMILY", "KanbanApp", "generate"]
