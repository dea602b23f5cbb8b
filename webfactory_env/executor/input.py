"""Coordinate actions as real mouse and keyboard input, through Playwright's devices.

The browser does the rest as it would for a person: hit testing picks what a point lands
on, an element on top takes the click, a click focuses, the wheel scrolls whatever
scrollable box is under the pointer. Mouse moves and wheel turns reach a page only with a
frame (Chromium aligns them to frames), so a session that sends them must draw frames
(`BrowserConfig.pixels`): the env's coordinate modes ask for such a browser.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from playwright.sync_api import Page

    from webfactory_env.executor.session import BrowserOp

INPUT_VERBS = frozenset(
    {
        "mouse_click",
        "mouse_double_click",
        "mouse_move",
        "mouse_drag",
        "mouse_wheel",
        "keyboard_type",
        "keyboard_press",
    }
)
# Intermediate mouse moves of a drag: enough for a page's drag code to see motion (and for
# Chromium to start an HTML drag), few enough to stay cheap.
DRAG_STEPS = 5
# Typing sends a key's events per character (about 7 ms each): a long text goes in parts,
# each one browser call within the step timeout.
TYPE_CHUNK = 200


def input_parts(op: BrowserOp) -> list[BrowserOp]:
    """`op` as the browser calls that send it: typing a long text is several."""
    if op.verb != "keyboard_type" or len(op.value) <= TYPE_CHUNK:
        return [op]
    cuts = range(0, len(op.value), TYPE_CHUNK)
    return [replace(op, value=op.value[i : i + TYPE_CHUNK]) for i in cuts]


def send_input(page: Page, op: BrowserOp) -> None:
    """Send one coordinate action's input events to `page` (a verb of `INPUT_VERBS`)."""
    mouse, keyboard = page.mouse, page.keyboard
    x, y = op.point or (0.0, 0.0)
    if op.verb == "mouse_click":
        mouse.click(x, y)
    elif op.verb == "mouse_double_click":
        mouse.dblclick(x, y)
    elif op.verb == "mouse_move":
        mouse.move(x, y)
    elif op.verb == "mouse_drag":
        assert op.to is not None
        mouse.move(x, y)
        mouse.down()
        mouse.move(op.to[0], op.to[1], steps=DRAG_STEPS)
        mouse.up()
    elif op.verb == "mouse_wheel":
        assert op.to is not None
        mouse.move(x, y)
        mouse.wheel(op.to[0], op.to[1])
    elif op.verb == "keyboard_type":
        keyboard.type(op.value)
    elif op.verb == "keyboard_press":
        keyboard.press(op.value)
    else:  # pragma: no cover - the env's actions name only the verbs above
        raise ValueError(f"not an input verb: {op.verb!r}")


def park_pointer(page: Page) -> None:
    """Put the mouse at the viewport's top-left corner, so that what it hovered in one
    episode cannot show in the next (a coordinate env's reset)."""
    page.mouse.move(0, 0)
