"""What the forum's state says: the lists, threads and profiles its pages show, and the facts.

`ForumQueries` builds the site's state from the seed's content (`ForumState`, declared in
`state.py`) and answers every question the pages and the transitions ask of it; it
changes nothing but where the visitor has been (the thread list seen last).
"""

from __future__ import annotations

from webfactory_env.core.domains import Vocabulary
from webfactory_env.sitegen.app import SiteApp
from webfactory_env.sitegen.families.forum.content import (
    THREAD_PREFIX,
    Category,
    Post,
    Thread,
    User,
)
from webfactory_env.sitegen.families.forum.rules import tokens
from webfactory_env.sitegen.families.forum.state import (
    AuthFacts,
    Discussion,
    ForumFacts,
    ForumState,
    ListingFacts,
    Member,
    Reply,
    ThreadFacts,
    ThreadList,
)
from webfactory_env.sitegen.spec import AppEvent, Patch, SiteSpec

PAGE_SIZE = 10


def table_of(post_id: str) -> str:
    """The table a post lives in: a thread's question has the thread's id (see
    `content.THREAD_PREFIX`), a reply an id of its own."""
    return "threads" if post_id.startswith(THREAD_PREFIX) else "replies"


# Every member name the family can make: first names and surnames each name someone.
MEMBERS = Vocabulary(
    "members", "person", parts=("vocab.json:first_names.*", "vocab.json:last_names.*")
)


class ForumQueries(SiteApp):
    """The forum's state and what it says (the transitions are in `model.py`)."""

    family = "forum"
    State = ForumState
    Facts = ForumFacts
    OPEN = {"thread": "threads", "profile": "members"}
    DOMAINS = {"thread.accepted_author": "members.name"}
    ANSWERS = {
        "user.name": MEMBERS,
        "profile.name": MEMBERS,
        "thread.accepted_author": MEMBERS,
        "user.reputation": "number",
        "profile.reputation": "number",
    }

    def __init__(self, spec: SiteSpec) -> None:
        super().__init__(spec)
        e = spec.entities
        self.categories: tuple[Category, ...] = e["categories"]
        self.cat_by_slug = {c.slug: c for c in self.categories}
        self.tag_slugs: tuple[str, ...] = tuple(t.slug for t in e["tags"])
        self.users: tuple[User, ...] = e["users"]
        self.accounts = {u.username: u for u in self.users}
        self.strict = spec.difficulty == "hard"
        # Threads oldest first: a thread's place breaks ties between equal timestamps.
        seeded: list[Thread] = list(reversed(e["threads"]))
        self.model: ForumState = ForumState(
            members={u.username: _member(u) for u in self.users},
            threads={t.id: _discussion(t) for t in seeded},
            replies={p.id: _reply(p) for p in e["posts"]},
        )
        # Indexes over the tables (rebuilt from them, never state of their own).
        self.order = {tid: i for i, tid in enumerate(self.model.threads)}
        self.thread_replies: dict[str, list[str]] = {}
        for rid, reply in self.model.replies.items():
            self.thread_replies.setdefault(reply.thread, []).append(rid)
        self.made = 0  # threads and replies created here: seeds their ids
        self._haystacks: dict[str, str] = {}

    # ----------------------------------------------------------------- queries
    def member(self, username: str) -> Member:
        return self.model.members[username]

    def name_of(self, username: str) -> str:
        return self.model.members[username].name

    @property
    def user(self) -> str:
        return self.model.auth.user

    def replies_of(self, tid: str) -> list[Reply]:
        """A thread's replies, oldest first."""
        table = self.model.replies
        return [table[rid] for rid in self.thread_replies.get(tid, ()) if rid in table]

    def sorted_replies(self, tid: str) -> list[Reply]:
        """A thread's replies in the order the visitor chose (ties: oldest first)."""
        items = self.replies_of(tid)
        if self.model.browsing.reply_sort == "votes":
            items = sorted(items, key=lambda p: -p.votes)
        return items

    def my_reply(self, tid: str) -> Reply | None:
        if not self.user:
            return None
        return next((p for p in self.replies_of(tid) if p.author == self.user), None)

    def author_of(self, pid: str) -> str:
        post = self.model.threads.get(pid) or self.model.replies.get(pid)
        return post.author if post is not None else ""

    def posts_by(self, username: str) -> list[tuple[str, Discussion, str]]:
        """(post id, thread, created) of everything `username` wrote, newest first."""
        threads = self.model.threads
        out = [(t.id, t, t.created) for t in threads.values() if t.author == username]
        out += [
            (p.id, threads[p.thread], p.created)
            for p in self.model.replies.values()
            if p.author == username
        ]
        out.sort(key=lambda x: (x[2], self.order[x[1].id], x[0]), reverse=True)
        return out

    def list_of(self, scope: str) -> ThreadList:
        return self.model.browsing.lists.get(scope) or ThreadList()

    @staticmethod
    def scope_of(route: str) -> str | None:
        if route == "/threads":
            return "all"
        if route.startswith("/c/"):
            return route[3:]
        return None

    def thread_at(self, route: str) -> Discussion | None:
        return self.model.threads.get(route[3:]) if route.startswith("/t/") else None

    def member_at(self, route: str) -> Member | None:
        return self.model.members.get(route[3:]) if route.startswith("/u/") else None

    def list_at(self, route: str) -> str | None:
        """The scope of the thread list at `route` ("all" or a category), if it is one."""
        scope = self.scope_of(route)
        return scope if scope == "all" or scope in self.cat_by_slug else None

    def _haystack(self, t: Discussion) -> str:
        text = self._haystacks.get(t.id)
        if text is None:
            text = " ".join((t.title, t.body, *t.tags)).lower()
            self._haystacks[t.id] = text
        return text

    def listing(self, scope: str) -> list[Discussion]:
        ls = self.list_of(scope)
        items = [t for t in self.model.threads.values() if scope in ("all", t.category)]
        words = tokens(ls.query)
        if words:
            items = [t for t in items if all(x in self._haystack(t) for x in words)]
        if ls.tag:
            items = [t for t in items if ls.tag in t.tags]
        if ls.status:
            want = ls.status == "solved"
            items = [t for t in items if bool(t.accepted) == want]
        if ls.since:
            items = [t for t in items if t.created[:10] >= ls.since]
        if ls.sort == "votes":
            items.sort(key=lambda t: (t.votes, t.created, self.order[t.id]), reverse=True)
        elif ls.sort == "replies":
            counts = {t.id: len(self.replies_of(t.id)) for t in items}
            items.sort(key=lambda t: (counts[t.id], t.created, self.order[t.id]), reverse=True)
        else:
            items.sort(key=lambda t: (t.created, self.order[t.id]), reverse=True)
        return items

    def scope_tags(self, scope: str) -> list[str]:
        return sorted(
            {
                tag
                for t in self.model.threads.values()
                if scope in ("all", t.category)
                for tag in t.tags
            }
        )

    def shown(self, scope: str, count: int) -> tuple[int, int]:
        """(index of the first thread shown, how many are shown)."""
        if self.v.list_mode == "infinite":
            return 0, min(count, self.ui.more.get(f"threads:{scope}", 1) * PAGE_SIZE)
        first = (self.list_of(scope).page - 1) * PAGE_SIZE
        return first, max(0, min(PAGE_SIZE, count - first))

    @staticmethod
    def pages(count: int) -> int:
        return max(1, -(-count // PAGE_SIZE))

    def facts(self) -> ForumFacts:
        return ForumFacts(
            auth=AuthFacts(signed_in=bool(self.user)),
            listing=self._listing_facts(),
            thread=self._thread_facts(),
            profile=self.member_at(self.route) or Member(),
        )

    def _listing_facts(self) -> ListingFacts:
        scope = self.model.browsing.scope
        if not scope:
            return ListingFacts()
        ls = self.list_of(scope)
        count = len(self.listing(scope))
        return ListingFacts(
            scope=scope,
            draft=ls.draft,
            query=ls.query,
            tag=ls.tag,
            status=ls.status,
            sort=ls.sort,
            since=ls.since,
            page=ls.page,
            pages=self.pages(count),
            count=count,
            shown=self.shown(scope, count)[1],
        )

    def _thread_facts(self) -> ThreadFacts:
        t = self.thread_at(self.route)
        if t is None:
            return ThreadFacts()
        replies = self.replies_of(t.id)
        by_votes = sorted(replies, key=lambda p: -p.votes)
        rank = next((i + 1 for i, p in enumerate(by_votes) if p.id == t.accepted), 0)
        accepted = self.model.replies.get(t.accepted)
        mine = self.my_reply(t.id)
        signed_in = bool(self.user)
        return ThreadFacts(
            id=t.id,
            title=t.title,
            category=t.category,
            author=t.author,
            locked=t.locked,
            solved=bool(t.accepted),
            accepted_post=t.accepted,
            accepted_author=self.name_of(accepted.author) if accepted else "",
            accepted_votes_rank=rank,
            accepted_voted=accepted is not None and self.user in accepted.upvoters,
            votes=t.votes,
            replies=len(replies),
            reply_ids=[p.id for p in replies],
            mine=signed_in and t.author == self.user,
            can_reply=signed_in and not t.locked and mine is None,
            can_accept=signed_in and t.author == self.user and not t.locked,
            has_my_reply=mine is not None,
            my_reply=mine.body if mine else "",
        )

    # ------------------------------------------------------------ navigation
    def dispatch(self, event: AppEvent) -> Patch:
        before = self.route
        patch = super().dispatch(event)
        if self.route != before:
            browsing = self.model.browsing
            scope = self.list_at(self.route)
            if scope is not None:
                browsing.scope = scope
                browsing.lists.setdefault(scope, ThreadList())
            if self.route == "/signin" and self.known_route(before):
                browsing.return_to = before
            self.touch()
        return patch


# ----------------------------------------------------------- from the seed's content
def _member(u: User) -> Member:
    return Member(
        id=u.username,
        username=u.username,
        name=u.display_name,
        role=u.role,
        joined=u.joined,
        reputation=u.reputation,
        posts=u.posts,
        threads=u.threads,
    )


def _discussion(t: Thread) -> Discussion:
    return Discussion(
        id=t.id,
        title=t.title,
        category=t.category,
        tag=t.primary_tag,
        body=t.body,
        author=t.author,
        locked=t.locked,
        accepted=t.accepted,
        tags=t.tags,
        created=t.created,
        votes=t.votes,
    )


def _reply(p: Post) -> Reply:
    return Reply(
        id=p.id,
        thread=p.thread_id,
        author=p.author,
        body=p.body,
        created=p.created,
        votes=p.votes,
    )
