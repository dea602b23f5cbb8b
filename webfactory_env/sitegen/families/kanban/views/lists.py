"""Cards across boards: my tasks (pages or an endless list), the due-date calendar with
its agenda, and search."""

from __future__ import annotations

import datetime as dt

from webfactory_env.sitegen import widgets as w
from webfactory_env.sitegen.families.kanban.queries import PAGE_SIZE, Kanban, shift_month
from webfactory_env.sitegen.families.kanban.transitions.workspace import (
    filter_calendar,
    search_cards,
    show_month,
    turn_page,
)
from webfactory_env.sitegen.families.kanban.views.common import (
    Page,
    card_link,
    chips,
    choice,
    hint,
)
from webfactory_env.sitegen.html import Renderer, esc
from webfactory_env.sitegen.spec import Option


def my_tasks(kanban: Kanban, r: Renderer, route: str) -> Page:
    c = kanban.copy
    cards = kanban.queries.my_cards()
    if kanban.v.list_mode == "infinite":
        first, shown = 0, cards[: kanban.ui.more.get("my-tasks", 1) * PAGE_SIZE]
        more = w.load_more(
            r, key="my-tasks", has_more=len(shown) < len(cards), text=c("my_tasks.loading")
        )
    else:
        page = kanban.state.my_tasks.page
        first = (page - 1) * PAGE_SIZE
        shown = cards[first : first + PAGE_SIZE]
        more = w.pager(
            r,
            key="my-tasks",
            page=page,
            pages=kanban.queries.my_pages(),
            bind=turn_page.bind(),
            label=c("my_tasks.pages"),
            prev_text=c("my_tasks.prev"),
            next_text=c("my_tasks.next"),
        )
    rows = "".join(
        '<li class="task-row">'
        + card_link(kanban, r, card, first + i + 1, "task", class_="title")
        + f'<span class="muted">{esc(kanban.queries.board_of(card).name)} · '
        f"{esc(c(f'columns.{card.column}'))}</span>"
        f"<span>{esc(card.due or c('my_tasks.no_due'))}</span></li>"
        for i, card in enumerate(shown)
    )
    feed = " feed" if kanban.v.list_mode == "infinite" and len(shown) < len(cards) else ""
    body = (
        f'<ul class="tasks{feed}">{rows}</ul>'
        if rows
        else f'<p class="muted">{esc(c("my_tasks.empty"))}</p>'
    )
    title = c("my_tasks.title")
    return title, f"<h1>{esc(title)}</h1>{hint(kanban, 'my_tasks.help')}{body}{more}"


def calendar(kanban: Kanban, r: Renderer, route: str) -> Page:
    c = kanban.copy
    view = kanban.state.calendar
    active = [b for b in kanban.state.boards.values() if not b.archived]
    board_filter = choice(
        kanban,
        r,
        sid="filter:board",
        kind="Filter",
        name="board",
        label=c("calendar.board"),
        options=[
            Option("", c("calendar.all_boards"), aliases=("all", "any")),
            *(Option(b.id, b.name) for b in active),
        ],
        selected=view.board,
        bind=filter_calendar.bind(),
    )
    pages = "".join(
        w.button(
            r,
            sid=f"calendar:{role}",
            text=c(key),
            variant="secondary",
            attrs_={"role": role},
            bind=show_month.bind(month=shift_month(view.month, delta)),
        )
        for delta, role, key in (
            (-1, "prev-month", "calendar.prev"),
            (1, "next-month", "calendar.next"),
        )
    )
    events: dict[str, list[str]] = {}
    for card in sorted(kanban.queries.calendar_cards(), key=lambda x: (x.due, x.title)):
        if card.due.startswith(view.month):
            events.setdefault(card.due, []).append(card.title)
    year, mon = (int(x) for x in view.month.split("-"))
    grid = w.month_calendar(
        month=view.month, events=events, title=dt.date(year, mon, 1).strftime("%B %Y")
    )
    board_of = kanban.queries.board_of
    items = "".join(
        "<li>"
        + card_link(kanban, r, card, i + 1, "agenda")
        + f' <span class="muted">{esc(card.due)} · {esc(board_of(card).name)}</span></li>'
        for i, card in enumerate(kanban.queries.agenda())
    )
    upcoming = (
        f'<ol class="agenda">{items}</ol>'
        if items
        else f'<p class="muted">{esc(c("calendar.none"))}</p>'
    )
    title = c("calendar.title")
    return title, (
        f'<h1>{esc(title)}</h1><div class="toolbar">{board_filter}'
        f'<div class="actions">{pages}</div></div>'
        f'<div class="calendar-page"><div>{grid}</div><aside>'
        f"<h2>{esc(c('calendar.next_up'))}</h2>{upcoming}</aside></div>"
    )


def search(kanban: Kanban, r: Renderer, route: str) -> Page:
    c = kanban.copy
    field = w.text_field(
        r,
        label=c("search.field"),
        helper=c("search.help"),
        input_type="search",
        bind=search_cards.bind(),
    )
    title = c("search.title")
    results = r.subregion("results", results_html(kanban, r), class_="results")
    return title, f"<h1>{esc(title)}</h1>{field}{results}"


def results_html(kanban: Kanban, r: Renderer) -> str:
    c = kanban.copy
    if not kanban.state.search.q.strip():
        return f'<p class="muted">{esc(c("search.prompt"))}</p>'
    found = kanban.queries.search_results()
    if not found:
        return f'<p class="muted" role="status">{esc(c("search.none"))}</p>'
    count = c("search.count_one") if len(found) == 1 else c("search.count_many", n=len(found))
    rows = "".join(
        '<li class="result">'
        + card_link(kanban, r, card, i + 1, "result", class_="title")
        + f' <span class="muted">{esc(c("search.board", board=kanban.queries.board_of(card).name))}'
        f" · {esc(c(f'columns.{card.column}'))}</span>{chips(kanban.queries.labels_on(card))}</li>"
        for i, card in enumerate(found)
    )
    return f'<p class="muted" role="status">{esc(count)}</p><ul class="tasks">{rows}</ul>'
