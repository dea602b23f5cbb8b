"""What every widget module shares: the app's UI transitions, what a bound element sends,
tooltips, hints and ARIA labels."""

from __future__ import annotations

from typing import Any

from webfactory_env.sitegen.binding import Binding
from webfactory_env.sitegen.html import Renderer, attrs, esc
from webfactory_env.sitegen.ui import ui_modal, ui_month, ui_more, ui_query, ui_tab, ui_toggle

# Transitions every app has (`sitegen.ui`): they change UI state, never the family's state.
UI_TOGGLE = ui_toggle
UI_TAB = ui_tab
UI_MONTH = ui_month
UI_MORE = ui_more
UI_MODAL = ui_modal
UI_QUERY = ui_query


def sends(bind: Binding | None) -> dict[str, Any]:
    """An element bound to `bind`: the handler and argument it sends, the effect it has."""
    if bind is None:
        return {}
    return {"handler": bind.handler, "arg": bind.arg, "effect": bind.effect}


def tip(r: Renderer, text: str) -> str | None:
    """A tooltip's text when the `tooltips` axis is on."""
    return text if r.variation.tooltips == "on" else None


def hint(r: Renderer, helper: str) -> str:
    """A field's helper text under it when the `helper_text` axis is on."""
    if helper and r.variation.helper_text == "on":
        return f'<small class="hint">{esc(helper)}</small>'
    return ""


def aria_label(r: Renderer, label: str) -> str:
    """An `aria-label` attribute when the `aria` axis is on."""
    return attrs(aria_label=label) if r.variation.aria == "on" else ""
