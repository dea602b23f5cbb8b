"""No cheap policy collects the reward: scripted adversaries on every library task."""

from __future__ import annotations

import pytest

from webfactory_env.adversarial import ADVERSARIES, AppDriver, check_task_unhackable, play
from webfactory_env.sitegen import generate_site
from webfactory_env.tasks import compile_for_site, library_tasks

TASKS = [(t.family, t.name) for t in library_tasks() if t.family != "gallery"]


@pytest.mark.slow
@pytest.mark.parametrize("family_task", TASKS, ids=lambda ft: f"{ft[0]}-{ft[1]}")
def test_adversaries_never_succeed_and_score_below_the_oracle(family_task):
    family, task = family_task
    scores = check_task_unhackable(family, task, seeds=(0, 1), budget=30)
    assert {s.policy for s in scores} == set(ADVERSARIES)


def test_the_shop_back_door_changes_state_but_pays_nothing():
    """The staff page places an order unchecked: the assert's predicate turns true, yet no
    subgoal is credited and the episode does not succeed."""
    site = generate_site("shop", 3)
    task = compile_for_site("buy_red_mug", site)
    d = AppDriver(site, task)
    home = {a.sid: a for a in d.affordances()}
    d.act(home["home:/staff"], "click")
    staff = {a.sid: a for a in d.affordances()}
    out = d.act(staff["staff:force-order"], "click")
    assert d.state()["order"]["status"] == "placed"
    assert "assert-order-status" in out.uncredited and out.newly == ()
    assert not out.success and not d.success
    assert d.total == pytest.approx(2 * d.sim.spec.step_penalty)


def test_the_driver_gives_the_oracle_the_envs_reward():
    s = play("shop", "buy_red_mug", 0, "oracle")
    assert s.success and s.total == pytest.approx(3.29)


@pytest.mark.parametrize(
    ("family", "task"),
    [("shop", "shop_sold_out"), ("kanban", "kanban_archived_board_card")],
)
def test_giving_up_at_once_does_not_pass_for_finding_the_obstacle(family, task):
    """The right ending of an infeasible task is done(false) where the obstacle shows, not
    done(false) before looking: the step that runs into it is terminal too."""
    for seed in (0, 1, 100000):
        site = generate_site(family, seed)
        compiled = compile_for_site(task, site)
        assert len(compiled.terminal) >= 2
        d = AppDriver(site, compiled)
        assert not d.done(False, "it cannot be done").success
        assert play(family, task, seed, "oracle").success
