"""The ground truth's mutants with a mouse and a keyboard: in coordinate mode a plan with a
goal step dropped fails as it does in the app, a hedged answer fails and other right
spellings pass, and an extra harm on the page (another record's control, a stray one) that
leaves a persistent trace fails, on a task of each kind of every family
(`groundtruth.pointer`)."""

from __future__ import annotations

import pytest

from webfactory_env.groundtruth.harm import harms
from webfactory_env.groundtruth.plans import run_oracle
from webfactory_env.groundtruth.pointer import HarmOracle, MutantOracle, check_pointer_seed, play
from webfactory_env.sitegen import generate_site
from webfactory_env.tasks import compile_for_site

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
    assert report.harms_not_done == 0, "every extra harm was done on the page"
    assert report.harms == report.harms_caught + report.harmless
    assert report.episodes == 1 + report.drops + report.hedges + report.forms + report.harms
    if task in ("kanban_move_to_top", "account_enable_two_factor"):  # stray switches, labels
        assert report.harms_caught > 0


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


def test_an_extra_harm_is_done_with_the_mouse_and_the_task_then_fails(make_env):
    env = make_env(
        family="kanban", task="kanban_move_to_top", obs_mode="tokens",
        action_mode="coordinates_text", max_steps=60,
    )  # fmt: skip
    site = generate_site("kanban", 0)
    task = compile_for_site("kanban_move_to_top", site)
    _, recorded, _ = run_oracle(site, task)
    harm = next(h for h in harms(site, task, recorded) if h.name.endswith("label:Facilities"))
    player = HarmOracle(env.unwrapped, harm)
    assert not play(env, 0, player) and player.extra_done
    app = env.unwrapped.app
    card = app.model.cards[task.plan[2].sid.removeprefix("result:")]
    assert (card.column, card.position) == ("done", 1), "the goal itself was reached"
    assert card.labels["Facilities"] != site.new_app().model.cards[card.id].labels["Facilities"]
