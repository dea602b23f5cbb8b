"""The reward is exactly what the compiled goal and subgoals say, and cheap tricks earn nothing."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from webfactory_env.core.dom import DomSnapshot
from webfactory_env.core.predicates import All, Contains, Eq, Exists
from webfactory_env.episode import Ending, classify_ending
from webfactory_env.reward import ActionRecord, RewardSimulator, RewardSpec
from webfactory_env.sitegen.persistence import Kept
from webfactory_env.tasks import CompiledTask, Subgoal
from webfactory_env.tasks.frame import Frame
from webfactory_env.tasks.goal import Conjunct

SPEC = RewardSpec()
ORDER = Exists(("orders",), All((Eq(("status",), "placed"), Eq(("items",), {"A": 1}))))


def _task(frame: Frame | None = None) -> CompiledTask:
    goals = (
        Subgoal("goto-shop", 1, "", Eq("route", "/shop"), ("nav:/shop",), True),
        Subgoal("add", 2, "", Contains("cart.items", "A"), ("add:A",), False, ("goto-shop",)),
        Subgoal("goto-cart", 3, "", Eq("route", "/cart"), ("nav:/cart",), True, ("add",)),
        Subgoal("order", 4, "", ORDER, ("form",), False, ("add",)),
    )
    return CompiledTask(
        name="t",
        family="shop",
        site_digest="s",
        source="",
        filename="t.task",
        goal_text=None,
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
        goal=(Conjunct("effect-1", ORDER, "a new order of one A", "effect"),),
        transitions=frozenset({"add_to_cart", "place_order", "remove_from_cart"}),
        tracked=(("orders", "table"), ("cart", "object"), ("newsletter", "value")),
        frame=frame or Frame(),
    )


def _state(route="/", items=None, orders=None, newsletter=()):
    return {
        "route": route,
        "cart": {"items": dict(items or {})},
        "orders": dict(orders or {}),
        "newsletter": sorted(newsletter),
    }


# What persists on this shop: orders and newsletter sign-ups; the task makes one order.
FRAME = Frame(
    kept=(Kept("orders", "table", ("status", "items")), Kept("newsletter", "value")),
    creates={"orders": 1},
    back_doors=("staff_force_order",),
)


def _sim(frame: Frame | None = None) -> RewardSimulator:
    sim = RewardSimulator(_task(frame), SPEC)
    sim.reset(_state())
    return sim


def _act(*transitions: str) -> ActionRecord:
    return ActionRecord(True, "x", transitions=transitions)


PLACED = {"ORD-1": {"status": "placed", "items": {"A": 1}}}


def test_step_penalty_and_subgoal_reward_once():
    sim = _sim()
    out = sim.step(_act("nav"), _state("/shop"))
    assert out.reward == pytest.approx(SPEC.step_penalty + SPEC.subgoal_reward)
    assert out.newly == ("goto-shop",)
    # staying, leaving and coming back to a sticky subgoal pays nothing more
    assert sim.step(_act("nav"), _state("/shop")).reward == SPEC.step_penalty
    assert sim.step(_act("nav"), _state("/")).reward == SPEC.step_penalty
    assert sim.step(_act("nav"), _state("/shop")).newly == ()


def test_invalid_action_penalty():
    out = _sim().step(ActionRecord(False), _state())
    assert out.reward == pytest.approx(SPEC.step_penalty + SPEC.invalid_penalty)
    assert out.components == {"step": SPEC.step_penalty, "invalid": SPEC.invalid_penalty}


def test_a_repeat_without_effect_costs_what_an_invalid_action_does():
    sim = _sim()
    out = sim.step(ActionRecord(True, "nav:/shop", repeat=True), _state())
    assert out.components == {"step": SPEC.step_penalty, "repeat": SPEC.invalid_penalty}
    invalid = _sim().step(ActionRecord(False), _state())
    assert out.reward == pytest.approx(invalid.reward)
    # A repeat never stands in the way of the progress it makes.
    assert sim.step(ActionRecord(True, "nav:/shop"), _state("/shop")).newly == ("goto-shop",)


def test_subgoals_pay_only_after_their_prerequisites():
    sim = _sim()
    # the cart page before anything is in the cart: its subgoal waits for "add"
    assert sim.step(_act("nav"), _state("/cart")).newly == ()
    sim.step(_act("nav"), _state("/shop"))
    assert sim.step(_act("add_to_cart"), _state("/shop", {"A": 1})).newly == ("add",)
    assert sim.step(_act("nav"), _state("/cart", {"A": 1})).newly == ("goto-cart",)


def test_undo_is_penalised_and_redo_pays_nothing():
    sim = _sim()
    sim.step(_act("nav"), _state("/shop"))
    sim.step(_act("add_to_cart"), _state("/shop", {"A": 1}))
    out = sim.step(_act("remove_from_cart"), _state("/shop"))
    assert out.undone == ("add",)
    assert out.reward == pytest.approx(SPEC.step_penalty + SPEC.undo_penalty)
    again = sim.step(_act("add_to_cart"), _state("/shop", {"A": 1}))
    assert again.newly == () and again.reward == SPEC.step_penalty, "a subgoal pays once"


def test_a_step_that_consumes_earlier_progress_is_no_undo():
    sim = _sim()
    sim.step(_act("nav"), _state("/shop"))
    sim.step(_act("add_to_cart"), _state("/shop", {"A": 1}))
    out = sim.step(_act("place_order"), _state("/order/ORD-1", {}, PLACED))
    # the checkout empties the cart it orders: progress, not an undo
    assert out.undone == () and out.newly == ("order",)
    assert out.success and out.terminated
    assert sim.total == pytest.approx(
        3 * SPEC.step_penalty + 3 * SPEC.subgoal_reward + SPEC.success_reward
    )


def test_what_a_refusing_server_undoes_costs_the_agent_nothing():
    """A change the site refuses with a server error (the `errors` axis) can undo credited
    progress (the dialog the change came from closes, so its Retry shows): not the
    agent's undo. The credit lapses all the same, and while the error stays on the page
    the agent's own undo is still charged."""

    def refused(state):
        return {**state, "server": {"error": True}}

    sim = _sim()
    sim.step(_act("nav"), _state("/shop"))
    sim.step(_act("add_to_cart"), _state("/shop", {"A": 1}))
    out = sim.step(_act("place_order"), refused(_state("/shop")))
    assert out.undone == () and out.reward == SPEC.step_penalty
    assert "add" not in sim.credited
    sim.step(_act("add_to_cart"), refused(_state("/shop", {"A": 1})))
    out = sim.step(_act("remove_from_cart"), refused(_state("/shop")))
    assert out.undone == ("add",)
    assert out.reward == pytest.approx(SPEC.step_penalty + SPEC.undo_penalty)


def test_a_back_door_taints_what_it_changed_and_a_later_correct_path_succeeds():
    sim = _sim()
    sim.step(_act("nav"), _state("/shop"))
    sim.step(_act("add_to_cart"), _state("/shop", {"A": 1}))
    out = sim.step(_act("staff_force_order"), _state("/staff", {}, PLACED))
    assert not out.success and out.newly == () and out.uncredited == ("order",)
    assert set(out.tainted) == {"orders.ORD-1", "cart.items"}  # it emptied the cart too
    sim.step(_act("add_to_cart"), _state("/shop", {"A": 1}, PLACED))
    both = {**PLACED, "ORD-2": {"status": "placed", "items": {"A": 1}}}
    out = sim.step(_act("place_order"), _state("/order/ORD-2", {}, both))
    assert out.success, "the correct checkout counts, whatever the back door did"


def test_done_ends_the_episode_without_success():
    out = _sim().step(ActionRecord(True, None, done=True), _state())
    assert out.terminated and not out.success and out.reward == SPEC.step_penalty


def test_reward_spec_validates():
    assert RewardSpec(step_penalty=-0.05).step_penalty == -0.05
    with pytest.raises(ValidationError):
        RewardSpec(step_penalty=0.5)
    with pytest.raises(ValidationError):
        RewardSpec(bonus=1.0)


# ------------------------------------------------------------------- the frame
def test_a_second_order_breaks_the_frame_and_the_goal_alone_is_no_success():
    sim = _sim(FRAME)
    junk = {"ORD-0": {"status": "placed", "items": {"B": 1}}}
    sim.step(_act("place_order"), _state("/order/ORD-0", {}, junk))
    both = {**junk, **PLACED}
    out = sim.step(_act("place_order"), _state("/order/ORD-1", {}, both))
    assert not out.success and not out.terminated
    assert sim.frame_breaches(_state(orders=both)) == [
        "2 new orders (ORD-0, ORD-1) where the task makes 1"
    ]
    assert sim.goal_status(_state(orders=both)) == {"effect-1": True, "frame": False}
    assert _sim(FRAME).step(_act("place_order"), _state("/", {}, PLACED)).success


def test_a_stray_setting_breaks_the_frame_whatever_transition_made_it():
    sim = _sim(FRAME)
    sim.step(_act("join_newsletter"), _state("/", newsletter=["me@example.org"]))
    out = sim.step(_act("place_order"), _state("/", {}, PLACED, ["me@example.org"]))
    assert not out.success
    assert sim.frame_breaches(_state("/", {}, PLACED, ["me@example.org"])) == [
        "newsletter: me@example.org added"
    ]


def test_after_a_back_door_the_correct_path_still_passes_the_frame():
    sim = _sim(FRAME)
    sim.step(_act("add_to_cart"), _state("/shop", {"A": 1}))
    sim.step(_act("staff_force_order"), _state("/staff", {}, PLACED))
    both = {**PLACED, "ORD-2": {"status": "placed", "items": {"A": 1}}}
    out = sim.step(_act("place_order"), _state("/order/ORD-2", {}, both))
    assert out.success and sim.frame_breaches(_state(orders=both)) == []


def test_an_ending_with_the_goal_but_not_the_frame_says_what_else_changed():
    dom = DomSnapshot((), (), (), (), (), (), (), (), (), {}, 0, 0, (800, 600), "/", "", False)
    ending = Ending(
        success=False,
        truncated=False,
        crash=None,
        agent={"done": True, "claimed": True, "answer": ""},
        max_steps=30,
        reached=4,
        subgoals=4,
        route="/order/ORD-1",
        frame=("orders[ORD-0] created",),
    )
    _, info = classify_ending(ending, None, dom, [])
    assert info["reason"].startswith(
        "the agent claimed success, but the task was not done; the task's goal was done, but "
        "the site's data changed beyond it: orders[ORD-0] created; 4 of 4 subgoals reached"
    )
    assert info["frame"] == ["orders[ORD-0] created"]
