"""Repeating an action that changes nothing costs what an invalid action does, on a real
episode: the issue's failing policy clicked "Search" 13 times on a forum level, each click
costing only a step, so clicking on was as cheap as anything else it could try."""

from __future__ import annotations

import pytest

from webfactory_env.actions import VERB_INDEX
from webfactory_env.agents import OracleAgent
from webfactory_env.reward import RewardSpec

SPEC = RewardSpec()


@pytest.mark.browser
def test_thirteen_identical_search_clicks_cost_twelve_invalid_actions(make_env):
    env = make_env(family="forum", task="forum_author_reputation", obs_mode="tokens")
    obs, info = env.reset(seed=0)
    oracle = OracleAgent(env)
    for _ in range(3):  # open the threads, type the title, click Search
        search = oracle.act(obs, info)
        obs, _, _, _, info = env.step(search)
    assert env.unwrapped.task.plan[2].sid == "form:search" and info["action_error"] is None
    once = info["record"]["reward"]["R"]
    for _ in range(12):
        obs, reward, terminated, truncated, info = env.step(search)
        assert not (terminated or truncated) and info["action_error"] is None
        assert info["record"]["reward"]["components"]["repeat"] == SPEC.invalid_penalty
    thirteen = info["record"]["reward"]["R"]
    assert thirteen == pytest.approx(once + 12 * (SPEC.step_penalty + SPEC.invalid_penalty))
    assert thirteen < once


@pytest.mark.browser
def test_a_repeated_action_that_moves_the_page_costs_only_its_step(make_env):
    env = make_env(
        family="forum", task="forum_author_reputation", obs_mode="tokens", viewport=(800, 300)
    )
    obs, info = env.reset(seed=0)
    env.step(OracleAgent(env).act(obs, info))  # to the threads: a list longer than the window
    scroll = [VERB_INDEX["scroll_down"], 0, 0]
    rewards = []
    for _ in range(2):
        _, reward, _, _, info = env.step(scroll)
        assert info["action_error"] is None
        rewards.append(reward)
    assert env.unwrapped.dom.scroll_y > 0
    assert rewards == [SPEC.step_penalty, SPEC.step_penalty]
