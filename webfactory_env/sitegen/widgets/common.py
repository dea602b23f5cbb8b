"""What every widget module shares: the app's UI handlers, tooltips, hints and ARIA labels."""

from __future__ import annotations

from webfactory_env.sitegen.html import Renderer, attrs, esc

# Handlers every app has (`SiteApp`): they change UI state, never the family's state.
UI_TOGGLE = "ui.toggle"
UI_TAB = "ui.tab"
UI_MONTH = "ui.month"
UI_MORE = "ui.more"
UI_MODAL = "ui.modal"
UI_QUERY = "ui.query"


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
