"""The viewer draws where coordinate actions acted: click points, drag paths, wheel turns."""

from __future__ import annotations

import re
from typing import Any

import pytest

from webfactory_env.actions import COORDINATE_VERB_INDEX as VERB
from webfactory_env.replay import write_report
from webfactory_env.replay.pointer import PointerAction, pointer_action, pointer_svg

GRID = {"screenshot_size": [100, 160], "viewport": [1280, 800], "max_values": 16}


def test_text_and_numeric_actions_come_back_as_viewport_points():
    assert pointer_action("click(312, 88)", {}) == PointerAction("click", (312.0, 88.0))
    assert pointer_action("drag(1, 2, 3, 4.5)", {}).coords == (1, 2, 3, 4.5)  # type: ignore[union-attr]
    assert pointer_action('type("hi")', {}) is None and pointer_action('key("Enter")', {}) is None
    assert pointer_action("click(12)", {}) is None and pointer_action("fly(1, 2)", {}) is None
    assert pointer_action([3, 1, 2], GRID) is None  # an element action's three numbers
    assert pointer_action("click(" + "9" * 400 + ", 1)", {}) is None  # nowhere to draw
    # the numeric form: cell (i, j) of the 160×100 grid is the middle of its 8×8 px area
    click = pointer_action([VERB["click"], 10, 20, 0, 0, 0, 0], GRID)
    assert click == PointerAction("click", (84.0, 164.0))
    drag = pointer_action([VERB["drag"], 10, 20, 30, 20, 0, 0], GRID)
    assert drag == PointerAction("drag", (84.0, 164.0, 244.0, 164.0))
    scroll = pointer_action([VERB["scroll"], 80, 50, 80, 0, 0, 0], GRID)
    assert scroll == PointerAction("scroll", (644.0, 404.0, 0.0, -400.0))


def _shapes(svg: str, tag: str) -> list[dict[str, str]]:
    return [
        dict(re.findall(r'(\w[\w-]*)="([^"]*)"', m)) for m in re.findall(f"<{tag} ([^>]*)/>", svg)
    ]


def test_each_verb_is_drawn_in_viewport_units():
    size = (1280, 800)
    click = pointer_svg(PointerAction("click", (312, 88)), size, 0)
    assert 'viewBox="0 0 1280 800"' in click and 'data-verb="click"' in click
    assert {(c["cx"], c["cy"]) for c in _shapes(click, "circle")} == {("312", "88")}
    double = pointer_svg(PointerAction("double_click", (5, 6)), size, 1)
    assert len(_shapes(double, "circle")) == 3
    (line,) = _shapes(pointer_svg(PointerAction("drag", (100, 400, 600, 410.5)), size, 2), "line")
    assert (line["x1"], line["y1"], line["x2"], line["y2"]) == ("100", "400", "600", "410.5")
    assert line["marker-end"] == "url(#arrow2)"
    # a wheel turn of 600 px down is an arrow of 160 px down from where it turned
    (wheel,) = _shapes(pointer_svg(PointerAction("scroll", (640, 400, 0, 600)), size, 3), "line")
    assert (wheel["x2"], wheel["y2"]) == ("640", "560")
    hover = pointer_svg(PointerAction("move", (7, 8)), size, 4)
    assert "stroke-dasharray" in hover and "<line" not in hover


@pytest.mark.browser
def test_the_viewer_draws_a_recorded_coordinate_episodes_pointer(tmp_path, make_env):
    from webfactory_env.trace import TraceRecorder, read_trace

    trace = tmp_path / "run.jsonl"
    env: Any = TraceRecorder(
        make_env(task="buy_red_mug", obs_mode="tokens", action_mode="coordinates_text"),
        str(trace),
        screenshots=True,
    )
    env.reset(seed=3)
    dom = env.unwrapped.dom
    x, y = (round(v) for v in dom.center(dom.index_of("nav:/shop")))
    steps = [
        "scroll(640, 400, 0, 300)",
        "scroll(640, 400, 0, -300)",
        f"click({x}, {y})",
        "drag(300, 600, 700, 650)",
        'key("Home")',
        "move(900, 100)",
    ]
    for action in steps:
        env.step(action)
    env.close()
    (ep,) = read_trace(trace)
    assert [s.action.raw for s in ep.steps] == steps
    html = write_report(trace, tmp_path / "r.html").read_text(encoding="utf-8")
    frames = re.findall(r'<section class="frame".*?</section>', html, re.S)
    assert len(frames) == len(steps) + 1
    verbs = [re.search(r'data-verb="(\w+)"', f) for f in frames]
    assert [v.group(1) if v else None for v in verbs] == [
        "scroll", "scroll", "click", "drag", None, "move", None,
    ]  # fmt: skip
    assert all("data:image/png;base64," in f for f in frames)  # drawn over the screenshot
    assert (f'cx="{x}" cy="{y}"') in frames[2]
    assert 'x1="300" y1="600" x2="700" y2="650"' in frames[3]
    assert 'x1="640" y1="400" x2="640" y2="560"' in frames[0]
    assert 'x1="640" y1="400" x2="640" y2="240"' in frames[1]
