"""The reward is exactly what the compiled predicates say, and cheap tricks earn nothing."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from webfactory_env.core.predicates import Contains, Eq
from webfactory_env.reward import ActionRecord, RewardSimulator, RewardSpec
from webfactory_env.tasks import CompiledTask, Subgoal

SPEC = RewardSpec()


def _task() -> CompiledTask:
    goals = (
        Subgoal("goto-shop", 1, "", Eq("route", "/shop"), ("nav:/shop",), True, False),
        Subgoal("add", 2, "", Contains("cart.skus", "A"), ("add:A",), False, False),
        Subgoal("order", 3, "", Eq("order.status", "placed"), ("form",), False, True),
    )
    return CompiledTask(
        name="t",
        family="shop",
        site_digest="s",
        source="",
        filename="t.task",
        goal=None,
        instruction="",
        subgoals=goals,
        plan=(),
        values=(),
        bindings={},
        params={},
        dsl_version="0",
        compiler_version="0",
        digest="d",
        permitted=frozenset(s for g in goals for s in g.witness),
    )


def _state(route="/", skus=(), status="none"):
    return {"route": route, "cart": {"skus": list(skus)}, "order": {"status": status}}


def _sim() -> RewardSimulator:
    sim = RewardSimulator(_task(), SPEC)
    sim.reset(_state())
    return sim


def test_step_penalty_and_subgoal_reward_once():
    sim = _sim()
    out = sim.step(ActionRecord(True, "nav:/shop"), _state("/shop"))
    assert out.reward == pytest.approx(SPEC.step_penalty + SPEC.subgoal_reward)
    assert out.newly == ("goto-shop",)
    # staying, leaving and coming back to a sticky subgoal pays nothing more
    assert sim.step(ActionRecord(True, "nav:/shop"), _state("/shop")).reward == SPEC.step_penalty
    assert sim.step(ActionRecord(True, "x"), _state("/")).reward == SPEC.step_penalty
    assert sim.step(ActionRecord(True, "nav:/shop"), _state("/shop")).newly == ()


def test_invalid_action_penalty():
    out = _sim().step(ActionRecord(False), _state())
    assert out.reward == pytest.approx(SPEC.step_penalty + SPEC.invalid_penalty)
    assert out.components == {"step": SPEC.step_penalty, "invalid": SPEC.invalid_penalty}


def test_undo_is_penalised_and_redo_pays_no_net_gain():
    sim = _sim()
    r_add = sim.step(ActionRecord(True, "add:A"), _state("/p", ["A"])).reward
    out = sim.step(ActionRecord(True, "remove:A"), _state("/p", []))
    assert out.undone == ("add",)
    assert out.reward == pytest.approx(SPEC.step_penalty + SPEC.undo_penalty)
    r_readd = sim.step(ActionRecord(True, "add:A"), _state("/p", ["A"])).reward
    assert r_add == r_readd
    # a full undo/redo cycle costs the step penalties and gains nothing
    assert out.reward + r_readd == pytest.approx(2 * SPEC.step_penalty)


def test_unpermitted_shortcut_earns_nothing_until_done_properly():
    sim = _sim()
    out = sim.step(ActionRecord(True, "admin:place-order"), _state("/admin", [], "placed"))
    assert out.newly == () and out.uncredited == ("order",)
    assert not out.success and out.reward == SPEC.step_penalty
    # even a permitted action later does not credit a predicate that was already true
    assert sim.step(ActionRecord(True, "add:A"), _state("/p", ["A"], "placed")).newly == ("add",)
    assert not sim.success


def test_success_needs_every_terminal_subgoal_credited():
    sim = _sim()
    sim.step(ActionRecord(True, "add:A"), _state("/p", ["A"]))
    out = sim.step(ActionRecord(True, "form"), _state("/order/1", [], "placed"))
    # cart emptied by the order: "add" is undone; the terminal subgoal succeeds
    assert out.success and out.terminated
    assert out.reward == pytest.approx(
        SPEC.step_penalty + SPEC.subgoal_reward + SPEC.undo_penalty + SPEC.success_reward
    )
    assert sim.total == pytest.approx(
        2 * SPEC.step_penalty + 2 * SPEC.subgoal_reward + SPEC.undo_penalty + SPEC.success_reward
    )


def test_done_ends_the_episode_without_success():
    out = _sim().step(ActionRecord(True, None, done=True), _state())
    assert out.terminated and not out.success and out.reward == SPEC.step_penalty


def test_reward_spec_validates():
    assert RewardSpec(step_penalty=-0.05).step_penalty == -0.05
    with pytest.raises(ValidationError):
        RewardSpec(step_penalty=0.5)
    with pytest.raises(ValidationError):
        RewardSpec(bonus=1.0)
