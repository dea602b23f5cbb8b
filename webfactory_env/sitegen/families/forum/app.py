"""The forum's app: its model, its pages and its routes wired together."""

from __future__ import annotations

from webfactory_env.sitegen.families.forum import views
from webfactory_env.sitegen.families.forum.model import ForumModel
from webfactory_env.sitegen.html import Renderer

FIXED_ROUTES = {
    "/": "home",
    "/threads": "list",
    "/users": "members",
    "/signin": "signin",
    "/new": "new_thread",
    "/pro": "pro",
}


class ForumApp(ForumModel):
    """The running forum: lists, threads, votes, answers, replies, profiles and sign-in."""

    PAGES = views.PAGES

    def header(self, r: Renderer) -> str:
        return views.header(self, r)

    def _page_kind(self, route: str) -> str:
        if route in FIXED_ROUTES:
            return FIXED_ROUTES[route]
        if self.list_at(route) is not None:
            return "list"
        if self.thread_at(route) is not None:
            return "thread"
        if self.member_at(route) is not None:
            return "profile"
        return "not_found"
