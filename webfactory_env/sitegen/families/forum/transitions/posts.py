"""The forum's transitions of posts: votes, accepted answers, replies written, edited and
deleted, new threads, and the distractors (reports, follows)."""

from __future__ import annotations

from webfactory_env.core.predicates import All, Contains, Eq, Exists, Has, Not, Predicate, Ref
from webfactory_env.core.seeding import short_hash
from webfactory_env.sitegen.binding import FormField, transition
from webfactory_env.sitegen.families.forum.content import NOW_STAMP, REPLY_PREFIX, THREAD_PREFIX
from webfactory_env.sitegen.families.forum.queries import Forum, table_of
from webfactory_env.sitegen.families.forum.rules import (
    EDIT_LIMIT,
    FIELD_LIMITS,
)
from webfactory_env.sitegen.families.forum.state import Discussion, Reply
from webfactory_env.sitegen.families.forum.transitions.forms import (
    revalidate,
    set_errors,
    validate_form,
)

REP_PER_VOTE = 10
REP_PER_ACCEPT = 15


def _upvoted(post: str) -> Predicate:
    """The post (a thread's question or a reply) has the signed-in member's vote."""
    return Contains((table_of(post), post, "upvoters"), Ref("state:auth.user"))


def _accepted(reply: str) -> Predicate:
    """The reply is its thread's accepted answer (an effect knows only the reply, and
    only the thread it answers can accept it)."""
    return Exists(("threads",), Eq(("accepted",), reply))


_NEW_REPLY = Exists(
    ("replies",),
    All(
        (
            Eq(("thread",), Ref("state:thread.id")),
            Eq(("author",), Ref("state:auth.user")),
            Eq(("body",), Ref("state:forms.reply.body|strip")),
        )
    ),
)
_EDITED_REPLY = Exists(
    ("replies",),
    All(
        (
            Eq(("id",), Ref("state:forms.edit_reply.post")),
            Eq(("body",), Ref("state:forms.edit_reply.body|strip")),
            Eq(("edited",), True),
        )
    ),
)
_NEW_THREAD = Exists(
    ("threads",),
    All(
        (
            Eq(("title",), Ref("state:forms.new_thread.title|strip")),
            Eq(("category",), Ref("state:forms.new_thread.category")),
            Eq(("tag",), Ref("state:forms.new_thread.tag")),
            Eq(("body",), Ref("state:forms.new_thread.body|strip")),
            Eq(("author",), Ref("state:auth.user")),
        )
    ),
)


"""The forum's transitions (no HTML here)."""


def _votable(forum: Forum, pid: str) -> Discussion | Reply | None:
    """The post `pid` if the signed-in member may vote on it (not their own, not in a
    locked thread); a guest is told to sign in."""
    post: Discussion | Reply | None = forum.state.threads.get(pid) or forum.state.replies.get(pid)
    if post is None:
        return None
    if not forum.queries.user:
        forum.ui.flash = forum.copy("thread.signin_to_vote")
        return None
    thread = post if isinstance(post, Discussion) else forum.state.threads[post.thread]
    if thread.locked or post.author == forum.queries.user:
        return None
    return post


@transition(mutating=True, effect=_upvoted)
def upvote(forum: Forum, *, post: str) -> str | None:
    found = _votable(forum, post)
    if found is not None and forum.queries.user not in found.upvoters:
        found.upvoters.add(forum.queries.user)
        found.votes += 1
        forum.queries.member(found.author).reputation += REP_PER_VOTE
    return None


@transition(mutating=True, effect=lambda post: Not(_upvoted(post)))
def withdraw_vote(forum: Forum, *, post: str) -> str | None:
    found = _votable(forum, post)
    if found is not None and forum.queries.user in found.upvoters:
        found.upvoters.discard(forum.queries.user)
        found.votes -= 1
        forum.queries.member(found.author).reputation -= REP_PER_VOTE
    return None


def _acceptable(forum: Forum, pid: str) -> Discussion | None:
    """The thread of reply `pid` if the signed-in member may mark its answer."""
    reply = forum.state.replies.get(pid)
    if reply is None:
        return None
    t = forum.state.threads[reply.thread]
    if not forum.queries.user or t.author != forum.queries.user or t.locked:
        return None
    return t


def _mark_accepted(forum: Forum, t: Discussion, pid: str) -> None:
    for old, new in ((t.accepted, -REP_PER_ACCEPT), (pid, REP_PER_ACCEPT)):
        if old:
            forum.queries.member(forum.state.replies[old].author).reputation += new
    t.accepted = pid


@transition(mutating=True, effect=_accepted)
def accept_answer(forum: Forum, *, reply: str) -> str | None:
    t = _acceptable(forum, reply)
    if t is not None and t.accepted != reply:
        _mark_accepted(forum, t, reply)
        forum.ui.flash = forum.copy("thread.accepted_note")
    return None


@transition(mutating=True, effect=lambda reply: Not(_accepted(reply)))
def unaccept_answer(forum: Forum, *, reply: str) -> str | None:
    t = _acceptable(forum, reply)
    if t is not None and t.accepted == reply:
        _mark_accepted(forum, t, "")
    return None


def _new_id(forum: Forum, prefix: str, text: str) -> str:
    forum.queries.made += 1
    return prefix + short_hash(f"{forum.spec.seed}|{text}|new|{forum.queries.made}", 7)


def _count_post(forum: Forum, username: str, delta: int, *, thread: bool = False) -> None:
    m = forum.queries.member(username)
    m.posts += delta
    if thread:
        m.threads += delta


@transition(mutating=True, effect=lambda: _NEW_REPLY)
def post_reply(forum: Forum, *, values: dict[str, str] | None = None) -> str | None:
    t = forum.queries.thread_at(forum.route)
    if t is None or not forum.queries.user or t.locked or forum.queries.my_reply(t.id) is not None:
        return None
    draft = forum.state.forms.reply
    if values is not None and "reply" in values:
        draft["body"] = values["reply"][: FIELD_LIMITS["reply.body"]]
    errors = validate_form(forum, "reply")
    set_errors(forum, "reply", errors)
    if errors:
        return None
    style = forum.state.editors.reply
    reply = Reply(
        id=_new_id(forum, REPLY_PREFIX, f"post:{t.id}:{forum.queries.user}"),
        thread=t.id,
        author=forum.queries.user,
        body=draft["body"].strip(),
        bold=style.bold,
        italic=style.italic,
        created=NOW_STAMP,
    )
    forum.state.replies[reply.id] = reply
    forum.queries.thread_replies.setdefault(t.id, []).append(reply.id)
    _count_post(forum, forum.queries.user, +1)
    # The draft stays as it was (the composer is gone once one has replied): what was
    # typed is still what was typed, so progress made by typing it is not undone.
    forum.ui.flash = forum.copy("thread.replied")
    return None


@transition(
    effect=lambda reply: Eq(("forms", "edit_reply", "body"), Ref("value")),
    field=lambda reply: FormField("edit_reply", "edit_body", ("forms", "edit_reply", "body")),
)
def type_edit(forum: Forum, *, reply: str, value: str | None = None) -> str | None:
    """Typing in the inline editor of one's own reply."""
    found = forum.state.replies.get(reply)
    if found is not None and forum.queries.user and found.author == forum.queries.user:
        draft = forum.state.forms.edit_reply
        draft.post, draft.body = found.id, (value or "")[:EDIT_LIMIT]
        revalidate(forum, "edit_reply", "body")
    return None


@transition(mutating=True, effect=lambda: _EDITED_REPLY)
def edit_reply(forum: Forum, *, values: dict[str, str] | None = None) -> str | None:
    t = forum.queries.thread_at(forum.route)
    reply = forum.queries.my_reply(t.id) if t is not None else None
    if t is None or reply is None or t.locked:
        return None
    draft = forum.state.forms.edit_reply
    if draft.post != reply.id:
        draft.post, draft.body = reply.id, reply.body
    if values is not None and "edit_body" in values:
        draft.body = values["edit_body"][:EDIT_LIMIT]
    errors = validate_form(forum, "edit_reply")
    set_errors(forum, "edit_reply", errors)
    if errors:
        return None
    reply.body, reply.edited = draft.body.strip(), True
    forum.ui.open.discard(f"edit:{reply.id}")
    forum.ui.open.discard(f"actions:{reply.id}")
    forum.ui.modal = None
    forum.ui.flash = forum.copy("thread.edited")
    return None


@transition(mutating=True, effect=lambda reply: Not(Has(("replies", reply))))
def delete_reply(forum: Forum, *, reply: str) -> str | None:
    found = forum.state.replies.get(reply)
    if found is None or not forum.queries.user or found.author != forum.queries.user:
        return None
    t = forum.state.threads[found.thread]
    if t.locked or t.accepted == found.id:
        return None
    del forum.state.replies[found.id]
    _count_post(forum, found.author, -1)
    forum.ui.open.discard(f"actions:{found.id}")
    forum.ui.modal = None
    forum.ui.flash = forum.copy("thread.deleted")
    return None


@transition(mutating=True, effect=lambda: _NEW_THREAD)
def start_thread(forum: Forum, *, values: dict[str, str] | None = None) -> str | None:
    if not forum.queries.user:
        return None
    draft = forum.state.forms.new_thread
    values = values or {}
    for name in ("title", "body"):
        if name in values:
            draft[name] = values[name][: FIELD_LIMITS[f"new_thread.{name}"]]
    for name, allowed in (
        ("category", set(forum.queries.cat_by_slug)),
        ("tag", set(forum.queries.tag_slugs)),
    ):
        if values.get(name) in allowed:  # a native select's value; radios send DOM names
            draft[name] = values[name]
    errors = validate_form(forum, "new_thread")
    set_errors(forum, "new_thread", errors)
    if errors:
        return None
    title = draft["title"].strip()
    style = forum.state.editors.body
    thread = Discussion(
        id=_new_id(forum, THREAD_PREFIX, f"thread:{title}"),
        title=title,
        category=draft["category"],
        tag=draft["tag"],
        body=draft["body"].strip(),
        author=forum.queries.user,
        bold=style.bold,
        italic=style.italic,
        tags=(draft["tag"],) if draft["tag"] else (),
        created=NOW_STAMP,
    )
    forum.state.threads[thread.id] = thread
    forum.queries.order[thread.id] = len(forum.queries.order)
    _count_post(forum, forum.queries.user, +1, thread=True)
    forum.ui.flash = forum.copy("new.posted")
    return f"/t/{thread.id}"


# ------------------------------------------------ distractor transitions
@transition(mutating=True, effect=lambda post: Contains(("activity", "reported"), post))
def report_post(forum: Forum, *, post: str) -> str | None:
    reported = forum.state.activity.reported
    if (post in forum.state.threads or post in forum.state.replies) and post not in reported:
        reported.add(post)
        forum.ui.flash = forum.copy("thread.reported")
    return None


@transition(mutating=True, effect=lambda thread: Contains(("activity", "following"), thread))
def follow_thread(forum: Forum, *, thread: str) -> str | None:
    if thread in forum.state.threads:
        forum.state.activity.following.add(thread)
    return None


@transition(mutating=True, effect=lambda thread: Not(Contains(("activity", "following"), thread)))
def unfollow_thread(forum: Forum, *, thread: str) -> str | None:
    forum.state.activity.following.discard(thread)
    return None
