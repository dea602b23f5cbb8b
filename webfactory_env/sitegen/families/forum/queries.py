"""What the forum's state says: the lists, threads and profiles its pages show, and the facts.

`ForumQueries` answers every question the pages and the transitions ask of the forum's
state (`ForumState`, declared in `state.py`) and its content; it changes nothing. `facts`
computes what a goal reads next to the state, on the visitor's page.
"""

from __future__ import annotations

from webfactory_env.core.domains import Vocabulary
from webfactory_env.sitegen.context import Context, Queries
from webfactory_env.sitegen.families.forum.content import (
    THREAD_PREFIX,
    Category,
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
from webfactory_env.sitegen.spec import SiteSpec

PAGE_SIZE = 10


def table_of(post_id: str) -> str:
    """The table a post lives in: a thread's question has the thread's id (see
    `content.THREAD_PREFIX`), a reply an id of its own."""
    return "threads" if post_id.startswith(THREAD_PREFIX) else "replies"


# Every member name the family can make: first names and surnames each name someone.
MEMBERS = Vocabulary(
    "members", "person", parts=("vocab.json:first_names.*", "vocab.json:last_names.*")
)


ROUTES = {
    "/": "home",
    "/threads": "list",
    "/users": "members",
    "/signin": "signin",
    "/new": "new_thread",
    "/pro": "pro",
}


class ForumQueries(Queries):
    """The forum's content and every question its pages and transitions ask of its state,
    with indexes over the state's tables (rebuilt from them, never state of their own)."""

    state: ForumState

    def __init__(self, state: ForumState, spec: SiteSpec) -> None:
        super().__init__(state, spec)
        e = spec.entities
        self.categories: tuple[Category, ...] = e["categories"]
        self.cat_by_slug = {c.slug: c for c in self.categories}
        self.tag_slugs: tuple[str, ...] = tuple(t.slug for t in e["tags"])
        self.users: tuple[User, ...] = e["users"]
        self.accounts = {u.username: u for u in self.users}
        self.strict = spec.difficulty == "hard"
        self.order = {tid: i for i, tid in enumerate(state.threads)}
        self.thread_replies: dict[str, list[str]] = {}
        for rid, reply in state.replies.items():
            self.thread_replies.setdefault(reply.thread, []).append(rid)
        self.made = 0  # threads and replies created here: seeds their ids
        self._haystacks: dict[str, str] = {}

    # ----------------------------------------------------------------- queries
    def member(self, username: str) -> Member:
        return self.state.members[username]

    def name_of(self, username: str) -> str:
        return self.state.members[username].name

    @property
    def user(self) -> str:
        return self.state.auth.user

    def replies_of(self, tid: str) -> list[Reply]:
        """A thread's replies, oldest first."""
        table = self.state.replies
        return [table[rid] for rid in self.thread_replies.get(tid, ()) if rid in table]

    def sorted_replies(self, tid: str) -> list[Reply]:
        """A thread's replies in the order the visitor chose (ties: oldest first)."""
        items = self.replies_of(tid)
        if self.state.browsing.reply_sort == "votes":
            items = sorted(items, key=lambda p: -p.votes)
        return items

    def my_reply(self, tid: str) -> Reply | None:
        if not self.user:
            return None
        return next((p for p in self.replies_of(tid) if p.author == self.user), None)

    def author_of(self, pid: str) -> str:
        post = self.state.threads.get(pid) or self.state.replies.get(pid)
        return post.author if post is not None else ""

    def posts_by(self, username: str) -> list[tuple[str, Discussion, str]]:
        """(post id, thread, created) of everything `username` wrote, newest first."""
        threads = self.state.threads
        out = [(t.id, t, t.created) for t in threads.values() if t.author == username]
        out += [
            (p.id, threads[p.thread], p.created)
            for p in self.state.replies.values()
            if p.author == username
        ]
        out.sort(key=lambda x: (x[2], self.order[x[1].id], x[0]), reverse=True)
        return out

    def list_of(self, scope: str) -> ThreadList:
        return self.state.browsing.lists.get(scope) or ThreadList()

    @staticmethod
    def scope_of(route: str) -> str | None:
        if route == "/threads":
            return "all"
        if route.startswith("/c/"):
            return route[3:]
        return None

    def thread_at(self, route: str) -> Discussion | None:
        return self.state.threads.get(route[3:]) if route.startswith("/t/") else None

    def member_at(self, route: str) -> Member | None:
        return self.state.members.get(route[3:]) if route.startswith("/u/") else None

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
        items = [t for t in self.state.threads.values() if scope in ("all", t.category)]
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
                for t in self.state.threads.values()
                if scope in ("all", t.category)
                for tag in t.tags
            }
        )

    @staticmethod
    def pages(count: int) -> int:
        return max(1, -(-count // PAGE_SIZE))

    def errors_of(self, form: str) -> dict[str, str]:
        """The validation messages the form `form` shows."""
        feedback = self.state.feedback
        return {
            "signin": feedback.signin_errors,
            "reply": feedback.reply_errors,
            "edit_reply": feedback.edit_errors,
            "new_thread": feedback.new_thread_errors,
        }[form]

    def entity_page_kind(self, route: str) -> str:
        """The kind of a page that shows one list, thread or member, or "not_found"."""
        if self.list_at(route) is not None:
            return "list"
        if self.thread_at(route) is not None:
            return "thread"
        if self.member_at(route) is not None:
            return "profile"
        return "not_found"

    def known_route(self, route: str) -> bool:
        return route in ROUTES or self.entity_page_kind(route) != "not_found"


Forum = Context[ForumState, ForumQueries]  # what the forum's transitions and pages work on


def shown(forum: Forum, scope: str, count: int) -> tuple[int, int]:
    """(index of the first thread shown, how many are shown)."""
    if forum.v.list_mode == "infinite":
        return 0, min(count, forum.ui.more.get(f"threads:{scope}", 1) * PAGE_SIZE)
    first = (forum.queries.list_of(scope).page - 1) * PAGE_SIZE
    return first, max(0, min(PAGE_SIZE, count - first))


def facts(forum: Forum) -> ForumFacts:
    return ForumFacts(
        auth=AuthFacts(signed_in=bool(forum.queries.user)),
        listing=_listing_facts(forum),
        thread=_thread_facts(forum),
        profile=forum.queries.member_at(forum.route) or Member(),
    )


def _listing_facts(forum: Forum) -> ListingFacts:
    scope = forum.state.browsing.scope
    if not scope:
        return ListingFacts()
    ls = forum.queries.list_of(scope)
    count = len(forum.queries.listing(scope))
    return ListingFacts(
        scope=scope,
        draft=ls.draft,
        query=ls.query,
        tag=ls.tag,
        status=ls.status,
        sort=ls.sort,
        since=ls.since,
        page=ls.page,
        pages=forum.queries.pages(count),
        count=count,
        shown=shown(forum, scope, count)[1],
    )


def _thread_facts(forum: Forum) -> ThreadFacts:
    t = forum.queries.thread_at(forum.route)
    if t is None:
        return ThreadFacts()
    replies = forum.queries.replies_of(t.id)
    by_votes = sorted(replies, key=lambda p: -p.votes)
    rank = next((i + 1 for i, p in enumerate(by_votes) if p.id == t.accepted), 0)
    accepted = forum.state.replies.get(t.accepted)
    mine = forum.queries.my_reply(t.id)
    signed_in = bool(forum.queries.user)
    return ThreadFacts(
        id=t.id,
        title=t.title,
        category=t.category,
        author=t.author,
        locked=t.locked,
        solved=bool(t.accepted),
        accepted_post=t.accepted,
        accepted_author=forum.queries.name_of(accepted.author) if accepted else "",
        accepted_votes_rank=rank,
        accepted_voted=accepted is not None and forum.queries.user in accepted.upvoters,
        votes=t.votes,
        replies=len(replies),
        reply_ids=[p.id for p in replies],
        mine=signed_in and t.author == forum.queries.user,
        can_reply=signed_in and not t.locked and mine is None,
        can_accept=signed_in and t.author == forum.queries.user and not t.locked,
        has_my_reply=mine is not None,
        my_reply=mine.body if mine else "",
    )
