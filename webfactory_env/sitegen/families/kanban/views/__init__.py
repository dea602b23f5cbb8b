"""The workspace's pages, drawn from its model with the widget library. Pages only read
state: every element that changes something is bound to a transition
(`bind=app.archive_card.bind(card=...)`).

One module per kind of page: `boards` (the boards list and a board), `card`, `lists` (my
tasks, the calendar, search), `team` (members and a member), `wizard` (a new board).
"""

from __future__ import annotations

from webfactory_env.sitegen import widgets as w
from webfactory_env.sitegen.app import PageFn
from webfactory_env.sitegen.families.kanban.model import KanbanModel
from webfactory_env.sitegen.families.kanban.views import boards, card, lists, team, wizard
from webfactory_env.sitegen.html import Renderer, esc


def header(app: KanbanModel, r: Renderer) -> str:
    c = app.copy
    entries = [
        ("/", c("nav.boards")),
        ("/my-tasks", c("nav.my_tasks")),
        ("/calendar", c("nav.calendar")),
        ("/search", c("nav.search")),
        ("/members", c("nav.members")),
    ]
    nav = w.site_nav(r, entries, label=c("nav.label"))
    who = f'<span class="muted who">{esc(c("nav.signed_in", name=app.me.name))}</span>'
    return f'<span class="brand">{esc(app.spec.brand)}</span>{nav}{who}'


PAGES: dict[str, PageFn] = {
    "boards": boards.boards,
    "board": boards.board,
    "card": card.card_page,
    "my_tasks": lists.my_tasks,
    "calendar": lists.calendar,
    "search": lists.search,
    "members": team.members,
    "member": team.member,
    "new_board": wizard.new_board,
}
