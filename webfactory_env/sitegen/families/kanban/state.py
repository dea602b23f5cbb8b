"""The workspace's declared state: what a goal may pin, and what it never does.

`KanbanState` keeps boards, cards, comments and invitations as entity tables keyed by id
(goals pin them field by field, or as new records), the teammate's stars and watches as
the session, unsent form drafts, and how each page is looked at (filters, sort, pages).
Positions, activity logs, comment dates and ids are bookkeeping (`derived`): a detour or
a different number of steps changes them, so no goal derives a pin on them and the frame
never watches them. A task that asks for a place in a column asserts it
(`assert State(card.position = 1)`): putting a card at a place (a drop, or Move with
"At the top") renumbers that column 1, 2, 3..., so the top is 1. `KanbanFacts` are
the computed values pages show (the open card and board, counts, the agenda).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Self

from webfactory_env.sitegen.families.kanban.content import TODAY, SeedBoard, SeedCard, SeedComment
from webfactory_env.sitegen.spec import SiteSpec
from webfactory_env.sitegen.state import (
    AppState,
    Record,
    copied,
    derived,
    drafts,
    entities,
    session,
    typed,
    view,
)


# ----------------------------------------------------------------------- records
@dataclass(kw_only=True)
class Board(Record):
    """A board: one of the seed's projects, or one made with the new-board wizard."""

    name: str = copied("forms.new_board.name", "")
    description: str = copied("forms.new_board.description", "")
    archived: bool = False  # an archived board is read-only
    template: str = copied("forms.new_board.template", "review")
    visibility: str = copied("forms.new_board.visibility", "team")
    members: set[str] = copied("forms.new_board.members", default_factory=set)
    columns: list[str] = derived(default_factory=list)  # follow from the template
    labels: list[str] = derived(default_factory=list)  # the labels its cards can carry


@dataclass(kw_only=True)
class Card(Record):
    """A card on a board. Fields a new card copies from the new-card form are pinned only
    when the task chose them (a priority nobody picked is not the goal's business)."""

    board: str = ""
    title: str = copied("forms.new_card.title", "")
    column: str = copied("forms.new_card.column", "")
    assignee: str = copied("forms.new_card.assignee", "")  # a member id, "" for nobody
    priority: str = copied("forms.new_card.priority", "")
    due: str = copied("forms.new_card.due", "")
    description: str = ""
    # Every label of the board, on or off: a label is one checkbox on the card page.
    labels: dict[str, bool] = field(default_factory=dict)
    attachments: set[str] = field(default_factory=set)  # file names, compared exactly
    archived: bool = False
    # Within its column: the Move button and restoring send it last (after the highest);
    # a drop, or Move with "top", renumbers the column it lands in 1, 2, 3...
    position: int = derived(0)
    activity: list[tuple[str, str]] = derived(default_factory=list)  # (copy key, argument)


@dataclass(kw_only=True)
class Comment(Record):
    card: str = ""
    author: str = ""  # a member id
    text: str = ""
    date: str = derived("")


@dataclass(kw_only=True)
class Invite(Record):
    """An invitation to join the team (its id is the lower-cased e-mail address)."""

    name: str = ""
    email: str = typed("email")
    role: str = copied("forms.invite.role", "member")


# ------------------------------------------------------------------------ drafts
@dataclass
class NewCardDraft:
    title: str = ""
    column: str = "todo"
    assignee: str = ""
    priority: str = "medium"
    due: str = typed("date")


@dataclass
class CardDraft:
    """Unsaved edits of one card (started from its saved values)."""

    title: str = ""
    description: str = ""
    due: str = typed("date")


@dataclass
class InviteDraft:
    name: str = ""
    email: str = typed("email")
    role: str = "member"


@dataclass
class BoardDraft:
    name: str = ""
    description: str = ""
    template: str = "review"
    visibility: str = "team"
    members: dict[str, bool] = field(default_factory=dict)  # active member id -> joins


@dataclass
class KanbanForms:
    new_card: NewCardDraft = field(default_factory=NewCardDraft)
    cards: dict[str, CardDraft] = field(default_factory=dict)  # only cards being edited
    comments: dict[str, str] = field(default_factory=dict)  # card id -> unsent comment
    moves: dict[str, str] = field(default_factory=dict)  # card id -> the column to move it to
    places: dict[str, str] = field(default_factory=dict)  # card id -> "top" or "bottom" there
    invite: InviteDraft = field(default_factory=InviteDraft)
    new_board: BoardDraft = field(default_factory=BoardDraft)


# ---------------------------------------------------------------------- the view
@dataclass
class BoardView:
    """How one board is looked at: its filters, its search box, its sort."""

    label: str = ""
    assignee: str = ""
    due: str = ""  # "" or "overdue"
    q: str = ""
    sort: str = "position"


@dataclass
class SearchView:
    q: str = ""


@dataclass
class MyTasksView:
    page: int = 1


@dataclass
class CalendarView:
    month: str = ""
    board: str = ""  # "" for every active board


@dataclass
class TeamView:
    sort: str = "name-asc"


@dataclass
class WizardView:
    step: int = 1  # 1 details, 2 lists, 3 team, 4 created
    made: str = ""  # the board it created last


@dataclass
class Formatting:
    bold: bool = False
    italic: bool = False


@dataclass
class Editors:
    description: Formatting = field(default_factory=Formatting)


@dataclass
class Feedback:
    """What the last check of each form said: field -> error key."""

    new_card_errors: dict[str, str] = field(default_factory=dict)
    card_errors: dict[str, str] = field(default_factory=dict)  # "<card id>:<field>"
    comment_errors: dict[str, str] = field(default_factory=dict)  # card id
    invite_errors: dict[str, str] = field(default_factory=dict)
    board_errors: dict[str, str] = field(default_factory=dict)


@dataclass
class KanbanState(AppState):
    boards: dict[str, Board] = entities()
    cards: dict[str, Card] = entities()
    comments: dict[str, Comment] = entities()
    invites: dict[str, Invite] = entities()
    starred: set[str] = session(set, persists=True)  # board ids
    watching: set[str] = session(set, persists=True)  # card ids
    power_ups: set[str] = session(set, persists=True)
    forms: KanbanForms = drafts(KanbanForms)
    views: dict[str, BoardView] = view(dict)  # board id -> how it is looked at
    search: SearchView = view(SearchView)
    my_tasks: MyTasksView = view(MyTasksView)
    calendar: CalendarView = view(CalendarView)
    team: TeamView = view(TeamView)
    wizard: WizardView = view(WizardView)

    @classmethod
    def start(cls, spec: SiteSpec) -> Self:
        """The seed's boards, cards (with their attachments) and comments; a new-board
        draft with no teammate on it; each board looked at as it comes; this month."""
        ent = spec.entities
        boards = {b.id: _board(b) for b in ent["boards"]}
        cards = {c.id: _card(c, boards[c.board_id]) for c in ent["cards"]}
        for a in ent["attachments"]:
            cards[a.card_id].attachments.add(a.file)
        team = {m.id: False for m in ent["members"] if m.teammate}
        return cls(
            boards=boards,
            cards=cards,
            comments={cm.id: _comment(cm) for cm in ent["comments"]},
            forms=KanbanForms(new_board=BoardDraft(members=team)),
            views={bid: BoardView() for bid in boards},
            calendar=CalendarView(month=TODAY[:7]),
        )

    editors: Editors = view(Editors)
    feedback: Feedback = view(Feedback)


# ------------------------------------------------------------------------- facts
@dataclass
class UserFacts:
    id: str = ""
    name: str = ""


@dataclass
class BoardFacts:
    """The board on screen (the open card's board on a card page)."""

    id: str = ""
    name: str = ""
    archived: bool = False
    columns: list[str] = field(default_factory=list)
    overdue: int = 0
    total: int = 0
    count: int = 0  # cards the filters show


@dataclass
class MemberFacts:
    id: str = ""
    name: str = ""
    active: bool = False
    open: int = 0  # open cards assigned to them


@dataclass
class MyTasksFacts:
    count: int = 0
    pages: int = 1
    shown: int = 0


@dataclass
class SearchFacts:
    count: int = 0


@dataclass
class CalendarFacts:
    next: list[str] = field(default_factory=list)  # titles of the agenda, soonest first


@dataclass
class TeamFacts:
    active: int = 0


@dataclass
class KanbanFacts:
    """Computed, read-only values of the page."""

    user: UserFacts
    board: BoardFacts
    card: Card  # the card page that is open (an empty card elsewhere)
    member: MemberFacts
    my_tasks: MyTasksFacts
    search: SearchFacts
    calendar: CalendarFacts
    team: TeamFacts


def _board(b: SeedBoard) -> Board:
    return Board(
        id=b.id,
        name=b.name,
        description=b.description,
        archived=b.archived,
        columns=list(b.columns),
        labels=list(b.labels),
    )


def _card(c: SeedCard, board: Board) -> Card:
    return Card(
        id=c.id,
        board=c.board_id,
        title=c.title,
        column=c.column,
        assignee=c.assignee,
        priority=c.priority,
        due=c.due,
        description=c.description,
        labels={x: x in c.labels for x in board.labels},
        position=c.position,
    )


def _comment(cm: SeedComment) -> Comment:
    return Comment(id=cm.id, card=cm.card_id, author=cm.author, text=cm.text, date=cm.date)
