"""The forum's transitions: functions over its context, the only place its rules live.

`ForumState` (in `state.py`) is what a goal can pin (members, threads and replies by id,
who is signed in) next to what it never pins (drafts, the lists' controls). Every event
the pages send is one function below, named like the event, with its effect declared once
in its decorator; a test calls it directly (`upvote(forum, post="T-1")`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

from webfactory_env.core.predicates import All, Contains, Eq, Exists, Has, Not, Predicate, Ref
from webfactory_env.core.seeding import short_hash
from webfactory_env.sitegen.binding import FormField, SortOrder, transition
from webfactory_env.sitegen.families.forum.content import NOW_STAMP, REPLY_PREFIX, THREAD_PREFIX
from webfactory_env.sitegen.families.forum.queries import Forum, table_of
from webfactory_env.sitegen.families.forum.rules import (
    EDIT_LIMIT,
    FIELD_LIMITS,
    is_date,
    validate_reply,
    validate_signin,
    validate_thread,
)
from webfactory_env.sitegen.families.forum.state import Discussion, Reply, ThreadList

SORTS = ("newest", "votes", "replies")
STATUSES = ("", "solved", "unsolved")
REPLY_SORTS = ("oldest", "votes")
MemberColumn = Literal["name", "joined", "reputation", "posts"]
Style = Literal["bold", "italic"]
REP_PER_VOTE = 10
REP_PER_ACCEPT = 15


def _upvoted(post: str) -> Predicate:
    """The post (a thread's question or a reply) has the signed-in member's vote."""
    return Contains((table_of(post), post, "upvoters"), Ref("state:auth.user"))


def _accepted(reply: str) -> Predicate:
    """The reply is its thread's accepted answer (an effect knows only the reply, and
    only the thread it answers can accept it)."""
    return Exists(("threads",), Eq(("accepted",), reply))


def _field_effect(form: str, name: str) -> Predicate:
    if (form, name) == ("signin", "password"):  # the right password, not any: the view says which
        return Eq(("forms", "signin", "password_ok"), True)
    return Eq(("forms", form, name), Ref("value"))


def _draft_field(form: str, name: str) -> FormField:
    return FormField(form, name, ("forms", form, name))


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


# ----------------------------------------------------- list transitions
def _list_here(forum: Forum) -> tuple[str, ThreadList] | None:
    scope = forum.queries.list_at(forum.route)
    if scope is None:
        return None
    return scope, forum.state.browsing.lists.setdefault(scope, ThreadList())


def _list_changed(forum: Forum, scope: str, ls: ThreadList) -> None:
    ls.page = 1
    forum.ui.more.pop(f"threads:{scope}", None)


@transition(
    effect=lambda: Eq(("listing", "draft"), Ref("value")),
    field=lambda: FormField("search", "q"),  # the draft of the list the page shows
)
def type_query(forum: Forum, *, value: str | None = None) -> str | None:
    here = _list_here(forum)
    if here is not None:
        here[1].draft = (value or "")[:100]
    return None


@transition(
    effect=lambda: Eq(("listing", "query"), Ref("state:listing.draft|strip")),
)
def search_threads(forum: Forum, *, values: dict[str, str] | None = None) -> str | None:
    here = _list_here(forum)
    if here is None:
        return None
    scope, ls = here
    if values is not None and "q" in values:
        ls.draft = values["q"][:100]
    ls.query = ls.draft.strip()
    _list_changed(forum, scope, ls)
    return None


@transition(effect=lambda name: Eq(("listing", name), Ref("value")))
def filter_threads(
    forum: Forum, *, name: Literal["tag", "status"], value: str | None = None
) -> str | None:
    here = _list_here(forum)
    if here is None:
        return None
    scope, ls = here
    value = value or ""
    if name == "tag" and (value == "" or value in forum.queries.scope_tags(scope)):
        ls.tag = value
    elif name == "status" and value in STATUSES:
        ls.status = value
    else:
        return None
    _list_changed(forum, scope, ls)
    return None


@transition(effect=lambda: Eq(("listing", "sort"), Ref("value")))
def sort_threads(forum: Forum, *, value: str | None = None) -> str | None:
    here = _list_here(forum)
    if here is not None and value in SORTS:
        here[1].sort = value
        _list_changed(forum, *here)
    return None


@transition(effect=lambda: Eq(("listing", "since"), Ref("value")))
def set_since(forum: Forum, *, value: str | None = None) -> str | None:
    here = _list_here(forum)
    value = (value or "").strip()
    if here is None or not is_date(value):
        return None  # a date still being typed, or not a date: ignored
    here[1].since = value
    _list_changed(forum, *here)
    return None


@transition(effect=lambda: Eq(("listing", "since"), ""))
def clear_since(forum: Forum) -> str | None:
    here = _list_here(forum)
    if here is not None and here[1].since:
        here[1].since = ""
        _list_changed(forum, *here)
    return None


@transition(effect=lambda page: Eq(("listing", "page"), page))
def turn_page(forum: Forum, *, page: int) -> str | None:
    here = _list_here(forum)
    if here is None:
        return None
    scope, ls = here
    if 1 <= page <= forum.queries.pages(len(forum.queries.listing(scope))):
        ls.page = page
    return None


@transition(effect=lambda: Eq(("browsing", "reply_sort"), Ref("value")))
def sort_replies(forum: Forum, *, value: str | None = None) -> str | None:
    if value in REPLY_SORTS:
        forum.state.browsing.reply_sort = value
    return None


@transition(effect=lambda column, order: Eq(("browsing", "members_sort"), f"{column}-{order}"))
def sort_members(forum: Forum, *, column: MemberColumn, order: SortOrder) -> str | None:
    forum.state.browsing.members_sort = f"{column}-{order}"
    return None


# ----------------------------------------------------- form transitions
def _validate(forum: Forum, form: str) -> dict[str, str]:
    forms = forum.state.forms
    if form == "signin":
        return validate_signin(
            {"username": forms.signin.username, "password": forms.signin.password}
        )
    if form == "reply":
        return validate_reply(forms.reply["body"], forum.queries.strict)
    if form == "edit_reply":
        return validate_reply(forms.edit_reply.body, forum.queries.strict)
    return validate_thread(
        forms.new_thread,
        titles={t.title.lower() for t in forum.state.threads.values()},
        categories=set(forum.queries.cat_by_slug),
        tags=set(forum.queries.tag_slugs),
        strict=forum.queries.strict,
    )


def _revalidate(forum: Forum, form: str, name: str) -> None:
    """With sync validation a field's error follows what is typed into it."""
    if forum.v.validation != "sync":
        return
    found = _validate(forum, form).get(name)
    errors = forum.queries.errors_of(form)
    if found:
        errors[name] = found
    else:
        errors.pop(name, None)


def _set_errors(forum: Forum, form: str, errors: Mapping[str, str]) -> None:
    current = forum.queries.errors_of(form)
    current.clear()
    current.update(errors)


@transition(effect=_field_effect, field=_draft_field)
def set_field(
    forum: Forum,
    *,
    form: Literal["signin", "reply", "new_thread"],
    name: str,
    value: str | None = None,
) -> str | None:
    """Typing in a field of the sign-in, reply or new-thread form."""
    limit = FIELD_LIMITS.get(f"{form}.{name}")
    if limit is None:
        return None
    value = (value or "")[:limit]
    forms = forum.state.forms
    if form == "signin":
        if name == "password":
            forms.signin.password, forms.signin.password_given = value, bool(value)
        else:
            forms.signin.username = value
        if name == "password" or forms.signin.password:  # one signed in with stays
            _check_password(forum)
    else:
        getattr(forms, form)[name] = value
    _revalidate(forum, form, name)
    return None


def _check_password(forum: Forum) -> None:
    """Whether the password typed is that of the account the username names."""
    draft = forum.state.forms.signin
    account = forum.queries.accounts.get(draft.username.strip().lower())
    draft.password_ok = bool(draft.password) and draft.password == getattr(
        account, "password", None
    )


@transition(
    effect=lambda name: Eq(("forms", "new_thread", name), Ref("value")),
    field=lambda name: _draft_field("new_thread", name),
)
def set_choice(
    forum: Forum, *, name: Literal["category", "tag"], value: str | None = None
) -> str | None:
    """Choosing the new thread's category or tag."""
    value = value or ""
    allowed = {"category": set(forum.queries.cat_by_slug), "tag": set(forum.queries.tag_slugs)}
    if value == "" or value in allowed[name]:
        forum.state.forms.new_thread[name] = value
        _revalidate(forum, "new_thread", name)
    return None


@transition(effect=lambda editor, style, on: Eq(("editors", editor, style), on))
def toggle_format(
    forum: Forum, *, editor: Literal["reply", "body"], style: Style, on: bool
) -> str | None:
    """Turn bold or italic on or off in the reply's or the new thread's editor."""
    setattr(getattr(forum.state.editors, editor), style, on)
    return None


# ---------------------------------------------------- account transitions
@transition(
    mutating=True,
    effect=lambda: Eq(("auth", "user"), Ref("state:forms.signin.username|strip")),
)
def sign_in(forum: Forum, *, values: dict[str, str] | None = None) -> str | None:
    draft = forum.state.forms.signin
    if values is not None:
        if "username" in values:
            draft.username = values["username"][:60]
        # An empty submitted password keeps what was typed: a password input that was
        # re-rendered is empty, since a password is never echoed into the page.
        if values.get("password"):
            draft.password = values["password"][:200]
            draft.password_given = True
            _check_password(forum)
    errors = _validate(forum, "signin")
    account = forum.queries.accounts.get(draft.username.strip().lower())
    if not errors and (account is None or account.password != draft.password):
        errors["_form"] = "credentials"
        draft.password, draft.password_given = "", False  # a wrong password is not kept
        draft.password_ok = False
    _set_errors(forum, "signin", errors)
    if errors or account is None:
        return None
    forum.state.auth.user = account.username
    forum.ui.flash = forum.copy("signin.welcome", name=account.display_name)
    back = forum.state.browsing.return_to
    return back if forum.queries.known_route(back) and back != "/signin" else "/"


@transition(mutating=True, effect=lambda: Eq(("auth", "user"), ""))
def sign_out(forum: Forum) -> str | None:
    forum.state.auth.user = ""
    forum.ui.flash = forum.copy("signin.bye")
    return "/" if forum.route == "/new" else None


# ----------------------------------------------------- thread transitions
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
    errors = _validate(forum, "reply")
    _set_errors(forum, "reply", errors)
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
        _revalidate(forum, "edit_reply", "body")
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
    errors = _validate(forum, "edit_reply")
    _set_errors(forum, "edit_reply", errors)
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
    errors = _validate(forum, "new_thread")
    _set_errors(forum, "new_thread", errors)
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
