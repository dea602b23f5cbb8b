"""The forum's app: its state, queries, transitions and pages tied to the shared `SiteApp`."""

from __future__ import annotations

from webfactory_env.sitegen.app import SiteApp
from webfactory_env.sitegen.binding import transitions_in
from webfactory_env.sitegen.families.forum import views
from webfactory_env.sitegen.families.forum.queries import MEMBERS, ROUTES, ForumQueries, facts
from webfactory_env.sitegen.families.forum.state import ForumFacts, ForumState, ThreadList
from webfactory_env.sitegen.families.forum.transitions import forms, lists, posts
from webfactory_env.sitegen.html import Renderer
from webfactory_env.sitegen.spec import AppEvent, Patch


class ForumApp(SiteApp):
    """The running forum: lists, threads, votes, answers, replies, profiles and sign-in."""

    family = "forum"
    State = ForumState
    Queries = ForumQueries
    Facts = ForumFacts
    TRANSITIONS = transitions_in(lists, forms, posts)
    PAGES = views.PAGES
    ROUTES = ROUTES
    OPEN = {"thread": "threads", "profile": "members"}
    DOMAINS = {"thread.accepted_author": "members.name"}
    ANSWERS = {
        "user.name": MEMBERS,
        "profile.name": MEMBERS,
        "thread.accepted_author": MEMBERS,
        "user.reputation": "number",
        "profile.reputation": "number",
    }
    model: ForumState
    queries: ForumQueries

    def facts(self) -> ForumFacts:
        return facts(self.context())

    def header(self, r: Renderer) -> str:
        return views.header(self.context(), r)

    def _entity_page_kind(self, route: str) -> str:
        return self.queries.entity_page_kind(route)

    def dispatch(self, event: AppEvent) -> Patch:
        """Where the visitor arrives is remembered: the thread list last seen (its
        controls are the listing's facts), and the page to return to after signing in."""
        before = self.route
        patch = super().dispatch(event)
        if self.route != before:
            browsing = self.model.browsing
            scope = self.queries.list_at(self.route)
            if scope is not None:
                browsing.scope = scope
                browsing.lists.setdefault(scope, ThreadList())
            if self.route == "/signin" and self.known_route(before):
                browsing.return_to = before
            self.touch(tables=False)
        return patch
