"""How episodes end: outcome classes, artifacts captured before teardown, error events, and
recovery from a browser that died."""

from __future__ import annotations

import os
import signal
import time

import numpy as np
import pytest
from processes import browser_roots, chromium, descendants

from webfactory_env.actions import VERB_INDEX
from webfactory_env.agents import OracleAgent
from webfactory_env.executor.browser import BrowserConfig

pytestmark = pytest.mark.browser
# A `tokens` env draws no frames unless asked: these tests read its end screenshot.
DRAWS = BrowserConfig(pixels=True)


def _browser_pids() -> set[int]:
    """This test process's own Chromium browsers (not their helpers). Never any other
    process's: the other test worker's browser, or another program's on this machine, is
    not ours to kill (scanning all of /proc for Chromium once killed a parallel worker's
    browser mid-test)."""
    return browser_roots(chromium(descendants(os.getpid())))


def _play(env, oracle, seed, limit=None):
    obs, info = env.reset(seed=seed)
    oracle.reset()
    steps = 0
    while True:
        obs, r, terminated, truncated, info = env.step(oracle.act(obs, info))
        steps += 1
        if terminated or truncated or (limit and steps >= limit):
            return info, terminated, truncated


def test_success_leaves_a_screenshot(make_env):
    env = make_env(obs_mode="tokens", browser=DRAWS)
    info, terminated, _ = _play(env, OracleAgent(env), 1)
    assert terminated and info["outcome"] == "success"
    art = env.unwrapped.artifacts
    assert art.screenshot_png.startswith(b"\x89PNG") and "/order/" in art.page_text


def _count_screenshots(env, monkeypatch) -> list[int]:
    session, taken = env.unwrapped.session, []
    real = session.screenshot_png

    def counted():
        taken.append(1)
        return real()

    monkeypatch.setattr(session, "screenshot_png", counted)
    return taken


def test_a_lazy_end_screenshot_costs_nothing_unless_read_and_shows_the_last_page(
    make_env, monkeypatch
):
    env = make_env(obs_mode="tokens", done_actions="always", browser=DRAWS)
    env.reset(seed=3)
    taken = _count_screenshots(env, monkeypatch)
    _, _, terminated, _, info = env.step(np.array([VERB_INDEX["done_fail"], 0, 0]))
    assert terminated and info["artifacts"]["screenshot"] and taken == []
    art = env.unwrapped.artifacts
    png = art.screenshot_png  # taken now, from the page the episode ended on
    assert taken == [1] and png == env.unwrapped.screenshot_png()
    assert art.screenshot_png is png and len(taken) == 2  # kept, not taken again

    env.reset(seed=3)
    env.step(np.array([VERB_INDEX["done_fail"], 0, 0]))
    unread = env.unwrapped.artifacts
    env.reset(seed=4)  # the page moved on: a screenshot now would show another site
    assert unread.screenshot_png is None and len(taken) == 2  # and none was taken
    assert unread.page_text and unread.outcome == "soft_fail"


@pytest.mark.parametrize("mode", ["full", "none"])
def test_end_screenshot_full_is_taken_at_the_end_and_none_never(make_env, monkeypatch, mode):
    env = make_env(obs_mode="tokens", done_actions="always", end_screenshot=mode)
    env.reset(seed=3)
    taken = _count_screenshots(env, monkeypatch)
    _, _, _, _, info = env.step(np.array([VERB_INDEX["done_success"], 0, 0]))
    assert taken == ([1] if mode == "full" else [])
    assert info["artifacts"]["screenshot"] is (mode == "full")
    art = env.unwrapped.artifacts
    env.reset(seed=4)  # a full screenshot outlives the page; `none` has none to give
    assert (art.screenshot_png or b"").startswith(b"\x89PNG") is (mode == "full")
    assert len(taken) == (1 if mode == "full" else 0)


def test_running_out_of_steps_is_a_soft_fail_with_a_reason(make_env):
    env = make_env(obs_mode="tokens", max_steps=4, browser=DRAWS)
    info, terminated, truncated = _play(env, OracleAgent(env), 2)
    assert truncated and not terminated
    assert info["outcome"] == "soft_fail"
    assert info["reason"].startswith("ran out of steps (max_steps=4)")
    assert "subgoals reached" in info["reason"] and info["artifacts"]["screenshot"]


def test_giving_up_and_false_claims_are_explained(make_env):
    env = make_env(obs_mode="text", action_mode="text")
    env.reset(seed=0)
    *_, info = env.step('done(false, "the shop is closed")')
    assert info["outcome"] == "soft_fail"
    assert info["reason"].startswith('the agent gave up: "the shop is closed"')
    env.reset(seed=0)
    *_, info = env.step("done(true)")
    assert "claimed success, but the task was not done" in info["reason"]


def test_invalid_actions_are_error_events(make_env):
    env = make_env(obs_mode="tokens", max_steps=2)
    env.reset(seed=0)
    *_, info = env.step(np.array([VERB_INDEX["type"], 0, 0]))
    assert info["record"]["error_events"] == [
        {
            "event_type": "agent",
            "message": info["record"]["error_events"][0]["message"],
            "step": 1,
            "has_error": True,
        }
    ]
    *_, info = env.step(np.array([VERB_INDEX["scroll_up"], 0, 0]))
    assert len(info["artifacts"]["errors"]) == 2


def test_a_killed_browser_truncates_the_episode_and_the_next_reset_relaunches(make_env):
    env = make_env(obs_mode="tokens")
    oracle = OracleAgent(env)
    obs, info = env.reset(seed=4)
    oracle.reset()
    obs, *_, info = env.step(oracle.act(obs, info))
    pids = _browser_pids()
    assert pids
    for pid in pids:
        os.kill(pid, signal.SIGKILL)
    time.sleep(0.5)
    obs, r, terminated, truncated, info = env.step(oracle.act(obs, info))
    assert truncated and not terminated
    assert info["outcome"] == "soft_fail" and info["reason"].startswith("the browser failed")
    assert info["record"]["error_events"][-1]["event_type"] == "browser"
    assert info["artifacts"]["page_text"]  # the last observation survived the crash
    # the next episode runs in a fresh browser
    info, terminated, _ = _play(env, oracle, 4)
    assert terminated and info["success"]
