"""WebTask-v0 in a real Chromium: checkers, determinism, hidden instrumentation, agents."""

from __future__ import annotations

import json

import gymnasium as gym
import numpy as np
import pytest

from webfactory_env.actions import VERB_INDEX
from webfactory_env.agents import OracleAgent, RandomAgent
from webfactory_env.core.errors import ConfigError, UnknownNameError
from webfactory_env.executor import shared_browser

pytestmark = pytest.mark.browser


def run(env, agent, seed, max_steps=64):
    obs, info = env.reset(seed=seed)
    agent.reset()
    total, steps, infos = 0.0, 0, []
    terminated = truncated = False
    while not (terminated or truncated):
        obs, r, terminated, truncated, info = env.step(agent.act(obs, info))
        total += r
        steps += 1
        infos.append(info)
    return total, steps, info, infos


def test_gymnasium_env_checker(make_env):
    from gymnasium.utils.env_checker import check_env

    env = make_env(render_mode="rgb_array", max_steps=8)
    check_env(env.unwrapped, skip_render_check=False)


def test_stable_baselines3_env_checker(make_env):
    sb3_checker = pytest.importorskip("stable_baselines3.common.env_checker")
    env = make_env(max_steps=8)
    sb3_checker.check_env(env.unwrapped, warn=True)


def test_same_seed_same_actions_same_observations(make_env):
    a, b = make_env(), make_env()
    oa, ia = a.reset(seed=3)
    ob, ib = b.reset(seed=3)
    assert ia["site_digest"] == ib["site_digest"] and ia["task_digest"] == ib["task_digest"]
    oracle_a, oracle_b = OracleAgent(a), OracleAgent(b)
    for _ in range(6):
        for key in oa:
            np.testing.assert_array_equal(oa[key], ob[key], err_msg=key)
        oa, ra, *_, ia = a.step(oracle_a.act(oa, ia))
        ob, rb, *_, ib = b.step(oracle_b.act(ob, ib))
        assert ra == rb and ia["obs_digest"] == ib["obs_digest"]


def test_instrumentation_never_reaches_the_page_or_the_agent(make_env):
    env = make_env()
    obs, info = env.reset(seed=1)
    oracle = OracleAgent(env)
    session = env.unwrapped.session
    count_js = (
        "() => Array.from(document.querySelectorAll('*')).filter(e => Array.from("
        "e.attributes).some(a => a.name.startsWith('data-wf') || a.name.includes("
        "'affordance'))).length"
    )
    html_js = "() => document.documentElement.outerHTML"
    for _ in range(11):
        assert session.evaluate(count_js) == 0
        html = session.evaluate(html_js)
        assert "data-wf" not in html and "item:SKU" not in html and "add-to-cart:" not in html
        trace_dom = json.dumps(env.unwrapped.dom.to_json())
        assert "nav:/" not in trace_dom and "item:" not in trace_dom
        page = {"tag", "role", "text", "bbox", "flags", "mask", "context", "screenshot"}
        assert set(obs) == page | {"goal", "slots", "task_id"}  # the goal's own words
        obs, _, terminated, truncated, info = env.step(oracle.act(obs, info))
        if terminated or truncated:
            break


def test_oracle_solves_buy_red_mug_on_seeds_0_to_19_and_random_does_worse(make_env):
    env = make_env(obs_mode="tokens")
    oracle, rnd = OracleAgent(env), RandomAgent(env, seed=0)
    oracle_returns, random_returns = [], []
    for seed in range(20):
        total, steps, info, _ = run(env, oracle, seed)
        assert info["success"], f"oracle failed on seed {seed}"
        plan = env.unwrapped.task.plan
        assert len(plan) <= steps <= len(plan) + 6  # the plan, plus scrolls to reach targets
        oracle_returns.append(total)
    for seed in range(5):
        total, _, info, _ = run(env, rnd, seed, max_steps=64)
        assert not info["success"]
        random_returns.append(total)
    assert min(oracle_returns) > 3.0
    assert max(random_returns) < 1.0 < min(oracle_returns) - 2


def test_rewards_match_the_predicates(make_env):
    env = make_env(obs_mode="tokens")
    oracle = OracleAgent(env)
    _, _, last, infos = run(env, oracle, 7)
    task = env.unwrapped.task
    spec = env.unwrapped.reward_spec
    credited = [g for info in infos for g in info["subgoals_newly"]]
    assert credited == [g.id for g in task.subgoals]  # each once, in order
    for info in infos:
        rec = info["record"]
        expected = spec.step_penalty + spec.subgoal_reward * len(rec["reward"]["subgoals"])
        if info is last:
            expected += spec.success_reward
        assert rec["reward"]["r"] == pytest.approx(expected)
        assert rec["reward"]["undone"] == []
    assert last["record"]["reward"]["subgoals"][-1] == "assert-order-status"


def test_invalid_actions_cost_the_penalty_and_never_raise(make_env):
    env = make_env(obs_mode="tokens")
    obs, info = env.reset(seed=2)
    spec = env.unwrapped.reward_spec
    bad = [
        [VERB_INDEX["click"], 127, 0],  # no such element
        [VERB_INDEX["type"], 1, 0],  # a link is not a text field
        [VERB_INDEX["select"], 0, 15],  # empty slot
        [VERB_INDEX["scroll_up"], 0, 0],  # already at the top
        [VERB_INDEX["back"], 0, 0],  # nothing to go back to
    ]
    digest = info["obs_digest"]
    for action in bad:
        obs, r, terminated, truncated, info = env.step(np.array(action))
        assert r == pytest.approx(spec.step_penalty + spec.invalid_penalty)
        assert info["action_error"] and not terminated
        assert info["obs_digest"] == digest  # nothing changed
    with pytest.raises(ConfigError, match="3 integers"):
        env.step("click the mug")


def test_scroll_back_and_done(make_env):
    env = make_env(obs_mode="tokens", done_actions="always")
    obs, info = env.reset(seed=4)
    dom = env.unwrapped.dom
    env.step(np.array([VERB_INDEX["click"], dom.index_of("nav:/shop"), 0]))
    assert env.unwrapped.dom.route == "/shop"
    *_, info = env.step(np.array([VERB_INDEX["scroll_down"], 0, 0]))
    assert info["action_error"] is None and env.unwrapped.dom.scroll_y > 0
    *_, info = env.step(np.array([VERB_INDEX["back"], 0, 0]))
    assert info["action_error"] is None and env.unwrapped.dom.route == "/"
    obs, r, terminated, truncated, info = env.step(np.array([VERB_INDEX["done_fail"], 0, 0]))
    assert terminated and not info["success"]
    with pytest.raises(ConfigError, match="reset"):
        env.step(np.array([0, 0, 0]))


def test_truncation_after_max_steps(make_env):
    env = make_env(obs_mode="tokens", max_steps=3)
    env.reset(seed=0)
    for i in range(3):
        _, _, terminated, truncated, _ = env.step(np.array([VERB_INDEX["scroll_up"], 0, 0]))
    assert truncated and not terminated


def test_resets_reuse_one_browser_and_curriculum_options(make_env):
    shared = shared_browser()
    env = make_env(obs_mode="tokens")
    env.reset(seed=0)
    launches = shared.launches
    for seed in range(1, 6):
        _, info = env.reset(seed=seed)
        assert info["level_seed"] == seed
    _, info = env.reset(options={"level_seed": 99, "difficulty": "hard"})
    assert info["level_seed"] == 99
    assert shared.launches == launches
    with pytest.raises(ConfigError, match="unknown reset option"):
        env.reset(options={"levl_seed": 1})


def test_render_and_screenshot_observation(make_env):
    env = make_env(render_mode="rgb_array", screenshot_size=(64, 96))
    obs, _ = env.reset(seed=0)
    assert obs["screenshot"].shape == (64, 96, 3) and obs["screenshot"].dtype == np.uint8
    frame = env.render()
    assert frame.shape == (800, 1280, 3) and frame.std() > 0


def test_the_site_cannot_reach_other_origins(make_env):
    env = make_env(obs_mode="tokens")
    env.reset(seed=0)
    session = env.unwrapped.session
    result = session.evaluate(
        "() => fetch('https://example.com/x').then(() => 'reached', () => 'blocked')"
    )
    assert result == "blocked"
    assert any("example.com" in url for url in session.blocked)


def test_bad_constructor_arguments(make_env):
    with pytest.raises(UnknownNameError, match="Did you mean 'shop'"):
        make_env(family="shpo")
    with pytest.raises(UnknownNameError, match="task"):
        make_env(task="buy_red_mugg")
    with pytest.raises(UnknownNameError, match="observation mode"):
        make_env(obs_mode="pixel")


def test_made_through_gymnasium_registry():
    spec = gym.spec("WebTask-v0")
    assert spec.entry_point == "webfactory_env.env:WebTaskEnv"


def test_drift_re_renders_under_the_agent_and_actions_re_find_their_element(make_env):
    """The `drift` axis replaces every element between observation and action; typed and
    selected values still land, through derived selectors with logical-time backoff."""
    env = make_env(obs_mode="tokens", variation={"drift": "on"})
    oracle = OracleAgent(env)
    total, steps, last, infos = run(env, oracle, 3)
    assert last["success"]
    retries = [r for info in infos for r in info["record"]["retries"]]
    assert retries and all(r["event"] == "executor_web.retry" for r in retries)
    assert all(r["backoff_ms"] == 200 and r["attempt"] == 1 for r in retries)
    # the backoff was paid on the logical clock, not the wall clock
    assert last["record"]["logical_ms"] == 100 * steps + 200 * len(retries)


def test_drift_keeps_what_the_user_typed_in_a_secret_field(make_env):
    """The app never writes a card number back into the page, so a re-render must keep the
    one the user typed: before, every drift re-render emptied it and the order failed."""
    env = make_env(task="shop_pay_by_card", obs_mode="tokens", variation={"drift": "on"})
    read = "() => document.querySelector('input[name=card_number]').value"
    oracle = OracleAgent(env)
    obs, info = env.reset(seed=0)
    session = env.unwrapped.session
    oracle.reset()
    typed = None
    while True:
        obs, _, terminated, truncated, info = env.step(oracle.act(obs, info))
        if typed is None and "fill-field-card_number" in info["subgoals_newly"]:
            typed = session.evaluate(read)
        elif typed and "fill-field-expiry" in info["subgoals_newly"]:
            # the expiry step re-rendered the page first: the card number is still there
            assert session.evaluate(read) == typed
        if terminated or truncated:
            break
    assert typed == "4242 4242 4242 4242"
    assert info["success"], info["reason"]


def test_an_element_that_cannot_take_the_action_refuses_it(make_env):
    """A type into a button (as a drifted element's wrong successor once received) is a
    refused action with a reason, not a script error that ends the episode."""
    env = make_env(obs_mode="tokens")
    env.reset(seed=0)
    base = env.unwrapped
    session, dom = base.session, base.dom
    button = dom.tags.index("button") if "button" in dom.tags else dom.tags.index("a")
    refused = session._js("act", ["type", button, "hello"])
    assert refused["ok"] is False and "takes no text" in refused["error"]
    refused = session._js("act", ["select", button, "Red"])
    assert refused["ok"] is False and "not a dropdown" in refused["error"]
    # a successor that cannot take the verb is not accepted either
    assert session._js("retarget", [button, "button, a", "type"]) is None
    assert session._js("retarget", [button, "button, a", "click"]) is not None


@pytest.mark.parametrize(
    ("obs_mode", "action_mode"),
    [
        ("tokens", "multidiscrete"),
        ("pixels", "discrete"),
        ("text", "text"),
        ("tokens", "discrete"),
    ],
)
def test_env_checkers_for_every_mode(make_env, obs_mode, action_mode):
    from gymnasium.utils.env_checker import check_env

    env = make_env(obs_mode=obs_mode, action_mode=action_mode, max_steps=6)
    check_env(env.unwrapped)
    if action_mode != "text" and obs_mode != "text":
        sb3_checker = pytest.importorskip("stable_baselines3.common.env_checker")
        sb3_checker.check_env(env.unwrapped, warn=True)


def test_discrete_actions_enumerate_what_the_page_accepts(make_env):
    env = make_env(obs_mode="tokens", action_mode="discrete")
    env.reset(seed=0)
    base = env.unwrapped
    mask = base.action_masks()
    names = base.valid_actions()
    assert mask.shape == (512,) and names[:2] == ["done success", "done fail"]
    assert any(n.startswith("click [") and "'Home'" in n for n in names)
    # every element action the mask allows is accepted by the page
    allowed = [k for k in range(5, len(names)) if mask[k]]
    assert allowed and not mask[len(names) :].any()
    k = next(k for k in allowed if names[k].startswith("click") and "link" in names[k])
    *_, info = env.step(k)
    assert info["action_error"] is None
    *_, info = env.step(len(base.valid_actions()) + 3)
    assert "not available now" in info["action_error"]


def test_oracle_in_discrete_mode(make_env):
    env = make_env(obs_mode="tokens", action_mode="discrete")
    _, steps, info, _ = run(env, OracleAgent(env), 6)
    assert info["success"]


def test_discrete_agents_answer_extraction_tasks_by_pointing(make_env):
    env = make_env(
        family="travel", task="best_rated_hotel_in_city", obs_mode="tokens", action_mode="discrete"
    )
    _, _, info, infos = run(env, OracleAgent(env), 0)
    assert info["success"]
    # the last action was a menu entry that answers with what one element shows
    base = env.unwrapped
    assert base.task.expects_answer
    answers = [n for n in base.valid_actions() if n.startswith("done success, answering")]
    assert answers, "extraction tasks offer one answer per element that shows text"


def test_tasks_without_an_answer_offer_no_answer_actions(make_env):
    env = make_env(obs_mode="tokens", action_mode="discrete")
    env.reset(seed=0)
    base = env.unwrapped
    assert not base.task.expects_answer
    assert not any(n.startswith("done success, answering") for n in base.valid_actions())


@pytest.mark.parametrize(
    ("family", "task"),
    [
        ("shop", "buy_red_mug"),
        ("travel", "book_flight_roundtrip"),
        ("kanban", "kanban_move_and_comment"),
        ("account", "account_update_profile"),
        ("forum", "forum_reply_and_edit"),
    ],
)
def test_a_browser_that_draws_nothing_shows_the_agent_the_same_episode(
    make_env, tmp_path, family, task
):
    """A `tokens` env draws no frames by default; with frames (`BrowserConfig(pixels=True)`)
    its oracle episode has the same observations, rewards, infos and trace bytes. Only
    screenshots are gone, with an error that says how to get them."""
    from webfactory_env.episode import observation_digest
    from webfactory_env.executor.browser import BrowserConfig
    from webfactory_env.trace import TraceRecorder

    def episode(browser: BrowserConfig | None) -> tuple[list[tuple[str, float, bool, str]], bytes]:
        trace = tmp_path / f"{browser is None}.jsonl"
        env = TraceRecorder(
            make_env(family=family, task=task, obs_mode="tokens", browser=browser), trace
        )
        oracle = OracleAgent(env)
        obs, info = env.reset(seed=4)
        assert env.unwrapped.session.draws == (browser is not None)
        oracle.reset()
        seen = [(observation_digest(obs), 0.0, False, info["obs_digest"])]
        done = False
        while not done:
            obs, reward, terminated, truncated, info = env.step(oracle.act(obs, info))
            done = terminated or truncated
            seen.append((observation_digest(obs), reward, info["success"], info["obs_digest"]))
        assert info["success"]
        if browser is None:
            assert info["artifacts"]["screenshot"] is False
            with pytest.raises(ConfigError, match="draws no frames"):
                env.unwrapped.screenshot_png()
        env.close()
        return seen, trace.read_bytes()

    assert episode(None) == episode(BrowserConfig(pixels=True))


def test_envs_of_one_process_share_a_browser_that_draws_if_any_needs_it(make_env):
    """A pixel env joining a `tokens` env's frameless browser gets one that draws; the
    `tokens` env finishes its episode undisturbed and moves to it at its next reset; the
    old browser goes with its last page."""
    shared = shared_browser()
    with shared.keep_open():
        shared.close()  # start from no browser, whatever earlier tests left
        tokens = make_env(obs_mode="tokens", done_actions="always")
        tokens.reset(seed=1)
        frameless = shared.browser
        assert frameless is not None and not tokens.unwrapped.session.draws
        pixels = make_env(obs_mode="tokens+pixels", screenshot_size=(32, 32))
        obs, _ = pixels.reset(seed=2)
        assert obs["screenshot"].std() > 0 and shared.browser is not frameless
        _, _, terminated, truncated, info = tokens.step(np.array([VERB_INDEX["done_fail"], 0, 0]))
        assert terminated and not truncated and info["reason"] != "browser"
        tokens.reset(seed=3)  # moves to the browser that draws; the old one closes
        assert tokens.unwrapped.session.page.context.browser is shared.browser
        shared.close_orphans()
        assert not frameless.is_connected()
        pixels.step(np.array([VERB_INDEX["scroll_down"], 0, 0]))
