"""The home page and the thread lists (all threads, one category): search, filters, sort."""

from __future__ import annotations

from webfactory_env.sitegen import widgets as w
from webfactory_env.sitegen.families.forum.queries import Forum, shown
from webfactory_env.sitegen.families.forum.transitions.lists import (
    SORTS,
    clear_since,
    filter_threads,
    search_threads,
    set_since,
    sort_threads,
    turn_page,
    type_query,
)
from webfactory_env.sitegen.families.forum.views.common import (
    Page,
    sponsored,
    thread_row,
)
from webfactory_env.sitegen.html import Renderer, esc
from webfactory_env.sitegen.spec import Option

SORT_ALIASES = {
    "newest": ("new", "latest", "recent", "newest first"),
    "votes": ("most votes", "top", "most upvoted", "score"),
    "replies": ("most replies", "most active", "active"),
}


def home(forum: Forum, r: Renderer, route: str) -> Page:
    c = forum.copy
    threads = forum.state.threads
    cats = []
    for cat in forum.queries.categories:
        n = sum(1 for t in threads.values() if t.category == cat.slug)
        link = w.link(
            r,
            sid=f"category:{cat.slug}",
            href=f"/c/{cat.slug}",
            text=cat.name,
            kind="Item",
            class_="title",
            attrs_={
                "type": "category",
                "name": cat.name,
                "slug": cat.slug,
                "threads": n,
                "rank": cat.rank,
            },
        )
        cats.append(
            f'<li class="category">{link}<p class="muted">{esc(cat.description)}</p>'
            f'<span class="muted">{esc(c("home.count", n=n))}</span></li>'
        )
    latest = sorted(
        threads.values(), key=lambda t: (t.created, forum.queries.order[t.id]), reverse=True
    )
    rows = "".join(thread_row(forum, r, t, i + 1) for i, t in enumerate(latest[:5]))
    browse = w.link(r, sid="home:threads", href="/threads", text=c("home.browse"), class_="button")
    title = c("home.title", brand=forum.spec.brand)
    return title, (
        f'<section class="hero"><h1>{esc(title)}</h1><p>{esc(c("home.tagline"))}</p>'
        f"{browse}</section>{w.toast(forum.ui.flash)}"
        f'<h2>{esc(c("home.categories"))}</h2><ul class="categories">{"".join(cats)}</ul>'
        f'<h2>{esc(c("home.latest"))}</h2><ol class="threads">{rows}</ol>'
    )


def thread_list(forum: Forum, r: Renderer, route: str) -> Page:
    """All threads (`/threads`) or one category's (`/c/<slug>`), with their controls."""
    c = forum.copy
    scope = forum.queries.list_at(route) or "all"
    ls = forum.queries.list_of(scope)
    cat = forum.queries.cat_by_slug.get(scope)
    heading = cat.name if cat else c("list.all")
    intro = cat.description if cat else c("list.all_intro")
    search = w.form(
        r,
        name="search",
        submit_sid="form:search",
        submit_text=c("list.search_go"),
        label=c("list.search"),
        body=w.text_field(
            r,
            label=c("list.search"),
            value=ls.draft,
            input_type="search",
            helper=c("list.search_help"),
            bind=type_query.bind(),
        ),
        bind=search_threads.bind(),
    )
    tag_sel = _filter(
        forum,
        r,
        scope,
        "tag",
        [
            Option("", c("list.all_tags"), aliases=("all", "any")),
            *(Option(x, x) for x in forum.queries.scope_tags(scope)),
        ],
    )
    status_sel = _filter(
        forum,
        r,
        scope,
        "status",
        [
            Option("", c("list.any_status"), aliases=("all", "any")),
            Option("solved", c("list.solved"), aliases=("answered", "resolved")),
            Option("unsolved", c("list.unsolved"), aliases=("open", "not solved")),
        ],
    )
    sort_sel = w.choice(
        r,
        sid="sort",
        kind="Sort",
        name="sort",
        label=c("list.sort"),
        options=[
            Option(s, c(f"sort.{s}"), (("key", s), ("order", "desc")), SORT_ALIASES[s])
            for s in SORTS
        ],
        selected=ls.sort,
        is_open="sort" in forum.ui.open,
        bind=sort_threads.bind(),
    )
    since = w.date_picker(
        r,
        sid="date:since",
        name="since",
        label=c("list.since"),
        value=ls.since,
        form="filters",
        month=forum.month_of("since"),
        is_open="date:since" in forum.ui.open,
        today=forum.spec.today,
        bind=set_since.bind(),
    )
    if ls.since:
        since += w.button(
            r,
            sid="since:clear",
            text=c("list.any_time"),
            variant="secondary",
            attrs_={"role": "clear-date", "name": "since"},
            bind=clear_since.bind(),
        )
    new = w.link(r, sid="list:new", href="/new", text=c("list.new"), class_="button")
    return heading, (
        f'<div class="list-head"><div><h1>{esc(heading)}</h1>'
        f'<p class="muted">{esc(intro)}</p></div>{new}</div>{w.toast(forum.ui.flash)}'
        f'<div class="list-layout"><div class="list-main"><div class="search">{search}</div>'
        + r.subregion("threads", _threads(forum, r, scope))
        + f'</div><aside class="filters">{sort_sel}{status_sel}{tag_sel}'
        f'<div class="since">{since}</div></aside></div>'
    )


def _filter(forum: Forum, r: Renderer, scope: str, name: str, options: list[Option]) -> str:
    """A list's filter on `name` (its tag, its status)."""
    return w.choice(
        r,
        sid=f"filter:{name}",
        kind="Filter",
        name=name,
        label=forum.copy(f"list.{name}"),
        options=options,
        selected=getattr(forum.queries.list_of(scope), name),
        is_open=f"filter:{name}" in forum.ui.open,
        bind=filter_threads.bind(name=name),
    )


def _threads(forum: Forum, r: Renderer, scope: str) -> str:
    c = forum.copy
    items = forum.queries.listing(scope)
    first, n = shown(forum, scope, len(items))
    count = c("list.count_one") if len(items) == 1 else c("list.count_many", n=len(items))
    if forum.v.list_mode == "infinite":
        more = w.load_more(
            r, key=f"threads:{scope}", has_more=first + n < len(items), text=c("list.loading")
        )
    else:
        more = w.pager(
            r,
            key="threads",
            page=forum.queries.list_of(scope).page,
            pages=forum.queries.pages(len(items)),
            bind=turn_page.bind(),
            label=c("list.pages"),
            prev_text=c("list.prev"),
            next_text=c("list.next"),
        )
    rows = "".join(
        thread_row(forum, r, t, first + i + 1) for i, t in enumerate(items[first : first + n])
    )
    body = (
        f'<ol class="threads">{sponsored(forum, r)}{rows}</ol>'
        if items
        else f"<p>{esc(c('list.empty'))}</p>"
    )
    return f'<p class="muted" role="status">{esc(count)}</p>{body}{more}'
