"""Coordinate actions: the spaces, the text form and its errors, each verb as real input on
a real page, a click on nothing, determinism, and the coordinate oracle on every task."""

from __future__ import annotations

from dataclasses import replace
from html import escape
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

from webfactory_env import actions as act
from webfactory_env.agents import OracleAgent
from webfactory_env.core.dom import DomSnapshot
from webfactory_env.core.errors import ConfigError
from webfactory_env.episode.records import screen_signature
from webfactory_env.executor.browser import BrowserConfig
from webfactory_env.tasks import library_tasks

GRID = act.ActionConfig(max_values=4, mode="coordinates", grid=(128, 128), viewport=(1280, 800))
TEXT = act.ActionConfig(max_values=4, mode="coordinates_text")


def parse(text: str) -> act.Decoded | str:
    return act.decode(text, TEXT, ())


# ------------------------------------------------------------------------ the spaces
def test_the_numeric_space_is_a_grid_over_the_screenshots_pixels():
    env = gym.make("WebTask-v0", action_mode="coordinates", screenshot_size=(64, 96), max_values=5)
    keys = len(act.COORDINATE_KEYS)
    assert isinstance(env.action_space, gym.spaces.MultiDiscrete)
    assert env.action_space.nvec.tolist() == [9, 96, 64, 96, 64, 5, keys]
    text_env = gym.make("WebTask-v0", action_mode="coordinates_text")
    assert text_env.action_space.contains("click(312, 88)")


def test_grid_cells_and_screenshot_pixels_map_onto_the_viewport():
    # 128x128 cells over 1280x800: a cell is 10 px wide and 6.25 px high.
    assert act.grid_to_viewport((0, 0), (128, 128), (1280, 800)) == (5.0, 3.125)
    assert act.grid_to_viewport((127, 127), (128, 128), (1280, 800)) == (1275.0, 796.875)
    assert act.screenshot_to_viewport((64, 64), (128, 128), (1280, 800)) == (640.0, 400.0)
    for point in [(0.0, 0.0), (312.0, 88.0), (1279.0, 799.0)]:
        cell = act.viewport_to_grid(point, (128, 128), (1280, 800))
        back = act.grid_to_viewport(cell, (128, 128), (1280, 800))
        assert abs(back[0] - point[0]) <= 5 and abs(back[1] - point[1]) <= 3.125


def test_numeric_actions_decode_to_viewport_points():
    values = ["Alice", "Red"]
    d = act.decode(np.array([0, 31, 14, 0, 0, 0, 0]), GRID, values)
    assert d == act.Decoded("click", -1, coords=(315.0, 90.625))
    drag = act.decode(np.array([3, 10, 10, 20, 10, 0, 0]), GRID, values)
    assert isinstance(drag, act.Decoded) and drag.coords == (105.0, 65.625, 205.0, 65.625)
    scroll = act.decode(np.array([4, 64, 10, 64, 100, 0, 0]), GRID, values)
    assert isinstance(scroll, act.Decoded) and scroll.coords[2:] == (0.0, 562.5)
    typed = act.decode(np.array([5, 0, 0, 0, 0, 1, 0]), GRID, values)
    assert isinstance(typed, act.Decoded) and typed.value == "Red"
    key = act.decode(np.array([6, 0, 0, 0, 0, 0, act.COORDINATE_KEYS.index("Tab")]), GRID, [])
    assert isinstance(key, act.Decoded) and key.key == "Tab"
    assert act.decode(np.array([5, 0, 0, 0, 0, 2, 0]), GRID, values) == (
        "value slot 2 is empty (the task has 2 values)"
    )
    assert act.decode(np.array([0, 128, 0, 0, 0, 0, 0]), GRID, values) == (
        "x 128 is out of range 0..127"
    )
    with pytest.raises(act.InvalidActionError, match="7 integers"):
        act.decode(np.array([0, 1, 2]), GRID, values)


def test_masks_offer_done_only_when_the_task_does_and_type_only_with_values():
    sizes = act.action_space(GRID).nvec.tolist()
    masks = act.ActionMenu(GRID)
    dom = _dom()
    m = masks.masks(dom, [], expects_answer=False)
    assert m.shape == (sum(sizes),)
    points_end = sum(sizes[:5])
    assert m[sizes[0] : points_end].all() and m[-sizes[6] :].all()  # every point and key
    assert m[points_end : points_end + sizes[5]].tolist() == [True, False, False, False]
    verbs = dict(zip(act.COORDINATE_VERBS, m[: sizes[0]], strict=True))
    assert not verbs["done_success"] and not verbs["type"] and verbs["drag"]
    verbs = dict(zip(act.COORDINATE_VERBS, masks.masks(dom, ["x"], True)[:9], strict=True))
    assert verbs["done_success"] and verbs["type"]


# ------------------------------------------------------------------------ the text form
def test_text_actions_read_as_coordinate_actions():
    assert parse("click(312, 88)") == act.Decoded("click", -1, coords=(312.0, 88.0))
    assert parse("dblclick(1, 2.5)") == act.Decoded("double_click", -1, coords=(1.0, 2.5))
    assert parse("hover(5, 6)") == act.Decoded("move", -1, coords=(5.0, 6.0))
    assert parse("drag(1, 2, 3, 4)") == act.Decoded("drag", -1, coords=(1.0, 2.0, 3.0, 4.0))
    assert parse("scroll(640, 400, 0, -600)") == act.Decoded(
        "scroll", -1, coords=(640.0, 400.0, 0.0, -600.0)
    )
    assert parse('type("Alice \\"Al\\" Nguyen")') == act.Decoded(
        "type", -1, 'Alice "Al" Nguyen', coords=()
    )
    assert parse('key("Control+a")') == act.Decoded("key", -1, key="Control+a", coords=())
    done = parse('done(true, "$12.99", confidence=0.9)')
    assert isinstance(done, act.Decoded) and (done.verb, done.text) == ("done_success", "$12.99")


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("click(312)", "click(x, y) takes 2 numbers of pixels, got 1"),
        ('click("top", 3)', 'click: x must be a number of pixels, got "top"'),
        ("drag(1, 2, 3)", "drag(x1, y1, x2, y2) takes 4 numbers of pixels, got 3"),
        ("scroll(down)", "scroll(x, y, dx, dy) takes 4 numbers of pixels, got 1"),
        ("type(3)", 'wrong arguments for type: write type("text")'),
        ('key("Hyper")', "unknown key 'Hyper'"),
        ("tap(1, 2)", "unknown action 'tap(1, 2)'; write one of: click(x, y)"),
        ("click(1, 2", "not an action call"),
        ("click(x=1, y=2)", "click() takes no keyword arguments"),
    ],
)
def test_text_mistakes_say_what_is_wrong(text, says):
    problem = parse(text)
    assert isinstance(problem, str) and says in problem, problem


def test_a_point_outside_the_viewport_is_invalid_and_says_the_bounds():
    op, problem = act.check(act.Decoded("click", -1, coords=(1280.0, 10.0)), _dom())
    assert op is None and problem == (
        "point (1280, 10) is outside the viewport: x must lie in 0..1279 and y in 0..799"
    )
    op, problem = act.check(act.Decoded("scroll", -1, coords=(5.0, 5.0, 0.0, 5000.0)), _dom())
    assert problem is None and op is not None and op.verb == "mouse_wheel"
    assert op.to == (0.0, 5000.0)  # a scroll's delta may be any size


def test_an_answer_by_pointing_reads_the_smallest_element_there():
    dom = _dom()
    assert act.element_at(dom, 20, 20) == 1  # the price inside the card
    assert act.element_at(dom, 300, 300) == 0
    assert act.element_at(dom, 900, 700) is None
    # A link inside a list item whose own text (listed after it) spans the link too.
    item = replace(dom, boxes=((0, 0, 400, 400), (0, 0, 400, 40)), texts=("Mug", "Mar 1 · A"))
    assert act.element_at(item, 20, 20) == 1
    item = replace(item, boxes=((0, 0, 160, 17), (0, 0, 240, 39)))
    assert act.element_at(item, 20, 10) == 0


def test_a_long_text_is_typed_in_parts_each_within_the_step_timeout():
    from webfactory_env.executor.input import TYPE_CHUNK, input_parts
    from webfactory_env.executor.session import BrowserOp

    text = "".join(chr(65 + i % 26) for i in range(2 * TYPE_CHUNK + 7))
    parts = input_parts(BrowserOp("keyboard_type", value=text))
    assert [len(p.value) for p in parts] == [TYPE_CHUNK, TYPE_CHUNK, 7]
    assert "".join(p.value for p in parts) == text
    click = BrowserOp("mouse_click", point=(1.0, 2.0))
    assert input_parts(click) == [click]


def test_coordinate_modes_need_a_browser_that_draws():
    with pytest.raises(ConfigError, match="action_mode='coordinates' needs frames"):
        gym.make(
            "WebTask-v0",
            obs_mode="tokens",
            action_mode="coordinates",
            browser=BrowserConfig(pixels=False),
        )


def _dom() -> DomSnapshot:
    """A page of two elements: a card and a price inside it."""
    return DomSnapshot(
        tags=("div", "span"),
        roles=("text", "text"),
        texts=("Card", "$5.00"),
        values=("", ""),
        boxes=((0, 0, 400, 400), (10, 10, 50, 20)),
        flags=(1024, 1024),
        options=(None, None),
        sids=(None, None),
        secrets=(False, False),
        offscreen={},
        scroll_y=0,
        scroll_height=800,
        viewport=(1280, 800),
        route="/",
        title="",
        can_back=False,
    )


# ------------------------------------------------------------------ on a real page
def _index(env: Any, role: str, text: str = "") -> int:
    dom = env.unwrapped.dom
    return next(
        i for i in range(len(dom)) if dom.roles[i] == role and dom.texts[i].startswith(text)
    )


def _at(env: Any, role: str, text: str = "") -> str:
    x, y = env.unwrapped.dom.center(_index(env, role, text))
    return f"{round(x)}, {round(y)}"


@pytest.fixture
def shop(make_env):
    env = make_env(family="shop", obs_mode="tokens", action_mode="coordinates_text")
    env.reset(seed=0)
    return env


@pytest.mark.browser
def test_a_click_on_a_link_navigates_and_names_what_it_hit(shop):
    action = f"click({_at(shop, 'link', 'Browse all products')})"
    _, reward, _, _, info = shop.step(action)
    record = info["record"]
    assert info["action_error"] is None and info["route"] == "/shop"
    assert record["action"]["described"] == action and record["action"]["raw"] == action
    assert record["action"]["target"] and record["events"][0]["type"] == "nav"


@pytest.mark.browser
def test_a_click_on_nothing_is_a_valid_step_that_changes_nothing(shop):
    before = shop.unwrapped.dom
    state = shop.unwrapped.app.state_view()
    _, reward, terminated, _, info = shop.step("click(5, 790)")
    assert info["action_error"] is None and info["record"]["valid"]
    assert info["record"]["events"] == [] and info["record"]["deltas"] == {}
    assert reward == pytest.approx(-0.01) and not terminated
    assert shop.unwrapped.dom.same_page(before) and shop.unwrapped.app.state_view() == state


@pytest.mark.browser
def test_a_dropdown_is_opened_by_a_click_and_chosen_with_keys(shop):
    shop.step(f"click({_at(shop, 'link', 'Browse all products')})")
    color = _index(shop, "combobox", "Color")
    options = shop.unwrapped.dom.options[color]
    shop.step(f"click({_at(shop, 'combobox', 'Color')})")
    shop.step('key("ArrowDown")')
    _, _, _, _, info = shop.step('key("Enter")')
    assert [e["type"] for e in info["record"]["events"]] == ["change"]
    assert shop.unwrapped.dom.values[_index(shop, "combobox", "Color")] == options[1]


@pytest.mark.browser
def test_typing_goes_to_the_field_a_click_focused(shop):
    shop.step(f"click({_at(shop, 'link', 'Track')})")
    field = _at(shop, "textbox")
    _, _, _, _, info = shop.step('type("lost")')  # nothing has focus: nothing to type into
    assert info["action_error"] is None and info["record"]["events"] == []
    shop.step(f"click({field})")
    _, _, _, _, info = shop.step('type("ZX-42")')
    dom = shop.unwrapped.dom
    assert dom.values[_index(shop, "textbox")] == "ZX-42"
    assert info["record"]["action"]["value"] == "ZX-42" and info["record"]["action"]["target"]
    shop.step('key("Control+a")')
    shop.step('key("Backspace")')
    assert shop.unwrapped.dom.values[_index(shop, "textbox")] == ""


@pytest.mark.browser
def test_the_wheel_scrolls_and_a_drag_and_a_double_click_select_text(shop):
    shop.step(f"click({_at(shop, 'link', 'Browse all products')})")
    _, _, _, _, info = shop.step("scroll(640, 400, 0, 200)")
    assert shop.unwrapped.dom.scroll_y == 200
    assert info["record"]["action"]["described"] == "scroll(640, 400, 0, 200)"
    shop.step("scroll(640, 400, 0, -5000)")
    assert shop.unwrapped.dom.scroll_y == 0
    session = shop.unwrapped.session
    heading = shop.unwrapped.dom.boxes[_index(shop, "heading", "All products")]
    x, y, w, h = heading
    shop.step(f"drag({x + 1}, {y + h // 2}, {x + w - 1}, {y + h // 2})")
    assert session.evaluate("getSelection().toString()").strip() == "All products"
    shop.step(f"double_click({x + 5}, {y + h // 2})")
    assert session.evaluate("getSelection().toString()").strip() == "All"
    link = _at(shop, "link", "Cart")
    shop.step(f"move({link})")
    hovered = session.evaluate("Array.from(document.querySelectorAll(':hover')).pop().textContent")
    assert hovered.strip() == "Cart"


@pytest.mark.browser
def test_a_wheel_step_waits_for_the_scroll_it_makes_and_only_for_that(shop):
    # A wheel turn reaches the page a frame or more after it was sent: the step ends when
    # the scroll predicted for it has ended, and predicts none where nothing can move.
    shop.step(f"click({_at(shop, 'link', 'Browse all products')})")
    session = shop.unwrapped.session
    expect = "__wfStep.expectScroll(640, 400, 0, {})"
    assert session.evaluate(expect.format(-100)) is False  # at the top: nothing moves up
    assert session.evaluate(expect.format(100)) is True
    assert session.evaluate("__wfStep.expectScroll(640, 400, 0, 0)") is False
    session.evaluate(
        """() => {
            const box = document.createElement("div");
            box.id = "box";
            box.style = "position:fixed;top:0;left:0;width:200px;height:100px;overflow:auto";
            box.innerHTML = "<div style='height:1000px'></div>";
            document.body.append(box);
            scrollTo(0, 0);
        }"""
    )
    assert session.evaluate(expect.format(-100).replace("640, 400", "50, 50")) is False
    assert session.evaluate(expect.format(100).replace("640, 400", "50, 50")) is True
    session.evaluate("document.getElementById('box').scrollTop = 900")  # at its end:
    assert session.evaluate(expect.format(100).replace("640, 400", "50, 50")) is True  # the page
    session.evaluate("document.getElementById('box').remove()")
    bottom = session.evaluate("document.scrollingElement.scrollHeight - innerHeight")
    for _ in range(3):  # the observation sees where each turn left the page
        shop.step("scroll(640, 400, 0, 120)")
        assert shop.unwrapped.dom.scroll_y == session.evaluate("scrollY") == min(120, bottom)
        shop.step("scroll(640, 400, 0, -400)")
        assert shop.unwrapped.dom.scroll_y == 0


@pytest.mark.browser
def test_keys_scroll_at_once_not_with_an_animation_on_the_wall_clock(shop):
    shop.step(f"click({_at(shop, 'link', 'Browse all products')})")
    session = shop.unwrapped.session
    bottom = session.evaluate("document.scrollingElement.scrollHeight - innerHeight")
    shop.step('key("PageDown")')
    step = shop.unwrapped.dom.scroll_y
    assert step == min(bottom, 700)  # 7/8 of an 800 px viewport, not a frame's share of it
    shop.step('key("Home")')
    assert shop.unwrapped.dom.scroll_y == 0


@pytest.mark.browser
def test_an_open_dialog_takes_the_click_meant_for_a_link_behind_it(make_env):
    env = make_env(
        family="shop", task="shop_apply_coupon", obs_mode="tokens",
        action_mode="coordinates_text", variation={"form_mode": "modal"},
    )  # fmt: skip
    obs, info = env.reset(seed=0)
    home = _at(env, "link", "Home")
    oracle = OracleAgent(env)  # until the coupon dialog is open
    while not any(role == "dialog" for role, _, _ in env.unwrapped.dom.groups):
        obs, _, _, _, info = env.step(oracle.act(obs, info))
        assert info["steps"] < 30
    dom = env.unwrapped.dom
    assert dom.flags[_index(env, "link", "Home")] & 64  # OCCLUDED: the overlay covers it
    _, _, _, _, info = env.step(f"click({home})")
    assert info["action_error"] is None and info["route"] == "/cart"
    assert info["record"]["events"] == [] and info["record"]["action"]["target"] is None


@pytest.mark.browser
def test_the_wheel_brings_an_infinite_list_its_next_batch(make_env):
    env = make_env(
        family="forum",
        task="forum_accept_not_author",
        obs_mode="tokens",
        action_mode="coordinates_text",
        variation={"list_mode": "infinite"},
    )
    env.reset(seed=0)
    dom = env.unwrapped.dom
    x, y = dom.center(dom.sids.index("nav:/threads"))
    env.step(f"click({round(x)}, {round(y)})")
    shown = env.unwrapped.app.state_view()["listing"]["shown"]
    loads = []
    while env.unwrapped.dom.can_scroll_down and not loads:
        _, _, _, _, info = env.step("scroll(640, 400, 0, 600)")
        loads = [e for e in info["record"]["events"] if e["type"] == "click"]
    assert loads and env.unwrapped.app.state_view()["listing"]["shown"] > shown


@pytest.mark.browser
def test_same_actions_give_the_same_observations(make_env):
    """Two oracle episodes on one level: the same actions and, but for the screenshot, the
    same observations byte for byte. Chromium's software raster may draw an element's edge
    a little differently from one run to the next (a few hundred of a 128x128 frame's
    channel values off by at most 7, in ~half the runs: README, Determinism), so a
    screenshot is held to a bound: another page, a moved element or a missing one
    exceeds it; and to the one replay verification uses (`screen_signature`)."""
    runs = []
    for _ in range(2):
        env = make_env(family="shop", task="buy_red_mug", action_mode="coordinates")
        oracle = OracleAgent(env)
        obs, info = env.reset(seed=5)
        actions, seen = [], [obs]
        done = False
        while not done:
            action = oracle.act(obs, info)
            actions.append(action.tolist())
            obs, _, terminated, truncated, info = env.step(action)
            seen.append(obs)
            done = terminated or truncated
        assert info["success"]
        runs.append((actions, seen))
        env.close()
    (actions, seen), (actions_2, seen_2) = runs
    assert actions == actions_2
    for n, (a, b) in enumerate(zip(seen, seen_2, strict=True)):
        before = actions[n - 1] if n else "reset"
        for key in a:
            if key != "screenshot":
                assert np.array_equal(a[key], b[key]), f"observation {n} ({key}) after {before}"
        delta = np.abs(a["screenshot"].astype(int) - b["screenshot"].astype(int))
        shown = np.argwhere(delta)[:4].tolist()
        assert (delta > 0).mean() <= 0.02 and delta.max() <= 16, (n, before, delta.max(), shown)
        # What `replay --verify` compares instead of the digest passes this noise.
        assert screen_signature(a).differs_from(screen_signature(b)) is None, (n, before)


# ------------------------------------------------------------------ random input
HOSTILE = (
    "click(-1, 5)", "click(1e9, 2)", "click(99999999999999999999, 1)", "drag(1, 2, 3)",
    "scroll(0, 0, 0, 99999999)", "scroll(640, 400, -1e6, -1e6)", 'key("Alt+F4")',
    'key("Control+w")', 'key("")', 'type("' + "A" * 450 + '")', 'type("\u0000\n\t")',
    "type(\"</textarea><script>fetch('http://203.0.113.7/')</script>\")", "click(1, 2)(3)",
    'done(true, "' + "why " * 100 + '")', "__import__('os')",
)  # fmt: skip


@pytest.mark.browser
@pytest.mark.parametrize("family", ["shop", "travel", "kanban", "account", "forum"])
def test_random_input_never_breaks_a_site_and_the_oracle_still_solves(family, make_env):
    """Random clicks, drags, wheels, keys and typing anywhere (numeric samples of the
    space), then hostile text calls: no step raises or makes the app fail, and the oracle
    solves a task in the same env afterwards."""
    rng = np.random.default_rng(len(family))
    tasks = sorted(t.name for t in library_tasks(family))
    kwargs = {"family": family, "task": tasks[0], "obs_mode": "tokens", "max_steps": 40}
    env = make_env(action_mode="coordinates", **kwargs)
    text = make_env(action_mode="coordinates_text", **kwargs)
    env.action_space.seed(int(rng.integers(2**31)))
    for k, (each, actions) in enumerate([(env, 120), (text, len(HOSTILE))]):
        obs, info = each.reset(seed=k, options={"task": tasks[k]})
        for n in range(actions):
            action = env.action_space.sample() if each is env else HOSTILE[n]
            obs, reward, terminated, truncated, info = each.step(action)
            assert each.observation_space.contains(obs) and np.isfinite(reward)
            kinds = {e["event_type"] for e in info["record"]["error_events"]}
            assert kinds <= {"agent", "executor"}, info["record"]["error_events"]
            if terminated or truncated:
                obs, info = each.reset(seed=n, options={"task": tasks[n % len(tasks)]})
    oracle = OracleAgent(env)
    obs, info = env.reset(seed=0, options={"task": tasks[0]})
    done = False
    while not done:
        obs, _, terminated, truncated, info = env.step(oracle.act(obs, info))
        done = terminated or truncated
    assert info["success"]


# ------------------------------------------------------------------ RL libraries
@pytest.mark.browser
@pytest.mark.slow
def test_sb3_checks_the_env_and_ppo_trains_on_the_grid(make_env, tmp_path):
    checker = pytest.importorskip("stable_baselines3.common.env_checker")
    from stable_baselines3 import PPO

    env = make_env(task="shop_open_cart", action_mode="coordinates", max_steps=8)
    checker.check_env(env.unwrapped, warn=True)
    model = PPO("MultiInputPolicy", env, n_steps=32, batch_size=16, n_epochs=1, seed=0)
    model.learn(total_timesteps=32)
    obs, info = env.reset(seed=1)
    action, _ = model.predict(obs, deterministic=True)
    assert env.action_space.contains(action)
    _, _, _, _, info = env.step(action)
    assert info["record"]["action"]["raw"] == [int(v) for v in action]
    model.save(tmp_path / "ppo")
    assert PPO.load(tmp_path / "ppo").action_space == env.action_space
    # sb3-contrib reads the per-part masks: no masked sample offers done to this task.
    from sb3_contrib import MaskablePPO

    masked = MaskablePPO("MultiInputPolicy", env, n_steps=16, batch_size=16, n_epochs=1, seed=0)
    masked.learn(total_timesteps=16)
    obs, _ = env.reset(seed=2)
    for _ in range(4):
        action, _ = masked.predict(obs, action_masks=env.unwrapped.action_masks())
        assert act.COORDINATE_VERBS[int(action[0])] not in act.DONE_VERBS


# ---------------------------------------------------------------- traces and replay
@pytest.mark.browser
@pytest.mark.parametrize("mode", ["coordinates", "coordinates_text"])
def test_coordinate_episodes_replay_byte_for_byte(mode, tmp_path, secret_postcode):
    """With the shop's postal code field secret: typed into a focused field, it is redacted
    in the trace (a numeric action's value slot, a text action's placeholder) and replays."""
    from webfactory_env.replay import verify_bundle, write_bundle, write_report
    from webfactory_env.trace import TraceRecorder, read_trace

    trace = tmp_path / "trace.jsonl"
    env = TraceRecorder(
        gym.make(
            "WebTask-v0", family="shop", task="buy_red_mug", obs_mode="tokens", action_mode=mode
        ),
        trace,
    )
    try:
        oracle = OracleAgent(env)
        obs, info = env.reset(seed=3)
        done = False
        while not done:
            obs, _, terminated, truncated, info = env.step(oracle.act(obs, info))
            done = terminated or truncated
        assert info["success"]
        write_bundle(tmp_path / "bundle", env, trace)
    finally:
        env.close()
    steps = read_trace(trace)[-1].steps
    typed = [s for s in steps if s.action.redacted]
    assert len(typed) == 1 and typed[0].action.value == "REDACTED"
    assert typed[0].action.verb == "type" and typed[0].action.target
    assert "94105" not in "".join(trace.read_text().splitlines(keepends=True)[1:])
    raws = [s.action.raw for s in steps]
    if mode == "coordinates_text":
        assert all(isinstance(r, str) for r in raws)
        assert any(r.startswith("click(") for r in raws if isinstance(r, str))
    else:
        assert all(isinstance(r, list) and len(r) == 7 for r in raws)
    verdict = verify_bundle(tmp_path / "bundle")
    assert verdict.ok, verdict.message
    assert verdict.message == f"verified {len(steps)} steps"
    # The viewer says each step as written: the call, or the verb and its numbers.
    report = write_report(tmp_path / "bundle", tmp_path / "r.html").read_text()
    first = steps[0].action
    said = first.raw if isinstance(first.raw, str) else f"{first.verb} {first.raw}"
    assert escape(said) in report and "no element" in report


# ------------------------------------------------------------- the coordinate oracle
TASKS = [(t.family, t.name) for t in library_tasks() if t.family != "gallery"]


@pytest.fixture(scope="module")
def envs():
    made: dict[str, Any] = {}
    yield made
    for env in made.values():
        env.close()


@pytest.mark.browser
@pytest.mark.slow
@pytest.mark.parametrize(("family", "task"), TASKS, ids=[t for _, t in TASKS])
def test_the_coordinate_oracle_solves_every_library_task(envs, family, task):
    """Seed 0, easy, with the numeric grid: points quantised to 10 x 6.25 px cells."""
    if family not in envs:
        envs[family] = gym.make(
            "WebTask-v0", family=family, task=task, obs_mode="tokens", action_mode="coordinates"
        )
    env = envs[family]
    oracle = OracleAgent(env)
    obs, info = env.reset(seed=0, options={"task": task, "difficulty": "easy"})
    done = False
    while not done:
        obs, _, terminated, truncated, info = env.step(oracle.act(obs, info))
        done = terminated or truncated
    assert info["success"], (info["steps"], info["record"]["action"], info["record"]["error"])
