"""Buttons: a text or icon button that runs a handler or submits a form."""

from __future__ import annotations

from collections.abc import Mapping

from webfactory_env.sitegen.binding import Binding
from webfactory_env.sitegen.html import Renderer, attrs, esc
from webfactory_env.sitegen.spec import AttrValue
from webfactory_env.sitegen.widgets.common import sends, tip


def button(
    r: Renderer,
    *,
    sid: str,
    text: str,
    bind: Binding | None,
    attrs_: Mapping[str, AttrValue],
    kind: str = "Button",
    disabled: bool = False,
    variant: str = "primary",
    submit: bool = False,
    icon: str | None = None,
) -> str:
    """A button that runs the transition it is bound to (`bind`). With `icon`, the visible
    text is the icon and the name is in aria-label (when the `aria` axis is on) and in a
    tooltip (when `tooltips` is on)."""
    full = {**attrs_, "disabled": disabled}
    inst = r.instrument(
        sid,
        kind,
        "submit" if submit else "click",
        full,
        label=text,
        **sends(bind),
    )
    shown = esc(icon) if icon else esc(text)
    aria = text if icon and r.variation.aria == "on" else None
    button_attrs = attrs(
        type="submit" if submit else "button",
        disabled=disabled,
        class_=None if variant == "primary" else variant,
        aria_label=aria,
        title=tip(r, text),
    )
    return f"<button{button_attrs}{inst}>{shown}</button>"
