"""Set-of-marks: numbered boxes of the actionable elements drawn onto the screenshot.

Each visible element an action can name (clickable, editable or selectable, neither
covered nor disabled, with some of its box in the viewport) gets an outline and a label
holding its index: the number element actions use (`click(12)`), so a model that reads the
screenshot can name what it sees. Boxes are in viewport pixels and the screenshot shows
the whole viewport scaled on each axis, so both are scaled by the same factors.

The digits come from a 3×5 bitmap font defined here, scaled by whole pixels: no system
font, so the same page gives the same bytes on every machine. Everything is drawn with
integer numpy slicing, in element order (a later label covers an earlier one).
"""

from __future__ import annotations

import numpy as np

from webfactory_env.core import dom as f
from webfactory_env.core.dom import DomSnapshot

# The font: one string of rows per digit, "#" a lit pixel.
_GLYPH_ROWS = {
    "0": ("###", "#.#", "#.#", "#.#", "###"),
    "1": (".#.", "##.", ".#.", ".#.", "###"),
    "2": ("###", "..#", "###", "#..", "###"),
    "3": ("###", "..#", ".##", "..#", "###"),
    "4": ("#.#", "#.#", "###", "..#", "..#"),
    "5": ("###", "#..", "###", "..#", "###"),
    "6": ("###", "#..", "###", "#.#", "###"),
    "7": ("###", "..#", ".#.", ".#.", ".#."),
    "8": ("###", "#.#", "###", "#.#", "###"),
    "9": ("###", "#.#", "###", "..#", "###"),
}
GLYPHS = {
    d: np.array([[c == "#" for c in row] for row in rows], bool) for d, rows in _GLYPH_ROWS.items()
}
GLYPH_HEIGHT, GLYPH_WIDTH = 5, 3
# Outline and label colours, by element index: strong hues that white digits read on.
PALETTE = np.array(
    [
        (214, 39, 40),
        (31, 119, 180),
        (44, 160, 44),
        (148, 103, 189),
        (255, 127, 14),
        (23, 140, 140),
        (227, 56, 160),
        (90, 90, 90),
    ],
    np.uint8,
)
_ACTIONABLE = f.CLICKABLE | f.EDITABLE | f.SELECTABLE
_UNUSABLE = f.TEXT | f.OCCLUDED | f.DISABLED


def marked_elements(dom: DomSnapshot, max_elements: int) -> list[int]:
    """The indices that get a mark: actionable, usable, and partly inside the viewport."""
    vw, vh = dom.viewport
    out = []
    for i in range(min(len(dom), max_elements)):
        flags = dom.flags[i]
        if not flags & _ACTIONABLE or flags & _UNUSABLE:
            continue
        x, y, w, h = dom.boxes[i]
        if w > 0 and h > 0 and x < vw and y < vh and x + w > 0 and y + h > 0:
            out.append(i)
    return out


def mark_scale(height: int, width: int) -> int:
    """Screen pixels per font pixel: 1 up to 640×400, 3 at 1280×800 (labels 21 px high)."""
    return max(1, int(min(width, height * 1.6) // 400))


def label_bitmap(number: int, scale: int) -> np.ndarray:
    """The digits of `number` side by side (a blank column between), scaled `scale` times."""
    digits = [GLYPHS[d] for d in str(number)]
    gap = np.zeros((GLYPH_HEIGHT, 1), bool)
    parts = [p for g in digits for p in (g, gap)][:-1]
    return np.kron(np.hstack(parts), np.ones((scale, scale), bool)).astype(bool)


def draw_marks(screenshot: np.ndarray, dom: DomSnapshot, max_elements: int) -> np.ndarray:
    """A copy of `screenshot` (H×W×3 uint8 of the whole viewport) with the marks drawn."""
    out = np.array(screenshot, np.uint8, copy=True)
    height, width = out.shape[:2]
    vw, vh = dom.viewport
    sx, sy = width / vw, height / vh
    scale = mark_scale(height, width)
    marked = marked_elements(dom, max_elements)
    rects = []
    for i in marked:
        x, y, w, h = dom.boxes[i]
        left = min(max(int(np.floor(max(x, 0) * sx)), 0), width - 1)
        top = min(max(int(np.floor(max(y, 0) * sy)), 0), height - 1)
        right = min(max(int(np.ceil(min(x + w, vw) * sx)), left + 1), width)
        bottom = min(max(int(np.ceil(min(y + h, vh) * sy)), top + 1), height)
        rects.append((i, left, top, right, bottom))
    for i, left, top, right, bottom in rects:  # outlines under every label
        colour, t = PALETTE[i % len(PALETTE)], scale
        out[top : top + t, left:right] = colour
        out[max(bottom - t, top) : bottom, left:right] = colour
        out[top:bottom, left : left + t] = colour
        out[top:bottom, max(right - t, left) : right] = colour
    for i, left, top, _, _ in rects:
        _draw_label(out, i, left, top, scale)
    return out


def _draw_label(out: np.ndarray, number: int, left: int, top: int, scale: int) -> None:
    """White digits on the element's colour, in the box's top left corner (moved in to
    stay whole on the screenshot when the corner is near its edge)."""
    bitmap = label_bitmap(number, scale)
    h, w = bitmap.shape[0] + 2 * scale, bitmap.shape[1] + 2 * scale
    height, width = out.shape[:2]
    top, left = max(min(top, height - h), 0), max(min(left, width - w), 0)
    patch = out[top : top + h, left : left + w]
    patch[:] = PALETTE[number % len(PALETTE)]
    inner = patch[scale : scale + bitmap.shape[0], scale : scale + bitmap.shape[1]]
    inner[bitmap[: inner.shape[0], : inner.shape[1]]] = 255
