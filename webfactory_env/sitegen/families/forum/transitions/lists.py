"""The forum's transitions of browsing: a thread list's search, filters, sort and pages, the
order of a thread's replies and of the member directory. They change how things are
looked at, never what the forum holds."""

from __future__ import annotations

from typing import Literal

from webfactory_env.core.predicates import Eq, Ref
from webfactory_env.sitegen.binding import FormField, SortOrder, transition
from webfactory_env.sitegen.families.forum.queries import Forum
from webfactory_env.sitegen.families.forum.rules import (
    is_date,
)
from webfactory_env.sitegen.families.forum.state import ThreadList

SORTS = ("newest", "votes", "replies")
STATUSES = ("", "solved", "unsolved")
REPLY_SORTS = ("oldest", "votes")
MemberColumn = Literal["name", "joined", "reputation", "posts"]


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
