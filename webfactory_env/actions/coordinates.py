"""Coordinate actions: a mouse and a keyboard acting at viewport points, as a person does.

Two modes. `coordinates_text` (for LLM agents) reads calls such as `click(312, 88)`, with
points in CSS pixels of the viewport (`viewport=(1280, 800)` by default; (0, 0) is its top
left corner). `coordinates` (for RL) is `MultiDiscrete([verb, x, y, x2, y2, slot, key])`:
x and y index a grid of the observed screenshot's pixels (`screenshot_size`), and grid cell
(i, j) stands for the viewport point at the middle of that pixel (`grid_to_viewport`; the
same map turns a point read off the screenshot into a viewport point,
`screenshot_to_viewport`). A grid rather than a `Box`: SB3's PPO takes no `Dict` action
space and no mix of discrete and continuous parts, a `MultiDiscrete` is what both SB3 and
RLlib take (and sb3-contrib masks), and a policy that reads the screenshot points at one
of its pixels.

Every action becomes real input (`executor.input`): hit testing, occlusion, focus and
scrolling are the browser's. A point outside the viewport is an invalid action; a click
that hits nothing is a valid step with no effect.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np
from gymnasium import spaces

from webfactory_env.actions.text import (
    TEXT_ACTIONS,
    CallArgs,
    TextAction,
    parse_text_action,
    quote_text,
    text_action,
    unquote,
    wrong_arguments,
)
from webfactory_env.actions.verbs import DONE_VERBS, KEYS, ActionConfig, Decoded, InvalidActionError
from webfactory_env.core import dom as f
from webfactory_env.core.dom import DomSnapshot
from webfactory_env.executor.session import BrowserOp, BrowserVerb

COORDINATE_VERBS = (
    "click", "double_click", "move", "drag", "scroll", "type", "key", "done_success", "done_fail",
)  # fmt: skip
COORDINATE_VERB_INDEX = {v: i for i, v in enumerate(COORDINATE_VERBS)}
# The keys of the numeric space (its last part), and what a text `key(...)` may combine.
COORDINATE_KEYS = (*sorted(KEYS), "Delete", "Shift+Tab", "Control+a")
MODIFIERS = ("Control", "Alt", "Shift", "Meta")
NAMED_KEYS = frozenset(KEYS | {"Delete", "Insert", *(f"F{n}" for n in range(1, 13))})
_COMBO = re.compile(r"^(?:(?:Control|Alt|Shift|Meta)\+)*(?P<key>.+)$")
# One `scroll` of the oracle, and what `scroll_down` scrolls in the element modes.
SCROLL_FRACTION = 0.8

COORDINATE_ACTIONS: list[TextAction] = []


def _coordinate_action(
    name: str, forms: Sequence[str], doc: str, examples: Sequence[str], aliases: Sequence[str] = ()
) -> Any:
    return text_action(name, forms, doc, examples, aliases, grammar=COORDINATE_ACTIONS)


def _numbers(args: CallArgs, name: str, names: Sequence[str]) -> tuple[float, ...] | str:
    """The call's positional arguments as numbers of pixels, or what is wrong with them."""
    if len(args.positional) != len(names):
        form = f"{name}({', '.join(names)})"
        return f"{form} takes {len(names)} numbers of pixels, got {len(args.positional)}"
    out = []
    for arg, (kind, text) in zip(names, args.positional, strict=True):
        if kind not in ("int", "float"):
            return f"{name}: {arg} must be a number of pixels, got {text}"
        out.append(float(text))
    return tuple(out)


def _pointer(name: str, names: Sequence[str]) -> Any:
    def read(args: CallArgs) -> Decoded | str:
        coords = _numbers(args, name, names)
        return coords if isinstance(coords, str) else Decoded(name, -1, coords=coords)

    return read


_coordinate_action(
    "click",
    ["click(x, y)"],
    "Click the left mouse button at viewport point (x, y), in pixels from the top left.",
    ["click(312, 88)"],
)(_pointer("click", ("x", "y")))
_coordinate_action(
    "double_click",
    ["double_click(x, y)"],
    "Double-click at (x, y).",
    ["double_click(312, 88)"],
    aliases=("dblclick",),
)(_pointer("double_click", ("x", "y")))
_coordinate_action(
    "move",
    ["move(x, y)"],
    "Move the mouse to (x, y) without clicking (hover).",
    ["move(640, 120)"],
    aliases=("hover",),
)(_pointer("move", ("x", "y")))
_coordinate_action(
    "drag",
    ["drag(x1, y1, x2, y2)"],
    "Press the mouse button at (x1, y1), move to (x2, y2) holding it, release it there.",
    ["drag(100, 400, 600, 400)"],
)(_pointer("drag", ("x1", "y1", "x2", "y2")))
_coordinate_action(
    "scroll",
    ["scroll(x, y, dx, dy)"],
    "Turn the mouse wheel at (x, y): scroll what is under it by dx, dy pixels (dy > 0 down).",
    ["scroll(640, 400, 0, 600)"],
)(_pointer("scroll", ("x", "y", "dx", "dy")))


@_coordinate_action(
    "type",
    ['type("text")'],
    "Type the text with the keyboard into whatever has focus (click a field first).",
    ['type("Alice Nguyen")'],
)
def _read_type(args: CallArgs) -> Decoded | str:
    if args.kinds != ["str"]:
        return wrong_arguments("type", COORDINATE_ACTIONS)
    return Decoded("type", -1, unquote(args.positional[0][1]), coords=())


@_coordinate_action(
    "key",
    ['key("Key")'],
    "Press a key or a combination: Enter, Tab, Escape, Backspace, Delete, the arrows,"
    " PageUp, PageDown, Home, End, Space, F1-F12 or one character, after any of Control+,"
    " Alt+, Shift+, Meta+ (Control+a selects all).",
    ['key("Enter")', 'key("Control+a")'],
    aliases=("press",),
)
def _read_key(args: CallArgs) -> Decoded | str:
    if args.kinds != ["str"]:
        return wrong_arguments("key", COORDINATE_ACTIONS)
    combo = unquote(args.positional[0][1])
    problem = combo_problem(combo)
    return problem if problem else Decoded("key", -1, key=combo, coords=())


def combo_problem(combo: str) -> str | None:
    """Why `combo` is not a key the keyboard can press, or None."""
    m = _COMBO.match(combo)
    key = m.group("key") if m else ""
    if key in NAMED_KEYS or (len(key) == 1 and key.isprintable()):
        return None
    return (
        f"unknown key {combo!r}: write a key ({', '.join(sorted(NAMED_KEYS - {'Insert'}))},"
        f" or one character), after any of {'+, '.join(MODIFIERS)}+"
    )


COORDINATE_ACTIONS.append(next(a for a in TEXT_ACTIONS if a.name == "done"))


# ------------------------------------------------------------------ the numeric space
def coordinate_space(config: ActionConfig) -> spaces.MultiDiscrete:
    w, h = config.grid
    keys = len(COORDINATE_KEYS)
    return spaces.MultiDiscrete([len(COORDINATE_VERBS), w, h, w, h, config.max_values, keys])


def grid_to_viewport(
    cell: tuple[int, int], grid: tuple[int, int], viewport: tuple[int, int]
) -> tuple[float, float]:
    """The viewport point grid cell (i, j) stands for: the middle of its area."""
    return screenshot_to_viewport((cell[0] + 0.5, cell[1] + 0.5), grid, viewport)


def screenshot_to_viewport(
    point: tuple[float, float], screenshot: tuple[int, int], viewport: tuple[int, int]
) -> tuple[float, float]:
    """A point on a screenshot of size (width, height) as a viewport point: the env's
    screenshots show the whole viewport, scaled on each axis (`screenshot_size` is
    (height, width): pass it reversed)."""
    (x, y), (sw, sh), (vw, vh) = point, screenshot, viewport
    return x * vw / sw, y * vh / sh


def viewport_to_grid(
    point: tuple[float, float], grid: tuple[int, int], viewport: tuple[int, int]
) -> tuple[int, int]:
    """The grid cell whose area holds viewport point `point` (clamped to the grid)."""
    (x, y), (gw, gh), (vw, vh) = point, grid, viewport
    return min(max(int(x * gw / vw), 0), gw - 1), min(max(int(y * gh / vh), 0), gh - 1)


def decode_coordinates(action: Any, config: ActionConfig, values: Sequence[str]) -> Decoded | str:
    """A `coordinates` or `coordinates_text` action in env terms, or what is wrong with it."""
    if config.mode == "coordinates_text":
        if not isinstance(action, str):
            raise InvalidActionError(
                f"this env takes text actions such as 'click(312, 88)'; got"
                f" {type(action).__name__}. Make it with action_mode='coordinates' for"
                " numeric ones."
            )
        decoded = parse_text_action(action, COORDINATE_ACTIONS)
        if isinstance(decoded, Decoded) and decoded.coords is None:  # done(...): no point
            return replace(decoded, index=-1, coords=())
        return decoded
    arr = np.asarray(action)
    if arr.shape != (7,) or not np.issubdtype(arr.dtype, np.integer):
        raise InvalidActionError(
            "coordinate actions are 7 integers [verb, x, y, x2, y2, value_slot, key]; got"
            f" {action!r}. Sample one with env.action_space.sample()."
        )
    verb, x, y, x2, y2, slot, key = (int(v) for v in arr)
    sizes = coordinate_space(config).nvec
    names = ("verb", "x", "y", "x2", "y2", "value slot", "key")
    for name, v, n in zip(names, (verb, x, y, x2, y2, slot, key), sizes, strict=True):
        if not 0 <= v < n:
            return f"{name} {v} is out of range 0..{n - 1}"
    name = COORDINATE_VERBS[verb]
    grid, vp = config.grid, config.viewport
    p = grid_to_viewport((x, y), grid, vp)
    q = grid_to_viewport((x2, y2), grid, vp)
    if name == "type":
        if slot >= len(values):
            return f"value slot {slot} is empty (the task has {len(values)} values)"
        return Decoded("type", -1, values[slot], coords=())
    if name == "key":
        return Decoded("key", -1, key=COORDINATE_KEYS[key], coords=())
    if name == "drag":
        return Decoded("drag", -1, coords=(*p, *q))
    if name == "scroll":  # what (x2, y2) shows comes to (x, y)
        return Decoded("scroll", -1, coords=(*p, q[0] - p[0], q[1] - p[1]))
    return Decoded(name, -1, coords=p)  # click, double_click, move; done points at an answer


# ------------------------------------------------------------------ checked on the page
_OPS: dict[str, BrowserVerb] = {
    "click": "mouse_click",
    "double_click": "mouse_double_click",
    "move": "mouse_move",
}


def check_coordinates(d: Decoded, dom: DomSnapshot) -> tuple[BrowserOp | None, str | None]:
    """A coordinate action as input to send (`executor.input`), or why it is invalid: only
    a point outside the viewport is; what the point hits is the browser's business."""
    if d.verb in DONE_VERBS:
        return None, None
    coords = d.coords or ()
    points = coords[:2] if d.verb == "scroll" else coords
    vw, vh = dom.viewport
    for x, y in zip(points[0::2], points[1::2], strict=True):
        if not (0 <= x < vw and 0 <= y < vh):
            return None, (
                f"point ({_num(x)}, {_num(y)}) is outside the viewport: x must lie in"
                f" 0..{vw - 1} and y in 0..{vh - 1}"
            )
    if d.verb in ("click", "double_click", "move"):
        verb: BrowserVerb = _OPS[d.verb]
        return BrowserOp(verb, point=(coords[0], coords[1])), None
    if d.verb in ("drag", "scroll"):  # a drag's end point; a wheel's (dx, dy)
        verb = "mouse_drag" if d.verb == "drag" else "mouse_wheel"
        return BrowserOp(verb, point=(coords[0], coords[1]), to=(coords[2], coords[3])), None
    if d.verb == "type":
        return BrowserOp("keyboard_type", value=d.value or ""), None
    if d.verb == "key":
        return BrowserOp("keyboard_press", value=d.key), None
    return None, f"unknown verb {d.verb!r}"  # pragma: no cover


def coordinate_masks(config: ActionConfig, values: Sequence[str], offer_done: bool) -> np.ndarray:
    """Per-part masks, concatenated (sb3-contrib's MultiDiscrete layout): every point and
    key is allowed; `type` needs a value, done verbs must be offered."""
    sizes = [int(n) for n in coordinate_space(config).nvec]
    verbs = np.ones(sizes[0], bool)
    verbs[COORDINATE_VERB_INDEX["type"]] = bool(values)
    for name in DONE_VERBS:
        verbs[COORDINATE_VERB_INDEX[name]] = offer_done
    slots = np.zeros(sizes[5], bool)
    slots[: max(min(len(values), sizes[5]), 1)] = True
    parts = [verbs, *(np.ones(n, bool) for n in sizes[1:5]), slots, np.ones(sizes[6], bool)]
    return np.concatenate(parts)


def element_at(dom: DomSnapshot, x: float, y: float) -> int | None:
    """The observed element a point falls on, or None: of those whose box holds it, the
    smallest (a link inside a list item whose own text is observed too: the link), the
    later in document order on a tie."""
    hits = [
        (w * h, -i)
        for i, (bx, by, w, h) in enumerate(dom.boxes)
        if bx <= x < bx + w and by <= y < by + h
    ]
    return -min(hits)[1] if hits else None


def focused_element(dom: DomSnapshot) -> int | None:
    """The observed element that has keyboard focus, or None."""
    return next((i for i in range(len(dom)) if dom.has(i, f.FOCUSED)), None)


def coordinate_call(d: Decoded) -> str:
    """A coordinate action written as the text form reads it back (`click(312, 88)`)."""
    c = ", ".join(_num(v) for v in d.coords or ())
    if d.verb == "type":
        return f"type({quote_text(d.value or '')})"
    if d.verb == "key":
        return f"key({quote_text(d.key)})"
    if d.verb in DONE_VERBS:
        flag = "true" if d.verb == "done_success" else "false"
        return f"done({flag}, {quote_text(d.text)})"
    return f"{d.verb}({c})"


def describe_coordinates(d: Decoded) -> str:
    """A coordinate action in words (records, the text observation's last-action line): its
    text form; a done verb says what it answers, and where it pointed if it did."""
    if d.verb not in DONE_VERBS:
        return coordinate_call(d)
    c = [_num(v) for v in d.coords or ()]
    where = f" at ({c[0]}, {c[1]})" if len(c) == 2 else ""
    answer = f", answering {d.text!r}" if d.text else ""
    return f"{d.verb.replace('_', ' ')}{where}{answer}"


def _num(v: float) -> str:
    """A coordinate as written: whole pixels without a decimal point."""
    return str(int(v)) if float(v).is_integer() else f"{v:.1f}"
