"""Listings: pagers, infinite-list sentinels, sortable tables, detail lists, retry banners."""

from __future__ import annotations

from collections.abc import Sequence

from webfactory_env.sitegen.binding import Binding
from webfactory_env.sitegen.html import Renderer, attrs, esc
from webfactory_env.sitegen.widgets.common import UI_MORE, aria_label, sends


def pager(
    r: Renderer,
    *,
    key: str,
    page: int,
    pages: int,
    bind: Binding,
    label: str,
    prev_text: str,
    next_text: str,
) -> str:
    """Previous / numbered / Next page buttons (`Button(role="page", page=N)`), each bound
    to `bind` with its `page` filled in."""
    if pages <= 1:
        return ""
    targets = [("prev", page - 1, prev_text)]
    targets += [(str(n), n, str(n)) for n in range(1, pages + 1)]
    targets += [("next", page + 1, next_text)]
    buttons = []
    for k, n, text in targets:
        usable = 1 <= n <= pages and n != page
        inst = r.instrument(
            f"pager:{key}:{k}",
            "Button",
            "click",
            {
                "role": "page",
                "page": n,
                "list": key,
                "text": text,
                "disabled": not usable,
                "step": k if k in ("prev", "next") else "number",
            },
            label=text,
            structural=True,
            **sends(bind.with_args(page=n)),
        )
        current = ' aria-current="page"' if n == page and k.isdigit() else ""
        buttons.append(
            f'<button type="button" class="secondary"{attrs(disabled=not usable)}'
            f"{current}{inst}>{esc(text)}</button>"
        )
    aria = aria_label(r, label)
    return f'<nav class="pager"{aria}>{"".join(buttons)}</nav>'


def load_more(r: Renderer, *, key: str, has_more: bool, text: str) -> str:
    """The end of an infinite list: scrolling it into view loads the next batch."""
    if not has_more:
        return ""
    loads = UI_MORE.bind(key=key)
    inst = r.instrument(
        f"more:{key}",
        "More",
        "click",
        {"list": key},
        label=text,
        handler=loads.handler,
        arg=loads.arg,
        on="visible",
        structural=True,
    )
    return f'<div class="load-more" role="status"{inst}>{esc(text)}</div>'


def data_table(
    r: Renderer,
    *,
    key: str,
    columns: Sequence[tuple[str, str, bool]],
    rows: Sequence[Sequence[str]],
    sort: tuple[str, str],
    caption: str,
    bind: Binding | None = None,
) -> str:
    """A table; sortable columns (key, heading, sortable) have header buttons that cycle
    ascending/descending (`Sort(key=..., order=...)`), bound to `bind` with the `column`
    and `order` filled in. Cells are trusted HTML from widgets."""
    heads = []
    for col, heading, sortable in columns:
        if not sortable:
            heads.append(f'<th scope="col">{esc(heading)}</th>')
            continue
        active, order = sort
        next_order = "desc" if active == col and order == "asc" else "asc"
        aria_sort = {"asc": "ascending", "desc": "descending"}[order] if active == col else "none"
        if bind is None:
            raise TypeError(f"column {col!r} is sortable: bind the table to a transition")
        inst = r.instrument(
            f"sort:{key}:{col}",
            "Sort",
            "click",
            {"key": col, "order": next_order, "table": key, "text": heading},
            label=heading,
            **sends(bind.with_args(column=col, order=next_order)),
        )
        arrow = {"ascending": " ▲", "descending": " ▼"}.get(aria_sort, "")
        heads.append(
            f'<th scope="col"{attrs(aria_sort=aria_sort)}><button type="button" '
            f'class="link-button"{inst}>{esc(heading)}{arrow}</button></th>'
        )
    body = "".join("<tr>" + "".join(f"<td>{cell}</td>" for cell in row) + "</tr>" for row in rows)
    return (
        f'<table class="data"><caption>{esc(caption)}</caption><thead><tr>{"".join(heads)}'
        f"</tr></thead><tbody>{body}</tbody></table>"
    )


def detail_view(items: Sequence[tuple[str, str]]) -> str:
    """A definition list of (label, value) pairs (values escaped)."""
    rows = "".join(f"<dt>{esc(k)}</dt><dd>{esc(v)}</dd>" for k, v in items)
    return f'<dl class="details">{rows}</dl>'


def retry_banner(r: Renderer, *, message: str, retry_text: str) -> str:
    """Shown after an injected server error: the failed change can be retried."""
    inst = r.instrument(
        "retry",
        "Button",
        "click",
        {"role": "retry"},
        label=retry_text,
        handler="retry",  # `SiteApp.retry`: the one transition every app has beyond `ui.*`
        structural=True,
    )
    return (
        f'<div class="error-summary" role="alert">{esc(message)} '
        f'<button type="button" class="secondary"{inst}>{esc(retry_text)}</button></div>'
    )
