"""What a kanban workspace's seed draws: its team, boards, cards, comments and files.

`generate` reads as a recipe; each guarantee a task relies on is a named helper or a
commented line ("one card in To do is Blocked", "no two cards are due the same day",
"the last member has left the team").
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from webfactory_env.core.resources import read_family_text
from webfactory_env.core.seeding import SeedStream, short_hash
from webfactory_env.sitegen.registry import generator_version
from webfactory_env.sitegen.spec import SiteSpec
from webfactory_env.sitegen.variation import Variation

FAMILY_VERSION = "2"
TODAY = "2026-03-10"
MEMBER_COUNT = {"easy": 6, "medium": 8, "hard": 10}
BOARD_COUNT = {"easy": 3, "medium": 4, "hard": 5}  # the last board is archived
CARDS_PER_BOARD = {"easy": 8, "medium": 9, "hard": 12}
ARCHIVED_CARDS = 5  # the archived board is a finished project: a few cards, all done
MINE_PER_BOARD = {"easy": 4, "medium": 3, "hard": 3}  # "my tasks" always spans two pages
FILE_COUNT = 6
COLUMNS = ("todo", "in_progress", "review", "done")
PRIORITIES = ("low", "medium", "high", "urgent")
DUE_PAST, DUE_FUTURE = 21, 60  # due dates fall on distinct days in [today-21, today+59]
WITH_FILES = ("review", "done")  # columns whose cards may start with a file attached


@dataclass(frozen=True, slots=True)
class Member:
    id: str
    name: str
    email: str
    role: str
    active: bool
    me: bool
    teammate: bool  # active and not you: someone you can assign or add to a board


@dataclass(frozen=True, slots=True)
class SeedBoard:
    id: str
    name: str
    description: str
    archived: bool
    columns: tuple[str, ...]
    labels: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class SeedCard:
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
class SeedComment:
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
def vocab() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(read_family_text("kanban", "vocab.json"))
    return data


def date_from_today(offset: int) -> str:
    return (dt.date.fromisoformat(TODAY) + dt.timedelta(days=offset)).isoformat()


def slug_id(prefix: str, text: str, taken: set[str]) -> str:
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
    words = vocab()
    brand_rng = root.child("copy").child("brand")
    first = brand_rng.choice(words["brand_first"])
    brand = f"{first} {brand_rng.choice(words['brand_second'])}"
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
    words = vocab()
    firsts = rng.child("first").sample(words["first_names"], n)
    lasts = rng.child("last").sample(words["last_names"], n)
    roles = rng.child("roles")
    taken: set[str] = set()
    out = []
    for i, (f, last) in enumerate(zip(firsts, lasts, strict=True)):
        name = f"{f} {last}"
        out.append(
            Member(
                id=slug_id("m", f"member:{name}", taken),
                name=name,
                email=f"{f}.{last}@{domain}".lower(),
                role=roles.choice(words["roles"]),
                active=i != n - 1,
                me=i == 0,
                teammate=0 < i < n - 1,
            )
        )
    return tuple(out)


def _boards(rng: SeedStream, n: int) -> tuple[SeedBoard, ...]:
    """`n` boards of distinct projects; the last one is archived (read-only)."""
    words = vocab()
    templates = rng.child("templates").sample(words["boards"], n)
    taken: set[str] = set()
    return tuple(
        SeedBoard(
            id=slug_id("b", f"board:{t['name']}", taken),
            name=t["name"],
            description=t["description"],
            archived=i == n - 1,
            columns=COLUMNS,
            labels=(*t["labels"], words["common_label"]),
        )
        for i, t in enumerate(templates)
    )


def _cards(
    rng: SeedStream,
    boards: Sequence[SeedBoard],
    members: Sequence[Member],
    per_board: int,
    mine_per_board: int,
) -> tuple[SeedCard, ...]:
    """Cards with referential integrity and the guarantees the task library relies on.

    On every active board: each column holds at least two cards; exactly one card in To do
    carries the common "Blocked" label; at least one open card is overdue and one is due
    today or later; the signed-in user owns `mine_per_board` cards. Every open card has a
    due date, and no two cards share one, so "due soonest" is never a tie. Cards on the
    archived board are all done and never the user's.
    """
    words = vocab()
    templates = {t["name"]: t for t in words["boards"]}
    common = words["common_label"]
    me = next(m for m in members if m.me)
    crew = [m for m in members if m.active and not m.me]
    active = [b for b in boards if not b.archived]
    # Distinct due days: one overdue and one upcoming day reserved per active board, the
    # rest drawn from what is left without putting any back.
    past = list(range(-DUE_PAST, 0))
    future = list(range(DUE_FUTURE))
    rng.child("past").shuffle(past)
    rng.child("future").shuffle(future)
    reserved = {b.id: (past[i], future[i]) for i, b in enumerate(active)}
    pool = past[len(active) :] + future[len(active) :]
    rng.child("pool").shuffle(pool)
    taken: set[str] = set()
    out: list[SeedCard] = []
    for board in boards:
        brng = rng.child(board.id)
        n = ARCHIVED_CARDS if board.archived else per_board
        titles = brng.child("titles").sample(templates[board.name]["titles"], n)
        columns = ["done"] * n if board.archived else _columns(brng, n)
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
                due = date_from_today(reserved[board.id][0])
            elif i == upcoming_i:
                due = date_from_today(reserved[board.id][1])
            elif column != "done" or details.chance(0.6):
                due = date_from_today(pool.pop())
            else:
                due = ""
            assignee = me if i in mine else details.choice(crew)
            positions[column] = positions.get(column, 0) + 1
            out.append(
                SeedCard(
                    id=slug_id("c", f"card:{title}", taken),
                    board_id=board.id,
                    column=column,
                    position=positions[column],
                    title=title,
                    description=details.choice(words["descriptions"]),
                    assignee=assignee.id,
                    labels=tuple(x for x in board.labels if x in labels),
                    priority=details.choice(PRIORITIES),
                    due=due,
                    mine=assignee.me,
                )
            )
    return tuple(out)


def _columns(rng: SeedStream, n: int) -> list[str]:
    """The columns of an active board's `n` cards: at least two in each."""
    columns = [*COLUMNS, *COLUMNS]
    columns += [rng.child("extra").choice(COLUMNS) for _ in range(n - 8)]
    rng.child("columns").shuffle(columns)
    return columns


def _comments(
    rng: SeedStream, cards: Sequence[SeedCard], members: Sequence[Member]
) -> tuple[SeedComment, ...]:
    """Up to two earlier comments per card, by active members, oldest first."""
    words = vocab()
    people = [m for m in members if m.active]
    out = []
    for card in cards:
        crng = rng.child(card.id)
        n = crng.choice((0, 0, 1, 1, 2))
        days = sorted((crng.randint(1, 20) for _ in range(n)), reverse=True)
        for i, ago in enumerate(days):
            out.append(
                SeedComment(
                    id=f"cm-{short_hash(f'{card.id}|{i}', 6).lower()}",
                    card_id=card.id,
                    author=crng.choice(people).id,
                    text=crng.choice(words["comments"]),
                    date=date_from_today(-ago),
                )
            )
    return tuple(out)


def _files(rng: SeedStream) -> tuple[File, ...]:
    chosen = rng.sample(vocab()["files"], FILE_COUNT)
    return tuple(sorted((File(str(n), int(s), str(k)) for n, s, k in chosen), key=lambda f: f.name))


def _attachments(
    rng: SeedStream, cards: Sequence[SeedCard], files: Sequence[File]
) -> tuple[Attachment, ...]:
    """A file on some cards in review or done (work with something to show): a card still
    in To do or in progress has none, so attaching a file to it always adds that file."""
    return tuple(
        Attachment(c.id, rng.choice(files).name)
        for c in cards
        if rng.chance(0.25) and c.column in WITH_FILES
    )
