"""The ground truth's mutants with a mouse and a keyboard: in coordinate mode a plan with a
goal step dropped fails as it does in the app, a hedged answer fails and other right
spellings pass, on a task of each kind of every family (`groundtruth.pointer`)."""

from __future__ import annotations

import pytest

from webfactory_env.groundtruth.pointer import MutantOracle, check_pointer_seed, play

pytestmark = pytest.mark.browser

# A change to the site and a question per family, short enough for the suite.
TASKS = [
    ("shop", "shop_track_parcel"),
    ("shop", "shop_apply_coupon"),
    ("travel", "best_rated_hotel_in_city"),
    ("kanban", "kanban_move_to_top"),
    ("forum", "forum_author_reputation"),
    ("account", "account_enable_two_factor"),
]


@pytest.mark.parametrize(("family", "task"), TASKS, ids=[t for _, t in TASKS])
def test_coordinate_mode_gives_each_mutant_the_app_level_verdict(make_env, family, task):
    env = make_env(
        family=family, task=task, obs_mode="tokens", action_mode="coordinates_text",
        max_steps=80,
    )  # fmt: skip
    report = check_pointer_seed(env, family, task, 0)
    assert report.failures == []
    assert report.drops + report.hedges > 0  # something was tried beyond the oracle
    assert report.episodes == 1 + report.drops + report.hedges + report.forms


def test_the_mutant_oracle_really_leaves_out_the_step_and_says_the_answer_given(make_env):
    env = make_env(
        family="shop", task="shop_track_parcel", obs_mode="tokens",
        action_mode="coordinates_text", max_steps=40,
    )  # fmt: skip
    unwrapped = env.unwrapped
    assert play(env, 0, MutantOracle(unwrapped))
    typed = next(i for i, s in enumerate(unwrapped.task.plan) if s.verb == "type")
    oracle, sent = MutantOracle(unwrapped, drop={typed}), []
    obs, info = env.reset(seed=0)
    while True:
        action = oracle.act(obs, info)
        sent.append(action)
        obs, _, terminated, truncated, info = env.step(action)
        if terminated or truncated:
            break
    assert not any(a.startswith("type(") for a in sent)  # the number was never typed
    assert not info["success"]
    assert not play(env, 0, MutantOracle(unwrapped, answer="maybe nothing"))
