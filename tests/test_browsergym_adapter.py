"""The BrowserGym-style adapter: BrowserGym's observation keys, accessibility-tree text and
action strings over WebTask-v0, with an episode run through it in the browser."""

from __future__ import annotations

import re
from typing import Any

import gymnasium as gym
import pytest

from webfactory_env import actions as act
from webfactory_env.agents import OracleAgent
from webfactory_env.core import dom as f
from webfactory_env.core.dom import DomSnapshot
from webfactory_env.llm.browsergym import (
    BrowserGymAdapter,
    axtree_object,
    flatten_axtree,
    to_text_action,
)


def _dom() -> DomSnapshot:
    rows = [
        ("a", "link", "Home", "", f.CLICKABLE | f.LINK, None, 0),
        ("input", "textbox", "Full name", "Al", f.EDITABLE | f.IN_FORM | f.FOCUSED, None, 1),
        ("select", "combobox", "Color", "All", f.SELECTABLE, ("All", "Red"), 1),
        ("input", "checkbox", "Gift wrap", "", f.CLICKABLE | f.CHECKED, None, 1),
        ("p", "text", "Ships in 2 days", "", f.TEXT, None, -1),
    ]
    return DomSnapshot(
        tags=tuple(r[0] for r in rows),
        roles=tuple(r[1] for r in rows),
        texts=tuple(r[2] for r in rows),
        values=tuple(r[3] for r in rows),
        boxes=tuple((0, 20 * i, 100, 20) for i in range(len(rows))),
        flags=tuple(r[4] for r in rows),
        options=tuple(r[5] for r in rows),
        sids=tuple(None for _ in rows),
        secrets=tuple(False for _ in rows),
        offscreen={},
        scroll_y=0,
        scroll_height=800,
        viewport=(1000, 800),
        route="/checkout",
        title="Checkout",
        can_back=True,
        groups=(("navigation", "Main", -1), ("form", "Shipping", -1)),
        group_of=tuple(r[6] for r in rows),
    )


def test_the_tree_text_follows_browsergyms_conventions():
    text = flatten_axtree(axtree_object(_dom()))
    assert text.splitlines() == [
        "RootWebArea 'Checkout', focusable",
        "\tnavigation 'Main'",
        "\t\t[0] link 'Home'",
        "\tform 'Shipping'",
        "\t\t[1] textbox 'Full name' value='Al', focused",
        "\t\t[2] combobox 'Color' value='All'",
        "\t\t[3] checkbox 'Gift wrap', checked='true'",
        "\tStaticText 'Ships in 2 days'",
    ]


@pytest.mark.parametrize(
    ("call", "text_action"),
    [
        ("click('0')", "click(0)"),
        ('click("0", button="left")', "click(0)"),
        ("fill('1', 'Alice \"Al\" Nguyen')", 'type(1, "Alice \\"Al\\" Nguyen")'),
        ("clear('1')", 'type(1, "")'),
        ("select_option('2', 'Red')", 'select(2, "Red")'),
        ("uncheck('3')", "click(3)"),
        ("press('1', 'Enter')", 'press(1, "Enter")'),
        ("keyboard_press('Escape')", 'press("Escape")'),
        ("scroll(0, 300)", "scroll(down)"),
        ("scroll(0.0, -120.5)", "scroll(up)"),
        ("go_back()", "back()"),
        ("send_msg_to_user('It costs $6.99')", 'done(true, "It costs $6.99")'),
        ("report_infeasible('no such coupon')", 'done(false, "no such coupon")'),
    ],
)
def test_browsergym_calls_become_the_envs_text_actions(call, text_action):
    out, problem = to_text_action(call, _dom())
    assert (out, problem) == (text_action, None)
    assert isinstance(act.parse_text_action(out), act.Decoded)


@pytest.mark.parametrize(
    ("call", "problem"),
    [
        ("hover('0')", "no counterpart here"),
        ("click('0', button='right')", "no counterpart here"),
        ("check('3')", "already checked"),
        ("click('a12')", "names no element"),
        ("click('0'); click('1')", "as one call"),
        ("__import__('os').system('x')", "as one call"),
        ("goto('http://203.0.113.7/')", "no counterpart here"),
    ],
)
def test_calls_without_a_counterpart_are_refused_with_what_works(call, problem):
    out, why = to_text_action(call, _dom())
    assert why is not None and problem in why
    assert isinstance(act.parse_text_action(out), str)  # the env refuses it as a step


def _browsergym_call(text_action: str) -> str:
    """The oracle's text action, written the way a BrowserGym agent writes it."""
    m = re.fullmatch(r"(\w+)\((\d+)(?:, (.*))?\)", text_action)
    assert m, text_action
    verb, bid, rest = m.groups()
    if verb == "click":
        return f"click('{bid}')"
    return {"type": "fill", "select": "select_option"}[verb] + f"('{bid}', {rest})"


@pytest.mark.browser
def test_an_episode_runs_through_the_adapter():
    env = BrowserGymAdapter(
        gym.make("WebTask-v0", task="buy_red_mug", obs_mode="text", action_mode="text")
    )
    try:
        obs, info = env.reset(seed=0)
        assert obs["goal"] == info["instruction"] and obs["chat_messages"][0]["role"] == "user"
        assert obs["url"] == "https://site.webfactory.test/"
        assert "\t\t[2] link 'Shop'" in obs["axtree_txt"]
        assert obs["axtree_object"]["nodes"][0]["role"]["value"] == "RootWebArea"
        assert obs["extra_element_properties"]["2"]["clickable"] is True
        # a call the factory has no counterpart for is a refused step, explained
        obs, reward, *_ = env.step("hover('2')")
        assert "no counterpart here" in obs["last_action_error"] and reward < 0
        oracle = OracleAgent(env.env)
        text_info: dict[str, Any] = info
        for _ in range(40):
            call = _browsergym_call(oracle.act(None, text_info))
            obs, reward, terminated, truncated, text_info = env.step(call)
            assert obs["last_action"] == call and obs["last_action_error"] == "", call
            if terminated or truncated:
                break
        assert terminated and text_info["success"]
        # giving up is BrowserGym's report_infeasible
        env.reset(seed=0)
        *_, terminated, _, info = env.step("report_infeasible('the shop is closed')")
        assert terminated and info["reason"].startswith('the agent gave up: "the shop is closed"')
    finally:
        env.close()
