"""The forum's pages: functions of its context (state, queries, copy, UI state) drawn with
the widget library, one module per kind of page. Pages only read: every element that
changes something is bound to a transition (`bind=upvote.bind(post=...)`)."""

from __future__ import annotations

from webfactory_env.sitegen import widgets as w
from webfactory_env.sitegen.app import PageFn
from webfactory_env.sitegen.families.forum.queries import Forum
from webfactory_env.sitegen.families.forum.transitions.forms import sign_out
from webfactory_env.sitegen.families.forum.views.forms import new_thread, pro, signin
from webfactory_env.sitegen.families.forum.views.lists import home, thread_list
from webfactory_env.sitegen.families.forum.views.people import members, profile
from webfactory_env.sitegen.families.forum.views.thread import thread
from webfactory_env.sitegen.html import Renderer, esc

PAGES: dict[str, PageFn] = {
    "home": home,
    "list": thread_list,
    "thread": thread,
    "profile": profile,
    "members": members,
    "signin": signin,
    "new_thread": new_thread,
    "pro": pro,
}


def header(forum: Forum, r: Renderer) -> str:
    """The site's navigation, and the signed-in member with a way to sign out."""
    c = forum.copy
    entries = [
        ("/", c("nav.home")),
        ("/threads", c("nav.threads")),
        ("/users", c("nav.members")),
        ("/new", c("nav.new")),
    ]
    if not forum.queries.user:
        entries.append(("/signin", c("nav.signin")))
    nav = w.site_nav(r, entries, label=c("nav.label"))
    me = ""
    if forum.queries.user:
        profile_link = w.link(
            r,
            sid="nav:profile",
            href=f"/u/{forum.queries.user}",
            text=forum.queries.name_of(forum.queries.user),
            attrs_={"role": "my-profile"},
            region="nav",
        )
        signout = w.button(
            r,
            sid="signout",
            text=c("nav.signout"),
            attrs_={"role": "signout"},
            variant="secondary",
            bind=sign_out.bind(),
        )
        me = f'<span class="me">{profile_link}{signout}</span>'
    return f'<span class="brand">{esc(forum.spec.brand)}</span>{nav}{me}'


__all__ = ["PAGES", "header"]
