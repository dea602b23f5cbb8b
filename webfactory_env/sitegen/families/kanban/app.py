"""The workspace's app: its state, queries, transitions and pages tied to the shared `SiteApp`."""

from __future__ import annotations

from webfactory_env.sitegen.app import SiteApp
from webfactory_env.sitegen.binding import transitions_in
from webfactory_env.sitegen.families.kanban import views
from webfactory_env.sitegen.families.kanban.queries import (
    MEMBERS,
    ROUTES,
    TITLES,
    KanbanQueries,
    facts,
)
from webfactory_env.sitegen.families.kanban.state import KanbanFacts, KanbanState
from webfactory_env.sitegen.families.kanban.transitions import cards, workspace
from webfactory_env.sitegen.html import Renderer


class KanbanApp(SiteApp):
    """The running workspace: boards, cards, the calendar, the team, the new-board wizard."""

    family = "kanban"
    State = KanbanState
    Queries = KanbanQueries
    Facts = KanbanFacts
    TRANSITIONS = transitions_in(cards, workspace)
    PAGES = views.PAGES
    ROUTES = ROUTES
    OPEN = {"card": "cards", "board": "boards"}
    ANSWERS = {
        "card.assignee": MEMBERS,
        "card.title": TITLES,
        "board.overdue": "count",
    }
    model: KanbanState
    queries: KanbanQueries

    def facts(self) -> KanbanFacts:
        return facts(self.context())

    def header(self, r: Renderer) -> str:
        return views.header(self.context(), r)

    def _entity_page_kind(self, route: str) -> str:
        return self.queries.entity_page_kind(route)
