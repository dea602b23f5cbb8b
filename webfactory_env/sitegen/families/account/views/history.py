"""The login history: the member's sign-ins, searched, filtered, sorted and paged, and one
sign-in's page, where it can be reported as not the member's."""

from __future__ import annotations

from webfactory_env.sitegen import widgets as w
from webfactory_env.sitegen.families.account.queries import (
    RESULTS,
    Portal,
    history_first,
    history_shown,
)
from webfactory_env.sitegen.families.account.state import Login
from webfactory_env.sitegen.families.account.transitions.member import (
    filter_history,
    report_login,
    search_history,
    sort_history,
    turn_history_page,
)
from webfactory_env.sitegen.families.account.views.parts import Page, heading, promo
from webfactory_env.sitegen.html import Renderer, esc
from webfactory_env.sitegen.spec import Option


def history(portal: Portal, r: Renderer, route: str) -> Page:
    c = portal.copy
    view = portal.state.history
    search = w.text_field(
        r,
        label=c("history.search"),
        input_type="search",
        helper=c("history.search_help"),
        bind=search_history.bind(),
    )
    result = w.choice(
        r,
        sid="filter:result",
        kind="Filter",
        name="result",
        label=c("history.result"),
        options=[
            Option("", c("history.all"), aliases=("all", "any")),
            *(Option(x, c(f"history.{x}")) for x in RESULTS),
        ],
        selected=view.filter,
        is_open="filter:result" in portal.ui.open,
        bind=filter_history.bind(),
    )
    listing = r.subregion("history-list", _history_list(portal, r))
    return c("history.title"), (
        f"{heading(c('history.title'))}{w.toast(portal.ui.flash)}"
        f'<div class="toolbar">{search}{result}{promo(portal, r, "export")}</div>{listing}'
    )


def _where(e: Login) -> str:
    return f"{e.city}, {e.country}"


def _history_list(portal: Portal, r: Renderer) -> str:
    c = portal.copy
    rows = portal.queries.history_rows()
    shown = history_shown(
        portal,
    )
    first = history_first(
        portal,
    )
    cells = []
    for i, e in enumerate(shown):
        link = w.link(
            r,
            sid=f"login:{e.id}",
            href=f"/history/{e.id}",
            text=e.at,
            kind="Item",
            attrs_={
                "type": "login",
                "id": e.id,
                "date": e.at,
                "device": e.device,
                "city": e.city,
                "country": e.country,
                "location": _where(e),
                "ip": e.ip,
                "result": e.result,
                "rank": first + i + 1,
            },
        )
        result = f'<span class="result-{esc(e.result)}">{esc(c("history." + e.result))}</span>'
        cells.append([link, esc(e.device), esc(_where(e)), esc(e.ip), result])
    col, _, order = portal.state.history.sort.partition("-")
    table = w.data_table(
        r,
        key="history",
        columns=[
            ("date", c("history.date"), True),
            ("device", c("history.device"), True),
            ("location", c("history.location"), True),
            ("ip", c("history.ip"), False),
            ("result", c("history.result"), True),
        ],
        rows=cells,
        sort=(col, order),
        caption=c("history.caption"),
        bind=sort_history.bind(),
    )
    if portal.v.list_mode == "infinite":
        more = w.load_more(
            r, key="history", has_more=len(shown) < len(rows), text=c("history.loading")
        )
    else:
        more = w.pager(
            r,
            key="history",
            page=portal.state.history.page,
            pages=portal.queries.history_pages(),
            bind=turn_history_page.bind(),
            label=c("history.pages"),
            prev_text=c("history.prev"),
            next_text=c("history.next"),
        )
    count = c("history.count_one") if len(rows) == 1 else c("history.count_many", n=len(rows))
    body = table if rows else f"<p>{esc(c('history.empty'))}</p>"
    return f'<p class="muted" role="status">{esc(count)}</p>{body}{more}'


def login_detail(portal: Portal, r: Renderer, route: str) -> Page:
    c = portal.copy
    event = portal.queries.login_at(route)
    assert event is not None, "the login wall and the route check keep other pages out"
    details = w.detail_view(
        [
            (c("history.date"), event.at),
            (c("history.device"), event.device),
            (c("history.location"), _where(event)),
            (c("history.ip"), event.ip),
            (c("history.result"), c(f"history.{event.result}")),
        ]
    )
    if event.reported:
        action = f'<p class="notice" role="status">{esc(c("history.already_reported"))}</p>'
    else:
        report = w.button(
            r,
            sid=f"report:{event.id}",
            text=c("history.report"),
            attrs_={"role": "report", "login": event.id},
            bind=report_login.bind(login=event.id),
        )
        action = f"<p>{report}</p>"
    crumbs = w.breadcrumbs(
        r, [(c("history.title"), "/history"), (event.at, None)], label=c("history.crumbs")
    )
    title = c("history.detail_title")
    return title, (
        f"{crumbs}{heading(title)}{w.toast(portal.ui.flash)}{details}"
        f'<p class="muted">{esc(c("history.report_help"))}</p>{action}'
    )
