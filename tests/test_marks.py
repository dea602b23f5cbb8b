"""Set-of-marks: numbered boxes of the actionable elements on the screenshot agents get."""

from __future__ import annotations

import numpy as np
import pytest

from webfactory_env.core import dom as f
from webfactory_env.core.dom import DomSnapshot
from webfactory_env.core.errors import ConfigError
from webfactory_env.observation import ObservationConfig, encode_observation
from webfactory_env.observation.marks import (
    GLYPHS,
    PALETTE,
    draw_marks,
    label_bitmap,
    mark_scale,
    marked_elements,
)

CLICK = f.CLICKABLE | f.LINK


def _page() -> DomSnapshot:
    """A 1280×800 page: a link, a text line, a field, a covered button, a disabled one, a
    link below the fold, and a select at index 6 whose box starts above the viewport."""
    boxes = (
        (100, 50, 200, 40),
        (100, 120, 300, 20),
        (100, 200, 400, 40),
        (600, 200, 100, 40),
        (800, 200, 100, 40),
        (100, 900, 100, 20),
        (700, -30, 300, 60),
    )
    flags = (CLICK, f.TEXT, f.EDITABLE, f.CLICKABLE | f.OCCLUDED, f.CLICKABLE | f.DISABLED,
             CLICK, f.SELECTABLE)  # fmt: skip
    n = len(boxes)
    return DomSnapshot(
        tags=("a", "p", "input", "button", "button", "a", "select"),
        roles=("link", "text", "textbox", "button", "button", "link", "combobox"),
        texts=("Shop", "Welcome", "", "Buy", "Pay", "Footer", ""),
        values=("",) * n,
        boxes=boxes,
        flags=flags,
        options=(None,) * n,
        sids=(None,) * n,
        secrets=(False,) * n,
        offscreen={},
        scroll_y=0,
        scroll_height=1200,
        viewport=(1280, 800),
        route="/",
        title="",
        can_back=False,
    )


def _read_label(image: np.ndarray, top: int, left: int, digits: int, scale: int) -> str:
    """The number written in the label whose corner is at (top, left): each glyph cell's
    white pixels matched against the font."""
    out = ""
    for k in range(digits):
        y, x = top + scale, left + scale + k * 4 * scale
        cell = image[y : y + 5 * scale : scale, x : x + 3 * scale : scale]
        lit = np.all(cell == 255, axis=-1)
        out += next(d for d, g in GLYPHS.items() if np.array_equal(g, lit))
    return out


def test_only_usable_actionable_elements_in_view_are_marked():
    assert marked_elements(_page(), 128) == [0, 2, 6]
    assert marked_elements(_page(), 3) == [0, 2]  # only rows of the element table


def test_each_mark_is_an_outline_and_the_elements_index_in_our_own_font():
    page = _page()
    blank = np.full((400, 640, 3), 250, np.uint8)  # half the viewport: every box halves
    marked = draw_marks(blank, page, 128)
    assert (blank == 250).all()  # the observation's screenshot is left as it was
    assert mark_scale(400, 640) == 1 and mark_scale(800, 1280) == 3 and mark_scale(128, 128) == 1
    # the field (index 2) at (100, 200, 400, 40) px: outlined from (50, 100) to (250, 120)
    colour = PALETTE[2]
    assert (marked[100, 60:250] == colour).all() and (marked[119, 50:250] == colour).all()
    assert (marked[100:120, 249] == colour).all()
    assert _read_label(marked, 100, 50, 1, 1) == "2"
    # the select whose box starts above the viewport: its mark starts at the top edge
    assert _read_label(marked, 0, 350, 1, 1) == "6"
    # unmarked elements leave their pixels alone
    assert (marked[100:120, 300:350] == 250).all() and (marked[450 // 2 :, :] == 250).all()


def test_two_digit_labels_scale_with_the_screenshot_and_stay_on_it():
    assert label_bitmap(12, 1).shape == (5, 7) and label_bitmap(12, 3).shape == (15, 21)
    page = _renumbered(_page(), 12)  # the link is element 12, at (100, 50) px
    marked = draw_marks(np.zeros((800, 1280, 3), np.uint8), page, 128)
    assert _read_label(marked, 50, 100, 2, 3) == "12"
    corner = np.zeros((16, 16, 3), np.uint8)  # smaller than a label and its border
    assert draw_marks(corner, page, 128).shape == (16, 16, 3)


def _fields(dom: DomSnapshot) -> dict[str, object]:
    return {name: getattr(dom, name) for name in dom.__slots__}


def _renumbered(dom: DomSnapshot, index: int) -> DomSnapshot:
    """`dom` with text lines in front, so that its first link is element `index`."""
    data, pad = _fields(dom), index
    for name, filler in (
        ("tags", "p"),
        ("roles", "text"),
        ("texts", ""),
        ("values", ""),
        ("boxes", (0, 0, 0, 0)),
        ("flags", f.TEXT),
        ("options", None),
        ("sids", None),
        ("secrets", False),
    ):
        data[name] = (filler,) * pad + tuple(data[name])  # type: ignore[arg-type]
    return DomSnapshot(**data)  # type: ignore[arg-type]


def test_the_observation_draws_marks_only_when_asked_and_the_same_page_gives_the_same_bytes():
    page, shot = _page(), np.full((128, 128, 3), 200, np.uint8)
    plain = ObservationConfig("pixels", screenshot_size=(128, 128))
    marked = ObservationConfig("pixels", screenshot_size=(128, 128), set_of_marks=True)
    assert encode_observation(page, plain, shot)["screenshot"] is shot
    first = encode_observation(page, marked, shot)["screenshot"]
    again = encode_observation(page, marked, shot.copy())["screenshot"]
    assert first.tobytes() == again.tobytes() and not np.array_equal(first, shot)
    with pytest.raises(ConfigError, match="set_of_marks draws on the screenshot"):
        ObservationConfig("tokens", set_of_marks=True)


@pytest.mark.browser
def test_a_marked_screenshot_is_deterministic_and_its_numbers_are_the_text_actions(make_env):
    kwargs = {"obs_mode": "pixels", "screenshot_size": (400, 640), "action_mode": "text"}
    marked, plain = make_env(set_of_marks=True, **kwargs), make_env(**kwargs)
    obs, _ = marked.reset(seed=3)
    again, _ = marked.reset(seed=3)
    bare, _ = plain.reset(seed=3)
    assert obs["screenshot"].tobytes() == again["screenshot"].tobytes()
    dom = marked.unwrapped.dom
    shown = marked_elements(dom, 128)
    assert len(shown) >= 3 and not np.array_equal(obs["screenshot"], bare["screenshot"])
    # the mark of the shop link says the index `click(i)` takes to the shop
    i = dom.index_of("nav:/shop")
    assert i in shown
    x, y, _, _ = dom.boxes[i]
    top, left = max(int(y // 2), 0), max(int(x // 2), 0)
    digits = len(str(i))
    h, w = 7, 4 * digits + 1
    top, left = min(top, 400 - h), min(left, 640 - w)
    assert _read_label(obs["screenshot"], top, left, digits, 1) == str(i)
    _, _, _, _, info = marked.step(f"click({i})")
    assert info["route"] == "/shop" and info["action_error"] is None
