"""The transitions every app has beyond its family's: following a link, and the neutral
ones that change interface state (open menus, tabs, dialogs, months, loaded batches). They
only move around or change how the page looks, so rewards never count them and a task's
own transitions leave them out."""

from __future__ import annotations

from typing import Any, Literal

from webfactory_env.core.predicates import Contains, Eq
from webfactory_env.sitegen.binding import transition
from webfactory_env.sitegen.context import Context

Ctx = Context[Any, Any]


@transition("nav", neutral=True)
def navigate(ctx: Ctx, *, path: str | None) -> str | None:
    """Following a link: a new page, with the one-navigation message, open menus and
    dialogs left behind (and a change refused for Retry: `SiteApp.dispatch`)."""
    ctx.ui.flash = ""
    ctx.ui.open.clear()
    ctx.ui.queries.clear()
    ctx.ui.modal = None
    return path or "/"


@transition("ui.toggle", neutral=True, effect=lambda key: Contains(("ui", "open"), key))
def ui_toggle(ctx: Ctx, *, key: str) -> str | None:
    """Open or close a menu, a picker or an accordion section."""
    ui = ctx.ui
    if key in ui.open:
        ui.open.discard(key)
    else:
        # one menu or picker open at a time (accordions stay as they are)
        if not key.startswith("acc:"):
            ui.open = {k for k in ui.open if k.startswith("acc:")}
        ui.open.add(key)
    return None


@transition("ui.query", neutral=True)
def ui_query(ctx: Ctx, *, key: str, value: str | None) -> str | None:
    """Typing into a combobox filters its options and opens its list."""
    ctx.ui.queries[key] = value or ""
    if key not in ctx.ui.open:
        ui_toggle(ctx, key=key)
    return None


@transition("ui.tab", neutral=True, effect=lambda group, name: Eq(("ui", "tabs", group), name))
def ui_tab(ctx: Ctx, *, group: str, name: str) -> str | None:
    if group and name:
        ctx.ui.tabs[group] = name
    return None


@transition("ui.month", neutral=True)
def ui_month(ctx: Ctx, *, picker: str, delta: Literal[-1, 1]) -> str | None:
    """Page a date picker's calendar one month back or forward."""
    year, mon = (int(x) for x in ctx.month_of(picker).split("-"))
    mon += delta
    year, mon = (year + 1, 1) if mon > 12 else (year - 1, 12) if mon < 1 else (year, mon)
    ctx.ui.months[picker] = f"{year:04d}-{mon:02d}"
    return None


@transition("ui.more", neutral=True)
def ui_more(ctx: Ctx, *, key: str) -> str | None:
    """The end of an infinite list came into view: load its next batch."""
    ctx.ui.more[key] = ctx.ui.more.get(key, 1) + 1
    return None


@transition(
    "ui.modal",
    neutral=True,
    effect=lambda name: Eq(("ui", "modal"), name) if name else None,
)
def ui_modal(ctx: Ctx, *, name: str = "") -> str | None:
    """Open the dialog `name`, or close the one open (no name)."""
    ctx.ui.modal = name or None
    return None
