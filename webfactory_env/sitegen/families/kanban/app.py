"""The workspace's app: its model, its pages and its routes wired together."""

from __future__ import annotations

from webfactory_env.sitegen.families.kanban import views
from webfactory_env.sitegen.families.kanban.model import KanbanModel
from webfactory_env.sitegen.html import Renderer


class KanbanApp(KanbanModel):
    """The running workspace: boards, cards, the calendar, the team, the new-board wizard."""

    PAGES = views.PAGES
    ROUTES = {
        "/": "boards",
        "/boards/new": "new_board",
        "/my-tasks": "my_tasks",
        "/calendar": "calendar",
        "/search": "search",
        "/members": "members",
    }

    def header(self, r: Renderer) -> str:
        return views.header(self, r)

    def _entity_page_kind(self, route: str) -> str:
        head, _, rest = route[1:].partition("/")
        found = {
            "board": rest in self.model.boards,
            "card": rest in self.model.cards,
            "member": rest in self.by_member,
        }
        return head if found.get(head) else "not_found"
