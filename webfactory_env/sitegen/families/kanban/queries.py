"""What the workspace knows: the questions pages and transitions ask of its state (which
cards a board shows, what is overdue, what is next on the calendar), the checks of its
form drafts, and the facts the predicate view adds (`facts`, on the visitor's page)."""

from __future__ import annotations

from webfactory_env.core.domains import Vocabulary
from webfactory_env.sitegen.context import Context, Queries
from webfactory_env.sitegen.families.kanban.content import (
    PRIORITIES,
    TODAY,
    File,
    Member,
)
from webfactory_env.sitegen.families.kanban.rules import (
    ACCESS,
    BOARD_NAME_MIN,
    TITLE_MIN,
    check_board_name,
    check_due,
    check_title,
    validate_invite,
)
from webfactory_env.sitegen.families.kanban.state import (
    Board,
    BoardFacts,
    CalendarFacts,
    Card,
    Comment,
    KanbanFacts,
    KanbanState,
    MemberFacts,
    MyTasksFacts,
    SearchFacts,
    TeamFacts,
    UserFacts,
)
from webfactory_env.sitegen.spec import SiteSpec

TEMPLATES = {
    "basic": ("todo", "in_progress", "done"),
    "review": ("todo", "in_progress", "review", "done"),
    "backlog": ("backlog", "todo", "in_progress", "done"),
}
VISIBILITY = ("team", "private")
SORTS = ("position", "due-asc", "priority-desc")
PAGE_SIZE = 5
AGENDA_SIZE = 5
SEARCH_LIMIT = 20


# Every member name and card title the family can make.
MEMBERS = Vocabulary(
    "members", "person", parts=("vocab.json:first_names.*", "vocab.json:last_names.*")
)
TITLES = Vocabulary("titles", "text", phrases=("vocab.json:boards.*.titles.*",))


ROUTES = {
    "/": "boards",
    "/boards/new": "new_board",
    "/my-tasks": "my_tasks",
    "/calendar": "calendar",
    "/search": "search",
    "/members": "members",
}


class KanbanQueries(Queries):
    """The workspace's members and files, and every read of its state."""

    state: KanbanState

    def __init__(self, state: KanbanState, spec: SiteSpec) -> None:
        super().__init__(state, spec)
        ent = spec.entities
        self.members: tuple[Member, ...] = ent["members"]
        self.by_member = {m.id: m for m in self.members}
        self.me = next(m for m in self.members if m.me)
        self.files: tuple[File, ...] = ent["files"]
        self.difficulty = spec.difficulty

    def fresh_team(self) -> dict[str, bool]:
        """The teammates the wizard may add to a new board (none yet: you are always on it)."""
        return {m.id: False for m in self.members if m.teammate}

    # ---------------------------------------------------------------- queries
    def board_of(self, card: Card) -> Board:
        return self.state.boards[card.board]

    def assignable(self) -> list[Member]:
        return [m for m in self.members if m.active]

    def name(self, mid: str) -> str:
        m = self.by_member.get(mid)
        return m.name if m else ""

    def labels_on(self, card: Card) -> list[str]:
        """The card's labels, in the board's order."""
        return [x for x in self.board_of(card).labels if card.labels.get(x)]

    def board_cards(self, bid: str) -> list[Card]:
        return [c for c in self.state.cards.values() if c.board == bid and not c.archived]

    def column_cards(self, bid: str, column: str) -> list[Card]:
        """A column's live cards in the board's own order."""
        cards = [c for c in self.board_cards(bid) if c.column == column]
        return sorted(cards, key=lambda c: c.position)

    def overdue(self, c: Card) -> bool:
        return bool(c.due) and c.due < TODAY and c.column != "done"

    def live(self, c: Card) -> bool:
        """Not archived, and on a board that is not archived."""
        return not c.archived and not self.board_of(c).archived

    def visible(self, board: Board) -> list[Card]:
        """The board's cards after its filters, in its sort order."""
        view = self.state.views[board.id]
        q = view.q.strip().lower()
        cards = [
            c
            for c in self.board_cards(board.id)
            if (not view.label or c.labels.get(view.label))
            and (not view.assignee or c.assignee == view.assignee)
            and (view.due != "overdue" or self.overdue(c))
            and (not q or q in c.title.lower() or q in c.description.lower())
        ]
        if view.sort == "due-asc":
            cards.sort(key=lambda c: (c.due == "", c.due, c.position))
        elif view.sort == "priority-desc":
            cards.sort(key=lambda c: (-PRIORITIES.index(c.priority), c.position))
        else:
            cards.sort(key=lambda c: c.position)
        return cards

    def editable(self, cid: str | None) -> Card | None:
        """The card `cid` when it may be changed: it exists and is live."""
        card = self.state.cards.get(cid or "")
        return card if card is not None and self.live(card) else None

    def my_cards(self) -> list[Card]:
        mine = [c for c in self.state.cards.values() if c.assignee == self.me.id and self.live(c)]
        return sorted(mine, key=lambda c: (c.due == "", c.due, c.title))

    def my_pages(self) -> int:
        return max(1, -(-len(self.my_cards()) // PAGE_SIZE))

    def calendar_cards(self) -> list[Card]:
        board = self.state.calendar.board
        return [
            c
            for c in self.state.cards.values()
            if c.due and self.live(c) and (not board or c.board == board)
        ]

    def agenda(self) -> list[Card]:
        """The next open cards due, soonest first."""
        upcoming = [c for c in self.calendar_cards() if c.due >= TODAY and c.column != "done"]
        upcoming.sort(key=lambda c: (c.due, c.title))
        return upcoming[:AGENDA_SIZE]

    def search_results(self) -> list[Card]:
        q = self.state.search.q.strip().lower()
        if not q:
            return []
        found = [
            c
            for c in self.state.cards.values()
            if q in c.title.lower()
            or q in c.description.lower()
            or any(q == x.lower() for x in self.labels_on(c))
        ]
        found.sort(key=lambda c: (self.board_of(c).archived, c.title.lower()))
        return found[:SEARCH_LIMIT]

    def open_cards_of(self, mid: str) -> list[Card]:
        cards = [
            c
            for c in self.state.cards.values()
            if c.assignee == mid and c.column != "done" and self.live(c)
        ]
        return sorted(cards, key=lambda c: (c.due == "", c.due, c.title))

    def team_rows(self) -> list[Member]:
        col, _, order = self.state.team.sort.partition("-")

        def key(m: Member) -> tuple[int, str]:
            return (len(self.open_cards_of(m.id)) if col == "open" else 0, m.name)

        return sorted(self.members, key=key, reverse=order == "desc")

    def comments_on(self, cid: str) -> list[Comment]:
        """Oldest first (ids break ties between comments of the same day)."""
        found = [cm for cm in self.state.comments.values() if cm.card == cid]
        return sorted(found, key=lambda cm: (cm.date, cm.id))

    def next_position(self, bid: str, column: str) -> int:
        return 1 + max(
            (
                c.position
                for c in self.state.cards.values()
                if c.board == bid and c.column == column
            ),
            default=0,
        )

    def taken_emails(self) -> list[str]:
        return [m.email for m in self.members] + list(self.state.invites)

    def title_min(self) -> int:
        return TITLE_MIN[self.difficulty]

    def board_name_min(self) -> int:
        return BOARD_NAME_MIN[self.difficulty]

    # --------------------------------------------------------- form checks
    def choices(self, form: str, name: str) -> tuple[str, ...] | None:
        """The values a choice of a form accepts (None for a text field)."""
        columns = sorted({c for b in self.state.boards.values() for c in b.columns})
        people = tuple(m.id for m in self.assignable())
        return {
            ("new_card", "column"): tuple(columns),
            ("new_card", "assignee"): ("", *people),
            ("new_card", "priority"): PRIORITIES,
            ("invite", "role"): ACCESS,
            ("new_board", "template"): tuple(TEMPLATES),
            ("new_board", "visibility"): VISIBILITY,
        }.get((form, name))

    def errors_of(self, form: str) -> dict[str, str]:
        feedback = self.state.feedback
        return {
            "new_card": feedback.new_card_errors,
            "invite": feedback.invite_errors,
            "new_board": feedback.board_errors,
        }[form]

    def check_new_card(self, board: Board) -> dict[str, str]:
        f = self.state.forms.new_card
        others = [c.title for c in self.board_cards(board.id)]
        found = {
            "title": check_title(f.title, self.title_min(), others),
            "due": check_due(
                f.due, today=TODAY, required=self.difficulty == "hard", allow_past=False
            ),
            "column": "" if f.column in board.columns else "required",
            "assignee": ""
            if f.assignee in ("", *(m.id for m in self.assignable()))
            else "required",
        }
        return {k: v for k, v in found.items() if v}

    def check_invite(self) -> dict[str, str]:
        f = self.state.forms.invite
        values = {"name": f.name, "email": f.email, "role": f.role}
        return validate_invite(values, self.taken_emails(), self.difficulty == "hard")

    def check_board(self) -> dict[str, str]:
        taken = [b.name for b in self.state.boards.values()]
        found = check_board_name(self.state.forms.new_board.name, self.board_name_min(), taken)
        return {"name": found} if found else {}

    def entity_page_kind(self, route: str) -> str:
        """The kind of a page that shows one board, card or member, or "not_found"."""
        head, _, rest = route[1:].partition("/")
        found = {
            "board": rest in self.state.boards,
            "card": rest in self.state.cards,
            "member": rest in self.by_member,
        }
        return head if found.get(head) else "not_found"


Kanban = Context[KanbanState, KanbanQueries]  # what the workspace's transitions and pages read


def route_id(kanban: Kanban, prefix: str) -> str:
    """The id in the visitor's route after `prefix` ("/card/"), or ""."""
    route = kanban.route
    return route[len(prefix) :] if route.startswith(prefix) else ""


def route_board(kanban: Kanban) -> Board | None:
    return kanban.state.boards.get(route_id(kanban, "/board/"))


def route_card(kanban: Kanban) -> Card | None:
    return kanban.state.cards.get(route_id(kanban, "/card/"))


def facts(kanban: Kanban) -> KanbanFacts:
    card = route_card(kanban)
    board = route_board(kanban) or (kanban.queries.board_of(card) if card else None)
    member = kanban.queries.by_member.get(route_id(kanban, "/member/"))
    my = kanban.queries.my_cards()
    if kanban.v.list_mode == "infinite":
        shown = min(len(my), kanban.ui.more.get("my-tasks", 1) * PAGE_SIZE)
    else:
        page = kanban.state.my_tasks.page
        shown = len(my[(page - 1) * PAGE_SIZE : page * PAGE_SIZE])
    return KanbanFacts(
        user=UserFacts(kanban.queries.me.id, kanban.queries.me.name),
        board=_board_facts(kanban, board) if board else BoardFacts(),
        card=card or Card(),
        member=MemberFacts(
            member.id, member.name, member.active, len(kanban.queries.open_cards_of(member.id))
        )
        if member
        else MemberFacts(),
        my_tasks=MyTasksFacts(len(my), kanban.queries.my_pages(), shown),
        search=SearchFacts(len(kanban.queries.search_results())),
        calendar=CalendarFacts([c.title for c in kanban.queries.agenda()]),
        team=TeamFacts(len(kanban.queries.assignable())),
    )


def _board_facts(kanban: Kanban, board: Board) -> BoardFacts:
    cards = kanban.queries.board_cards(board.id)
    return BoardFacts(
        id=board.id,
        name=board.name,
        archived=board.archived,
        columns=list(board.columns),
        overdue=sum(1 for c in cards if kanban.queries.overdue(c)),
        total=len(cards),
        count=len(kanban.queries.visible(board)) if route_board(kanban) else 0,
    )


def shift_month(month: str, delta: int) -> str:
    year, mon = (int(x) for x in month.split("-"))
    index = year * 12 + mon - 1 + delta
    return f"{index // 12:04d}-{index % 12 + 1:02d}"


def set_error(errors: dict[str, str], name: str, error: str) -> None:
    if error:
        errors[name] = error
    else:
        errors.pop(name, None)
