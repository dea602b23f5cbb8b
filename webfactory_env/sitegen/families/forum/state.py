"""The forum's declared state: what a goal can pin, what it never pins, and the page facts.

Members, threads and replies are entity tables keyed by id; who is signed in and what
they flagged or follow is the session; form drafts and editor formatting are drafts; the
thread lists' controls, sort orders and validation messages are view state. Bookkeeping
(ids, timestamps, vote counts, reputations, post counts) is `derived`: no goal pins it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Self

from webfactory_env.sitegen.families.forum.content import Post, Thread, User
from webfactory_env.sitegen.spec import SiteSpec
from webfactory_env.sitegen.state import (
    AppState,
    Record,
    copied,
    derived,
    drafts,
    entities,
    history,
    secret,
    session,
    view,
)


# ---------------------------------------------------------------------- entities
@dataclass(kw_only=True)
class Member(Record):
    """A member: who they are, and the standing that follows from what happens."""

    username: str = ""
    name: str = ""
    role: str = ""  # "moderator", "member" or "new"
    joined: str = ""
    reputation: int = derived(0)
    posts: int = derived(0)  # threads started + replies written
    threads: int = derived(0)


@dataclass(kw_only=True)
class Discussion(Record):
    """A thread: its question, where it is filed, and what became of it."""

    title: str = copied("forms.new_thread.title", "")
    category: str = copied("forms.new_thread.category", "")
    tag: str = copied("forms.new_thread.tag", "")  # the tag its author chose
    body: str = copied("forms.new_thread.body", "")
    author: str = ""
    locked: bool = False
    accepted: str = ""  # the accepted reply's id
    upvoters: set[str] = field(default_factory=set)  # members who upvoted it here
    bold: bool = copied("editors.body.bold", False)
    italic: bool = copied("editors.body.italic", False)
    tags: tuple[str, ...] = derived(())  # every tag it is filed under, its author's first
    created: str = derived("")
    votes: int = derived(0)


@dataclass(kw_only=True)
class Reply(Record):
    """A reply in a thread."""

    thread: str = ""
    author: str = ""
    body: str = copied("forms.reply.body", "")
    edited: bool = False
    upvoters: set[str] = field(default_factory=set)
    bold: bool = copied("editors.reply.bold", False)
    italic: bool = copied("editors.reply.italic", False)
    created: str = derived("")
    votes: int = derived(0)


# ----------------------------------------------------------------------- session
@dataclass
class Auth:
    user: str = ""  # the signed-in member's username


@dataclass
class Activity:
    """What the signed-in member flagged for the moderators and follows."""

    reported: set[str] = history()
    following: set[str] = field(default_factory=set)


# ------------------------------------------------------------------------ drafts
@dataclass
class SigninDraft:
    username: str = ""
    # The password never reaches the view (rewards, traces): only whether one was typed,
    # and whether it is the password of the account named.
    password_given: bool = False
    password_ok: bool = False
    password: str = secret()


@dataclass
class EditDraft:
    post: str = ""  # the reply being edited
    body: str = ""


@dataclass
class ForumForms:
    signin: SigninDraft = field(default_factory=SigninDraft)
    reply: dict[str, str] = field(default_factory=lambda: {"body": ""})
    edit_reply: EditDraft = field(default_factory=EditDraft)
    new_thread: dict[str, str] = field(
        default_factory=lambda: dict.fromkeys(("title", "category", "tag", "body"), "")
    )


@dataclass
class Formatting:
    bold: bool = False
    italic: bool = False


@dataclass
class Editors:
    """The formatting toggled in each rich-text editor (the reply box, a new thread's body)."""

    reply: Formatting = field(default_factory=Formatting)
    body: Formatting = field(default_factory=Formatting)


# -------------------------------------------------------------------------- view
@dataclass
class ThreadList:
    """One thread list's controls (every category, and "all", remembers its own)."""

    draft: str = ""  # what is typed in the search box
    query: str = ""  # what was searched for
    tag: str = ""
    status: str = ""
    sort: str = "newest"
    since: str = ""
    page: int = 1


@dataclass
class Browsing:
    lists: dict[str, ThreadList] = field(default_factory=dict)
    scope: str = ""  # the thread list seen last ("all" or a category)
    reply_sort: str = "oldest"
    members_sort: str = "name-asc"
    return_to: str = "/"  # where signing in leads back to


@dataclass
class Feedback:
    """What the last submissions said back: field -> error key, per form."""

    signin_errors: dict[str, str] = field(default_factory=dict)
    reply_errors: dict[str, str] = field(default_factory=dict)
    edit_errors: dict[str, str] = field(default_factory=dict)
    new_thread_errors: dict[str, str] = field(default_factory=dict)


@dataclass
class ForumState(AppState):
    members: dict[str, Member] = entities()
    threads: dict[str, Discussion] = entities()
    replies: dict[str, Reply] = entities()
    auth: Auth = session(Auth, persists=False)
    activity: Activity = session(Activity, persists=True)
    forms: ForumForms = drafts(ForumForms)
    editors: Editors = drafts(Editors)
    browsing: Browsing = view(Browsing)
    feedback: Feedback = view(Feedback)

    @classmethod
    def start(cls, spec: SiteSpec) -> Self:
        """The seed's members, threads (oldest first: a thread's place breaks ties between
        equal timestamps) and replies; no one signed in."""
        e = spec.entities
        return cls(
            members={u.username: _member(u) for u in e["users"]},
            threads={t.id: _discussion(t) for t in reversed(e["threads"])},
            replies={p.id: _reply(p) for p in e["posts"]},
        )


# ------------------------------------------------------------------------- facts
@dataclass
class AuthFacts:
    signed_in: bool = False


@dataclass
class ListingFacts:
    """The thread list seen last: its controls, and how many threads it shows."""

    scope: str = ""
    draft: str = ""
    query: str = ""
    tag: str = ""
    status: str = ""
    sort: str = ""
    since: str = ""
    page: int = 0
    pages: int = 0
    count: int = 0
    shown: int = 0


@dataclass
class ThreadFacts:
    """The thread that is open, as its page shows it to the signed-in member."""

    id: str = ""
    title: str = ""
    category: str = ""
    author: str = ""
    locked: bool = False
    solved: bool = False
    accepted_post: str = ""
    accepted_author: str = ""  # the display name of who wrote the accepted answer
    accepted_votes_rank: int = 0  # its place among the replies by votes
    accepted_voted: bool = False  # the signed-in member upvoted it
    votes: int = 0
    replies: int = 0
    reply_ids: list[str] = field(default_factory=list)
    mine: bool = False  # the signed-in member started it
    can_reply: bool = False
    can_accept: bool = False
    has_my_reply: bool = False
    my_reply: str = ""


@dataclass
class ForumFacts:
    """Computed, read-only values: the open thread and profile, the thread list."""

    auth: AuthFacts
    listing: ListingFacts
    thread: ThreadFacts
    profile: Member  # the member whose profile is open


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
