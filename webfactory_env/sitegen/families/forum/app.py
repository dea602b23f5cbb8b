"""The forum's app: its model, its pages and its routes wired together."""

from __future__ import annotations

from webfactory_env.sitegen.families.forum import views
from webfactory_env.sitegen.families.forum.model import ForumModel
from webfactory_env.sitegen.html import Renderer


class ForumApp(ForumModel):
    """The running forum: lists, threads, votes, answers, replies, profiles and sign-in."""

    PAGES = views.PAGES
    ROUTES = {
        "/": "home",
        "/threads": "list",
        "/users": "members",
        "/signin": "signin",
        "/new": "new_thread",
        "/pro": "pro",
    }

    def header(self, r: Renderer) -> str:
        return views.header(self, r)

    def _entity_page_kind(self, route: str) -> str:
        if self.list_at(route) is not None:
            return "list"
        if self.thread_at(route) is not None:
            return "thread"
        if self.member_at(route) is not None:
            return "profile"
        return "not_found"
