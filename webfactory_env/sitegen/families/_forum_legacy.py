"""The `forum` family: a product support community with categories, searchable thread lists,
threads with votes and accepted answers, replies you can edit and delete, member profiles,
a member directory and a simple sign-in."""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any, TypeVar

from webfactory_env.core.predicates import All, Contains, Eq, Not, Ref
from webfactory_env.core.resources import read_text
from webfactory_env.core.seeding import SeedStream, short_hash
from webfactory_env.sitegen import widgets as w
from webfactory_env.sitegen.app import SiteApp, handler
from webfactory_env.sitegen.html import Renderer, attrs, esc
from webfactory_env.sitegen.registry import Family, generator_version, register_family
from webfactory_env.sitegen.spec import AppEvent, AttrValue, Option, Patch, SiteSpec
from webfactory_env.sitegen.variation import Variation

T = TypeVar("T")
FAMILY_VERSION = "1"
TODAY = "2026-01-05"
NOW = dt.datetime(2026, 1, 5, 18, 0)
CATEGORY_COUNT = {"easy": 4, "medium": 5, "hard": 6}
THREAD_COUNT = {"easy": 40, "medium": 60, "hard": 90}
USER_COUNT = {"easy": 16, "medium": 22, "hard": 30}
MAX_REPLIES = {"easy": 6, "medium": 8, "hard": 10}
NEW_MEMBERS = 2  # members who joined days ago and have not posted yet
PAGE_SIZE = 10
# Share of threads per status before the guarantees below; every site has at least one of each.
STATUS_WEIGHTS = (("unanswered", 0.15), ("open", 0.40), ("solved", 0.37), ("locked", 0.08))
SORTS = ("newest", "votes", "replies")
SORT_ALIASES = {
    "newest": ("new", "latest", "recent", "newest first"),
    "votes": ("most votes", "top", "most upvoted", "score"),
    "replies": ("most replies", "most active", "active"),
}
STATUSES = ("", "solved", "unsolved")
REPLY_SORTS = ("oldest", "votes")
MEMBER_COLUMNS = ("name", "joined", "reputation", "posts")
FIELD_LIMITS = {
    "signin.username": 60,
    "signin.password": 200,
    "reply.body": 5000,
    "new_thread.title": 200,
    "new_thread.body": 5000,
}
REP_PER_VOTE = 10
REP_PER_ACCEPT = 15


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
    """A discussion: its question post has the thread's id."""

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
    """A reply in a thread."""

    id: str
    thread_id: str
    thread_title: str
    author: str
    body: str
    created: str
    votes: int
    accepted: bool


@cache
def _vocab() -> dict[str, Any]:
    return json.loads(read_text("sites", "forum", "vocab.json"))


def _stamp(t: dt.datetime) -> str:
    return t.isoformat(" ", "minutes")


NOW_STAMP = _stamp(NOW)


# --------------------------------------------------------------------- generation
def generate(seed: int, difficulty: str, overrides: Mapping[str, Any] | None = None) -> SiteSpec:
    """The forum that `seed` determines: product, categories, members, threads and replies."""
    root = SeedStream(seed).child("forum")
    vocab = _vocab()
    brand_rng = root.child("copy").child("brand")
    product = brand_rng.choice(vocab["products"])
    brand = f"{product} {brand_rng.choice(vocab['brand_suffix'])}"
    content = root.child("content")
    categories = _categories(content.child("categories"), CATEGORY_COUNT[difficulty])
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


def _distinct(rng: SeedStream, low: int, high: int, k: int) -> list[int]:
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
    pool = _vocab()["categories"]
    picked = sorted(rng.sample(range(len(pool)), n))  # keep the forum's usual order
    return tuple(
        Category(pool[i]["slug"], pool[i]["name"], pool[i]["description"], rank + 1)
        for rank, i in enumerate(picked)
    )


def _members(rng: SeedStream, n: int) -> list[dict[str, Any]]:
    """Members without activity counts: the first is a moderator, the last few are new."""
    vocab = _vocab()
    firsts = rng.child("first").sample(vocab["first_names"], n)
    lasts = rng.child("last").sample(vocab["last_names"], n)
    regular = n - NEW_MEMBERS
    joined_days = _distinct(rng.child("joined"), 420, 2400, regular) + _distinct(
        rng.child("joined-new"), 1, 12, NEW_MEMBERS
    )
    reputation = _distinct(rng.child("reputation"), 20, 9000, regular) + _distinct(
        rng.child("reputation-new"), 1, 9, NEW_MEMBERS
    )
    style = rng.child("username")
    words = vocab["password_words"]
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
        password = f"{secrets.choice(words)}-{secrets.choice(words)}-{secrets.randint(10, 99)}"
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
    vocab = _vocab()
    category = next(c for c in vocab["categories"] if c["slug"] == slug)
    out = []
    for template in category["titles"]:
        plats = sorted(vocab["platforms"]) if "{platform}" in template else [None]
        versions = list(vocab["versions"]) if "{version}" in template else [None]
        for plat in plats:
            for version in versions:
                title = template.format(
                    product=product,
                    platform=vocab["platforms"][plat] if plat else "",
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
    vocab = _vocab()
    n = THREAD_COUNT[difficulty]
    spec_of = {c["slug"]: c for c in vocab["categories"]}
    authors = [m["username"] for m in members if m["role"] != "new"]
    # Categories evenly spread over the threads, titles drawn without repeats per category.
    cats = [categories[i % len(categories)] for i in range(n)]
    rng.child("category").shuffle(cats)
    pools = {}
    for c in categories:
        titles = _titles(c.slug, product)
        need = min(len(titles), sum(1 for x in cats if x is c))
        pools[c.slug] = _pick_k(rng.child(f"titles:{c.slug}"), titles, need)
    # Newest first: each thread a little older than the one before, so times are distinct.
    times = []
    t = NOW
    gaps = rng.child("times")
    for _ in range(n):
        t -= dt.timedelta(minutes=gaps.randint(30, 2 * 24 * 60))
        times.append(t)
    statuses_rng = rng.child("status")
    statuses = [_weighted(statuses_rng) for _ in range(n)]
    for status, i in zip(
        ("locked", "solved", "open", "unanswered"), statuses_rng.sample(range(n), 4), strict=True
    ):
        statuses[i] = status  # every site has one thread of each status
    thread_votes = _distinct(rng.child("votes"), 0, 3 * n, n)
    threads: list[Thread] = []
    posts: list[Post] = []
    used_ids: set[str] = set()
    for i in range(n):
        tr = rng.child(f"thread:{i}")
        cat = cats[i]
        spec = spec_of[cat.slug]
        pool = pools[cat.slug]
        title, named, version = pool.pop() if pool else (f"{cat.name} question {i + 1}", None, None)
        plat = named or tr.choice(sorted(vocab["platforms"]))
        version = version or tr.choice(vocab["versions"])
        fmt = {"platform": vocab["platforms"][plat], "version": version, "product": product}
        tags = [tr.choice(spec["tags"])]
        if named or tr.chance(0.35):  # a title naming a platform is always tagged with it
            tags.append(plat)
        if tr.chance(0.25):
            extra = tr.choice(spec["tags"])
            if extra not in tags:
                tags.append(extra)
        body = (
            tr.choice(vocab["openers"])
            + "\n"
            + " ".join(
                x.format(**fmt)
                for x in (
                    tr.choice(vocab["context"]),
                    tr.choice(spec["details"]),
                    tr.choice(vocab["closers"]),
                )
            )
        )
        author = tr.choice(authors)
        tid = "T" + short_hash(f"thread:{title}", 7)
        k = 1
        while tid in used_ids:
            k += 1
            tid = "T" + short_hash(f"thread:{title}|{k}", 7)
        used_ids.add(tid)

        status = statuses[i]
        most = MAX_REPLIES[difficulty]
        count = {
            "unanswered": 0,
            "open": tr.randint(1, most),
            "solved": tr.randint(1, most),
            "locked": tr.randint(0, most),
        }[status]
        others = [a for a in authors if a != author]
        repliers = _pick_k(tr, others, min(count, len(others)))
        window = min(int((NOW - times[i]).total_seconds() // 60) - 1, 20 * 24 * 60)
        offsets = sorted(_distinct(tr, 1, window, len(repliers)))
        votes = _distinct(tr, 0, 25 + len(repliers), len(repliers))
        solved = status == "solved" or (status == "locked" and bool(repliers) and tr.chance(0.4))
        accepted_at = tr.below(len(repliers)) if solved else -1
        # Texts without repeats inside a thread; the accepted answer is always a fix.
        fixes = _pick_k(tr, spec["fixes"], len(spec["fixes"]))
        chatter = _pick_k(tr, vocab["chatter"], len(vocab["chatter"]))
        solution = fixes.pop()
        accepted = ""
        for j, (who, offset) in enumerate(zip(repliers, offsets, strict=True)):
            if j == accepted_at:
                text = solution
            else:
                fix = (tr.chance(0.3) or not chatter) and bool(fixes)
                text = (fixes if fix else chatter).pop()
            text = text.format(**fmt)
            pid = "P" + short_hash(f"post:{tid}:{who}", 7)
            if j == accepted_at:
                accepted = pid
            posts.append(
                Post(
                    id=pid,
                    thread_id=tid,
                    thread_title=title,
                    author=who,
                    body=text,
                    created=_stamp(times[i] + dt.timedelta(minutes=offset)),
                    votes=votes[j],
                    accepted=j == accepted_at,
                )
            )
        final = (
            "locked"
            if status == "locked"
            else "solved"
            if solved
            else "open"
            if repliers
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
                created=_stamp(times[i]),
                votes=thread_votes[i],
                tags=tuple(tags),
                primary_tag=tags[0],
                locked=status == "locked",
                solved=solved,
                accepted=accepted,
                replies=len(repliers),
                status=final,
            )
        )
    return tuple(threads), tuple(posts)


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
    vocab = _vocab()
    group = {slug: "platform" for slug in vocab["platforms"]}
    for c in vocab["categories"]:
        for tag in c["tags"]:
            group.setdefault(tag, c["slug"])
    shown = {c.slug for c in categories} | {"platform"}
    used = {tag for t in threads for tag in t.tags}
    return tuple(
        Tag(slug, slug, group[slug])
        for slug in sorted(group)
        if group[slug] in shown or slug in used
    )


# -------------------------------------------------------------------- validation
def validate_signin(values: Mapping[str, str]) -> dict[str, str]:
    """Field -> error key (empty when both fields are filled)."""
    return {
        name: "required" for name in ("username", "password") if not values.get(name, "").strip()
    }


def reply_minimum(strict: bool) -> int:
    return 25 if strict else 15


def validate_reply(body: str, strict: bool = False) -> dict[str, str]:
    text = body.strip()
    if not text:
        return {"body": "required"}
    if len(text) < reply_minimum(strict):
        return {"body": "reply_short"}
    return {}


def validate_thread(
    values: Mapping[str, str],
    *,
    titles: set[str],
    categories: set[str],
    tags: set[str],
    strict: bool = False,
) -> dict[str, str]:
    """Field -> error key for a new thread. Hard sites ask for longer text and a tag."""
    errors: dict[str, str] = {}
    title = values.get("title", "").strip()
    if not title:
        errors["title"] = "required"
    elif len(title) < (20 if strict else 15):
        errors["title"] = "title_short"
    elif len(title) > 120:
        errors["title"] = "title_long"
    elif title.lower() in titles:
        errors["title"] = "title_taken"
    category = values.get("category", "")
    if category not in categories:
        errors["category"] = "category"
    tag = values.get("tag", "")
    if (tag and tag not in tags) or (strict and not tag):
        errors["tag"] = "tag"
    body = values.get("body", "").strip()
    if not body:
        errors["body"] = "required"
    elif len(body) < (50 if strict else 30):
        errors["body"] = "body_short"
    return errors


def _is_date(text: str) -> bool:
    if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", text):
        return False
    try:
        dt.date.fromisoformat(text)
    except ValueError:
        return False
    return True


def _tokens(text: str) -> list[str]:
    return re.findall(r"[0-9a-z]+", text.lower())


# --------------------------------------------------------------------------- app
@dataclass
class ThreadList:
    """One thread list's controls (every category, and "all", remembers its own)."""

    draft: str = ""
    query: str = ""
    tag: str = ""
    status: str = ""
    sort: str = "newest"
    since: str = ""
    page: int = 1


def _ui_button(
    r: Renderer,
    *,
    sid: str,
    key: str,
    text: str,
    attrs_: Mapping[str, AttrValue],
    glyph: str | None = None,
    is_open: bool = False,
) -> str:
    """A button that opens or closes part of the page (a menu, an inline editor): UI state
    only, so it is structural, like the widgets' own openers."""
    inst = r.instrument(
        sid,
        "Button",
        "click",
        attrs_,
        label=text,
        handler=w.UI_TOGGLE,
        arg=key,
        effect=Contains(("ui", "open"), key),
        structural=True,
    )
    aria = text if glyph and r.variation.aria == "on" else None
    tip = text if r.variation.tooltips == "on" else None
    return (
        f'<button type="button" class="secondary"'
        f"{attrs(aria_expanded='true' if is_open else 'false', aria_label=aria, title=tip)}"
        f"{inst}>{esc(glyph or text)}</button>"
    )


class ForumApp(SiteApp):
    """The running forum: lists, threads, votes, answers, replies, profiles and sign-in."""

    family = "forum"

    def __init__(self, site: Any) -> None:
        super().__init__(site)
        e = self.spec.entities
        self.categories: tuple[Category, ...] = e["categories"]
        self.cat_by_slug = {c.slug: c for c in self.categories}
        self.tag_slugs: tuple[str, ...] = tuple(t.slug for t in e["tags"])
        self.users: tuple[User, ...] = e["users"]
        self.by_username = {u.username: u for u in self.users}
        # Threads oldest first; a thread's index breaks ties between equal timestamps.
        self.threads: list[Thread] = list(reversed(e["threads"]))
        self.by_id = {t.id: t for t in self.threads}
        self.order = {t.id: i for i, t in enumerate(self.threads)}
        self.replies: dict[str, list[Post]] = {}
        self.by_author: dict[str, list[Post]] = {}
        self.post_by_id: dict[str, Post] = {}
        for p in e["posts"]:
            self._index(p)
        self.strict = self.spec.difficulty == "hard"
        self.user = ""
        self.lists: dict[str, ThreadList] = {}
        self.list_scope = ""  # the thread list seen last: its controls are `listing` state
        self.return_to = "/"
        self.reply_sort = "oldest"
        self.members_sort = ("name", "asc")
        self.accepted: dict[str, str] = {}  # thread id -> accepted reply, where changed
        self.edits: dict[str, str] = {}
        self.deleted: set[str] = set()
        self.voters: dict[str, set[str]] = {}  # post id -> members who upvoted it here
        self.styles: dict[str, tuple[bool, bool]] = {}  # post id -> (bold, italic)
        self.forms: dict[str, dict[str, str]] = {
            "signin": {"username": ""},
            "reply": {"body": ""},
            "edit_reply": {"post": "", "body": ""},
            "new_thread": {"title": "", "category": "", "tag": "", "body": ""},
        }
        self._password = ""  # never part of state
        self.form_errors: dict[str, dict[str, str]] = {
            "signin": {},
            "reply": {},
            "edit_reply": {},
            "new_thread": {},
        }
        self.editors = {
            "reply": {"bold": False, "italic": False},
            "body": {"bold": False, "italic": False},
        }
        self.activity: dict[str, list[str]] = {
            "posted": [],
            "edited": [],
            "deleted": [],
            "threads": [],
        }
        self.created = {"id": "", "title": "", "category": "", "tag": "", "body": ""}
        self.reports: list[str] = []
        self.follows: list[str] = []
        self.made = 0  # posts and threads created here: seeds their ids
        self._haystacks: dict[str, str] = {}

    def _index(self, p: Post) -> None:
        self.replies.setdefault(p.thread_id, []).append(p)
        self.by_author.setdefault(p.author, []).append(p)
        self.post_by_id[p.id] = p

    # ----------------------------------------------------------------- queries
    def live_replies(self, tid: str) -> list[Post]:
        return [p for p in self.replies.get(tid, ()) if p.id not in self.deleted]

    def body_of(self, p: Post) -> str:
        return self.edits.get(p.id, p.body)

    def votes_of(self, pid: str) -> int:
        post = self.post_by_id.get(pid)
        base = post.votes if post is not None else self.by_id[pid].votes
        return base + len(self.voters.get(pid, ()))

    def accepted_of(self, t: Thread) -> str:
        return self.accepted.get(t.id, t.accepted)

    def my_reply(self, tid: str) -> Post | None:
        if not self.user:
            return None
        return next((p for p in self.live_replies(tid) if p.author == self.user), None)

    def reputation(self, username: str) -> int:
        rep = self.by_username[username].reputation
        for pid, voters in self.voters.items():
            if voters and self._author_of(pid) == username:
                rep += REP_PER_VOTE * len(voters)
        for tid, now in self.accepted.items():
            before = self.by_id[tid].accepted
            if before and self._author_of(before) == username:
                rep -= REP_PER_ACCEPT
            if now and self._author_of(now) == username:
                rep += REP_PER_ACCEPT
        return rep

    def _author_of(self, pid: str) -> str:
        post = self.post_by_id.get(pid)
        if post is not None:
            return post.author
        thread = self.by_id.get(pid)
        return thread.author if thread is not None else ""

    def posts_by(self, username: str) -> list[tuple[str, Thread, str]]:
        """(post id, thread, created) of everything `username` wrote, newest first."""
        out = [(t.id, t, t.created) for t in self.threads if t.author == username]
        out += [
            (p.id, self.by_id[p.thread_id], p.created)
            for p in self.by_author.get(username, ())
            if p.id not in self.deleted
        ]
        out.sort(key=lambda x: (x[2], self.order[x[1].id], x[0]), reverse=True)
        return out

    def _list(self, scope: str) -> ThreadList:
        return self.lists.setdefault(scope, ThreadList())

    @staticmethod
    def scope_of(route: str) -> str | None:
        if route == "/threads":
            return "all"
        if route.startswith("/c/"):
            return route[3:]
        return None

    def _haystack(self, t: Thread) -> str:
        text = self._haystacks.get(t.id)
        if text is None:
            text = " ".join((t.title, t.body, *t.tags)).lower()
            self._haystacks[t.id] = text
        return text

    def listing(self, scope: str) -> list[Thread]:
        ls = self._list(scope)
        items = [t for t in self.threads if scope == "all" or t.category == scope]
        words = _tokens(ls.query)
        if words:
            items = [t for t in items if all(x in self._haystack(t) for x in words)]
        if ls.tag:
            items = [t for t in items if ls.tag in t.tags]
        if ls.status:
            want = ls.status == "solved"
            items = [t for t in items if bool(self.accepted_of(t)) == want]
        if ls.since:
            items = [t for t in items if t.created[:10] >= ls.since]
        if ls.sort == "votes":
            items.sort(
                key=lambda t: (self.votes_of(t.id), t.created, self.order[t.id]), reverse=True
            )
        elif ls.sort == "replies":
            items.sort(
                key=lambda t: (len(self.live_replies(t.id)), t.created, self.order[t.id]),
                reverse=True,
            )
        else:
            items.sort(key=lambda t: (t.created, self.order[t.id]), reverse=True)
        return items

    def _shown(self, scope: str, count: int) -> tuple[int, int]:
        """(index of the first thread shown, how many are shown)."""
        if self.v.list_mode == "infinite":
            return 0, min(count, self.ui.more.get(f"threads:{scope}", 1) * PAGE_SIZE)
        first = (self._list(scope).page - 1) * PAGE_SIZE
        return first, max(0, min(PAGE_SIZE, count - first))

    def _pages(self, count: int) -> int:
        return max(1, -(-count // PAGE_SIZE))

    def thread_replies(self, t: Thread) -> list[Post]:
        items = self.live_replies(t.id)
        if self.reply_sort == "votes":
            order = {p.id: i for i, p in enumerate(items)}
            items.sort(key=lambda p: (-self.votes_of(p.id), order[p.id]))
        return items

    def _page_kind(self, route: str) -> str:
        fixed = {
            "/": "home",
            "/threads": "list",
            "/users": "members",
            "/signin": "signin",
            "/new": "new_thread",
            "/pro": "pro",
        }
        if route in fixed:
            return fixed[route]
        if route.startswith("/c/") and route[3:] in self.cat_by_slug:
            return "list"
        if route.startswith("/t/") and route[3:] in self.by_id:
            return "thread"
        if route.startswith("/u/") and route[3:] in self.by_username:
            return "profile"
        return "not_found"

    def _thread_here(self) -> Thread | None:
        return self.by_id.get(self.route[3:]) if self.route.startswith("/t/") else None

    # ------------------------------------------------------------------- state
    def state(self) -> dict[str, Any]:
        ls = self._list(self.list_scope) if self.list_scope else ThreadList()
        count = len(self.listing(self.list_scope)) if self.list_scope else 0
        _, shown = self._shown(self.list_scope, count) if self.list_scope else (0, 0)
        return {
            "route": self.route,
            "page": self._page_kind(self.route),
            "auth": {"signed_in": bool(self.user), "user": self.user},
            "listing": {
                "scope": self.list_scope,
                "query": ls.query,
                "tag": ls.tag,
                "status": ls.status,
                "sort": ls.sort,
                "since": ls.since,
                "page": ls.page,
                "pages": self._pages(count) if self.list_scope else 0,
                "count": count,
                "shown": shown,
            },
            "thread": self._thread_state(),
            "profile": self._profile_state(),
            "members": {"sort": "-".join(self.members_sort)},
            "my": self._my_state(),
            "activity": {k: list(v) for k, v in self.activity.items()},
            "created": dict(self.created),
            "forms": {
                "search": {"q": ls.draft},
                # The password itself never enters state (rewards, traces): only whether
                # one was typed.
                "signin": {
                    "username": self.forms["signin"]["username"],
                    "password_given": bool(self._password),
                },
                "reply": dict(self.forms["reply"]),
                "edit_reply": dict(self.forms["edit_reply"]),
                "new_thread": dict(self.forms["new_thread"]),
            },
            "validation": {name: {"errors": dict(errs)} for name, errs in self.form_errors.items()},
            "editors": {name: dict(flags) for name, flags in self.editors.items()},
            "reports": list(self.reports),
            "follows": list(self.follows),
        }

    def _thread_state(self) -> dict[str, Any]:
        t = self._thread_here()
        if t is None:
            return {
                "id": "",
                "title": "",
                "category": "",
                "author": "",
                "locked": False,
                "solved": False,
                "accepted_post": "",
                "accepted_author": "",
                "accepted_votes_rank": 0,
                "accepted_voted": False,
                "votes": 0,
                "replies": 0,
                "reply_ids": [],
                "sort": self.reply_sort,
                "mine": False,
                "can_reply": False,
                "can_accept": False,
                "has_my_reply": False,
                "my_reply": "",
            }
        replies = self.live_replies(t.id)
        accepted = self.accepted_of(t)
        by_votes = sorted(replies, key=lambda p: -self.votes_of(p.id))
        rank = next((i + 1 for i, p in enumerate(by_votes) if p.id == accepted), 0)
        accepted_post = self.post_by_id.get(accepted)
        mine = self.my_reply(t.id)
        return {
            "id": t.id,
            "title": t.title,
            "category": t.category,
            "author": t.author,
            "locked": t.locked,
            "solved": bool(accepted),
            "accepted_post": accepted,
            "accepted_author": (
                self.by_username[accepted_post.author].display_name if accepted_post else ""
            ),
            "accepted_votes_rank": rank,
            "accepted_voted": bool(accepted) and self.user in self.voters.get(accepted, ()),
            "votes": self.votes_of(t.id),
            "replies": len(replies),
            "reply_ids": [p.id for p in replies],
            "sort": self.reply_sort,
            "mine": bool(self.user) and t.author == self.user,
            "can_reply": bool(self.user) and not t.locked and mine is None,
            "can_accept": bool(self.user) and t.author == self.user and not t.locked,
            "has_my_reply": mine is not None,
            "my_reply": self.body_of(mine) if mine else "",
        }

    def _profile_state(self) -> dict[str, Any]:
        u = self.by_username.get(self.route[3:]) if self.route.startswith("/u/") else None
        if u is None:
            return {
                "username": "",
                "name": "",
                "role": "",
                "joined": "",
                "reputation": 0,
                "posts": 0,
                "threads": 0,
            }
        posts = self.posts_by(u.username)
        return {
            "username": u.username,
            "name": u.display_name,
            "role": u.role,
            "joined": u.joined,
            "reputation": self.reputation(u.username),
            "posts": len(posts),
            "threads": sum(1 for pid, t, _ in posts if pid == t.id),
        }

    def _my_state(self) -> dict[str, Any]:
        if not self.user:
            return {"user": "", "replied": [], "replies": {}, "voted": [], "threads": []}
        mine = [p for p in self.by_author.get(self.user, ()) if p.id not in self.deleted]
        return {
            "user": self.user,
            "replied": sorted({p.thread_id for p in mine}),
            "replies": {p.thread_id: self.body_of(p) for p in mine},
            "voted": sorted(pid for pid, who in self.voters.items() if self.user in who),
            "threads": [t.id for t in self.threads if t.author == self.user],
        }

    # -------------------------------------------------------------- dispatching
    def dispatch(self, event: AppEvent) -> Patch:
        before = self.route
        patch = super().dispatch(event)
        if self.route != before:
            scope = self.scope_of(self.route)
            if scope is not None and self._page_kind(self.route) == "list":
                self.list_scope = scope
                self.touch()
            if self.route == "/signin" and self.known_route(before):
                self.return_to = before
        return patch

    def _patch(self, event: AppEvent, before: str, latency: int) -> Patch:
        # A re-sent region arrives with empty placeholders for the regions nested in it
        # (the thread list, field errors): send those along even when they did not
        # change, or the page would show them empty. (Generic; see the report on app.py.)
        if self.failed is event and self.ui.modal:
            # The change a dialog sent failed: close the dialog so that the error banner and
            # its Retry button (shown on the page) are not hidden behind it.
            self.ui.modal = None
        patch = super()._patch(event, before, latency)
        regions = dict(patch.regions)
        page = self.page()
        pending = list(regions)
        while pending:
            html = regions[pending.pop()]
            for name, inner in page.regions.items():
                if name not in regions and f'data-wf-region="{name}"' in html:
                    regions[name] = inner
                    pending.append(name)
        if len(regions) == len(patch.regions):
            return patch
        return dataclasses.replace(patch, regions=regions)

    # ---------------------------------------------------------- list handlers
    def _here_list(self) -> tuple[str, ThreadList] | None:
        scope = self.scope_of(self.route)
        if scope is None or self._page_kind(self.route) != "list":
            return None
        return scope, self._list(scope)

    def _list_changed(self, scope: str, ls: ThreadList) -> None:
        ls.page = 1
        self.ui.more.pop(f"threads:{scope}", None)

    @handler("search_field")
    def on_search_field(self, ev: AppEvent) -> str | None:
        here = self._here_list()
        if here is not None:
            here[1].draft = (ev.value or "")[:100]
        return None

    @handler("search")
    def on_search(self, ev: AppEvent) -> str | None:
        here = self._here_list()
        if here is None:
            return None
        scope, ls = here
        if ev.values is not None and "q" in ev.values:
            ls.draft = ev.values["q"][:100]
        ls.query = ls.draft.strip()
        self._list_changed(scope, ls)
        return None

    @handler("filter")
    def on_filter(self, ev: AppEvent) -> str | None:
        here = self._here_list()
        if here is None:
            return None
        scope, ls = here
        value = ev.value or ""
        if ev.arg == "tag" and (value == "" or value in self._scope_tags(scope)):
            ls.tag = value
        elif ev.arg == "status" and value in STATUSES:
            ls.status = value
        else:
            return None
        self._list_changed(scope, ls)
        return None

    @handler("sort")
    def on_sort(self, ev: AppEvent) -> str | None:
        here = self._here_list()
        if here is not None and ev.value in SORTS:
            here[1].sort = ev.value
            self._list_changed(*here)
        return None

    @handler("since")
    def on_since(self, ev: AppEvent) -> str | None:
        here = self._here_list()
        value = (ev.value or "").strip()
        if here is None or (value and not _is_date(value)):
            return None  # a date still being typed, or not a date: ignored
        here[1].since = value
        self._list_changed(*here)
        return None

    @handler("page")
    def on_page(self, ev: AppEvent) -> str | None:
        here = self._here_list()
        if here is None or not (ev.arg or "").isdigit():
            return None
        scope, ls = here
        n = int(ev.arg or 0)
        if 1 <= n <= self._pages(len(self.listing(scope))):
            ls.page = n
        return None

    def _scope_tags(self, scope: str) -> list[str]:
        return sorted(
            {tag for t in self.threads if scope == "all" or t.category == scope for tag in t.tags}
        )

    # ----------------------------------------------------------- form handlers
    def _live(self, form: str, name: str) -> None:
        """With sync validation a field's error follows what is typed into it."""
        if self.v.validation != "sync":
            return
        found = self._validate(form).get(name)
        if found:
            self.form_errors[form][name] = found
        else:
            self.form_errors[form].pop(name, None)

    def _validate(self, form: str) -> dict[str, str]:
        if form == "signin":
            return validate_signin(
                {"username": self.forms["signin"]["username"], "password": self._password}
            )
        if form == "reply":
            return validate_reply(self.forms["reply"]["body"], self.strict)
        if form == "edit_reply":
            return validate_reply(self.forms["edit_reply"]["body"], self.strict)
        return validate_thread(
            self.forms["new_thread"],
            titles={t.title.lower() for t in self.threads},
            categories=set(self.cat_by_slug),
            tags=set(self.tag_slugs),
            strict=self.strict,
        )

    @handler("field")
    def on_field(self, ev: AppEvent) -> str | None:
        key = ev.arg or ""
        if key not in FIELD_LIMITS:
            return None
        value = (ev.value or "")[: FIELD_LIMITS[key]]
        form, _, name = key.partition(".")
        if key == "signin.password":
            self._password = value
        else:
            self.forms[form][name] = value
        self._live(form, name)
        return None

    @handler("edit_field")
    def on_edit_field(self, ev: AppEvent) -> str | None:
        post = self.post_by_id.get(ev.arg or "")
        if post is not None and post.author == self.user and post.id not in self.deleted:
            self.forms["edit_reply"] = {"post": post.id, "body": (ev.value or "")[:5000]}
            self._live("edit_reply", "body")
        return None

    @handler("format")
    def on_format(self, ev: AppEvent) -> str | None:
        name, _, style = (ev.arg or "").partition("=")
        if name in self.editors and style in ("bold", "italic"):
            self.editors[name][style] = not self.editors[name][style]
        return None

    @handler("new_choice")
    def on_new_choice(self, ev: AppEvent) -> str | None:
        value = ev.value or ""
        allowed = {"category": set(self.cat_by_slug), "tag": set(self.tag_slugs)}
        if ev.arg in allowed and (value == "" or value in allowed[ev.arg or ""]):
            self.forms["new_thread"][ev.arg or ""] = value
            self._live("new_thread", ev.arg or "")
        return None

    @handler("reply_sort")
    def on_reply_sort(self, ev: AppEvent) -> str | None:
        if ev.value in REPLY_SORTS:
            self.reply_sort = ev.value
        return None

    @handler("members_sort")
    def on_members_sort(self, ev: AppEvent) -> str | None:
        col, _, order = (ev.arg or "").partition("=")
        if col in MEMBER_COLUMNS and order in ("asc", "desc"):
            self.members_sort = (col, order)
        return None

    # ------------------------------------------------------ account handlers
    @handler("signin", mutating=True)
    def on_signin(self, ev: AppEvent) -> str | None:
        if ev.values is not None:
            if "username" in ev.values:
                self.forms["signin"]["username"] = ev.values["username"][:60]
            # An empty submitted password keeps what was typed: a password input that was
            # re-rendered is empty, since a password is never echoed into the page.
            if ev.values.get("password"):
                self._password = ev.values["password"][:200]
        errors = self._validate("signin")
        name = self.forms["signin"]["username"].strip().lower()
        user = self.by_username.get(name)
        if not errors and (user is None or user.password != self._password):
            errors["_form"] = "credentials"
            self._password = ""  # as sites do: a wrong password is not kept
        self.form_errors["signin"] = errors
        if errors or user is None:
            return None
        self.user = user.username
        self.flash = self.copy("signin.welcome", name=user.display_name)
        back = self.return_to
        return back if self.known_route(back) and back != "/signin" else "/"

    @handler("signout", mutating=True)
    def on_signout(self, ev: AppEvent) -> str | None:
        self.user = ""
        self.flash = self.copy("signin.bye")
        return "/" if self.route == "/new" else None

    # ------------------------------------------------------- thread handlers
    @handler("vote", mutating=True)
    def on_vote(self, ev: AppEvent) -> str | None:
        pid = ev.arg or ""
        tid = self.post_by_id[pid].thread_id if pid in self.post_by_id else pid
        t = self.by_id.get(tid)
        if t is None or (pid != tid and pid in self.deleted):
            return None
        if not self.user:
            self.flash = self.copy("thread.signin_to_vote")
            return None
        if t.locked or self._author_of(pid) == self.user:
            return None
        voters = self.voters.setdefault(pid, set())
        if self.user in voters:
            voters.discard(self.user)
        else:
            voters.add(self.user)
        return None

    def _acceptable(self, pid: str) -> Thread | None:
        post = self.post_by_id.get(pid)
        if post is None or post.id in self.deleted:
            return None
        t = self.by_id[post.thread_id]
        if not self.user or t.author != self.user or t.locked:
            return None
        return t

    @handler("accept", mutating=True)
    def on_accept(self, ev: AppEvent) -> str | None:
        t = self._acceptable(ev.arg or "")
        if t is not None:
            self.accepted[t.id] = ev.arg or ""
            self.flash = self.copy("thread.accepted_note")
        return None

    @handler("unaccept", mutating=True)
    def on_unaccept(self, ev: AppEvent) -> str | None:
        t = self._acceptable(ev.arg or "")
        if t is not None and self.accepted_of(t) == ev.arg:
            self.accepted[t.id] = ""
        return None

    def _style_of_editor(self, name: str) -> tuple[bool, bool]:
        flags = self.editors[name]
        return flags["bold"], flags["italic"]

    def _new_id(self, prefix: str, text: str) -> str:
        self.made += 1
        return prefix + short_hash(f"{self.spec.seed}|{text}|new|{self.made}", 7)

    @handler("post_reply", mutating=True)
    def on_post_reply(self, ev: AppEvent) -> str | None:
        t = self._thread_here()
        if t is None or not self.user or t.locked or self.my_reply(t.id) is not None:
            return None
        if ev.values is not None and "reply" in ev.values:
            self.forms["reply"]["body"] = ev.values["reply"][:5000]
        errors = self._validate("reply")
        self.form_errors["reply"] = errors
        if errors:
            return None
        body = self.forms["reply"]["body"].strip()
        post = Post(
            self._new_id("P", f"post:{t.id}:{self.user}"),
            t.id,
            t.title,
            self.user,
            body,
            NOW_STAMP,
            0,
            False,
        )
        self._index(post)
        self.styles[post.id] = self._style_of_editor("reply")
        # The draft stays as it was (the composer is gone once one has replied): what was
        # typed is still what was typed, so progress made by typing it is not undone.
        self.activity["posted"].append(body)
        self.flash = self.copy("thread.replied")
        return None

    @handler("save_edit", mutating=True)
    def on_save_edit(self, ev: AppEvent) -> str | None:
        t = self._thread_here()
        post = self.my_reply(t.id) if t is not None else None
        if t is None or post is None or t.locked:
            return None
        draft = self.forms["edit_reply"]
        if draft["post"] != post.id:
            self.forms["edit_reply"] = draft = {"post": post.id, "body": self.body_of(post)}
        if ev.values is not None and "edit_body" in ev.values:
            draft["body"] = ev.values["edit_body"][:5000]
        errors = self._validate("edit_reply")
        self.form_errors["edit_reply"] = errors
        if errors:
            return None
        self.edits[post.id] = draft["body"].strip()
        self.activity["edited"].append(post.id)
        self.ui.open.discard(f"edit:{post.id}")
        self.ui.open.discard(f"actions:{post.id}")
        self.ui.modal = None
        self.flash = self.copy("thread.edited")
        return None

    @handler("delete_reply", mutating=True)
    def on_delete_reply(self, ev: AppEvent) -> str | None:
        post = self.post_by_id.get(ev.arg or "")
        if post is None or post.author != self.user or not self.user or post.id in self.deleted:
            return None
        t = self.by_id[post.thread_id]
        if t.locked or self.accepted_of(t) == post.id:
            return None
        self.deleted.add(post.id)
        self.activity["deleted"].append(post.id)
        self.ui.open.discard(f"actions:{post.id}")
        self.ui.modal = None
        self.flash = self.copy("thread.deleted")
        return None

    @handler("new_thread", mutating=True)
    def on_new_thread(self, ev: AppEvent) -> str | None:
        if not self.user:
            return None
        draft = self.forms["new_thread"]
        values = ev.values or {}
        for name, limit in (("title", 200), ("body", 5000)):
            if name in values:
                draft[name] = values[name][:limit]
        for name, allowed in (("category", set(self.cat_by_slug)), ("tag", set(self.tag_slugs))):
            if values.get(name) in allowed:  # a native select's value; radios send DOM names
                draft[name] = values[name]
        errors = self._validate("new_thread")
        self.form_errors["new_thread"] = errors
        if errors:
            return None
        title, body = draft["title"].strip(), draft["body"].strip()
        cat = self.cat_by_slug[draft["category"]]
        tags = (draft["tag"],) if draft["tag"] else ()
        tid = self._new_id("T", f"thread:{title}")
        thread = Thread(
            tid,
            title,
            cat.slug,
            cat.name,
            self.user,
            body,
            NOW_STAMP,
            0,
            tags,
            draft["tag"],
            False,
            False,
            "",
            0,
            "unanswered",
        )
        self.threads.append(thread)
        self.by_id[tid] = thread
        self.order[tid] = len(self.threads) - 1
        self.styles[tid] = self._style_of_editor("body")
        self.created = {
            "id": tid,
            "title": title,
            "category": cat.slug,
            "tag": draft["tag"],
            "body": body,
        }
        self.activity["threads"].append(tid)
        self.flash = self.copy("new.posted")
        return f"/t/{tid}"

    # ----------------------------------------------------- distractor handlers
    @handler("report", mutating=True)
    def on_report(self, ev: AppEvent) -> str | None:
        pid = ev.arg or ""
        if (pid in self.post_by_id or pid in self.by_id) and pid not in self.reports:
            self.reports.append(pid)
            self.flash = self.copy("thread.reported")
        return None

    @handler("follow", mutating=True)
    def on_follow(self, ev: AppEvent) -> str | None:
        tid = ev.arg or ""
        if tid in self.by_id:
            if tid in self.follows:
                self.follows.remove(tid)
            else:
                self.follows.append(tid)
        return None

    # --------------------------------------------------------------- rendering
    def header(self, r: Renderer) -> str:
        c = self.copy
        entries = [
            ("/", c("nav.home")),
            ("/threads", c("nav.threads")),
            ("/users", c("nav.members")),
            ("/new", c("nav.new")),
        ]
        if not self.user:
            entries.append(("/signin", c("nav.signin")))
        nav = w.site_nav(r, entries, label=c("nav.label"))
        me = ""
        if self.user:
            u = self.by_username[self.user]
            me = (
                '<span class="me">'
                + w.link(
                    r,
                    sid="nav:profile",
                    href=f"/u/{u.username}",
                    text=u.display_name,
                    attrs_={"role": "my-profile"},
                    region="nav",
                )
                + w.button(
                    r,
                    sid="signout",
                    text=c("nav.signout"),
                    handler="signout",
                    attrs_={"role": "signout"},
                    variant="secondary",
                    effect=Eq(("auth", "signed_in"), False),
                )
                + "</span>"
            )
        return f'<span class="brand">{esc(self.spec.brand)}</span>{nav}{me}'

    def _user_link(
        self, r: Renderer, username: str, *, sid: str, extra: Mapping[str, AttrValue] | None = None
    ) -> str:
        u = self.by_username[username]
        return w.link(
            r,
            sid=sid,
            href=f"/u/{username}",
            text=u.display_name,
            kind="Item",
            class_="author",
            attrs_={"type": "user", "username": username, "name": u.display_name, **(extra or {})},
        )

    def _badges(self, t: Thread) -> str:
        c = self.copy
        out = []
        if self.accepted_of(t):
            out.append(f'<span class="badge solved">✓ {esc(c("thread.solved"))}</span>')
        if t.locked:
            out.append(f'<span class="badge locked">{esc(c("thread.locked"))}</span>')
        return "".join(out)

    @staticmethod
    def _tag_chips(tags: tuple[str, ...]) -> str:
        if not tags:
            return ""
        return (
            '<span class="tags">'
            + "".join(f'<span class="tag">{esc(x)}</span>' for x in tags)
            + "</span>"
        )

    def _thread_row(self, r: Renderer, t: Thread, rank: int) -> str:
        c = self.copy
        votes = self.votes_of(t.id)
        replies = len(self.live_replies(t.id))
        link = w.link(
            r,
            sid=f"thread:{t.id}",
            href=f"/t/{t.id}",
            text=t.title,
            kind="Item",
            class_="title",
            attrs_={
                "type": "thread",
                "id": t.id,
                "title": t.title,
                "category": t.category_name,
                "tags": ", ".join(t.tags),
                "author": t.author,
                "votes": votes,
                "replies": replies,
                "solved": bool(self.accepted_of(t)),
                "locked": t.locked,
                "created": t.created,
                "rank": rank,
            },
        )
        who = self.by_username[t.author].display_name
        meta = c("list.meta", author=who, date=t.created)
        return (
            f'<li class="thread-row"><div class="counts">'
            f"<span><strong>{votes}</strong> {esc(c('list.votes'))}</span>"
            f"<span><strong>{replies}</strong> {esc(c('list.replies'))}</span></div>"
            f'<div class="thread-main">{link} {self._badges(t)}'
            f'<div class="muted">{esc(meta)}</div>{self._tag_chips(t.tags)}</div></li>'
        )

    def _sponsored(self, r: Renderer) -> str:
        if self.v.distractors == "none":
            return ""
        c = self.copy
        product = str(self.spec.extra.get("product", ""))
        text = (
            SeedStream(self.spec.seed)
            .child("copy")
            .child("promo")
            .choice(_vocab()["promo"])
            .format(product=product)
        )
        link = w.link(
            r,
            sid="promo:pro",
            href="/pro",
            text=text,
            kind="Item",
            class_="title",
            attrs_={"type": "ad", "title": text, "distractor": True},
        )
        return (
            f'<li class="thread-row sponsored"><div class="counts">'
            f'<span class="badge">{esc(c("distractors.sponsored"))}</span></div>'
            f'<div class="thread-main">{link}</div></li>'
        )

    # ------------------------------------------------------------------- pages
    def _render_home(self, r: Renderer, route: str) -> tuple[str, str]:
        c = self.copy
        cats = []
        for cat in self.categories:
            n = sum(1 for t in self.threads if t.category == cat.slug)
            link = w.link(
                r,
                sid=f"category:{cat.slug}",
                href=f"/c/{cat.slug}",
                text=cat.name,
                kind="Item",
                class_="title",
                attrs_={
                    "type": "category",
                    "name": cat.name,
                    "slug": cat.slug,
                    "threads": n,
                    "rank": cat.rank,
                },
            )
            cats.append(
                f'<li class="category">{link}<p class="muted">{esc(cat.description)}</p>'
                f'<span class="muted">{esc(c("home.count", n=n))}</span></li>'
            )
        latest = sorted(self.threads, key=lambda t: (t.created, self.order[t.id]), reverse=True)[:5]
        rows = "".join(self._thread_row(r, t, i + 1) for i, t in enumerate(latest))
        browse = w.link(
            r, sid="home:threads", href="/threads", text=c("home.browse"), class_="button"
        )
        title = c("home.title", brand=self.spec.brand)
        return title, (
            f'<section class="hero"><h1>{esc(title)}</h1><p>{esc(c("home.tagline"))}</p>'
            f"{browse}</section>{w.toast(self.flash)}"
            f'<h2>{esc(c("home.categories"))}</h2><ul class="categories">{"".join(cats)}</ul>'
            f'<h2>{esc(c("home.latest"))}</h2><ol class="threads">{rows}</ol>'
        )

    def _render_list(self, r: Renderer, route: str) -> tuple[str, str]:
        c = self.copy
        scope = self.scope_of(route) or "all"
        ls = self._list(scope)
        cat = self.cat_by_slug.get(scope)
        heading = cat.name if cat else c("list.all")
        intro = cat.description if cat else c("list.all_intro")
        search = w.form(
            r,
            name="search",
            handler="search",
            submit_sid="form:search",
            submit_text=c("list.search_go"),
            label=c("list.search"),
            effect=Eq(("listing", "query"), Ref("state:forms.search.q")),
            body=w.text_field(
                r,
                sid="field:search.q",
                name="q",
                label=c("list.search"),
                value=ls.draft,
                handler="search_field",
                arg="q",
                effect=Eq(("forms", "search", "q"), Ref("value")),
                form="search",
                input_type="search",
                helper=c("list.search_help"),
            ),
        )
        tags = self._scope_tags(scope)
        tag_sel = w.choice(
            r,
            sid="filter:tag",
            kind="Filter",
            name="tag",
            label=c("list.tag"),
            options=[
                Option("", c("list.all_tags"), aliases=("all", "any")),
                *(Option(x, x) for x in tags),
            ],
            selected=ls.tag,
            handler="filter",
            arg="tag",
            effect=Eq(("listing", "tag"), Ref("value")),
            is_open="filter:tag" in self.ui.open,
        )
        status_sel = w.choice(
            r,
            sid="filter:status",
            kind="Filter",
            name="status",
            label=c("list.status"),
            options=[
                Option("", c("list.any_status"), aliases=("all", "any")),
                Option("solved", c("list.solved"), aliases=("answered", "resolved")),
                Option("unsolved", c("list.unsolved"), aliases=("open", "not solved")),
            ],
            selected=ls.status,
            handler="filter",
            arg="status",
            effect=Eq(("listing", "status"), Ref("value")),
            is_open="filter:status" in self.ui.open,
        )
        sort_sel = w.choice(
            r,
            sid="sort",
            kind="Sort",
            name="sort",
            label=c("list.sort"),
            options=[
                Option(s, c(f"sort.{s}"), (("key", s), ("order", "desc")), SORT_ALIASES[s])
                for s in SORTS
            ],
            selected=ls.sort,
            handler="sort",
            arg=None,
            effect=Eq(("listing", "sort"), Ref("value")),
            is_open="sort" in self.ui.open,
        )
        since = w.date_picker(
            r,
            sid="date:since",
            name="since",
            label=c("list.since"),
            value=ls.since,
            handler="since",
            arg="since",
            effect=Eq(("listing", "since"), Ref("value")),
            form="filters",
            month=self.month_of("since"),
            is_open="date:since" in self.ui.open,
            today=self.spec.today,
        )
        if ls.since:
            since += w.button(
                r,
                sid="since:clear",
                text=c("list.any_time"),
                handler="since",
                variant="secondary",
                attrs_={"role": "clear-date", "name": "since"},
                effect=Eq(("listing", "since"), ""),
            )
        new = w.link(r, sid="list:new", href="/new", text=c("list.new"), class_="button")
        return heading, (
            f'<div class="list-head"><div><h1>{esc(heading)}</h1>'
            f'<p class="muted">{esc(intro)}</p></div>{new}</div>{w.toast(self.flash)}'
            f'<div class="list-layout"><div class="list-main"><div class="search">{search}</div>'
            + r.subregion("threads", self._thread_list(r, scope))
            + f'</div><aside class="filters">{sort_sel}{status_sel}{tag_sel}'
            f'<div class="since">{since}</div></aside></div>'
        )

    def _thread_list(self, r: Renderer, scope: str) -> str:
        c = self.copy
        items = self.listing(scope)
        first, n = self._shown(scope, len(items))
        shown = items[first : first + n]
        count = c("list.count_one") if len(items) == 1 else c("list.count_many", n=len(items))
        if self.v.list_mode == "infinite":
            more = w.load_more(
                r, key=f"threads:{scope}", has_more=first + n < len(items), text=c("list.loading")
            )
        else:
            more = w.pager(
                r,
                key="threads",
                page=self._list(scope).page,
                pages=self._pages(len(items)),
                handler="page",
                label=c("list.pages"),
                prev_text=c("list.prev"),
                next_text=c("list.next"),
                state_path=("listing", "page"),
            )
        rows = "".join(self._thread_row(r, t, first + i + 1) for i, t in enumerate(shown))
        body = (
            f'<ol class="threads">{self._sponsored(r)}{rows}</ol>'
            if items
            else f"<p>{esc(c('list.empty'))}</p>"
        )
        return f'<p class="muted" role="status">{esc(count)}</p>{body}{more}'

    def _render_thread(self, r: Renderer, route: str) -> tuple[str, str]:
        c = self.copy
        t = self.by_id[route[3:]]
        cat = self.cat_by_slug[t.category]
        crumbs = w.breadcrumbs(
            r,
            [(c("nav.home"), "/"), (cat.name, f"/c/{cat.slug}"), (t.title, None)],
            label=c("thread.crumbs"),
        )
        notice = ""
        if t.locked:
            notice = f'<p class="notice locked" role="status">{esc(c("thread.locked_note"))}</p>'
        follow = ""
        if self.v.distractors == "many":
            following = t.id in self.follows
            follow = w.button(
                r,
                sid=f"follow:{t.id}",
                handler="follow",
                arg=t.id,
                text=c("distractors.unfollow" if following else "distractors.follow"),
                variant="secondary",
                attrs_={"role": "follow", "thread": t.id, "distractor": True},
                effect=(
                    Not(Contains(("follows",), t.id)) if following else Contains(("follows",), t.id)
                ),
            )
        question = self._post_html(
            r,
            t,
            pid=t.id,
            author=t.author,
            body=t.body,
            created=t.created,
            context="question",
            rank=0,
            extra=self._tag_chips(t.tags),
            tools=follow,
        )
        replies = self.thread_replies(t)
        items = "".join(
            self._post_html(
                r,
                t,
                pid=p.id,
                author=p.author,
                body=self.body_of(p),
                created=p.created,
                context="reply",
                rank=i + 1,
            )
            for i, p in enumerate(replies)
        )
        sort = ""
        if replies:
            sort = w.choice(
                r,
                sid="sort:replies",
                kind="Sort",
                name="reply_sort",
                label=c("thread.sort"),
                options=[
                    Option(
                        "oldest",
                        c("thread.oldest"),
                        (("key", "oldest"),),
                        ("oldest first", "date", "oldest"),
                    ),
                    Option(
                        "votes",
                        c("thread.top"),
                        (("key", "votes"),),
                        ("most votes", "top", "votes", "score"),
                    ),
                ],
                selected=self.reply_sort,
                handler="reply_sort",
                arg=None,
                effect=Eq(("thread", "sort"), Ref("value")),
                is_open="sort:replies" in self.ui.open,
            )
        heading = (
            c("thread.reply_one") if len(replies) == 1 else c("thread.reply_many", n=len(replies))
        )
        return t.title, (
            f"{crumbs}<h1>{esc(t.title)} {self._badges(t)}</h1>{w.toast(self.flash)}{notice}"
            f"{question}"
            f'<div class="replies-head"><h2>{esc(heading)}</h2>{sort}</div>'
            f'<ol class="replies">{items}</ol>'
            f"{self._reply_box(r, t)}{self._dialogs(r, t)}"
        )

    def _post_html(
        self,
        r: Renderer,
        t: Thread,
        *,
        pid: str,
        author: str,
        body: str,
        created: str,
        context: str,
        rank: int,
        extra: str = "",
        tools: str = "",
    ) -> str:
        c = self.copy
        is_reply = context == "reply"
        accepted = is_reply and self.accepted_of(t) == pid
        own = bool(self.user) and author == self.user
        votes = self.votes_of(pid)
        voted = self.user in self.voters.get(pid, ())
        vote_attrs: dict[str, AttrValue] = {
            "role": "upvote",
            "post": pid,
            "author": author,
            "context": context,
            "voted": voted,
            "own": own,
            "accepted": accepted,
            "votes": votes,
        }
        if is_reply:
            vote_attrs["rank"] = rank
        vote = w.button(
            r,
            sid=f"upvote:{pid}",
            text=c("post.unvote") if voted else c("post.upvote"),
            handler="vote",
            arg=pid,
            attrs_=vote_attrs,
            icon="▲",
            variant="primary" if voted else "secondary",
            disabled=own or t.locked,
            effect=(
                Not(Contains(("my", "voted"), pid)) if voted else Contains(("my", "voted"), pid)
            ),
        )
        who = self._user_link(
            r, author, sid=f"author:{pid}", extra={"context": context, "post": pid}
        )
        actions = [tools] if tools else []
        if is_reply and self.user and t.author == self.user and not t.locked:
            if accepted:
                actions.append(
                    w.button(
                        r,
                        sid=f"unaccept:{pid}",
                        text=c("post.unaccept"),
                        handler="unaccept",
                        arg=pid,
                        variant="secondary",
                        attrs_={"role": "unaccept", "post": pid, "author": author, "rank": rank},
                        effect=Eq(("thread", "accepted_post"), ""),
                    )
                )
            else:
                actions.append(
                    w.button(
                        r,
                        sid=f"accept:{pid}",
                        text=c("post.accept"),
                        handler="accept",
                        arg=pid,
                        attrs_={
                            "role": "accept",
                            "post": pid,
                            "author": author,
                            "rank": rank,
                            "votes": votes,
                        },
                        effect=Eq(("thread", "accepted_post"), pid),
                    )
                )
        if is_reply and own and not t.locked:
            actions.append(self._own_actions(r, pid, accepted))
        if self.v.distractors != "none":
            actions.append(
                w.button(
                    r,
                    sid=f"report:{pid}",
                    text=c("distractors.report"),
                    handler="report",
                    arg=pid,
                    variant="secondary",
                    attrs_={"role": "report", "post": pid, "distractor": True},
                    effect=Contains(("reports",), pid),
                )
            )
        badge = f'<span class="badge solved">✓ {esc(c("post.accepted"))}</span>' if accepted else ""
        bold, italic = self.styles.get(pid, (False, False))
        text = esc(body)
        if bold:
            text = f"<strong>{text}</strong>"
        if italic:
            text = f"<em>{text}</em>"
        editing = ""
        if is_reply and own and self.v.form_mode == "inline" and f"edit:{pid}" in self.ui.open:
            editing = self._edit_form(r, t, pid, body, cancel=True)
        tag = "li" if is_reply else "article"
        cls = "post reply" + (" accepted" if accepted else "") if is_reply else "post question"
        return (
            f'<{tag} class="{cls}"><div class="vote">{vote}'
            f'<span class="score" aria-label="{esc(c("post.score"))}">{votes}</span></div>'
            f'<div class="post-main"><div class="post-meta">{who} · '
            f'<span class="muted">{esc(created)}</span> {badge}</div>'
            f'<div class="post-body">{text}</div>{extra}{editing}'
            f'<div class="actions">{"".join(actions)}</div></div></{tag}>'
        )

    def _own_actions(self, r: Renderer, pid: str, accepted: bool) -> str:
        """The "…" menu of one's own reply: edit (inline or in a dialog), delete (confirmed)."""
        c = self.copy
        key = f"actions:{pid}"
        is_open = key in self.ui.open
        opener = _ui_button(
            r,
            sid=key,
            key=key,
            text=c("post.more"),
            glyph="…",
            attrs_={"role": "post-actions", "post": pid},
            is_open=is_open,
        )
        if not is_open:
            return f'<span class="post-menu">{opener}</span>'
        if self.v.form_mode == "modal":
            edit = w.modal_opener(
                r, name=f"edit:{pid}", text=c("post.edit"), attrs_={"role": "edit", "post": pid}
            )
        else:
            edit = _ui_button(
                r,
                sid=f"edit:{pid}",
                key=f"edit:{pid}",
                text=c("post.edit"),
                attrs_={"role": "edit", "post": pid},
            )
        items = [f"<li>{edit}</li>"]
        if accepted:
            items.append(f'<li class="muted">{esc(c("post.no_delete"))}</li>')
        else:
            items.append(
                "<li>"
                + w.modal_opener(
                    r,
                    name=f"delete:{pid}",
                    text=c("post.delete"),
                    attrs_={"role": "delete", "post": pid},
                )
                + "</li>"
            )
        return (
            f'<span class="post-menu">{opener}'
            f'<ul class="listbox" role="menu">{"".join(items)}</ul></span>'
        )

    def _edit_form(self, r: Renderer, t: Thread, pid: str, body: str, *, cancel: bool) -> str:
        c = self.copy
        draft = self.forms["edit_reply"]
        value = draft["body"] if draft["post"] == pid else body
        err = self.form_errors["edit_reply"].get("body", "")
        field = w.text_field(
            r,
            sid="field:edit_reply.body",
            name="edit_body",
            label=c("edit.body"),
            value=value,
            handler="edit_field",
            arg=pid,
            effect=Eq(("forms", "edit_reply", "body"), Ref("value")),
            form="edit_reply",
            multiline=True,
            error=self._error_text(err),
            helper=c("reply.help", n=reply_minimum(self.strict)),
        )
        extra = ""
        if cancel:
            extra = _ui_button(
                r,
                sid=f"edit:{pid}:cancel",
                key=f"edit:{pid}",
                text=c("edit.cancel"),
                attrs_={"role": "cancel-edit", "post": pid},
            )
        return w.form(
            r,
            name="edit_reply",
            handler="save_edit",
            body=field,
            submit_sid="form:edit_reply",
            submit_text=c("edit.save"),
            label=c("edit.title"),
            extra_buttons=extra,
            effect=Eq(("my", "replies", t.id), Ref("state:forms.edit_reply.body")),
        )

    def _dialogs(self, r: Renderer, t: Thread) -> str:
        c = self.copy
        name = self.ui.modal or ""
        kind, _, pid = name.partition(":")
        mine = self.my_reply(t.id)
        if mine is None or mine.id != pid or t.locked:
            return ""
        if kind == "edit" and self.v.form_mode == "modal":
            return w.modal(
                r,
                name=name,
                title=c("edit.title"),
                close_text=c("edit.cancel"),
                body=self._edit_form(r, t, pid, self.body_of(mine), cancel=False),
            )
        if kind == "delete" and self.accepted_of(t) != pid:
            confirm = w.button(
                r,
                sid=f"confirm-delete:{pid}",
                text=c("delete.confirm"),
                handler="delete_reply",
                arg=pid,
                attrs_={"role": "confirm-delete", "post": pid},
                effect=All(
                    (Contains(("activity", "deleted"), pid), Not(Contains(("my", "replied"), t.id)))
                ),
            )
            return w.modal(
                r,
                name=name,
                title=c("delete.title"),
                close_text=c("delete.cancel"),
                body=f'<p>{esc(c("delete.body"))}</p><div class="actions">{confirm}</div>',
            )
        return ""

    def _error_text(self, key: str) -> str:
        if not key:
            return ""
        if key == "reply_short":
            return self.copy("errors.reply_short", n=reply_minimum(self.strict))
        if key == "title_short":
            return self.copy("errors.title_short", n=20 if self.strict else 15)
        if key == "body_short":
            return self.copy("errors.body_short", n=50 if self.strict else 30)
        return self.copy(f"errors.{key}")

    def _reply_box(self, r: Renderer, t: Thread) -> str:
        c = self.copy
        if t.locked:
            return ""
        if not self.user:
            link = w.link(
                r,
                sid="signin:reply",
                href="/signin",
                text=c("thread.signin_to_reply"),
                attrs_={"role": "signin"},
            )
            return f'<p class="reply-box">{link}</p>'
        if self.my_reply(t.id) is not None:
            return f'<p class="reply-box muted">{esc(c("thread.already"))}</p>'
        err = self.form_errors["reply"].get("body", "")
        sid = "editor:reply"
        editor = w.rich_text(
            r,
            sid=sid,
            name="reply",
            label=c("reply.label"),
            value=self.forms["reply"]["body"],
            handler="field",
            arg="reply.body",
            effect=Eq(("forms", "reply", "body"), Ref("value")),
            form="reply",
            format_handler="format",
            bold=self.editors["reply"]["bold"],
            italic=self.editors["reply"]["italic"],
        )
        hint = (
            f'<small class="hint">{esc(c("reply.help", n=reply_minimum(self.strict)))}</small>'
            if self.v.helper_text == "on"
            else ""
        )
        error = self._error_text(err)
        errors = r.subregion(
            f"err:{sid}", f'<span class="error" role="alert">{esc(error)}</span>' if error else ""
        )
        banner = f'<p class="error-summary" role="alert">{esc(c("reply.fix"))}</p>' if err else ""
        form = w.form(
            r,
            name="reply",
            handler="post_reply",
            body=editor + hint + errors,
            submit_sid="form:reply",
            submit_text=c("reply.submit"),
            label=c("reply.title"),
            banner=banner,
            effect=All(
                (
                    Contains(("my", "replied"), t.id),
                    Contains(("activity", "posted"), Ref("state:forms.reply.body")),
                )
            ),
        )
        return f'<section class="reply-box"><h2>{esc(c("reply.title"))}</h2>{form}</section>'

    def _render_profile(self, r: Renderer, route: str) -> tuple[str, str]:
        c = self.copy
        u = self.by_username[route[3:]]
        posts = self.posts_by(u.username)
        started = [(pid, t) for pid, t, _ in posts if pid == t.id]
        details = w.detail_view(
            [
                (c("profile.username"), f"@{u.username}"),
                (c("profile.role"), c(f"roles.{u.role}")),
                (c("profile.joined"), u.joined),
                (c("profile.reputation"), str(self.reputation(u.username))),
                (c("profile.posts"), str(len(posts))),
                (c("profile.threads"), str(len(started))),
            ]
        )
        tab = self.ui.tabs.get("profile", "posts")
        if tab == "threads":
            rows = [
                "<li>"
                + w.link(
                    r,
                    sid=f"thread:{t.id}",
                    href=f"/t/{t.id}",
                    text=t.title,
                    kind="Item",
                    attrs_={
                        "type": "thread",
                        "id": t.id,
                        "title": t.title,
                        "category": t.category_name,
                        "author": t.author,
                        "solved": bool(self.accepted_of(t)),
                        "locked": t.locked,
                        "rank": i + 1,
                    },
                )
                + f' <span class="muted">{esc(t.created)}</span> {self._badges(t)}</li>'
                for i, (_, t) in enumerate(started)
            ]
            panel = (
                f'<ol class="activity">{"".join(rows)}</ol>'
                if rows
                else f'<p class="muted">{esc(c("profile.no_threads"))}</p>'
            )
        else:
            rows = []
            for i, (pid, t, created) in enumerate(posts):
                kind = "question" if pid == t.id else "reply"
                link = w.link(
                    r,
                    sid=f"post:{pid}",
                    href=f"/t/{t.id}",
                    text=t.title,
                    kind="Item",
                    attrs_={
                        "type": "post",
                        "post": pid,
                        "kind": kind,
                        "title": t.title,
                        "thread": t.title,
                        "thread_id": t.id,
                        "created": created,
                        "rank": i + 1,
                    },
                )
                rows.append(
                    f'<li><span class="muted">{esc(c(f"profile.{kind}"))}</span> '
                    f'{link} <span class="muted">{esc(created)}</span></li>'
                )
            panel = (
                f'<ol class="activity">{"".join(rows)}</ol>'
                if rows
                else f'<p class="muted">{esc(c("profile.no_posts"))}</p>'
            )
        tabs = w.tabs(
            r,
            group="profile",
            items=[("posts", c("profile.tab_posts")), ("threads", c("profile.tab_threads"))],
            active=tab,
            panel=panel,
            label=c("profile.activity"),
        )
        return u.display_name, (
            f'<div class="profile"><div class="avatar" aria-hidden="true">'
            f"{esc(u.display_name[:1])}</div><div><h1>{esc(u.display_name)}</h1>"
            f"{w.toast(self.flash)}{details}</div></div>{tabs}"
        )

    def _render_members(self, r: Renderer, route: str) -> tuple[str, str]:
        c = self.copy
        col, order = self.members_sort
        key = {
            "name": lambda u: (u.display_name.lower(),),
            "joined": lambda u: (u.joined, u.display_name.lower()),
            "reputation": lambda u: (self.reputation(u.username), u.display_name.lower()),
            "posts": lambda u: (len(self.posts_by(u.username)), u.display_name.lower()),
        }[col]
        users = sorted(self.users, key=key, reverse=order == "desc")
        rows = []
        for i, u in enumerate(users):
            rep = self.reputation(u.username)
            n = len(self.posts_by(u.username))
            link = self._user_link(
                r,
                u.username,
                sid=f"user:{u.username}",
                extra={
                    "rank": i + 1,
                    "reputation": rep,
                    "posts": n,
                    "joined": u.joined,
                    "role": u.role,
                },
            )
            role = (
                f' <span class="badge">{esc(c(f"roles.{u.role}"))}</span>'
                if u.role != "member"
                else ""
            )
            rows.append([link + role, esc(u.joined), str(rep), str(n)])
        table = w.data_table(
            r,
            key="members",
            columns=[
                ("name", c("members.name"), True),
                ("joined", c("members.joined"), True),
                ("reputation", c("members.reputation"), True),
                ("posts", c("members.posts"), True),
            ],
            rows=rows,
            sort=self.members_sort,
            sort_handler="members_sort",
            caption=c("members.caption", n=len(users)),
            sort_path=("members", "sort"),
        )
        return c("members.title"), f"<h1>{esc(c('members.title'))}</h1>{table}"

    def _render_signin(self, r: Renderer, route: str) -> tuple[str, str]:
        c = self.copy
        if self.user:
            home = w.link(r, sid="signin:home", href="/", text=c("not_found.home"))
            name = self.by_username[self.user].display_name
            return c("signin.title"), (
                f"<h1>{esc(c('signin.title'))}</h1>{w.toast(self.flash)}"
                f"<p>{esc(c('signin.already', name=name))}</p><p>{home}</p>"
            )
        errs = self.form_errors["signin"]
        username = w.text_field(
            r,
            sid="field:signin.username",
            name="username",
            label=c("signin.username"),
            value=self.forms["signin"]["username"],
            handler="field",
            arg="signin.username",
            effect=Eq(("forms", "signin", "username"), Ref("value")),
            form="signin",
            error=self._error_text(errs.get("username", "")),
            helper=c("signin.username_help"),
            autocomplete="username",
        )
        password = w.password_field(
            r,
            sid="field:signin.password",
            name="password",
            label=c("signin.password"),
            value=self._password,
            handler="field",
            arg="signin.password",
            effect=Eq(("forms", "signin", "password_given"), True),
            form="signin",
            error=self._error_text(errs.get("password", "")),
            autocomplete="current-password",
        )
        banner = (
            f'<p class="error-summary" role="alert">{esc(c("errors.credentials"))}</p>'
            if "_form" in errs
            else ""
        )
        form = w.form(
            r,
            name="signin",
            handler="signin",
            body=username + password,
            submit_sid="form:signin",
            submit_text=c("signin.submit"),
            label=c("signin.title"),
            banner=banner,
            effect=Eq(("auth", "user"), Ref("state:forms.signin.username")),
        )
        return c("signin.title"), (
            f'<div class="narrow"><h1>{esc(c("signin.title"))}</h1>'
            f'<p class="muted">{esc(c("signin.intro"))}</p>{form}</div>'
        )

    def _field_order(self, names: tuple[str, ...], key: str) -> list[str]:
        ordered = list(names)
        if self.v.field_order == "shuffled":
            SeedStream(self.spec.seed).child("layout").child(f"fields:{key}").shuffle(ordered)
        return ordered

    def _render_new_thread(self, r: Renderer, route: str) -> tuple[str, str]:
        c = self.copy
        if not self.user:
            link = w.link(
                r, sid="signin:new", href="/signin", text=c("new.signin"), attrs_={"role": "signin"}
            )
            return c("new.title"), f"<h1>{esc(c('new.title'))}</h1><p>{link}</p>"
        draft = self.forms["new_thread"]
        errs = self.form_errors["new_thread"]
        parts = {
            "title": w.text_field(
                r,
                sid="field:new_thread.title",
                name="title",
                label=c("new.thread_title"),
                value=draft["title"],
                handler="field",
                arg="new_thread.title",
                effect=Eq(("forms", "new_thread", "title"), Ref("value")),
                form="new_thread",
                error=self._error_text(errs.get("title", "")),
                helper=c("new.title_help", n=20 if self.strict else 15),
            ),
            "category": w.choice(
                r,
                sid="choice:new_thread.category",
                kind="Choice",
                name="category",
                label=c("new.category"),
                options=[
                    Option("", c("new.pick_category"), aliases=("none",)),
                    *(Option(x.slug, x.name) for x in self.categories),
                ],
                selected=draft["category"],
                handler="new_choice",
                arg="category",
                effect=Eq(("forms", "new_thread", "category"), Ref("value")),
                attrs_={"form": "new_thread"},
                is_open="choice:new_thread.category" in self.ui.open,
            )
            + self._choice_error(r, "category", errs),
            "tag": w.choice(
                r,
                sid="choice:new_thread.tag",
                kind="Choice",
                name="tag",
                label=c("new.tag"),
                options=[
                    Option("", c("new.no_tag"), aliases=("none",)),
                    *(Option(x, x) for x in self.tag_slugs),
                ],
                selected=draft["tag"],
                handler="new_choice",
                arg="tag",
                effect=Eq(("forms", "new_thread", "tag"), Ref("value")),
                attrs_={"form": "new_thread"},
                is_open="choice:new_thread.tag" in self.ui.open,
                helper=c("new.tag_required" if self.strict else "new.tag_help"),
            )
            + self._choice_error(r, "tag", errs),
        }
        fields = "".join(
            parts[name] for name in self._field_order(("title", "category", "tag"), "new_thread")
        )
        sid = "editor:body"
        editor = w.rich_text(
            r,
            sid=sid,
            name="body",
            label=c("new.body"),
            value=draft["body"],
            handler="field",
            arg="new_thread.body",
            effect=Eq(("forms", "new_thread", "body"), Ref("value")),
            form="new_thread",
            format_handler="format",
            bold=self.editors["body"]["bold"],
            italic=self.editors["body"]["italic"],
        )
        hint = (
            f'<small class="hint">{esc(c("new.body_help", n=50 if self.strict else 30))}</small>'
            if self.v.helper_text == "on"
            else ""
        )
        error = self._error_text(errs.get("body", ""))
        body_err = r.subregion(
            f"err:{sid}", f'<span class="error" role="alert">{esc(error)}</span>' if error else ""
        )
        banner = f'<p class="error-summary" role="alert">{esc(c("new.fix"))}</p>' if errs else ""
        form = w.form(
            r,
            name="new_thread",
            handler="new_thread",
            body=fields + editor + hint + body_err,
            submit_sid="form:new_thread",
            submit_text=c("new.submit"),
            label=c("new.title"),
            banner=banner,
            effect=All(
                (
                    Eq(("created", "title"), Ref("state:forms.new_thread.title")),
                    Eq(("created", "category"), Ref("state:forms.new_thread.category")),
                    Eq(("created", "tag"), Ref("state:forms.new_thread.tag")),
                    Eq(("created", "body"), Ref("state:forms.new_thread.body")),
                )
            ),
        )
        return c("new.title"), (
            f'<div class="narrow"><h1>{esc(c("new.title"))}</h1>'
            f'<p class="muted">{esc(c("new.intro"))}</p>{form}</div>'
        )

    def _choice_error(self, r: Renderer, name: str, errs: Mapping[str, str]) -> str:
        error = self._error_text(errs.get(name, ""))
        return r.subregion(
            f"err:choice:new_thread.{name}",
            f'<span class="error" role="alert">{esc(error)}</span>' if error else "",
        )

    def _render_pro(self, r: Renderer, route: str) -> tuple[str, str]:
        c = self.copy
        product = str(self.spec.extra.get("product", ""))
        home = w.link(r, sid="pro:home", href="/", text=c("not_found.home"))
        title = c("pro.title", product=product)
        return title, (
            f"<h1>{esc(title)}</h1><p>{esc(c('pro.body', product=product))}</p><p>{home}</p>"
        )


FAMILY = Family(
    name="forum",
    version=FAMILY_VERSION,
    description="A product support forum: categories, thread lists with search, filters, "
    "sort and pagination, threads with votes and accepted answers, replies you can edit and "
    "delete, member profiles and directory, sign-in.",
    generate=generate,
    app_class=ForumApp,
    kinds=(
        "Button",
        "Choice",
        "DatePicker",
        "Day",
        "Editor",
        "Field",
        "Filter",
        "Form",
        "Item",
        "Link",
        "More",
        "Option",
        "Sort",
        "Tab",
    ),
)
register_family(FAMILY)
