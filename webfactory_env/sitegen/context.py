"""What a family's transitions and pages work on: its typed state and its queries, with the
few things that are not state (the copy, the UI state, the variation, the site spec, the
route the visitor is on).

A `Context` is built by the app for each event and each page (`SiteApp.context`), or in
one line without an app (`ShopApp.context_of(spec)`), so that a test can run a transition
alone and read the state it leaves:

    shop = ShopApp.context_of(site.spec)
    add_to_cart(shop, sku="SKU-1")
    assert shop.state.cart.items == {"SKU-1": 1}
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from webfactory_env.sitegen.copy import Copy
from webfactory_env.sitegen.spec import AppEvent, SiteSpec
from webfactory_env.sitegen.variation import Variation


@dataclass
class UiState:
    """Interface state the app keeps so that pages render the same for everyone."""

    open: set[str] = field(default_factory=set)
    tabs: dict[str, str] = field(default_factory=dict)
    months: dict[str, str] = field(default_factory=dict)
    more: dict[str, int] = field(default_factory=dict)
    queries: dict[str, str] = field(default_factory=dict)  # text typed into open comboboxes
    modal: str | None = None
    flash: str = ""  # a one-navigation message ("Added to your cart")

    def view(self) -> dict[str, Any]:
        return {"open": sorted(self.open), "tabs": dict(self.tabs), "modal": self.modal or ""}


class Queries:
    """Base of a family's queries: reads over its typed state and its site's spec (the
    content the seed drew), built once per app. They change nothing; a family may keep
    indexes over its tables here (the forum's replies by thread), which its transitions
    keep up to date."""

    def __init__(self, state: Any, spec: SiteSpec) -> None:
        self.state = state
        self.spec = spec

    def today(self) -> dt.date:
        """The site's today (the seed's, never the wall clock's)."""
        return dt.date.fromisoformat(self.spec.today)

    def calendar_month(self, picker: str, route: str) -> str | None:
        """The month (`YYYY-MM`) the calendar `picker` opens at on `route` before the
        visitor pages it, or None for today's month."""
        return None


StateT = TypeVar("StateT")
QueriesT = TypeVar("QueriesT", bound=Queries)


@dataclass(frozen=True)
class Context(Generic[StateT, QueriesT]):
    """A family's typed state and queries, with what is not state. Transitions change
    `state` and `ui` (never the context itself); pages only read."""

    state: StateT
    queries: QueriesT
    spec: SiteSpec
    v: Variation
    copy: Copy
    ui: UiState
    route: str  # the page the visitor is on (a page may be drawn for another)
    failed: AppEvent | None = None  # the change a server error refused, waiting for Retry

    def today(self) -> dt.date:
        return self.queries.today()

    def month_of(self, picker: str) -> str:
        """The month a calendar shows: the one the visitor paged to, else the family's
        choice (`Queries.calendar_month`), else today's."""
        if picker in self.ui.months:
            return self.ui.months[picker]
        return self.queries.calendar_month(picker, self.route) or self.spec.today[:7]
