"""Where a coordinate action acted, read back from its trace record, drawn for the viewer.

A step of `coordinates_text` records its call (`click(312, 88)`), one of `coordinates` its
seven numbers, whose points are cells of the screenshot grid (`screenshot_size` of the
header's `env_kwargs`); both come back as viewport points here, the way the env decoded
them. The viewer lays the drawing over the frame's screenshot as an SVG whose user units
are viewport pixels: a click is a ring and a dot (a double click two rings), a hover a
dashed ring, a drag a line from a ring at its start to an arrowhead at its end, a wheel
turn a ring and an arrow along (dx, dy) (shortened to stay on the page).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from webfactory_env.actions import COORDINATE_ACTIONS, ActionConfig, Decoded, parse_text_action
from webfactory_env.actions.coordinates import decode_coordinates
from webfactory_env.trace.schema import ActionInfo

# The longest a wheel's arrow is drawn, in viewport pixels.
SCROLL_ARROW = 160.0
_POINTER_VERBS = ("click", "double_click", "move", "drag", "scroll", "done_success", "done_fail")


@dataclass(frozen=True)
class PointerAction:
    """A coordinate action's verb and its numbers in viewport pixels (`Decoded.coords`)."""

    verb: str
    coords: tuple[float, ...]


def pointer_action(raw: Any, env_kwargs: Mapping[str, Any]) -> PointerAction | None:
    """The points of a recorded coordinate action (`ActionInfo.raw`), or None for an action
    that acts at no point (typing, a key, an element action, an unreadable one)."""
    if isinstance(raw, str):
        decoded: Decoded | str = parse_text_action(raw, COORDINATE_ACTIONS)
    elif isinstance(raw, list) and len(raw) == 7 and all(isinstance(v, int) for v in raw):
        decoded = decode_coordinates(np.array(raw), _numeric_config(env_kwargs), ())
    else:
        return None
    if isinstance(decoded, str) or decoded.verb not in _POINTER_VERBS:
        return None
    coords = tuple(float(v) for v in decoded.coords or ())
    if len(coords) not in (2, 4) or not all(math.isfinite(v) for v in coords):
        return None  # a point of 400 digits reads as infinity: nowhere to draw it
    return PointerAction(decoded.verb, coords)


def _numeric_config(env_kwargs: Mapping[str, Any]) -> ActionConfig:
    """The numeric space the trace's env had: its grid is the screenshot's pixels."""
    height, width = env_kwargs.get("screenshot_size") or (128, 128)
    viewport = env_kwargs.get("viewport") or (1280, 800)
    return ActionConfig(
        max_values=int(env_kwargs.get("max_values") or 16),
        mode="coordinates",
        grid=(int(width), int(height)),
        viewport=(int(viewport[0]), int(viewport[1])),
    )


def step_pointer_svg(
    action: ActionInfo, env_kwargs: Mapping[str, Any], viewport: tuple[int, int], frame: int
) -> str:
    """The overlay of a traced step's action: its points if it acted at any, else ""."""
    at = pointer_action(action.raw, env_kwargs) if action.index == -1 else None
    return pointer_svg(at, viewport, frame) if at is not None else ""


def pointer_svg(action: PointerAction, viewport: tuple[int, int], frame: int) -> str:
    """The SVG overlay of `action` on a `viewport`-sized frame (`frame` keeps its marker id
    apart from the other frames' in one document)."""
    vw, vh = viewport
    c = action.coords
    x, y = c[0], c[1]
    arrow = f"arrow{frame}"
    parts = [
        f'<svg class="pointer" viewBox="0 0 {vw} {vh}" preserveAspectRatio="none"'
        f' data-verb="{action.verb}" aria-hidden="true"><defs><marker id="{arrow}"'
        ' viewBox="0 0 10 10" refX="9" refY="5" markerWidth="6" markerHeight="6"'
        ' orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z"'
        ' style="fill:#e11d48;stroke:none"/></marker></defs>'
    ]
    if action.verb == "drag":
        parts.append(_ring(x, y) + _line(x, y, c[2], c[3], arrow))
    elif action.verb == "scroll":
        dx, dy = c[2], c[3]
        length = math.hypot(dx, dy)
        k = min(1.0, SCROLL_ARROW / length) if length else 0.0
        parts.append(_ring(x, y) + _line(x, y, x + dx * k, y + dy * k, arrow))
    elif action.verb == "move":
        parts.append(_ring(x, y, dashed=True))
    else:  # a click, or a done that answers by pointing
        parts.append(_ring(x, y) + f'<circle class="dot" cx="{_n(x)}" cy="{_n(y)}" r="6"/>')
        if action.verb == "double_click":
            parts.append(_ring(x, y, r=30))
    parts.append("</svg>")
    return "".join(parts)


def _ring(x: float, y: float, *, r: int = 18, dashed: bool = False) -> str:
    dash = ' stroke-dasharray="8 6"' if dashed else ""
    return f'<circle class="ring" cx="{_n(x)}" cy="{_n(y)}" r="{r}"{dash}/>'


def _line(x1: float, y1: float, x2: float, y2: float, arrow: str) -> str:
    return (
        f'<line x1="{_n(x1)}" y1="{_n(y1)}" x2="{_n(x2)}" y2="{_n(y2)}"'
        f' marker-end="url(#{arrow})"/>'
    )


def _n(v: float) -> str:
    return f"{v:.1f}".removesuffix(".0")
