"""The workspace's pages: functions of its context (state, queries, copy, UI state) drawn
with the widget library. Pages only read: every element that changes something is bound
to a transition (`bind=archive_card.bind(card=...)`).

One module per kind of page: `boards` (the boards list and a board), `card`, `lists` (my
tasks, the calendar, search), `team` (members and a member), `wizard` (a new board).
"""

from __future__ import annotations

from webfactory_env.sitegen import widgets as w
from webfactory_env.sitegen.app import PageFn
from webfactory_env.sitegen.families.kanban.queries import Kanban
from webfactory_env.sitegen.families.kanban.views import boards, card, lists, team, wizard
from webfactory_env.sitegen.html import Renderer, esc


def header(kanban: Kanban, r: Renderer) -> str:
    c = kanban.copy
    entries = [
        ("/", c("nav.boards")),
        ("/my-tasks", c("nav.my_tasks")),
        ("/calendar", c("nav.calendar")),
        ("/search", c("nav.search")),
        ("/members", c("nav.members")),
    ]
    nav = w.site_nav(r, entries, label=c("nav.label"))
    who = f'<span class="muted who">{esc(c("nav.signed_in", name=kanban.queries.me.name))}</span>'
    return f'<span class="brand">{esc(kanban.spec.brand)}</span>{nav}{who}'


PAGES: dict[str, PageFn] = {
    "boards": boards.boards,
    "board": boards.board,
    "card": card.card_page,
    "my_tasks": lists.my_tasks,
    "calendar": lists.calendar,
    "search": lists.search,
    "members": team.members,
    "member": team.member,
    "new_board": wizard.new_board,
}
