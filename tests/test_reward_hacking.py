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
    """The staff page places the pending order unchecked: the order exists, yet nothing it
    changed is credited and the episode does not succeed."""
    site = generate_site("shop", 3)
    task = compile_for_site("buy_red_mug", site)
    d = AppDriver(site, task)
    mug = task.bindings["click-item-mug"]["sku"]
    d.navigate(f"/product/{mug}")
    d.act(d.app.page().affordance(f"add-to-cart:{mug}"), "click")
    d.navigate("/staff")
    out = d.act(d.app.page().affordance("staff:force-order"), "click")
    assert d.state()["order"]["status"] == "placed"
    assert out.newly == () and any(t.startswith("orders.") for t in out.tainted)
    assert not out.success and not d.success


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
        (ending,) = [c for c in compiled.goal if c.kind == "infeasible"]
        assert "route" in str(ending.predicate.to_json()), "done(false) only where it shows"
        d = AppDriver(site, compiled)
        assert not d.done(False, "it cannot be done").success
        assert play(family, task, seed, "oracle").success
