"""The interface state every app keeps (open menus, tabs, dialogs, months, loaded batches)
and the neutral transitions that change it: they only move around or change how the page
looks, so rewards never count them and a task's own transitions leave them out."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from webfactory_env.core.predicates import Contains, Eq
from webfactory_env.sitegen.binding import transition
from webfactory_env.sitegen.spec import AppEvent


@dataclass
class UiState:
    """Interface state the app keeps so that pages render the same for everyone."""

    open: set[str] = field(default_factory=set)
    tabs: dict[str, str] = field(default_factory=dict)
    months: dict[str, str] = field(default_factory=dict)
    more: dict[str, int] = field(default_factory=dict)
    queries: dict[str, str] = field(default_factory=dict)  # text typed into open comboboxes
    modal: str | None = None

    def view(self) -> dict[str, Any]:
        return {"open": sorted(self.open), "tabs": dict(self.tabs), "modal": self.modal or ""}


class UiTransitions:
    """Navigation and the interface transitions every app shares (`ui.*`)."""

    ui: UiState
    flash: str
    failed: AppEvent | None
    spec: Any

    @transition("nav", neutral=True)
    def navigate(self, ev: AppEvent) -> str | None:
        """Following a link: a new page, with the one-navigation message, a refused change
        waiting for Retry, open menus and dialogs left behind."""
        self.flash = ""
        self.failed = None
        self.ui.open.clear()
        self.ui.queries.clear()
        self.ui.modal = None
        return ev.path or "/"

    @transition("ui.toggle", neutral=True, effect=lambda key: Contains(("ui", "open"), key))
    def ui_toggle(self, ev: AppEvent, *, key: str) -> str | None:
        """Open or close a menu, a picker or an accordion section."""
        if key in self.ui.open:
            self.ui.open.discard(key)
        else:
            # one menu or picker open at a time (accordions stay as they are)
            if not key.startswith("acc:"):
                self.ui.open = {k for k in self.ui.open if k.startswith("acc:")}
            self.ui.open.add(key)
        return None

    @transition("ui.query", neutral=True)
    def ui_query(self, ev: AppEvent, *, key: str) -> str | None:
        """Typing into a combobox filters its options and opens its list."""
        self.ui.queries[key] = ev.value or ""
        if key not in self.ui.open:
            self.ui_toggle(ev, key=key)
        return None

    @transition("ui.tab", neutral=True, effect=lambda group, name: Eq(("ui", "tabs", group), name))
    def ui_tab(self, ev: AppEvent, *, group: str, name: str) -> str | None:
        if group and name:
            self.ui.tabs[group] = name
        return None

    @transition("ui.month", neutral=True)
    def ui_month(self, ev: AppEvent, *, picker: str, delta: Literal[-1, 1]) -> str | None:
        """Page a date picker's calendar one month back or forward."""
        year, mon = (int(x) for x in self.month_of(picker).split("-"))
        mon += delta
        year, mon = (year + 1, 1) if mon > 12 else (year - 1, 12) if mon < 1 else (year, mon)
        self.ui.months[picker] = f"{year:04d}-{mon:02d}"
        return None

    def month_of(self, picker: str) -> str:
        return self.ui.months.get(picker, self.spec.today[:7])

    @transition("ui.more", neutral=True)
    def ui_more(self, ev: AppEvent, *, key: str) -> str | None:
        """The end of an infinite list came into view: load its next batch."""
        self.ui.more[key] = self.ui.more.get(key, 1) + 1
        return None

    @transition(
        "ui.modal",
        neutral=True,
        effect=lambda name: Eq(("ui", "modal"), name) if name else None,
    )
    def ui_modal(self, ev: AppEvent, *, name: str = "") -> str | None:
        """Open the dialog `name`, or close the one open (no name)."""
        self.ui.modal = name or None
        return None
