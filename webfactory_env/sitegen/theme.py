"""A site's look as CSS custom properties: theme, palette, typography and density axes."""

from __future__ import annotations

import json
from functools import cache
from typing import Any

from webfactory_env.core.resources import read_text
from webfactory_env.sitegen.variation import Variation


@cache
def _themes() -> dict[str, Any]:
    return json.loads(read_text("sites", "common", "themes.json"))


def theme_css(v: Variation) -> str:
    """CSS custom properties for the variation's theme, palette, typography and density."""
    t = _themes()
    colors = t["theme"][v.theme]
    accent = t["palette"][v.palette]["dark" if v.theme != "light" else "light"]
    if v.theme == "high-contrast":
        accent = "#ffff00"
    dens = t["density"][v.density]
    props = {
        **{k: val for k, val in colors.items()},
        "accent": accent,
        "accent-fg": "#000000" if v.theme != "light" else "#ffffff",
        "font": t["typography"][v.typography],
        "gap": dens["gap"],
        "pad": dens["pad"],
        "size": dens["size"],
    }
    body = "; ".join(f"--{k}: {val}" for k, val in props.items())
    return f":root {{ {body}; }}\n"
