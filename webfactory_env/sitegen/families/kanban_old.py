"""The `kanban` family: a team task board. Boards (one archived and read-only on every
site), columns of cards with filters, search and sort, card detail (edit, labels, assignee,
priority, due date, comments, attachments, move, archive, delete), a due-date calendar,
"my tasks", the team page with invitations, and a three-step new-board wizard."""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from webfactory_env.core.predicates import All, Any_, Contains, Eq, Gt, Not, Predicate, Ref
from webfactory_env.core.resources import read_text
from webfactory_env.core.seeding import SeedStream, short_hash
from webfactory_env.sitegen import widgets as w
from webfactory_env.sitegen.app import SiteApp, handler
from webfactory_env.sitegen.html import Renderer, esc
from webfactory_env.sitegen.registry import Family, generator_version, register_family
from webfactory_env.sitegen.spec import AppEvent, AttrValue, Option, SiteSpec
from webfactory_env.sitegen.variation import Variation

FAMILY_VERSION = "1"
TODAY = "2026-03-10"
MEMBER_COUNT = {"easy": 6, "medium": 8, "hard": 10}
BOARD_COUNT = {"easy": 3, "medium": 4, "hard": 5}  # the last board is archived
CARDS_PER_BOARD = {"easy": 8, "medium": 9, "hard": 12}
ARCHIVED_CARDS = 5  # the archived board is a finished project: a few cards, all done
MINE_PER_BOARD = {"easy": 4, "medium": 3, "hard": 3}  # "my tasks" always spans two pages
TITLE_MIN = {"easy": 2, "medium": 3, "hard": 5}  # validation strictness grows with difficulty
BOARD_NAME_MIN = {"easy": 2, "medium": 3, "hard": 4}
FILE_COUNT = 6
COLUMNS = ("todo", "in_progress", "review", "done")
TEMPLATES = {
    "basic": ("todo", "in_progress", "done"),
    "review": COLUMNS,
    "backlog": ("backlog", "todo", "in_progress", "done"),
}
COLUMN_ALIASES = {
    "todo": ("to do", "to-do"),
    "in_progress": ("in progress", "doing"),
    "review": ("in review",),
    "done": ("completed", "finished"),
    "backlog": ("ideas",),
}
PRIORITIES = ("low", "medium", "high", "urgent")
SORTS = ("position", "due-asc", "priority-desc")
SORT_ATTRS = {
    "position": {"key": "position", "order": "asc"},
    "due-asc": {"key": "due", "order": "asc"},
    "priority-desc": {"key": "priority", "order": "desc"},
}
SORT_ALIASES = {
    "position": ("default", "manual", "board order"),
    "due-asc": ("asc", "ascending", "soonest first", "earliest"),
    "priority-desc": ("desc", "descending", "highest first", "most urgent"),
}
ACCESS = ("member", "admin", "observer")
VISIBILITY = ("team", "private")
PAGE_SIZE = 5
AGENDA_SIZE = 5
SEARCH_LIMIT = 20
DUE_PAST, DUE_FUTURE = 21, 60  # due dates fall on distinct days in [today-21, today+59]
_EMAIL = re.compile(r"^[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}$")
_FULL_NAME = re.compile(r"^[^\W\d_]+(?:[ '\-.][^\W\d_]+)+$")
_ISO = re.compile(r"^\d{4}-\d{2}-\d{2}$")


# ------------------------------------------------------------------------ entities
@dataclass(frozen=True, slots=True)
class Member:
    id: str
    name: str
    email: str
    role: str
    active: bool
    me: bool


@dataclass(frozen=True, slots=True)
class Board:
    id: str
    name: str
    description: str
    archived: bool
    columns: tuple[str, ...]
    labels: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Card:
    id: str
    board_id: str
    column: str
    position: int
    title: str
    description: str
    assignee: str
    labels: tuple[str, ...]
    priority: str
    due: str
    mine: bool


@dataclass(frozen=True, slots=True)
class Comment:
    id: str
    card_id: str
    author: str
    text: str
    date: str


@dataclass(frozen=True, slots=True)
class Attachment:
    card_id: str
    file: str


@dataclass(frozen=True, slots=True)
class File:
    name: str
    size_kb: int
    kind: str


@cache
def _vocab() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(read_text("sites", "kanban", "vocab.json"))
    return data


def _date(offset: int) -> str:
    return (dt.date.fromisoformat(TODAY) + dt.timedelta(days=offset)).isoformat()


def _slug_id(prefix: str, text: str, taken: set[str]) -> str:
    """A short stable id from `text`, unique among `taken` (deterministic on collision)."""
    ident, n = f"{prefix}-{short_hash(text, 6).lower()}", 0
    while ident in taken:
        n += 1
        ident = f"{prefix}-{short_hash(f'{text}|{n}', 6).lower()}"
    taken.add(ident)
    return ident


# ---------------------------------------------------------------------- generation
def generate(seed: int, difficulty: str, overrides: Mapping[str, Any] | None = None) -> SiteSpec:
    """The team workspace that `seed` determines: members, boards, cards, comments, files."""
    root = SeedStream(seed).child("kanban")
    vocab = _vocab()
    brand_rng = root.child("copy").child("brand")
    first = brand_rng.choice(vocab["brand_first"])
    brand = f"{first} {brand_rng.choice(vocab['brand_second'])}"
    content = root.child("content")
    members = _members(
        content.child("members"), MEMBER_COUNT[difficulty], f"{first.lower()}.example"
    )
    boards = _boards(content.child("boards"), BOARD_COUNT[difficulty])
    cards = _cards(
        content.child("cards"),
        boards,
        members,
        CARDS_PER_BOARD[difficulty],
        MINE_PER_BOARD[difficulty],
    )
    comments = _comments(content.child("comments"), cards, members)
    files = _files(content.child("files"))
    attachments = _attachments(content.child("attachments"), cards, files)
    variation = Variation.draw(seed, difficulty, overrides)
    routes = (
        "/",
        "/boards/new",
        "/my-tasks",
        "/calendar",
        "/search",
        "/members",
        *(f"/board/{b.id}" for b in boards),
        *(f"/card/{c.id}" for c in cards),
        *(f"/member/{m.id}" for m in members),
    )
    return SiteSpec(
        family="kanban",
        seed=seed,
        difficulty=difficulty,
        generator_version=generator_version("kanban", FAMILY_VERSION),
        brand=brand,
        variation=variation.to_json(),
        entities={
            "members": members,
            "boards": boards,
            "cards": cards,
            "comments": comments,
            "attachments": attachments,
            "files": files,
        },
        routes=routes,
        start_route="/",
        today=TODAY,
    )


def _members(rng: SeedStream, n: int, domain: str) -> tuple[Member, ...]:
    """`n` people with distinct names: the first is the signed-in user, the last has left
    (deactivated), so "assign it to X" can be infeasible on every site."""
    vocab = _vocab()
    firsts = rng.child("first").sample(vocab["first_names"], n)
    lasts = rng.child("last").sample(vocab["last_names"], n)
    roles = rng.child("roles")
    taken: set[str] = set()
    out = []
    for i, (f, last) in enumerate(zip(firsts, lasts, strict=True)):
        name = f"{f} {last}"
        out.append(
            Member(
                id=_slug_id("m", f"member:{name}", taken),
                name=name,
                email=f"{f}.{last}@{domain}".lower(),
                role=roles.choice(vocab["roles"]),
                active=i != n - 1,
                me=i == 0,
            )
        )
    return tuple(out)


def _boards(rng: SeedStream, n: int) -> tuple[Board, ...]:
    vocab = _vocab()
    templates = rng.child("templates").sample(vocab["boards"], n)
    taken: set[str] = set()
    return tuple(
        Board(
            id=_slug_id("b", f"board:{t['name']}", taken),
            name=t["name"],
            description=t["description"],
            archived=i == n - 1,
            columns=COLUMNS,
            labels=(*t["labels"], vocab["common_label"]),
        )
        for i, t in enumerate(templates)
    )


def _cards(
    rng: SeedStream,
    boards: Sequence[Board],
    members: Sequence[Member],
    per_board: int,
    mine_per_board: int,
) -> tuple[Card, ...]:
    """Cards with referential integrity and the guarantees the task library relies on.

    On every active board: each column holds at least two cards; exactly one card in To do
    carries the common "Blocked" label; at least one open card is overdue and one is due
    today or later; the signed-in user owns `mine_per_board` cards. Every open card has a
    due date, and no two cards share one, so "due soonest" is never a tie. Cards on the
    archived board are all done and never the user's.
    """
    vocab = _vocab()
    templates = {t["name"]: t for t in vocab["boards"]}
    common = vocab["common_label"]
    me = next(m for m in members if m.me)
    crew = [m for m in members if m.active and not m.me]
    active = [b for b in boards if not b.archived]
    past = list(range(-DUE_PAST, 0))
    future = list(range(DUE_FUTURE))
    rng.child("past").shuffle(past)
    rng.child("future").shuffle(future)
    reserved = {b.id: (past[i], future[i]) for i, b in enumerate(active)}
    pool = past[len(active) :] + future[len(active) :]
    rng.child("pool").shuffle(pool)
    taken: set[str] = set()
    out: list[Card] = []
    for board in boards:
        brng = rng.child(board.id)
        n = ARCHIVED_CARDS if board.archived else per_board
        titles = brng.child("titles").sample(templates[board.name]["titles"], n)
        if board.archived:
            columns = ["done"] * n
        else:
            columns = [*COLUMNS, *COLUMNS]
            columns += [brng.child("extra").choice(COLUMNS) for _ in range(n - 8)]
            brng.child("columns").shuffle(columns)
        order = list(range(n))
        brng.child("mine").shuffle(order)
        mine = set(order[:mine_per_board]) if not board.archived else set()
        open_idx = [i for i in range(n) if columns[i] != "done"]
        blocked = next((i for i in range(n) if columns[i] == "todo"), None)
        overdue_i, upcoming_i = (open_idx[0], open_idx[1]) if not board.archived else (-1, -1)
        plain_labels = [x for x in board.labels if x != common]
        details = brng.child("details")
        positions: dict[str, int] = {}
        for i, title in enumerate(titles):
            column = columns[i]
            labels = set(details.sample(plain_labels, details.choice((0, 1, 1, 2))))
            # one blocked card in To do; now and then another one in progress
            if not board.archived and (
                i == blocked or (column == "in_progress" and details.chance(0.3))
            ):
                labels.add(common)
            if i == overdue_i:
                due = _date(reserved[board.id][0])
            elif i == upcoming_i:
                due = _date(reserved[board.id][1])
            elif column != "done" or details.chance(0.6):
                due = _date(pool.pop())
            else:
                due = ""
            assignee = me if i in mine else details.choice(crew)
            positions[column] = positions.get(column, 0) + 1
            out.append(
                Card(
                    id=_slug_id("c", f"card:{title}", taken),
                    board_id=board.id,
                    column=column,
                    position=positions[column],
                    title=title,
                    description=details.choice(vocab["descriptions"]),
                    assignee=assignee.id,
                    labels=tuple(x for x in board.labels if x in labels),
                    priority=details.choice(PRIORITIES),
                    due=due,
                    mine=assignee.me,
                )
            )
    return tuple(out)


def _comments(
    rng: SeedStream, cards: Sequence[Card], members: Sequence[Member]
) -> tuple[Comment, ...]:
    vocab = _vocab()
    people = [m for m in members if m.active]
    out = []
    for card in cards:
        crng = rng.child(card.id)
        n = crng.choice((0, 0, 1, 1, 2))
        days = sorted((crng.randint(1, 20) for _ in range(n)), reverse=True)
        for i, ago in enumerate(days):
            out.append(
                Comment(
                    id=f"cm-{short_hash(f'{card.id}|{i}', 6).lower()}",
                    card_id=card.id,
                    author=crng.choice(people).id,
                    text=crng.choice(vocab["comments"]),
                    date=_date(-ago),
                )
            )
    return tuple(out)


def _files(rng: SeedStream) -> tuple[File, ...]:
    chosen = rng.sample(_vocab()["files"], FILE_COUNT)
    return tuple(sorted((File(str(n), int(s), str(k)) for n, s, k in chosen), key=lambda f: f.name))


def _attachments(
    rng: SeedStream, cards: Sequence[Card], files: Sequence[File]
) -> tuple[Attachment, ...]:
    return tuple(Attachment(c.id, rng.choice(files).name) for c in cards if rng.chance(0.25))


# --------------------------------------------------------------------- validation
def check_title(title: str, minimum: int, others: Sequence[str]) -> str:
    """The error key for a card title ('' when valid); `others` are the board's titles."""
    text = title.strip()
    if not text:
        return "required"
    if len(text) < minimum:
        return "title_short"
    if len(text) > 80:
        return "title_long"
    if text.lower() in {o.strip().lower() for o in others}:
        return "title_taken"
    return ""


def check_due(due: str, *, required: bool, allow_past: bool) -> str:
    text = due.strip()
    if not text:
        return "due_required" if required else ""
    if not _ISO.match(text):
        return "due_format"
    try:
        day = dt.date.fromisoformat(text)
    except ValueError:
        return "due_format"
    if not allow_past and day < dt.date.fromisoformat(TODAY):
        return "due_past"
    return ""


def validate_invite(
    values: Mapping[str, str], emails: Sequence[str], strict: bool
) -> dict[str, str]:
    """Field -> error key for the invitation form (empty when valid)."""
    errors: dict[str, str] = {}
    name = values.get("name", "").strip()
    if not name:
        errors["name"] = "required"
    elif (strict and not _FULL_NAME.match(name)) or len(name) < 2:
        errors["name"] = "name"
    email = values.get("email", "").strip().lower()
    if not email:
        errors["email"] = "required"
    elif not _EMAIL.match(email):
        errors["email"] = "email"
    elif email in emails:
        errors["email"] = "email_taken"
    if values.get("role") not in ACCESS:
        errors["role"] = "required"
    return errors


# ---------------------------------------------------------------------------- app
@dataclass
class LiveBoard:
    id: str
    name: str
    description: str
    archived: bool
    columns: tuple[str, ...]
    labels: tuple[str, ...]
    template: str = "review"
    visibility: str = "team"
    members: tuple[str, ...] = ()


@dataclass
class LiveCard:
    id: str
    board_id: str
    column: str
    position: int
    title: str
    description: str
    assignee: str
    labels: list[str]
    priority: str
    due: str
    archived: bool = False
    comments: list[tuple[str, str, str]] = field(default_factory=list)  # (author, text, date)
    attachments: list[str] = field(default_factory=list)
    activity: list[tuple[str, str]] = field(default_factory=list)  # (copy key, argument)


def _new_card_form(me: str) -> dict[str, str]:
    return {"title": "", "column": "todo", "assignee": me, "priority": "medium", "due": ""}


class KanbanApp(SiteApp):
    """The running workspace: boards, cards and their transitions."""

    family = "kanban"

    def __init__(self, site: Any) -> None:
        super().__init__(site)
        ent = self.spec.entities
        self.members: tuple[Member, ...] = ent["members"]
        self.by_member = {m.id: m for m in self.members}
        self.me = next(m for m in self.members if m.me)
        self.files: tuple[File, ...] = ent["files"]
        self.boards: dict[str, LiveBoard] = {
            b.id: LiveBoard(b.id, b.name, b.description, b.archived, b.columns, b.labels)
            for b in ent["boards"]
        }
        self.cards: dict[str, LiveCard] = {}
        for c in ent["cards"]:
            self.cards[c.id] = LiveCard(
                c.id,
                c.board_id,
                c.column,
                c.position,
                c.title,
                c.description,
                c.assignee,
                list(c.labels),
                c.priority,
                c.due,
            )
        for cm in ent["comments"]:
            self.cards[cm.card_id].comments.append((cm.author, cm.text, cm.date))
        for a in ent["attachments"]:
            self.cards[a.card_id].attachments.append(a.file)
        self.views: dict[str, dict[str, str]] = {bid: self._fresh_view() for bid in self.boards}
        # Unsaved edits, only for the cards someone started editing (state stays small).
        self.drafts: dict[str, dict[str, str]] = {}
        self.comment_drafts: dict[str, str] = {}
        self.forms: dict[str, dict[str, str]] = {
            "new_card": _new_card_form(self.me.id),
            "invite": {"name": "", "email": "", "role": "member"},
            "new_board": {
                "name": "",
                "description": "",
                "template": "review",
                "visibility": "team",
            },
        }
        self.board_team: dict[str, str] = {
            m.id: "true" if m.me else "false" for m in self.members if m.active
        }
        self.form_errors: dict[str, dict[str, str]] = {
            k: {} for k in ("new_card", "card", "comment", "invite", "new_board")
        }
        self.created: list[str] = []
        self.deleted: list[str] = []  # titles of deleted cards
        self.created_boards: list[str] = []
        self.invited: list[dict[str, str]] = []
        self.wizard_step = 1
        self.search_q = ""
        self.my_page = 1
        self.cal_month = TODAY[:7]
        self.cal_board = ""
        self.members_sort = "name-asc"
        self.format = {"bold": False, "italic": False}
        self.starred: list[str] = []
        self.watching: list[str] = []
        self.power_ups: list[str] = []
        self.difficulty = self.spec.difficulty

    @staticmethod
    def _fresh_view() -> dict[str, str]:
        return {"label": "", "assignee": "", "due": "", "q": "", "sort": "position"}

    # ------------------------------------------------------------------ queries
    def _page_kind(self, route: str) -> str:
        fixed = {
            "/": "boards",
            "/boards/new": "new_board",
            "/my-tasks": "my_tasks",
            "/calendar": "calendar",
            "/search": "search",
            "/members": "members",
        }
        if route in fixed:
            return fixed[route]
        head, _, rest = route[1:].partition("/")
        if head == "board" and rest in self.boards:
            return "board"
        if head == "card" and rest in self.cards:
            return "card"
        if head == "member" and rest in self.by_member:
            return "member"
        return "not_found"

    def _route_id(self, prefix: str) -> str:
        return self.route[len(prefix) :] if self.route.startswith(prefix) else ""

    def _route_board(self) -> LiveBoard | None:
        return self.boards.get(self._route_id("/board/"))

    def _route_card(self) -> LiveCard | None:
        return self.cards.get(self._route_id("/card/"))

    def _assignable(self) -> list[Member]:
        return [m for m in self.members if m.active]

    def _board_cards(self, bid: str) -> list[LiveCard]:
        return [c for c in self.cards.values() if c.board_id == bid and not c.archived]

    def _overdue(self, c: LiveCard) -> bool:
        return bool(c.due) and c.due < TODAY and c.column != "done"

    def _visible(self, board: LiveBoard) -> list[LiveCard]:
        """The board's cards after its filters, in its sort order."""
        view = self.views[board.id]
        q = view["q"].strip().lower()
        cards = [
            c
            for c in self._board_cards(board.id)
            if (not view["label"] or view["label"] in c.labels)
            and (not view["assignee"] or c.assignee == view["assignee"])
            and (view["due"] != "overdue" or self._overdue(c))
            and (not q or q in c.title.lower() or q in c.description.lower())
        ]
        if view["sort"] == "due-asc":
            cards.sort(key=lambda c: (c.due == "", c.due, c.position))
        elif view["sort"] == "priority-desc":
            cards.sort(key=lambda c: (-PRIORITIES.index(c.priority), c.position))
        else:
            cards.sort(key=lambda c: c.position)
        return cards

    def _editable(self, cid: str | None) -> LiveCard | None:
        """The card `cid` when it may be changed: it exists, is not archived, and its board
        is not archived."""
        card = self.cards.get(cid or "")
        if card is None or card.archived or self.boards[card.board_id].archived:
            return None
        return card

    def _my_cards(self) -> list[LiveCard]:
        mine = [
            c
            for c in self.cards.values()
            if c.assignee == self.me.id and not c.archived and not self.boards[c.board_id].archived
        ]
        mine.sort(key=lambda c: (c.due == "", c.due, c.title))
        return mine

    def _my_pages(self) -> int:
        return max(1, -(-len(self._my_cards()) // PAGE_SIZE))

    def _calendar_cards(self) -> list[LiveCard]:
        return [
            c
            for c in self.cards.values()
            if c.due
            and not c.archived
            and not self.boards[c.board_id].archived
            and (not self.cal_board or c.board_id == self.cal_board)
        ]

    def _agenda(self) -> list[LiveCard]:
        upcoming = [c for c in self._calendar_cards() if c.due >= TODAY and c.column != "done"]
        upcoming.sort(key=lambda c: (c.due, c.title))
        return upcoming[:AGENDA_SIZE]

    def _search(self) -> list[LiveCard]:
        q = self.search_q.strip().lower()
        if not q:
            return []
        found = [
            c
            for c in self.cards.values()
            if q in c.title.lower()
            or q in c.description.lower()
            or any(q == x.lower() for x in c.labels)
        ]
        found.sort(key=lambda c: (self.boards[c.board_id].archived, c.title.lower()))
        return found[:SEARCH_LIMIT]

    def _open_count(self, mid: str) -> int:
        return sum(
            1
            for c in self.cards.values()
            if c.assignee == mid
            and c.column != "done"
            and not c.archived
            and not self.boards[c.board_id].archived
        )

    def _member_rows(self) -> list[Member]:
        col, _, order = self.members_sort.partition("-")
        rows = list(self.members)
        if col == "open":
            rows.sort(key=lambda m: (self._open_count(m.id), m.name), reverse=order == "desc")
        else:
            rows.sort(key=lambda m: m.name, reverse=order == "desc")
        return rows

    def _next_position(self, bid: str, column: str) -> int:
        return 1 + max(
            (c.position for c in self.cards.values() if c.board_id == bid and c.column == column),
            default=0,
        )

    def _board_name(self, card: LiveCard) -> str:
        return self.boards[card.board_id].name

    def _name(self, mid: str) -> str:
        m = self.by_member.get(mid)
        return m.name if m else ""

    # -------------------------------------------------------------------- state
    def state(self) -> dict[str, Any]:
        my = self._my_cards()
        if self.v.list_mode == "infinite":
            shown = min(len(my), self.ui.more.get("my-tasks", 1) * PAGE_SIZE)
        else:
            shown = len(my[(self.my_page - 1) * PAGE_SIZE : self.my_page * PAGE_SIZE])
        last = self.cards.get(self.created[-1]) if self.created else None
        new_board = self.boards.get(self.created_boards[-1]) if self.created_boards else None
        viewed_member = self.by_member.get(self._route_id("/member/"))
        return {
            "route": self.route,
            "page": self._page_kind(self.route),
            "user": {"id": self.me.id, "name": self.me.name},
            "board": self._board_state(),
            "card": self._viewed_card_state(),
            "views": {bid: dict(v) for bid, v in self.views.items()},
            "boards": {
                b.id: {
                    "name": b.name,
                    "archived": b.archived,
                    "cards": len(self._board_cards(b.id)),
                }
                for b in self.boards.values()
            },
            "cards": {cid: self._card_json(c) for cid, c in self.cards.items()},
            "created": {
                "count": len(self.created),
                "last": {
                    "id": last.id if last else "",
                    "title": last.title if last else "",
                    "board": last.board_id if last else "",
                    "column": last.column if last else "",
                    "assignee": last.assignee if last else "",
                    "assignee_name": self._name(last.assignee) if last else "",
                    "priority": last.priority if last else "",
                    "due": last.due if last else "",
                },
            },
            "deleted": {"count": len(self.deleted), "titles": list(self.deleted)},
            "new_board": {
                "count": len(self.created_boards),
                "last": {
                    "id": new_board.id if new_board else "",
                    "name": new_board.name if new_board else "",
                    "template": new_board.template if new_board else "",
                    "visibility": new_board.visibility if new_board else "",
                    "members": list(new_board.members) if new_board else [],
                },
            },
            "wizard": {"step": self.wizard_step},
            "member": {
                "id": viewed_member.id if viewed_member else "",
                "name": viewed_member.name if viewed_member else "",
                "active": viewed_member.active if viewed_member else False,
                "open": self._open_count(viewed_member.id) if viewed_member else 0,
            },
            "members": {
                "sort": self.members_sort,
                "active": len(self._assignable()),
                "invited": [i["email"] for i in self.invited],
            },
            "search": {"q": self.search_q, "count": len(self._search())},
            "my_tasks": {
                "count": len(my),
                "page": self.my_page,
                "pages": self._my_pages(),
                "shown": shown,
            },
            "calendar": {
                "month": self.cal_month,
                "board": self.cal_board,
                "next": [c.title for c in self._agenda()],
            },
            "forms": {
                "new_card": dict(self.forms["new_card"]),
                "cards": {cid: dict(d) for cid, d in self.drafts.items()},
                "comments": dict(self.comment_drafts),
                "invite": dict(self.forms["invite"]),
                "new_board": {**self.forms["new_board"], "members": dict(self.board_team)},
            },
            "validation": {k: {"errors": dict(v)} for k, v in self.form_errors.items()},
            "editors": {"description": dict(self.format)},
            "starred": list(self.starred),
            "watching": list(self.watching),
            "power_ups": list(self.power_ups),
        }

    def _card_json(self, c: LiveCard) -> dict[str, Any]:
        board = self.boards[c.board_id]
        return {
            "title": c.title,
            "board": c.board_id,
            "column": c.column,
            "position": c.position,
            "assignee": c.assignee,
            "assignee_name": self._name(c.assignee),
            "labels": list(c.labels),
            "label_state": {x: "true" if x in c.labels else "false" for x in board.labels},
            "priority": c.priority,
            "due": c.due,
            "overdue": self._overdue(c),
            "archived": c.archived,
            "description": c.description,
            "comments": len(c.comments),
            "last_comment": c.comments[-1][1] if c.comments else "",
            "attachments": list(c.attachments),
        }

    def _board_state(self) -> dict[str, Any]:
        card = self._route_card()
        board = self._route_board() or (self.boards[card.board_id] if card else None)
        if board is None:
            return {
                "id": "",
                "name": "",
                "archived": False,
                "columns": [],
                "overdue": 0,
                "total": 0,
                "count": 0,
            }
        cards = self._board_cards(board.id)
        return {
            "id": board.id,
            "name": board.name,
            "archived": board.archived,
            "columns": list(board.columns),
            "overdue": sum(1 for c in cards if self._overdue(c)),
            "total": len(cards),
            "count": len(self._visible(board)) if self._route_board() else 0,
        }

    def _viewed_card_state(self) -> dict[str, Any]:
        c = self._route_card()
        if c is None:
            return {
                "id": "",
                "title": "",
                "column": "",
                "assignee": "",
                "assignee_name": "",
                "priority": "",
                "due": "",
                "labels": [],
                "archived": False,
                "read_only": False,
                "comments": 0,
                "last_comment": "",
                "attachments": [],
            }
        j = self._card_json(c)
        return {
            "id": c.id,
            **{
                k: j[k]
                for k in (
                    "title",
                    "column",
                    "assignee",
                    "assignee_name",
                    "priority",
                    "due",
                    "labels",
                    "archived",
                    "comments",
                    "last_comment",
                    "attachments",
                )
            },
            "read_only": self.boards[c.board_id].archived or c.archived,
        }

    # ----------------------------------------------------------------- handlers
    @handler("view_filter")
    def on_view_filter(self, ev: AppEvent) -> str | None:
        bid, _, name = (ev.arg or "").partition(":")
        board, value = self.boards.get(bid), ev.value or ""
        if board is None or name not in ("label", "assignee", "due"):
            return None
        allowed = {
            "label": list(board.labels),
            "assignee": [m.id for m in self._assignable()],
            "due": ["overdue"],
        }[name]
        if value == "" or value in allowed:
            self.views[bid][name] = value
        return None

    @handler("view_sort")
    def on_view_sort(self, ev: AppEvent) -> str | None:
        if ev.arg in self.views and ev.value in SORTS:
            self.views[ev.arg or ""]["sort"] = ev.value or ""
        return None

    @handler("view_q")
    def on_view_q(self, ev: AppEvent) -> str | None:
        if ev.arg in self.views:
            self.views[ev.arg or ""]["q"] = (ev.value or "")[:100]
        return None

    @handler("search")
    def on_search(self, ev: AppEvent) -> str | None:
        self.search_q = (ev.value or "")[:100]
        return None

    @handler("my_page")
    def on_my_page(self, ev: AppEvent) -> str | None:
        arg = ev.arg or ""
        if arg.isdigit() and 1 <= int(arg) <= self._my_pages():
            self.my_page = int(arg)
        return None

    @handler("cal_month")
    def on_cal_month(self, ev: AppEvent) -> str | None:
        if ev.arg in ("+1", "-1"):
            self.cal_month = _shift_month(self.cal_month, int(ev.arg or 0))
        return None

    @handler("cal_board")
    def on_cal_board(self, ev: AppEvent) -> str | None:
        value = ev.value or ""
        if value == "" or (value in self.boards and not self.boards[value].archived):
            self.cal_board = value
        return None

    @handler("members_sort")
    def on_members_sort(self, ev: AppEvent) -> str | None:
        col, _, order = (ev.arg or "").partition("=")
        if col in ("name", "open") and order in ("asc", "desc"):
            self.members_sort = f"{col}-{order}"
        return None

    @handler("field")
    def on_field(self, ev: AppEvent) -> str | None:
        form, _, name = (ev.arg or "").partition(".")
        texts = {
            "new_card": ("title",),
            "invite": ("name", "email"),
            "new_board": ("name", "description"),
        }
        if name not in texts.get(form, ()):
            return None
        self.forms[form][name] = (ev.value or "")[: 500 if name == "description" else 200]
        self._revalidate(form, name)
        return None

    @handler("choice")
    def on_choice(self, ev: AppEvent) -> str | None:
        form, _, name = (ev.arg or "").partition(".")
        value = ev.value or ""
        allowed: dict[tuple[str, str], Sequence[str]] = {
            ("new_card", "column"): sorted({c for b in self.boards.values() for c in b.columns}),
            ("new_card", "assignee"): [m.id for m in self._assignable()],
            ("new_card", "priority"): PRIORITIES,
            ("invite", "role"): ACCESS,
            ("new_board", "template"): tuple(TEMPLATES),
            ("new_board", "visibility"): VISIBILITY,
        }
        if value in allowed.get((form, name), ()):
            self.forms[form][name] = value
            self._revalidate(form, name)
        return None

    @handler("new_card_due")
    def on_new_card_due(self, ev: AppEvent) -> str | None:
        self.forms["new_card"]["due"] = (ev.value or "")[:20]
        self._revalidate("new_card", "due")
        return None

    def _revalidate(self, form: str, name: str) -> None:
        """Sync validation: a field's error follows its value while the user edits it."""
        if self.v.validation != "sync":
            return
        errors = self.form_errors[form]
        if not self.forms[form].get(name, "").strip() and name not in errors:
            return  # an untouched empty field is not an error yet
        if form == "new_card":
            board = self._route_board()
            full = self._check_new_card(board) if board else {}
        elif form == "invite":
            full = validate_invite(
                self.forms["invite"], self._taken_emails(), self.difficulty == "hard"
            )
        else:
            full = self._check_board_name()
        if name in full:
            errors[name] = full[name]
        else:
            errors.pop(name, None)

    def _check_new_card(self, board: LiveBoard) -> dict[str, str]:
        f = self.forms["new_card"]
        errors = {}
        title = check_title(
            f["title"], TITLE_MIN[self.difficulty], [c.title for c in self._board_cards(board.id)]
        )
        if title:
            errors["title"] = title
        due = check_due(f["due"], required=self.difficulty == "hard", allow_past=False)
        if due:
            errors["due"] = due
        if f["column"] not in board.columns:
            errors["column"] = "required"
        if f["assignee"] not in [m.id for m in self._assignable()]:
            errors["assignee"] = "required"
        return errors

    def _check_board_name(self) -> dict[str, str]:
        name = self.forms["new_board"]["name"].strip()
        if not name:
            return {"name": "required"}
        if len(name) < BOARD_NAME_MIN[self.difficulty]:
            return {"name": "board_short"}
        if len(name) > 40:
            return {"name": "board_long"}
        if name.lower() in {b.name.lower() for b in self.boards.values()}:
            return {"name": "board_taken"}
        return {}

    def _taken_emails(self) -> list[str]:
        return [m.email for m in self.members] + [i["email"] for i in self.invited]

    @handler("create_card", mutating=True)
    def on_create_card(self, ev: AppEvent) -> str | None:
        board = self._route_board()
        if board is None or board.archived:
            return None
        f = self.forms["new_card"]
        for name in ("title", "due"):
            if ev.values is not None and name in ev.values:
                f[name] = ev.values[name][:200]
        errors = self._check_new_card(board)
        self.form_errors["new_card"] = errors
        if errors:
            return None
        cid = _slug_id("c", f"{self.spec.seed}|new-card|{len(self.created)}", set(self.cards))
        card = LiveCard(
            cid,
            board.id,
            f["column"],
            self._next_position(board.id, f["column"]),
            f["title"].strip(),
            "",
            f["assignee"],
            [],
            f["priority"],
            f["due"].strip(),
        )
        self.cards[cid] = card
        self.created.append(cid)
        self.flash = self.copy("new_card.created", title=card.title)
        self.forms["new_card"] = _new_card_form(self.me.id)
        self.ui.modal = None
        return None

    def _draft(self, cid: str) -> dict[str, str]:
        """The unsaved edit of card `cid` (started from its saved values)."""
        if cid not in self.drafts:
            c = self.cards[cid]
            self.drafts[cid] = {"title": c.title, "description": c.description, "due": c.due}
        return self.drafts[cid]

    @handler("card_field")
    def on_card_field(self, ev: AppEvent) -> str | None:
        cid, _, name = (ev.arg or "").partition(":")
        if self._editable(cid) is not None and name in ("title", "description"):
            self._draft(cid)[name] = (ev.value or "")[: 2000 if name == "description" else 200]
            if self.v.validation == "sync" and name == "title":
                card = self.cards[cid]
                err = check_title(
                    self.drafts[cid]["title"],
                    TITLE_MIN[self.difficulty],
                    [c.title for c in self._board_cards(card.board_id) if c.id != cid],
                )
                self._set_error("card", f"{cid}:title", err)
        return None

    @handler("card_due")
    def on_card_due(self, ev: AppEvent) -> str | None:
        if self._editable(ev.arg) is not None:
            self._draft(ev.arg or "")["due"] = (ev.value or "")[:20]
        return None

    def _set_error(self, form: str, name: str, err: str) -> None:
        if err:
            self.form_errors[form][name] = err
        else:
            self.form_errors[form].pop(name, None)

    @handler("format")
    def on_format(self, ev: AppEvent) -> str | None:
        _, _, style = (ev.arg or "").partition("=")
        if style in self.format:
            self.format[style] = not self.format[style]
        return None

    @handler("save_card", mutating=True)
    def on_save_card(self, ev: AppEvent) -> str | None:
        card = self._editable(self._route_id("/card/"))
        if card is None:
            return None
        draft = self._draft(card.id)
        for name, limit in (("title", 200), ("description", 2000), ("due", 20)):
            if ev.values is not None and name in ev.values:
                draft[name] = ev.values[name][:limit]
        title = check_title(
            draft["title"],
            TITLE_MIN[self.difficulty],
            [c.title for c in self._board_cards(card.board_id) if c.id != card.id],
        )
        due = check_due(draft["due"], required=False, allow_past=True)
        self._set_error("card", f"{card.id}:title", title)
        self._set_error("card", f"{card.id}:due", due)
        if title or due:
            return None
        card.title, card.description = draft["title"].strip(), draft["description"].strip()
        card.due = draft["due"].strip()
        draft.update(title=card.title, description=card.description, due=card.due)
        card.activity.append(("log_edited", ""))
        self.flash = self.copy("card.saved")
        return None

    @handler("move_card", mutating=True)
    def on_move(self, ev: AppEvent) -> str | None:
        card = self._editable(ev.arg)
        if (
            card is not None
            and ev.value in self.boards[card.board_id].columns
            and ev.value != card.column
        ):
            card.column = ev.value or ""
            card.position = self._next_position(card.board_id, card.column)
            card.activity.append(("log_moved", card.column))
            self.flash = self.copy("card.moved", column=self.copy(f"columns.{card.column}"))
        return None

    @handler("set_assignee", mutating=True)
    def on_assignee(self, ev: AppEvent) -> str | None:
        card = self._editable(ev.arg)
        if card is not None and ev.value in [m.id for m in self._assignable()]:
            card.assignee = ev.value or ""
            card.activity.append(("log_assigned", card.assignee))
        return None

    @handler("set_priority", mutating=True)
    def on_priority(self, ev: AppEvent) -> str | None:
        card = self._editable(ev.arg)
        if card is not None and ev.value in PRIORITIES:
            card.priority = ev.value or ""
            card.activity.append(("log_priority", card.priority))
        return None

    @handler("toggle_label", mutating=True)
    def on_label(self, ev: AppEvent) -> str | None:
        cid, _, label = (ev.arg or "").partition(":")
        card = self._editable(cid)
        if card is None or label not in self.boards[card.board_id].labels:
            return None
        if ev.value == "true" and label not in card.labels:
            order = self.boards[card.board_id].labels
            card.labels = [x for x in order if x in card.labels or x == label]
            card.activity.append(("log_label_on", label))
        elif ev.value == "false" and label in card.labels:
            card.labels.remove(label)
            card.activity.append(("log_label_off", label))
        return None

    @handler("attach", mutating=True)
    def on_attach(self, ev: AppEvent) -> str | None:
        card = self._editable(ev.arg)
        if (
            card is not None
            and ev.value in [f.name for f in self.files]
            and ev.value not in card.attachments
        ):
            card.attachments.append(ev.value or "")
            card.activity.append(("log_attached", ev.value or ""))
        return None

    @handler("comment_field")
    def on_comment_field(self, ev: AppEvent) -> str | None:
        if self._editable(ev.arg) is not None:
            self.comment_drafts[ev.arg or ""] = (ev.value or "")[:1000]
            if self.v.validation == "sync":
                cid, text = ev.arg or "", self.comment_drafts[ev.arg or ""].strip()
                shown = cid in self.form_errors["comment"]
                self._set_error(
                    "comment",
                    cid,
                    "comment_long" if len(text) > 500 else "required" if not text and shown else "",
                )
        return None

    @handler("add_comment", mutating=True)
    def on_add_comment(self, ev: AppEvent) -> str | None:
        card = self._editable(self._route_id("/card/"))
        if card is None:
            return None
        if ev.values is not None and "comment" in ev.values:
            self.comment_drafts[card.id] = ev.values["comment"][:1000]
        text = self.comment_drafts.get(card.id, "").strip()
        err = "required" if not text else "comment_long" if len(text) > 500 else ""
        self._set_error("comment", card.id, err)
        if err:
            return None
        card.comments.append((self.me.id, text, TODAY))
        self.comment_drafts.pop(card.id, None)
        self.flash = self.copy("card.commented")
        return None

    @handler("archive_card", mutating=True)
    def on_archive(self, ev: AppEvent) -> str | None:
        card = self._editable(ev.arg)
        if card is not None:
            card.archived = True
            card.activity.append(("log_archived", ""))
        return None

    @handler("restore_card", mutating=True)
    def on_restore(self, ev: AppEvent) -> str | None:
        card = self.cards.get(ev.arg or "")
        if card is not None and card.archived and not self.boards[card.board_id].archived:
            card.archived = False
            card.position = self._next_position(card.board_id, card.column)
            card.activity.append(("log_restored", ""))
        return None

    @handler("delete_card", mutating=True)
    def on_delete(self, ev: AppEvent) -> str | None:
        card = self.cards.get(ev.arg or "")
        self.ui.modal = None
        if card is None or self.boards[card.board_id].archived:
            return None
        del self.cards[card.id]
        self.drafts.pop(card.id, None)
        self.comment_drafts.pop(card.id, None)
        self.deleted.append(card.title)
        if card.id in self.created:
            self.created.remove(card.id)
        self.flash = self.copy("card.deleted", title=card.title)
        return f"/board/{card.board_id}"

    @handler("invite", mutating=True)
    def on_invite(self, ev: AppEvent) -> str | None:
        f = self.forms["invite"]
        for name in ("name", "email"):
            if ev.values is not None and name in ev.values:
                f[name] = ev.values[name][:200]
        errors = validate_invite(f, self._taken_emails(), self.difficulty == "hard")
        self.form_errors["invite"] = errors
        if errors:
            return None
        email = f["email"].strip().lower()
        self.invited.append({"name": f["name"].strip(), "email": email, "role": f["role"]})
        self.flash = self.copy("members.invite_ok", email=email)
        self.forms["invite"] = {"name": "", "email": "", "role": "member"}
        self.ui.modal = None
        return None

    @handler("wizard_next")
    def on_wizard_next(self, ev: AppEvent) -> str | None:
        f = self.forms["new_board"]
        if self.wizard_step == 1:
            for name in ("name", "description"):
                if ev.values is not None and name in ev.values:
                    f[name] = ev.values[name][: 500 if name == "description" else 200]
            self.form_errors["new_board"] = self._check_board_name()
            if self.form_errors["new_board"]:
                return None
        if self.wizard_step in (1, 2):
            self.wizard_step += 1
        return None

    @handler("wizard_back")
    def on_wizard_back(self, ev: AppEvent) -> str | None:
        if self.wizard_step in (2, 3):
            self.wizard_step -= 1
        return None

    @handler("wizard_member")
    def on_wizard_member(self, ev: AppEvent) -> str | None:
        if ev.arg in self.board_team and ev.value in ("true", "false"):
            self.board_team[ev.arg or ""] = ev.value or ""
        return None

    @handler("create_board", mutating=True)
    def on_create_board(self, ev: AppEvent) -> str | None:
        if self.wizard_step != 3:
            return None
        errors = self._check_board_name()
        self.form_errors["new_board"] = errors
        if errors:
            self.wizard_step = 1
            return None
        f = self.forms["new_board"]
        bid = _slug_id(
            "b", f"{self.spec.seed}|new-board|{len(self.created_boards)}", set(self.boards)
        )
        self.boards[bid] = LiveBoard(
            bid,
            f["name"].strip(),
            f["description"].strip(),
            False,
            TEMPLATES[f["template"]],
            (_vocab()["common_label"],),
            template=f["template"],
            visibility=f["visibility"],
            members=tuple(mid for mid, on in self.board_team.items() if on == "true"),
        )
        self.views[bid] = self._fresh_view()
        self.created_boards.append(bid)
        self.wizard_step = 4
        self.flash = self.copy("wizard.created", name=f["name"].strip())
        return f"/board/{bid}"

    @handler("wizard_restart")
    def on_wizard_restart(self, ev: AppEvent) -> str | None:
        if self.wizard_step == 4:
            self.wizard_step = 1
            self.forms["new_board"] = {
                "name": "",
                "description": "",
                "template": "review",
                "visibility": "team",
            }
            self.board_team = {m.id: "true" if m.me else "false" for m in self._assignable()}
        return None

    # distractors: they work, but no task needs them
    @handler("star", mutating=True)
    def on_star(self, ev: AppEvent) -> str | None:
        if ev.arg in self.boards:
            if ev.arg in self.starred:
                self.starred.remove(ev.arg or "")
            else:
                self.starred.append(ev.arg or "")
        return None

    @handler("watch", mutating=True)
    def on_watch(self, ev: AppEvent) -> str | None:
        if ev.arg in self.cards and ev.arg not in self.watching:
            self.watching.append(ev.arg or "")
        return None

    @handler("power_up", mutating=True)
    def on_power_up(self, ev: AppEvent) -> str | None:
        if (ev.arg in self.boards or ev.arg == "templates") and ev.arg not in self.power_ups:
            self.power_ups.append(ev.arg or "")
        return None

    # ---------------------------------------------------------------- rendering
    def header(self, r: Renderer) -> str:
        c = self.copy
        entries = [
            ("/", c("nav.boards")),
            ("/my-tasks", c("nav.my_tasks")),
            ("/calendar", c("nav.calendar")),
            ("/search", c("nav.search")),
            ("/members", c("nav.members")),
        ]
        nav = w.site_nav(r, entries, label=c("nav.label"))
        who = f'<span class="muted who">{esc(c("nav.signed_in", name=self.me.name))}</span>'
        return f'<span class="brand">{esc(self.spec.brand)}</span>{nav}{who}'

    def _form_choice(
        self,
        r: Renderer,
        form: str,
        name: str,
        *,
        label: str,
        options: Sequence[Option],
        effect: Predicate | None,
        html_form: str = "",
    ) -> str:
        """A choice of the draft `self.forms[form][name]` (the `choice` handler keeps it),
        in the HTML form `html_form` (`form` unless a wizard step names its own)."""
        return self._choice(
            r,
            sid=f"choice:{form}.{name}",
            kind="Choice",
            name=name,
            label=label,
            options=options,
            selected=self.forms[form][name],
            handler="choice",
            arg=f"{form}.{name}",
            effect=effect,
            attrs_={"form": html_form or form},
        )

    def _choice(
        self,
        r: Renderer,
        *,
        sid: str,
        kind: str,
        name: str,
        label: str,
        options: Sequence[Option],
        selected: str,
        handler: str,
        arg: str | None,
        effect: Predicate | None,
        attrs_: Mapping[str, AttrValue] | None = None,
        helper: str = "",
    ) -> str:
        return w.choice(
            r,
            sid=sid,
            kind=kind,
            name=name,
            label=label,
            options=options,
            selected=selected,
            handler=handler,
            arg=arg,
            effect=effect,
            attrs_=attrs_,
            is_open=sid in self.ui.open,
            helper=helper,
        )

    def _modal_open(self, name: str) -> bool:
        # While a failed change waits for Retry, the banner (behind any dialog) must be
        # reachable: the dialog stays closed until the change goes through.
        return self.ui.modal == name and self.failed is None

    def _field_order(self, names: tuple[str, ...], key: str) -> list[str]:
        ordered = list(names)
        if self.v.field_order == "shuffled":
            SeedStream(self.spec.seed).child("layout").child(f"fields:{key}").shuffle(ordered)
        return ordered

    def _err(self, form: str, name: str) -> str:
        key = self.form_errors[form].get(name, "")
        if not key:
            return ""
        n = BOARD_NAME_MIN[self.difficulty] if form == "new_board" else TITLE_MIN[self.difficulty]
        return self.copy(f"errors.{key}", n=n)

    def _fix_banner(self, form: str, prefix: str = "") -> str:
        if not any(k.startswith(prefix) for k in self.form_errors[form]):
            return ""
        return f'<p class="error-summary" role="alert">{esc(self.copy("new_card.fix"))}</p>'

    def _column_options(self, columns: Sequence[str]) -> list[Option]:
        return [
            Option(col, self.copy(f"columns.{col}"), aliases=COLUMN_ALIASES[col]) for col in columns
        ]

    def _member_options(self) -> list[Option]:
        return [
            Option(m.id, m.name, aliases=("me", "myself") if m.me else ())
            for m in self._assignable()
        ]

    def _priority_options(self) -> list[Option]:
        return [Option(p, self.copy(f"priority.{p}")) for p in PRIORITIES]

    def _card_attrs(self, c: LiveCard, rank: int) -> dict[str, AttrValue]:
        return {
            "type": "card",
            "id": c.id,
            "title": c.title,
            "board": self.boards[c.board_id].name,
            "column": c.column,
            "assignee": self._name(c.assignee),
            "labels": ", ".join(c.labels),
            "priority": c.priority,
            "due": c.due,
            "overdue": self._overdue(c),
            "rank": rank,
        }

    def _card_meta(self, c: LiveCard) -> str:
        """The small print of a card: assignee, due date (overdue in red), priority."""
        co = self.copy
        due = ""
        if c.due:
            due = f'<span class="due">{esc(co("board.due", date=c.due))}</span>'
            if self._overdue(c):
                due += f' <span class="overdue">{esc(co("board.overdue"))}</span>'
        return (
            f'<span class="who">{esc(self._name(c.assignee))}</span>{due}'
            f'<span class="prio prio-{c.priority}">{esc(co(f"priority.{c.priority}"))}</span>'
        )

    def _chips(self, labels: Sequence[str]) -> str:
        if not labels:
            return ""
        return (
            '<div class="chips">'
            + "".join(f'<span class="chip">{esc(x)}</span>' for x in labels)
            + "</div>"
        )

    # boards list ------------------------------------------------------------
    def _render_boards(self, r: Renderer, route: str) -> tuple[str, str]:
        c = self.copy
        tab = self.ui.tabs.get("boards", "active")
        shown = [b for b in self.boards.values() if b.archived == (tab == "archived")]
        tiles = "".join(self._board_tile(r, b, i + 1) for i, b in enumerate(shown))
        panel = (
            f'<div class="board-grid">{tiles}</div>'
            if tiles
            else f'<p class="muted">{esc(c("boards.none_archived"))}</p>'
        )
        tabs = w.tabs(
            r,
            group="boards",
            active=tab,
            panel=panel,
            label=c("boards.tabs"),
            items=[("active", c("boards.active")), ("archived", c("boards.archived"))],
        )
        new = w.link(r, sid="boards:new", href="/boards/new", text=c("boards.new"), class_="button")
        help_ = f'<p class="hint">{esc(c("boards.help"))}</p>' if self.v.helper_text == "on" else ""
        promo = ""
        if self.v.distractors == "many":
            promo = (
                '<aside class="promo distractor">'
                + w.button(
                    r,
                    sid="promo:templates",
                    text=c("distractors.template"),
                    handler="power_up",
                    arg="templates",
                    variant="secondary",
                    attrs_={"role": "templates", "distractor": True},
                    effect=Contains(("power_ups",), "templates"),
                )
                + "</aside>"
            )
        title = c("boards.title")
        return title, (
            f"<h1>{esc(title)}</h1>{w.toast(self.flash)}{help_}"
            f'<p class="actions">{new}</p>{tabs}{promo}'
        )

    def _board_tile(self, r: Renderer, b: LiveBoard, rank: int) -> str:
        c = self.copy
        n = len(self._board_cards(b.id))
        link = w.link(
            r,
            sid=f"board:{b.id}",
            href=f"/board/{b.id}",
            text=b.name,
            kind="Item",
            class_="title",
            attrs_={
                "type": "board",
                "id": b.id,
                "name": b.name,
                "archived": b.archived,
                "cards": n,
                "rank": rank,
            },
        )
        count = c("boards.count_one") if n == 1 else c("boards.count_many", n=n)
        badge = (
            f'<span class="badge">{esc(c("boards.archived_badge"))}</span>' if b.archived else ""
        )
        star = ""
        if self.v.distractors != "none":
            star = w.button(
                r,
                sid=f"star:{b.id}",
                text=c("distractors.star"),
                handler="star",
                arg=b.id,
                variant="secondary",
                icon="☆",
                attrs_={"role": "star", "board": b.name, "distractor": True},
                effect=Contains(("starred",), b.id),
            )
        return (
            f'<article class="board-tile">{link}{badge}'
            f'<p class="muted">{esc(b.description)}</p>'
            f'<span class="muted">{esc(count)}</span>{star}</article>'
        )

    # board ---------------------------------------------------------------------
    def _render_board(self, r: Renderer, route: str) -> tuple[str, str]:
        c = self.copy
        board = self.boards[route[len("/board/") :]]
        view = self.views[board.id]
        crumbs = w.breadcrumbs(
            r, [(c("board.root"), "/"), (board.name, None)], label=c("board.crumbs")
        )
        add = ""
        if not board.archived and self.v.form_mode == "modal":
            add = (
                w.modal(
                    r,
                    name="new_card",
                    title=c("new_card.heading"),
                    body=self._new_card_form(r, board),
                    close_text=c("new_card.close"),
                )
                if self._modal_open("new_card")
                else w.modal_opener(
                    r, name="new_card", text=c("new_card.open"), attrs_={"form": "new_card"}
                )
            )
        others = [b for b in self.boards.values() if not b.archived and b.id != board.id]
        switch = (
            w.nested_menu(
                r,
                name="switch",
                open_keys=self.ui.open,
                label=c("board.menu"),
                items=[
                    w.MenuItem(
                        "boards",
                        c("board.switch"),
                        children=tuple(
                            w.MenuItem(b.id, b.name, href=f"/board/{b.id}") for b in others
                        ),
                    )
                ],
            )
            if others
            else ""
        )
        banner = (
            f'<p class="error-summary" role="status">{esc(c("board.archived_banner"))}</p>'
            if board.archived
            else ""
        )
        label_sel = self._choice(
            r,
            sid="filter:label",
            kind="Filter",
            name="label",
            label=c("board.label"),
            options=[
                Option("", c("board.all_labels"), aliases=("all", "any")),
                *(Option(x, x) for x in board.labels),
            ],
            selected=view["label"],
            handler="view_filter",
            arg=f"{board.id}:label",
            effect=Eq(("views", board.id, "label"), Ref("value")),
        )
        who_sel = self._choice(
            r,
            sid="filter:assignee",
            kind="Filter",
            name="assignee",
            label=c("board.assignee"),
            options=[
                Option("", c("board.anyone"), aliases=("all", "any", "anyone")),
                *self._member_options(),
            ],
            selected=view["assignee"],
            handler="view_filter",
            arg=f"{board.id}:assignee",
            effect=Eq(("views", board.id, "assignee"), Ref("value")),
        )
        due_sel = self._choice(
            r,
            sid="filter:due",
            kind="Filter",
            name="due",
            label=c("board.due_filter"),
            options=[
                Option("", c("board.any_due"), aliases=("all", "any")),
                Option("overdue", c("board.overdue_only"), aliases=("overdue", "late")),
            ],
            selected=view["due"],
            handler="view_filter",
            arg=f"{board.id}:due",
            effect=Eq(("views", board.id, "due"), Ref("value")),
        )
        search = w.text_field(
            r,
            sid="field:board.q",
            name="q",
            label=c("board.search"),
            value=view["q"],
            handler="view_q",
            arg=board.id,
            effect=Eq(("views", board.id, "q"), Ref("value")),
            form="board-filter",
            helper=c("board.search_help"),
            input_type="search",
        )
        sort_sel = self._choice(
            r,
            sid="sort",
            kind="Sort",
            name="sort",
            label=c("board.sort"),
            options=[
                Option(s, c(f"sort.{s}"), tuple(sorted(SORT_ATTRS[s].items())), SORT_ALIASES[s])
                for s in SORTS
            ],
            selected=view["sort"],
            handler="view_sort",
            arg=board.id,
            effect=Eq(("views", board.id, "sort"), Ref("value")),
        )
        columns = r.subregion("cards", self._columns_html(r, board), class_="board-cards")
        inline = ""
        if not board.archived and self.v.form_mode == "inline":
            inline = (
                f'<section class="new-card"><h2>{esc(c("new_card.heading"))}</h2>'
                f"{self._new_card_form(r, board)}</section>"
            )
        power = ""
        if self.v.distractors == "many" and not board.archived:
            power = (
                '<aside class="promo distractor">'
                f"<p>{esc(c('distractors.power_up_text'))}</p>"
                + w.button(
                    r,
                    sid=f"power-up:{board.id}",
                    text=c("distractors.power_up"),
                    handler="power_up",
                    arg=board.id,
                    variant="secondary",
                    attrs_={"role": "power-up", "distractor": True},
                    effect=Contains(("power_ups",), board.id),
                )
                + "</aside>"
            )
        return board.name, (
            f'{crumbs}<div class="board-head"><h1>{esc(board.name)}</h1>{add}{switch}</div>'
            f'<p class="muted">{esc(board.description)}</p>{banner}{w.toast(self.flash)}'
            f'<div class="toolbar">{label_sel}{who_sel}{due_sel}{search}{sort_sel}</div>'
            f"{columns}{inline}{power}"
        )

    def _columns_html(self, r: Renderer, board: LiveBoard) -> str:
        c = self.copy
        visible = self._visible(board)
        by_column: dict[str, list[LiveCard]] = {col: [] for col in board.columns}
        for card in visible:
            by_column[card.column].append(card)
        cols = []
        for col in board.columns:
            cards = by_column[col]
            items = "".join(
                f'<article class="kcard">{self._chips(card.labels)}'
                + w.link(
                    r,
                    sid=f"card:{card.id}",
                    href=f"/card/{card.id}",
                    text=card.title,
                    kind="Item",
                    class_="title",
                    attrs_=self._card_attrs(card, rank),
                )
                + f'<div class="meta">{self._card_meta(card)}</div></article>'
                for rank, card in enumerate(cards, 1)
            )
            body = items or f'<p class="muted">{esc(c("board.empty_column"))}</p>'
            cols.append(
                f'<section class="kcol"><h2>{esc(c(f"columns.{col}"))} '
                f'<span class="muted">{len(cards)}</span></h2>{body}</section>'
            )
        n = len(visible)
        count = c("board.shown_one") if n == 1 else c("board.shown_many", n=n)
        return (
            f'<p class="muted" role="status">{esc(count)}</p>'
            f'<div class="kboard">{"".join(cols)}</div>'
        )

    def _new_card_form(self, r: Renderer, board: LiveBoard) -> str:
        c = self.copy
        f = self.forms["new_card"]

        def either(name: str) -> Predicate:
            # the draft holds the value, or the card just created from it does
            return Any_(
                (
                    Eq(("forms", "new_card", name), Ref("value")),
                    Eq(("created", "last", name), Ref("value")),
                )
            )

        fields = {
            "title": w.text_field(
                r,
                sid="field:new_card.title",
                name="title",
                label=c("new_card.title"),
                value=f["title"],
                handler="field",
                arg="new_card.title",
                effect=either("title"),
                form="new_card",
                error=self._err("new_card", "title"),
                helper=c("new_card.title_help"),
                maxlength=120,
            ),
            "column": self._form_choice(
                r,
                "new_card",
                "column",
                label=c("new_card.column"),
                options=self._column_options(board.columns),
                effect=either("column"),
            ),
            "assignee": self._form_choice(
                r,
                "new_card",
                "assignee",
                label=c("new_card.assignee"),
                options=self._member_options(),
                effect=either("assignee"),
            ),
            "priority": self._form_choice(
                r,
                "new_card",
                "priority",
                label=c("new_card.priority"),
                options=self._priority_options(),
                effect=either("priority"),
            ),
            "due": w.date_picker(
                r,
                sid="date:new_card.due",
                name="due",
                label=c("new_card.due"),
                value=f["due"],
                handler="new_card_due",
                arg="new_card.due",
                effect=either("due"),
                form="new_card",
                month=self.month_of("due"),
                is_open="date:new_card.due" in self.ui.open,
                today=TODAY,
            )
            + self._error_line("new_card", "due"),
        }
        body = "".join(fields[n] for n in self._field_order(tuple(fields), "new_card"))
        return w.form(
            r,
            name="new_card",
            handler="create_card",
            body=body,
            submit_sid="form:new_card",
            submit_text=c("new_card.submit"),
            label=c("new_card.heading"),
            banner=self._fix_banner("new_card"),
            attrs_={"board": board.id, "role": "create-card"},
            effect=All(
                (
                    Eq(("created", "last", "title"), Ref("state:forms.new_card.title")),
                    Eq(("created", "last", "column"), Ref("state:forms.new_card.column")),
                    Eq(("created", "last", "board"), board.id),
                )
            ),
        )

    def _error_line(self, form: str, name: str) -> str:
        # For widgets without an error region of their own (date pickers).
        msg = self._err(form, name)
        return f'<p class="error" role="alert">{esc(msg)}</p>' if msg else ""

    # card ---------------------------------------------------------------------
    def _render_card(self, r: Renderer, route: str) -> tuple[str, str]:
        c = self.copy
        card = self.cards[route[len("/card/") :]]
        board = self.boards[card.board_id]
        crumbs = w.breadcrumbs(
            r,
            [(c("board.root"), "/"), (board.name, f"/board/{board.id}"), (card.title, None)],
            label=c("card.crumbs"),
        )
        notice = ""
        if board.archived:
            notice = f'<p class="error-summary" role="status">{esc(c("card.read_only"))}</p>'
        elif card.archived:
            notice = f'<p class="notice" role="status">{esc(c("card.archived"))}</p>'
        if board.archived or card.archived:
            body, side = self._card_read_only(card), self._card_actions(r, card, board)
        else:
            body = (
                self._card_edit_form(r, card)
                + self._card_labels(r, card, board)
                + self._card_files(r, card)
                + self._card_comments(r, card)
                + self._card_activity(r, card)
            )
            side = self._card_side(r, card, board) + self._card_actions(r, card, board)
        dialog = ""
        if self._modal_open("delete-card") and not board.archived:
            confirm = w.button(
                r,
                sid=f"confirm-delete:{card.id}",
                text=c("card.confirm"),
                handler="delete_card",
                arg=card.id,
                attrs_={"role": "confirm-delete", "card": card.id},
                effect=Not(Contains(("cards",), card.id)),
            )
            dialog = w.modal(
                r,
                name="delete-card",
                title=c("card.confirm_title"),
                close_text=c("card.cancel"),
                body=f'<p>{esc(c("card.confirm_body"))}</p><div class="actions">{confirm}</div>',
            )
        return card.title, (
            f"{crumbs}<h1>{esc(card.title)}</h1>{notice}{w.toast(self.flash)}"
            f'<div class="card-page"><div class="card-main">{body}</div>'
            f'<aside class="card-side">{side}</aside></div>{dialog}'
        )

    def _card_read_only(self, card: LiveCard) -> str:
        c = self.copy
        details = w.detail_view(
            [
                (c("card.column"), c(f"columns.{card.column}")),
                (c("card.assignee"), self._name(card.assignee) or c("card.unassigned")),
                (c("card.priority"), c(f"priority.{card.priority}")),
                (c("card.due"), card.due or c("card.none")),
                (c("card.labels"), ", ".join(card.labels) or c("card.none")),
                (c("card.attachments"), ", ".join(card.attachments) or c("card.none")),
            ]
        )
        return (
            f"{details}<h2>{esc(c('card.description'))}</h2><p>{esc(card.description)}</p>"
            f"<h2>{esc(c('card.comments'))}</h2>{self._comment_list(card)}"
        )

    def _card_edit_form(self, r: Renderer, card: LiveCard) -> str:
        c = self.copy
        d = self.drafts.get(card.id) or {
            "title": card.title,
            "description": card.description,
            "due": card.due,
        }
        title = w.text_field(
            r,
            sid="field:card.title",
            name="title",
            label=c("card.title"),
            value=d["title"],
            handler="card_field",
            arg=f"{card.id}:title",
            form="card",
            maxlength=120,
            effect=Eq(("forms", "cards", card.id, "title"), Ref("value")),
            error=self._err("card", f"{card.id}:title"),
        )
        description = w.rich_text(
            r,
            sid="editor:card.description",
            name="description",
            label=c("card.description"),
            value=d["description"],
            handler="card_field",
            arg=f"{card.id}:description",
            effect=Eq(("forms", "cards", card.id, "description"), Ref("value")),
            form="card",
            format_handler="format",
            bold=self.format["bold"],
            italic=self.format["italic"],
        )
        due = w.date_picker(
            r,
            sid="date:card.due",
            name="due",
            label=c("card.due"),
            value=d["due"],
            handler="card_due",
            arg=card.id,
            form="card",
            month=self.month_of("due"),
            effect=Eq(("forms", "cards", card.id, "due"), Ref("value")),
            is_open="date:card.due" in self.ui.open,
            today=TODAY,
        ) + self._error_line("card", f"{card.id}:due")
        draft = f"state:forms.cards.{card.id}"
        return w.form(
            r,
            name="card",
            handler="save_card",
            body=title + description + due,
            submit_sid="form:card",
            submit_text=c("card.save"),
            label=c("card.edit"),
            banner=self._fix_banner("card", f"{card.id}:"),
            attrs_={"card": card.id, "role": "save-card"},
            effect=All(
                (
                    Eq(("cards", card.id, "title"), Ref(f"{draft}.title")),
                    Eq(("cards", card.id, "description"), Ref(f"{draft}.description")),
                    Eq(("cards", card.id, "due"), Ref(f"{draft}.due")),
                )
            ),
        )

    def _card_labels(self, r: Renderer, card: LiveCard, board: LiveBoard) -> str:
        toggles = "".join(
            w.toggle(
                r,
                sid=f"label:{x}",
                kind="Toggle",
                name="label",
                label=x,
                checked=x in card.labels,
                handler="toggle_label",
                arg=f"{card.id}:{x}",
                effect=Eq(("cards", card.id, "label_state", x), Ref("value")),
                attrs_={"label": x, "card": card.id},
            )
            for x in board.labels
        )
        return (
            f"<h2>{esc(self.copy('card.labels'))}</h2>"
            f'<div class="labels" role="group">{toggles}</div>'
        )

    def _card_files(self, r: Renderer, card: LiveCard) -> str:
        c = self.copy
        sizes = {f.name: f for f in self.files}
        items = "".join(
            f"<li>{esc(name)}"
            + (f' <small class="muted">{sizes[name].size_kb} KB</small>' if name in sizes else "")
            + "</li>"
            for name in card.attachments
        )
        listing = (
            f'<ul class="files">{items}</ul>'
            if items
            else f'<p class="muted">{esc(c("card.no_attachments"))}</p>'
        )
        upload = w.file_upload(
            r,
            sid="upload:attachment",
            name="attachment",
            label=c("card.attach"),
            files=[w.SyntheticFile(f.name, f.size_kb, f.kind) for f in self.files],
            chosen="",
            handler="attach",
            arg=card.id,
            effect=Contains(("cards", card.id, "attachments"), Ref("value")),
            is_open="upload:attachment" in self.ui.open,
        )
        return f"<h2>{esc(c('card.attachments'))}</h2>{listing}{upload}"

    def _comment_list(self, card: LiveCard) -> str:
        c = self.copy
        if not card.comments:
            return f'<p class="muted">{esc(c("card.no_comments"))}</p>'
        items = "".join(
            f'<li><small class="muted">{esc(c("card.by", name=self._name(a), date=d))}</small>'
            f"<p>{esc(text)}</p></li>"
            for a, text, d in card.comments
        )
        return f'<ol class="comments">{items}</ol>'

    def _card_comments(self, r: Renderer, card: LiveCard) -> str:
        c = self.copy
        n = len(card.comments)
        text = w.text_field(
            r,
            sid="field:comment",
            name="comment",
            label=c("card.comment"),
            value=self.comment_drafts.get(card.id, ""),
            handler="comment_field",
            arg=card.id,
            form="comment",
            multiline=True,
            error=self._err("comment", card.id),
            effect=Any_(
                (
                    Eq(("forms", "comments", card.id), Ref("value")),
                    Eq(("cards", card.id, "last_comment"), Ref("value")),
                )
            ),
        )
        form = w.form(
            r,
            name="comment",
            handler="add_comment",
            body=text,
            submit_sid="form:comment",
            submit_text=c("card.add_comment"),
            label=c("card.comments"),
            attrs_={"card": card.id, "role": "add-comment"},
            effect=All(
                (
                    Gt(("cards", card.id, "comments"), n),
                    Eq(("cards", card.id, "last_comment"), Ref(f"state:forms.comments.{card.id}")),
                )
            ),
        )
        return (
            f'<h2>{esc(c("card.comments"))} <span class="muted">{n}</span></h2>'
            f"{self._comment_list(card)}{form}"
        )

    def _card_activity(self, r: Renderer, card: LiveCard) -> str:
        c = self.copy
        entries = []
        for key, arg in card.activity:
            if key == "log_moved":
                text = c("card.log_moved", column=c(f"columns.{arg}"))
            elif key == "log_assigned":
                text = c("card.log_assigned", name=self._name(arg))
            elif key == "log_priority":
                text = c("card.log_priority", priority=c(f"priority.{arg}"))
            elif key in ("log_attached", "log_label_on", "log_label_off"):
                text = c(f"card.{key}", file=arg, label=arg)
            else:
                text = c(f"card.{key}")
            entries.append(f"<li>{esc(text)}</li>")
        body = (
            f'<ol class="activity">{"".join(entries)}</ol>'
            if entries
            else f'<p class="muted">{esc(c("card.no_activity"))}</p>'
        )
        return f"<h2>{esc(c('card.activity'))}</h2>{body}"

    def _card_side(self, r: Renderer, card: LiveCard, board: LiveBoard) -> str:
        c = self.copy
        move = self._card_choice(
            r,
            card,
            "column",
            label=c("card.move"),
            options=self._column_options(board.columns),
            handler="move_card",
            role="move-card",
        )
        who = self._card_choice(
            r,
            card,
            "assignee",
            label=c("card.assignee"),
            options=self._member_options(),
            handler="set_assignee",
        )
        prio = self._card_choice(
            r,
            card,
            "priority",
            label=c("card.priority"),
            options=self._priority_options(),
            handler="set_priority",
        )
        return move + who + prio

    def _card_choice(
        self,
        r: Renderer,
        card: LiveCard,
        name: str,
        *,
        label: str,
        options: Sequence[Option],
        handler: str,
        role: str = "",
    ) -> str:
        """A choice of the card's field `name` (its column, assignee or priority)."""
        return self._choice(
            r,
            sid=f"choice:card.{name}",
            kind="Choice",
            name=name,
            label=label,
            options=options,
            selected=getattr(card, name),
            handler=handler,
            arg=card.id,
            attrs_={"card": card.id, "role": role} if role else {"card": card.id},
            effect=Eq(("cards", card.id, name), Ref("value")),
        )

    def _card_actions(self, r: Renderer, card: LiveCard, board: LiveBoard) -> str:
        if board.archived:
            return ""
        c = self.copy
        buttons = []
        if card.archived:
            buttons.append(
                w.button(
                    r,
                    sid=f"restore:{card.id}",
                    text=c("card.restore"),
                    handler="restore_card",
                    arg=card.id,
                    variant="secondary",
                    attrs_={"role": "restore-card", "card": card.id},
                    effect=Eq(("cards", card.id, "archived"), False),
                )
            )
        else:
            buttons.append(
                w.button(
                    r,
                    sid=f"archive:{card.id}",
                    text=c("card.archive"),
                    handler="archive_card",
                    arg=card.id,
                    variant="secondary",
                    attrs_={"role": "archive-card", "card": card.id},
                    effect=Eq(("cards", card.id, "archived"), True),
                )
            )
        buttons.append(
            w.button(
                r,
                sid=f"delete:{card.id}",
                text=c("card.delete"),
                handler="ui.modal",
                arg="delete-card",
                variant="secondary",
                attrs_={"role": "delete-card", "card": card.id},
                effect=Eq(("ui", "modal"), "delete-card"),
            )
        )
        if self.v.distractors != "none" and not card.archived:
            buttons.append(
                w.button(
                    r,
                    sid=f"watch:{card.id}",
                    text=c("distractors.watch"),
                    handler="watch",
                    arg=card.id,
                    variant="secondary",
                    attrs_={"role": "watch", "card": card.id, "distractor": True},
                    effect=Contains(("watching",), card.id),
                )
            )
        return (
            f"<h2>{esc(c('card.actions'))}</h2>"
            f'<div class="actions vertical">{"".join(buttons)}</div>'
        )

    # my tasks -----------------------------------------------------------------
    def _render_my_tasks(self, r: Renderer, route: str) -> tuple[str, str]:
        c = self.copy
        cards = self._my_cards()
        if self.v.list_mode == "infinite":
            first, shown = 0, cards[: self.ui.more.get("my-tasks", 1) * PAGE_SIZE]
            more = w.load_more(
                r, key="my-tasks", has_more=len(shown) < len(cards), text=c("my_tasks.loading")
            )
        else:
            first = (self.my_page - 1) * PAGE_SIZE
            shown = cards[first : first + PAGE_SIZE]
            more = w.pager(
                r,
                key="my-tasks",
                page=self.my_page,
                pages=self._my_pages(),
                handler="my_page",
                label=c("my_tasks.pages"),
                prev_text=c("my_tasks.prev"),
                next_text=c("my_tasks.next"),
                state_path=("my_tasks", "page"),
            )
        rows = "".join(
            '<li class="task-row">'
            + w.link(
                r,
                sid=f"task:{card.id}",
                href=f"/card/{card.id}",
                text=card.title,
                kind="Item",
                class_="title",
                attrs_=self._card_attrs(card, first + i + 1),
            )
            + f'<span class="muted">{esc(self.boards[card.board_id].name)} · '
            f"{esc(c(f'columns.{card.column}'))}</span>"
            f"<span>{esc(card.due or c('my_tasks.no_due'))}</span></li>"
            for i, card in enumerate(shown)
        )
        help_ = (
            f'<p class="hint">{esc(c("my_tasks.help"))}</p>' if self.v.helper_text == "on" else ""
        )
        feed = " feed" if self.v.list_mode == "infinite" and len(shown) < len(cards) else ""
        body = (
            f'<ul class="tasks{feed}">{rows}</ul>'
            if rows
            else f'<p class="muted">{esc(c("my_tasks.empty"))}</p>'
        )
        title = c("my_tasks.title")
        return title, f"<h1>{esc(title)}</h1>{help_}{body}{more}"

    # calendar -------------------------------------------------------------------
    def _render_calendar(self, r: Renderer, route: str) -> tuple[str, str]:
        c = self.copy
        boards = [b for b in self.boards.values() if not b.archived]
        board_sel = self._choice(
            r,
            sid="filter:board",
            kind="Filter",
            name="board",
            label=c("calendar.board"),
            options=[
                Option("", c("calendar.all_boards"), aliases=("all", "any")),
                *(Option(b.id, b.name) for b in boards),
            ],
            selected=self.cal_board,
            handler="cal_board",
            arg=None,
            effect=Eq(("calendar", "board"), Ref("value")),
        )
        nav = []
        for delta, role, key in (
            (-1, "prev-month", "calendar.prev"),
            (1, "next-month", "calendar.next"),
        ):
            nav.append(
                w.button(
                    r,
                    sid=f"calendar:{role}",
                    text=c(key),
                    handler="cal_month",
                    arg=f"{delta:+d}",
                    variant="secondary",
                    attrs_={"role": role},
                    effect=Eq(("calendar", "month"), _shift_month(self.cal_month, delta)),
                )
            )
        events: dict[str, list[str]] = {}
        for card in sorted(self._calendar_cards(), key=lambda x: (x.due, x.title)):
            if card.due.startswith(self.cal_month):
                events.setdefault(card.due, []).append(card.title)
        year, mon = (int(x) for x in self.cal_month.split("-"))
        month_title = dt.date(year, mon, 1).strftime("%B %Y")
        grid = w.month_calendar(month=self.cal_month, events=events, title=month_title)
        agenda = self._agenda()
        items = "".join(
            "<li>"
            + w.link(
                r,
                sid=f"agenda:{card.id}",
                href=f"/card/{card.id}",
                text=card.title,
                kind="Item",
                attrs_=self._card_attrs(card, i + 1),
            )
            + f' <span class="muted">{esc(card.due)} · {esc(self.boards[card.board_id].name)}'
            "</span></li>"
            for i, card in enumerate(agenda)
        )
        upcoming = (
            f'<ol class="agenda">{items}</ol>'
            if items
            else f'<p class="muted">{esc(c("calendar.none"))}</p>'
        )
        title = c("calendar.title")
        return title, (
            f'<h1>{esc(title)}</h1><div class="toolbar">{board_sel}'
            f'<div class="actions">{"".join(nav)}</div></div>'
            f'<div class="calendar-page"><div>{grid}</div><aside>'
            f"<h2>{esc(c('calendar.next_up'))}</h2>{upcoming}</aside></div>"
        )

    # search ---------------------------------------------------------------------
    def _render_search(self, r: Renderer, route: str) -> tuple[str, str]:
        c = self.copy
        field_ = w.text_field(
            r,
            sid="field:search.q",
            name="q",
            label=c("search.field"),
            value=self.search_q,
            handler="search",
            arg="q",
            effect=Eq(("search", "q"), Ref("value")),
            form="search",
            helper=c("search.help"),
            input_type="search",
        )
        title = c("search.title")
        results = r.subregion("results", self._results_html(r), class_="results")
        return title, f"<h1>{esc(title)}</h1>{field_}{results}"

    def _results_html(self, r: Renderer) -> str:
        c = self.copy
        if not self.search_q.strip():
            return f'<p class="muted">{esc(c("search.prompt"))}</p>'
        found = self._search()
        if not found:
            return f'<p class="muted" role="status">{esc(c("search.none"))}</p>'
        count = c("search.count_one") if len(found) == 1 else c("search.count_many", n=len(found))
        rows = "".join(
            '<li class="result">'
            + w.link(
                r,
                sid=f"result:{card.id}",
                href=f"/card/{card.id}",
                text=card.title,
                kind="Item",
                class_="title",
                attrs_=self._card_attrs(card, i + 1),
            )
            + f' <span class="muted">{esc(c("search.board", board=self._board_name(card)))}'
            f" · {esc(c(f'columns.{card.column}'))}</span>{self._chips(card.labels)}</li>"
            for i, card in enumerate(found)
        )
        return f'<p class="muted" role="status">{esc(count)}</p><ul class="tasks">{rows}</ul>'

    # team -----------------------------------------------------------------------
    def _render_members(self, r: Renderer, route: str) -> tuple[str, str]:
        c = self.copy
        rows = []
        for rank, m in enumerate(self._member_rows(), 1):
            link = w.link(
                r,
                sid=f"member:{m.id}",
                href=f"/member/{m.id}",
                text=m.name,
                kind="Item",
                attrs_={
                    "type": "member",
                    "id": m.id,
                    "name": m.name,
                    "role": m.role,
                    "email": m.email,
                    "active": m.active,
                    "open": self._open_count(m.id),
                    "rank": rank,
                },
            )
            status = c("members.active") if m.active else c("members.deactivated")
            rows.append([link, esc(m.role), esc(m.email), str(self._open_count(m.id)), esc(status)])
        for inv in self.invited:
            rows.append(
                [
                    esc(inv["name"]),
                    esc(c(f"roles.{inv['role']}")),
                    esc(inv["email"]),
                    "—",
                    esc(c("members.invited")),
                ]
            )
        col, _, order = self.members_sort.partition("-")
        table = w.data_table(
            r,
            key="members",
            rows=rows,
            sort=(col, order),
            sort_handler="members_sort",
            caption=c("members.caption"),
            sort_path=("members", "sort"),
            columns=[
                ("name", c("members.name"), True),
                ("role", c("members.role"), False),
                ("email", c("members.email"), False),
                ("open", c("members.open"), True),
                ("status", c("members.status"), False),
            ],
        )
        opener = invite = ""
        if self.v.form_mode == "modal":
            if self._modal_open("invite"):
                invite = w.modal(
                    r,
                    name="invite",
                    title=c("members.invite"),
                    body=self._invite_form(r),
                    close_text=c("members.close"),
                )
            else:
                opener = w.modal_opener(
                    r, name="invite", text=c("members.invite_open"), attrs_={"form": "invite"}
                )
        else:
            invite = (
                f'<section class="invite"><h2>{esc(c("members.invite"))}</h2>'
                f"{self._invite_form(r)}</section>"
            )
        roles = w.accordion(
            r,
            group="roles",
            open_keys=self.ui.open,
            sections=[(a, c(f"roles.{a}"), f"<p>{esc(c(f'roles.{a}_help'))}</p>") for a in ACCESS],
        )
        title = c("members.title")
        return title, (
            f'<div class="board-head"><h1>{esc(title)}</h1>{opener}</div>'
            f"{w.toast(self.flash)}{table}{invite}"
            f"<h2>{esc(c('members.roles'))}</h2>{roles}"
        )

    def _invite_form(self, r: Renderer) -> str:
        c = self.copy
        f = self.forms["invite"]

        def either(name: str) -> Predicate:
            if name == "email":  # once sent, the address is on the invitation list
                return Any_(
                    (
                        Eq(("forms", "invite", "email"), Ref("value")),
                        Contains(("members", "invited"), Ref("value")),
                    )
                )
            return Eq(("forms", "invite", name), Ref("value"))

        fields = {
            "name": w.text_field(
                r,
                sid="field:invite.name",
                name="name",
                label=c("members.invite_name"),
                value=f["name"],
                handler="field",
                arg="invite.name",
                effect=either("name"),
                form="invite",
                error=self._err("invite", "name"),
                autocomplete="name",
            ),
            "email": w.text_field(
                r,
                sid="field:invite.email",
                name="email",
                label=c("members.invite_email"),
                value=f["email"],
                handler="field",
                arg="invite.email",
                effect=either("email"),
                form="invite",
                error=self._err("invite", "email"),
                input_type="email",
                autocomplete="email",
                helper=c("members.email_help"),
            ),
            "role": self._form_choice(
                r,
                "invite",
                "role",
                label=c("members.invite_role"),
                options=[Option(a, c(f"roles.{a}")) for a in ACCESS],
                effect=either("role"),
            ),
        }
        body = "".join(fields[n] for n in self._field_order(tuple(fields), "invite"))
        return w.form(
            r,
            name="invite",
            handler="invite",
            body=body,
            submit_sid="form:invite",
            submit_text=c("members.invite_submit"),
            label=c("members.invite"),
            banner=self._fix_banner("invite"),
            attrs_={"role": "invite"},
            effect=Contains(("members", "invited"), Ref("state:forms.invite.email")),
        )

    def _render_member(self, r: Renderer, route: str) -> tuple[str, str]:
        c = self.copy
        m = self.by_member[route[len("/member/") :]]
        crumbs = w.breadcrumbs(
            r, [(c("member.back"), "/members"), (m.name, None)], label=c("card.crumbs")
        )
        details = w.detail_view(
            [
                (c("members.role"), m.role),
                (c("members.email"), m.email),
                (
                    c("members.status"),
                    c("members.active") if m.active else c("members.deactivated"),
                ),
            ]
        )
        notice = (
            ""
            if m.active
            else f'<p class="error-summary" role="status">{esc(c("member.deactivated"))}</p>'
        )
        cards = [
            x
            for x in self.cards.values()
            if x.assignee == m.id
            and x.column != "done"
            and not x.archived
            and not self.boards[x.board_id].archived
        ]
        cards.sort(key=lambda x: (x.due == "", x.due, x.title))
        items = "".join(
            "<li>"
            + w.link(
                r,
                sid=f"mcard:{x.id}",
                href=f"/card/{x.id}",
                text=x.title,
                kind="Item",
                attrs_=self._card_attrs(x, i + 1),
            )
            + f' <span class="muted">{esc(self.boards[x.board_id].name)}</span></li>'
            for i, x in enumerate(cards)
        )
        listing = (
            f'<ul class="tasks">{items}</ul>'
            if items
            else f'<p class="muted">{esc(c("member.none"))}</p>'
        )
        return m.name, (
            f"{crumbs}<h1>{esc(m.name)}</h1>{notice}{details}"
            f"<h2>{esc(c('member.cards'))}</h2>{listing}"
        )

    # new board wizard -----------------------------------------------------------
    def _render_new_board(self, r: Renderer, route: str) -> tuple[str, str]:
        c = self.copy
        f = self.forms["new_board"]
        step = self.wizard_step
        steps = w.wizard_steps(
            [c("wizard.details"), c("wizard.columns"), c("wizard.team")], min(step, 4) - 1
        )
        if step == 1:
            body = w.text_field(
                r,
                sid="field:new_board.name",
                name="name",
                label=c("wizard.name"),
                value=f["name"],
                handler="field",
                arg="new_board.name",
                effect=Eq(("forms", "new_board", "name"), Ref("value")),
                form="board_details",
                error=self._err("new_board", "name"),
                helper=c("wizard.name_help"),
                maxlength=60,
            ) + w.text_field(
                r,
                sid="field:new_board.description",
                name="description",
                label=c("wizard.description"),
                value=f["description"],
                handler="field",
                arg="new_board.description",
                multiline=True,
                effect=Eq(("forms", "new_board", "description"), Ref("value")),
                form="board_details",
            )
            form = w.form(
                r,
                name="board_details",
                handler="wizard_next",
                body=body,
                submit_sid="form:board_details",
                submit_text=c("wizard.next"),
                label=c("wizard.details"),
                effect=Gt(("wizard", "step"), 1),
            )
        elif step == 2:
            body = self._form_choice(
                r,
                "new_board",
                "template",
                label=c("wizard.template"),
                options=[Option(t, c(f"wizard.{t}"), aliases=(t,)) for t in TEMPLATES],
                effect=Eq(("forms", "new_board", "template"), Ref("value")),
                html_form="board_lists",
            ) + self._form_choice(
                r,
                "new_board",
                "visibility",
                label=c("wizard.visibility"),
                options=[
                    Option("team", c("wizard.team_visible")),
                    Option("private", c("wizard.private")),
                ],
                effect=Eq(("forms", "new_board", "visibility"), Ref("value")),
                html_form="board_lists",
            )
            form = w.form(
                r,
                name="board_lists",
                handler="wizard_next",
                body=body,
                submit_sid="form:board_lists",
                submit_text=c("wizard.next"),
                label=c("wizard.columns"),
                effect=Gt(("wizard", "step"), 2),
                extra_buttons=self._wizard_back(r),
            )
        elif step == 3:
            hint = (
                f'<p class="hint">{esc(c("wizard.team_help"))}</p>'
                if self.v.helper_text == "on"
                else ""
            )
            toggles = "".join(
                w.toggle(
                    r,
                    sid=f"team:{m.id}",
                    kind="Toggle",
                    name="member",
                    label=c("wizard.invite", name=m.name),
                    checked=self.board_team.get(m.id) == "true",
                    handler="wizard_member",
                    arg=m.id,
                    attrs_={"member": m.name},
                    effect=Eq(("forms", "new_board", "members", m.id), Ref("value")),
                )
                for m in self._assignable()
            )
            form = w.form(
                r,
                name="board_team",
                handler="create_board",
                body=f'{hint}<div class="labels" role="group">{toggles}</div>',
                submit_sid="form:board_team",
                submit_text=c("wizard.create"),
                label=c("wizard.team"),
                extra_buttons=self._wizard_back(r),
                effect=All(
                    (
                        Eq(("new_board", "last", "name"), Ref("state:forms.new_board.name")),
                        Eq(
                            ("new_board", "last", "template"), Ref("state:forms.new_board.template")
                        ),
                    )
                ),
            )
        else:
            last = self.boards[self.created_boards[-1]]
            open_ = w.link(r, sid="wizard:open", href=f"/board/{last.id}", text=c("wizard.open"))
            again = w.button(
                r,
                sid="wizard:restart",
                text=c("wizard.again"),
                handler="wizard_restart",
                variant="secondary",
                attrs_={"role": "restart-wizard"},
                effect=Eq(("wizard", "step"), 1),
            )
            form = (
                f'<p class="notice" role="status">{esc(c("wizard.created", name=last.name))}'
                f'</p><p class="actions">{open_}{again}</p>'
            )
        title = c("wizard.title")
        return title, f"<h1>{esc(title)}</h1>{steps}{self._fix_banner('new_board')}{form}"

    def _wizard_back(self, r: Renderer) -> str:
        return w.button(
            r,
            sid="wizard:back",
            text=self.copy("wizard.back"),
            handler="wizard_back",
            variant="secondary",
            attrs_={"role": "wizard-back"},
            effect=None,
        )


def _shift_month(month: str, delta: int) -> str:
    year, mon = (int(x) for x in month.split("-"))
    mon += delta
    while mon > 12:
        year, mon = year + 1, mon - 12
    while mon < 1:
        year, mon = year - 1, mon + 12
    return f"{year:04d}-{mon:02d}"


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
