"""What a forum's seed draws: its product, categories, members, threads and their replies.

`generate` reads as a recipe; each guarantee a task relies on is a named helper or a
commented line ("every thread was posted at its own minute", "no two replies of a thread
have the same votes", "every site has a thread of each status").
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any, TypeVar

from webfactory_env.core.resources import read_family_text
from webfactory_env.core.seeding import SeedStream, short_hash
from webfactory_env.sitegen.registry import generator_version
from webfactory_env.sitegen.spec import SiteSpec
from webfactory_env.sitegen.variation import Variation

T = TypeVar("T")
FAMILY_VERSION = "2"
TODAY = "2026-01-05"
NOW = dt.datetime(2026, 1, 5, 18, 0)
CATEGORY_COUNT = {"easy": 4, "medium": 5, "hard": 6}
THREAD_COUNT = {"easy": 40, "medium": 60, "hard": 90}
USER_COUNT = {"easy": 16, "medium": 22, "hard": 30}
MAX_REPLIES = {"easy": 6, "medium": 8, "hard": 10}
NEW_MEMBERS = 2  # members who joined days ago and have not posted yet
# Share of threads per status before the guarantees below; every site has at least one of each.
STATUS_WEIGHTS = (("unanswered", 0.15), ("open", 0.40), ("solved", 0.37), ("locked", 0.08))
# Ids say what they name: a thread's id (its question post) starts with T, a reply's with P.
THREAD_PREFIX, REPLY_PREFIX = "T", "P"


# ----------------------------------------------------------------------- entities
@dataclass(frozen=True, slots=True)
class Category:
    slug: str
    name: str
    description: str
    rank: int


@dataclass(frozen=True, slots=True)
class Tag:
    slug: str
    name: str
    group: str  # the category slug it belongs to, or "platform"


@dataclass(frozen=True, slots=True)
class User:
    """A member's account as the seed made it (the password is what signing in checks)."""

    username: str
    display_name: str
    password: str
    joined: str
    reputation: int
    role: str  # "moderator", "member" or "new"
    posts: int  # threads started + replies written
    threads: int
    replies: int


@dataclass(frozen=True, slots=True)
class Thread:
    """A discussion as the seed made it: its question post has the thread's id."""

    id: str
    title: str
    category: str
    category_name: str
    author: str
    body: str
    created: str  # "YYYY-MM-DD HH:MM"
    votes: int
    tags: tuple[str, ...]
    primary_tag: str
    locked: bool
    solved: bool
    accepted: str  # the accepted reply's id, or ""
    replies: int
    status: str  # "locked", "solved", "unanswered" or "open"


@dataclass(frozen=True, slots=True)
class Post:
    """A reply in a thread, as the seed made it."""

    id: str
    thread_id: str
    thread_title: str
    author: str
    body: str
    created: str
    votes: int
    accepted: bool


@cache
def vocab() -> dict[str, Any]:
    return json.loads(read_family_text("forum", "vocab.json"))


def stamp(t: dt.datetime) -> str:
    return t.isoformat(" ", "minutes")


NOW_STAMP = stamp(NOW)


# --------------------------------------------------------------------- generation
def generate(seed: int, difficulty: str, overrides: Mapping[str, Any] | None = None) -> SiteSpec:
    """The forum that `seed` determines: product, categories, members, threads and replies."""
    root = SeedStream(seed).child("forum")
    brand_rng = root.child("copy").child("brand")
    product = brand_rng.choice(vocab()["products"])
    brand = f"{product} {brand_rng.choice(vocab()['brand_suffix'])}"
    content = root.child("content")
    categories = _categories(content.child("categories"), CATEGORY_COUNT[difficulty])
    # Join dates and reputations differ: "the longest-standing member" is one member.
    members = _members(content.child("members"), USER_COUNT[difficulty])
    threads, posts = _discussions(
        content.child("threads"), categories, members, product, difficulty
    )
    users = _with_activity(members, threads, posts)
    tags = _tags(categories, threads)
    variation = Variation.draw(seed, difficulty, overrides)
    routes = (
        "/",
        "/threads",
        "/users",
        "/signin",
        "/new",
        "/pro",
        *(f"/c/{c.slug}" for c in categories),
        *(f"/t/{t.id}" for t in threads),
        *(f"/u/{u.username}" for u in users),
    )
    return SiteSpec(
        family="forum",
        seed=seed,
        difficulty=difficulty,
        generator_version=generator_version("forum", FAMILY_VERSION),
        brand=brand,
        variation=variation.to_json(),
        entities={
            "categories": categories,
            "tags": tags,
            "users": users,
            "threads": threads,
            "posts": posts,
        },
        routes=routes,
        start_route="/",
        today=TODAY,
        extra={"product": product},
    )


def distinct(rng: SeedStream, low: int, high: int, k: int) -> list[int]:
    """`k` different integers from [low, high], in draw order (bounded, deterministic)."""
    if high - low + 1 < k:
        raise ValueError("range too small for distinct draws")
    chosen: list[int] = []
    seen: set[int] = set()
    for _ in range(k * 30):
        if len(chosen) == k:
            break
        x = rng.randint(low, high)
        if x not in seen:
            seen.add(x)
            chosen.append(x)
    x = low
    while len(chosen) < k:  # only if the draws above kept colliding: fill in order
        if x not in seen:
            seen.add(x)
            chosen.append(x)
        x += 1
    return chosen


def _pick_k(rng: SeedStream, items: Sequence[T], k: int) -> list[T]:
    """`k` different items in random order: a partial shuffle (k draws, not len(items))."""
    pool = list(items)
    for i in range(k):
        j = rng.randint(i, len(pool) - 1)
        pool[i], pool[j] = pool[j], pool[i]
    return pool[:k]


def _categories(rng: SeedStream, n: int) -> tuple[Category, ...]:
    pool = vocab()["categories"]
    picked = sorted(rng.sample(range(len(pool)), n))  # keep the forum's usual order
    return tuple(
        Category(pool[i]["slug"], pool[i]["name"], pool[i]["description"], rank + 1)
        for rank, i in enumerate(picked)
    )


def _members(rng: SeedStream, n: int) -> list[dict[str, Any]]:
    """Members without activity counts: the first is a moderator, the last few are new.
    Everyone joined on a day of their own and has a reputation of their own."""
    words = vocab()
    firsts = rng.child("first").sample(words["first_names"], n)
    lasts = rng.child("last").sample(words["last_names"], n)
    regular = n - NEW_MEMBERS
    joined_days = distinct(rng.child("joined"), 420, 2400, regular) + distinct(
        rng.child("joined-new"), 1, 12, NEW_MEMBERS
    )
    reputation = distinct(rng.child("reputation"), 20, 9000, regular) + distinct(
        rng.child("reputation-new"), 1, 9, NEW_MEMBERS
    )
    style = rng.child("username")
    secrets = rng.child("password")
    used: set[str] = set()
    out = []
    for i, (first, last) in enumerate(zip(firsts, lasts, strict=True)):
        pattern = style.below(4)
        base = (f"{first}{last[0]}", f"{first}_{last}", f"{first}.{last[:3]}", f"{first[0]}{last}")[
            pattern
        ].lower()
        username, n_try = base, 1
        while username in used:  # distinct first names make this rare
            n_try += 1
            username = f"{base}{n_try}"
        used.add(username)
        role = "moderator" if i == 0 else "new" if i >= regular else "member"
        joined = dt.date.fromisoformat(TODAY) - dt.timedelta(days=joined_days[i])
        password = (
            f"{secrets.choice(words['password_words'])}-"
            f"{secrets.choice(words['password_words'])}-{secrets.randint(10, 99)}"
        )
        out.append(
            {
                "username": username,
                "display_name": f"{first} {last}",
                "password": password,
                "joined": joined.isoformat(),
                "reputation": reputation[i],
                "role": role,
            }
        )
    return out


@cache
def _titles(slug: str, product: str) -> tuple[tuple[str, str | None, str | None], ...]:
    """Every title a category's templates give, as (title, platform, version)."""
    words = vocab()
    category = next(c for c in words["categories"] if c["slug"] == slug)
    out = []
    for template in category["titles"]:
        plats = sorted(words["platforms"]) if "{platform}" in template else [None]
        versions = list(words["versions"]) if "{version}" in template else [None]
        for plat in plats:
            for version in versions:
                title = template.format(
                    product=product,
                    platform=words["platforms"][plat] if plat else "",
                    version=version or "",
                )
                out.append((title, plat, version))
    return tuple(out)


def _discussions(
    rng: SeedStream,
    categories: tuple[Category, ...],
    members: list[dict[str, Any]],
    product: str,
    difficulty: str,
) -> tuple[tuple[Thread, ...], tuple[Post, ...]]:
    words = vocab()
    n = THREAD_COUNT[difficulty]
    spec_of = {c["slug"]: c for c in words["categories"]}
    authors = [m["username"] for m in members if m["role"] != "new"]
    # Categories evenly spread over the threads, titles drawn without repeats per category.
    cats = [categories[i % len(categories)] for i in range(n)]
    rng.child("category").shuffle(cats)
    pools = {}
    for c in categories:
        titles = _titles(c.slug, product)
        need = min(len(titles), sum(1 for x in cats if x is c))
        pools[c.slug] = _pick_k(rng.child(f"titles:{c.slug}"), titles, need)
    times = _posting_times(rng.child("times"), n)
    statuses = _statuses(rng.child("status"), n)
    # No two threads have the same votes: "the most upvoted thread" of any list is one.
    thread_votes = distinct(rng.child("votes"), 0, 3 * n, n)
    threads: list[Thread] = []
    posts: list[Post] = []
    used_ids: set[str] = set()
    for i in range(n):
        tr = rng.child(f"thread:{i}")
        cat = cats[i]
        spec = spec_of[cat.slug]
        pool = pools[cat.slug]
        title, named, version = pool.pop() if pool else (f"{cat.name} question {i + 1}", None, None)
        plat = named or tr.choice(sorted(words["platforms"]))
        version = version or tr.choice(words["versions"])
        fmt = {"platform": words["platforms"][plat], "version": version, "product": product}
        tags = [tr.choice(spec["tags"])]
        if named or tr.chance(0.35):  # a title naming a platform is always tagged with it
            tags.append(plat)
        if tr.chance(0.25):
            extra = tr.choice(spec["tags"])
            if extra not in tags:
                tags.append(extra)
        body = (
            tr.choice(words["openers"])
            + "\n"
            + " ".join(
                x.format(**fmt)
                for x in (
                    tr.choice(words["context"]),
                    tr.choice(spec["details"]),
                    tr.choice(words["closers"]),
                )
            )
        )
        author = tr.choice(authors)
        tid = THREAD_PREFIX + short_hash(f"thread:{title}", 7)
        k = 1
        while tid in used_ids:
            k += 1
            tid = THREAD_PREFIX + short_hash(f"thread:{title}|{k}", 7)
        used_ids.add(tid)
        replies, accepted = _replies(
            tr, spec, fmt, tid, title, author, authors, times[i], statuses[i], difficulty
        )
        posts += replies
        status = statuses[i]
        final = (
            "locked"
            if status == "locked"
            else "solved"
            if accepted
            else "open"
            if replies
            else "unanswered"
        )
        threads.append(
            Thread(
                id=tid,
                title=title,
                category=cat.slug,
                category_name=cat.name,
                author=author,
                body=body,
                created=stamp(times[i]),
                votes=thread_votes[i],
                tags=tuple(tags),
                primary_tag=tags[0],
                locked=status == "locked",
                solved=bool(accepted),
                accepted=accepted,
                replies=len(replies),
                status=final,
            )
        )
    return tuple(threads), tuple(posts)


def _posting_times(rng: SeedStream, n: int) -> list[dt.datetime]:
    """Newest first, each thread a little older than the one before: every thread was
    posted at its own minute, so "the newest thread" of any list is one thread."""
    times = []
    t = NOW
    for _ in range(n):
        t -= dt.timedelta(minutes=rng.randint(30, 2 * 24 * 60))
        times.append(t)
    return times


def _statuses(rng: SeedStream, n: int) -> list[str]:
    """Each thread's status by the weights above; every site has a thread of each."""
    statuses = [_weighted(rng) for _ in range(n)]
    for status, i in zip(
        ("locked", "solved", "open", "unanswered"), rng.sample(range(n), 4), strict=True
    ):
        statuses[i] = status
    return statuses


def _replies(
    tr: SeedStream,
    spec: Mapping[str, Any],
    fmt: Mapping[str, str],
    tid: str,
    title: str,
    author: str,
    authors: list[str],
    created: dt.datetime,
    status: str,
    difficulty: str,
) -> tuple[list[Post], str]:
    """A thread's replies and the id of its accepted one (or ""). One reply per member, no
    two with the same votes ("the most upvoted reply" is one reply) or the same text; a
    solved thread's accepted answer is always a fix."""
    words = vocab()
    most = MAX_REPLIES[difficulty]
    count = {
        "unanswered": 0,
        "open": tr.randint(1, most),
        "solved": tr.randint(1, most),
        "locked": tr.randint(0, most),
    }[status]
    others = [a for a in authors if a != author]
    repliers = _pick_k(tr, others, min(count, len(others)))
    window = min(int((NOW - created).total_seconds() // 60) - 1, 20 * 24 * 60)
    offsets = sorted(distinct(tr, 1, window, len(repliers)))
    votes = distinct(tr, 0, 25 + len(repliers), len(repliers))
    solved = status == "solved" or (status == "locked" and bool(repliers) and tr.chance(0.4))
    accepted_at = tr.below(len(repliers)) if solved else -1
    fixes = _pick_k(tr, spec["fixes"], len(spec["fixes"]))
    chatter = _pick_k(tr, words["chatter"], len(words["chatter"]))
    solution = fixes.pop()
    posts: list[Post] = []
    accepted = ""
    for j, (who, offset) in enumerate(zip(repliers, offsets, strict=True)):
        if j == accepted_at:
            text = solution
        else:
            fix = (tr.chance(0.3) or not chatter) and bool(fixes)
            text = (fixes if fix else chatter).pop()
        pid = REPLY_PREFIX + short_hash(f"post:{tid}:{who}", 7)
        if j == accepted_at:
            accepted = pid
        posts.append(
            Post(
                id=pid,
                thread_id=tid,
                thread_title=title,
                author=who,
                body=text.format(**fmt),
                created=stamp(created + dt.timedelta(minutes=offset)),
                votes=votes[j],
                accepted=j == accepted_at,
            )
        )
    return posts, accepted


def _weighted(rng: SeedStream) -> str:
    x = rng.random()
    for status, share in STATUS_WEIGHTS:
        if x < share:
            return status
        x -= share
    return STATUS_WEIGHTS[-1][0]


def _with_activity(
    members: list[dict[str, Any]], threads: tuple[Thread, ...], posts: tuple[Post, ...]
) -> tuple[User, ...]:
    started: dict[str, int] = {}
    replied: dict[str, int] = {}
    for t in threads:
        started[t.author] = started.get(t.author, 0) + 1
    for p in posts:
        replied[p.author] = replied.get(p.author, 0) + 1
    return tuple(
        User(
            posts=started.get(m["username"], 0) + replied.get(m["username"], 0),
            threads=started.get(m["username"], 0),
            replies=replied.get(m["username"], 0),
            **m,
        )
        for m in members
    )


def _tags(categories: tuple[Category, ...], threads: tuple[Thread, ...]) -> tuple[Tag, ...]:
    words = vocab()
    group = {slug: "platform" for slug in words["platforms"]}
    for c in words["categories"]:
        for tag in c["tags"]:
            group.setdefault(tag, c["slug"])
    shown = {c.slug for c in categories} | {"platform"}
    used = {tag for t in threads for tag in t.tags}
    return tuple(
        Tag(slug, slug, group[slug])
        for slug in sorted(group)
        if group[slug] in shown or slug in used
    )
