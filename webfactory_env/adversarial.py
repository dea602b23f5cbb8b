"""Reward-hacking checks: scripted adversaries that try to collect reward without doing tasks.

    from webfactory_env.adversarial import check_task_unhackable
    check_task_unhackable("shop", "buy_red_mug", seeds=range(5))

The adversaries run on `AppDriver`, a browser-free stand-in for the env: the same site app,
the same page events a browser would send, the same `RewardSimulator` — so rewards are
exactly the env's, thousands of times faster. Each adversary must never earn the success
reward and must score below the oracle on every task:

- `random_policy`: random affordances, verbs and task values;
- `repeat_click`: the same element clicked again and again;
- `submit_first`: every form submitted before anything is filled in;
- `undo_redo`: a subgoal reached, undone and reached again, in a loop;
- `shortcut_hunter`: every element *no task step lists* (back doors, distractors) used on
  every page it can reach;
- `wrong_order` and `cycle`: the plan's pages visited last first, or back and forth, to
  collect navigation rewards out of order;
- `done_immediately`: `done(true)` (with a guessed answer) at the first step;
- `give_up_immediately`: `done(false)` at the first step, which must not pass for the right
  ending of an infeasible task: the agent has to run into the obstacle first.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from webfactory_env.core.predicates import AGENT_STATE
from webfactory_env.core.seeding import SeedStream
from webfactory_env.reward import ActionRecord, RewardOutcome, RewardSimulator, RewardSpec
from webfactory_env.sitegen.registry import Site, generate_site
from webfactory_env.sitegen.spec import Affordance, AppEvent
from webfactory_env.tasks import CompiledTask, compile_for_site


class AppDriver:
    """The env without the browser: act on affordances, get the env's exact rewards."""

    def __init__(self, site: Site, task: CompiledTask, spec: RewardSpec | None = None) -> None:
        self.site = site
        self.task = task
        self.app = site.new_app()
        self.app.mount_payload()
        self.app.take_fired()
        self.agent = dict(AGENT_STATE)
        self.sim = RewardSimulator(task, spec)
        self.sim.reset(self.state())
        self.total = 0.0
        self.success = False
        self.steps = 0
        self.ended = False
        self.acted: list[tuple[str, str | None]] = []  # (element, value) of every act()

    def state(self) -> dict[str, Any]:
        return {**self.app.state_view(), "agent": dict(self.agent)}

    def affordances(self) -> list[Affordance]:
        """What a person could act on now (enabled, not covered by an open dialog)."""
        page = self.app.page().affordances
        if self.app.ui.modal:  # behind an open dialog only the dialog's controls work
            page = tuple(
                a
                for a in page
                if a.sid.startswith("modal:")
                or a.attr_map().get("form")
                or a.kind in ("Form", "Option")
            )
        return [a for a in page if not a.attr_map().get("disabled") and a.element != "group"]

    def _record(self, outcome: RewardOutcome) -> RewardOutcome:
        self.total += outcome.reward
        self.success = self.success or outcome.success
        self.steps += 1
        self.ended = outcome.terminated
        return outcome

    def act(self, aff: Affordance, verb: str, value: str | None = None) -> RewardOutcome:
        """One action on `aff`, with the event the runtime would send for it."""
        self.acted.append((aff.sid, value))
        if verb == "click":
            event = aff.click_event()
        elif verb == "fill":
            event = AppEvent(
                type="input", handler=aff.handler, arg=aff.arg, sid=aff.sid, value=value or ""
            )
        elif verb == "select":
            option = next((o for o in aff.options if value is not None and o.matches(value)), None)
            if option is None:
                return self.invalid()
            event = AppEvent(
                type="change", handler=aff.handler, arg=aff.arg, sid=aff.sid, value=option.value
            )
        else:  # submit: what the browser's FormData would hold
            values = self.app.page().form_values(aff.sid)
            event = AppEvent(
                type="submit", handler=aff.handler, arg=aff.arg, sid=aff.sid, values=values
            )
        self.app.dispatch(event)
        fired = self.app.take_fired()
        return self._record(
            self.sim.step(ActionRecord(valid=True, sid=aff.sid, transitions=fired), self.state())
        )

    def invalid(self) -> RewardOutcome:
        return self._record(self.sim.step(ActionRecord(valid=False), self.state()))

    def navigate(self, path: str) -> RewardOutcome:
        """Go to `path` as a person typing the address would."""
        self.app.dispatch(AppEvent(type="nav", path=path))
        fired = self.app.take_fired()
        return self._record(
            self.sim.step(ActionRecord(valid=True, transitions=fired), self.state())
        )

    def done(self, success: bool, text: str = "") -> RewardOutcome:
        self.agent = {"done": True, "claimed": success, "answer": text}
        return self._record(self.sim.step(ActionRecord(valid=True, done=True), self.state()))

    def do_anything(self, rng: SeedStream, values: Sequence[str]) -> RewardOutcome:
        """A uniformly random action on the page."""
        options = self.affordances()
        if not options:
            return self.invalid()
        aff = rng.choice(options)
        if aff.verb == "fill":
            return self.act(aff, "fill", rng.choice(list(values) or ["x"]))
        if aff.verb == "select" and aff.options:
            return self.act(aff, "select", rng.choice(aff.options).value)
        return self.act(aff, aff.verb)


# ------------------------------------------------------------------------ policies
Policy = Callable[[AppDriver, SeedStream, int], None]


def oracle_policy(d: AppDriver, rng: SeedStream, budget: int) -> None:
    """The compiled plan (reference score)."""
    for step in d.task.plan:
        if d.ended or d.steps >= budget:
            return
        if step.verb in ("done_success", "done_fail"):
            d.done(step.verb == "done_success", step.value or "")
            continue
        aff = _find(d, step.sid)
        if aff is None:
            return
        verb = {"type": "fill"}.get(step.verb, step.verb)
        if verb == "click" and aff.kind == "Form":
            verb = "submit"
        if verb == "select" and step.value is not None:
            option = next(o for o in aff.options if o.label == step.value)
            d.act(aff, "select", option.value)
        else:
            d.act(aff, verb, step.value)


def _find(d: AppDriver, sid: str) -> Affordance | None:
    for _ in range(20):  # infinite lists load as the oracle scrolls
        found = next((a for a in d.app.page().affordances if a.sid == sid), None)
        if found is not None:
            return found
        more = next((a for a in d.app.page().affordances if a.kind == "More"), None)
        if more is None:
            return None
        d.app.dispatch(more.click_event())
    return None


def random_policy(d: AppDriver, rng: SeedStream, budget: int) -> None:
    while not d.ended and d.steps < budget:
        d.do_anything(rng, d.task.values)


def repeat_click(d: AppDriver, rng: SeedStream, budget: int) -> None:
    """Pick one clickable element and click it until the budget runs out."""
    clickable = [a for a in d.affordances() if a.verb == "click"]
    if not clickable:
        return
    sid = rng.choice(clickable).sid
    while not d.ended and d.steps < budget:
        aff = next((a for a in d.affordances() if a.sid == sid), None)
        if aff is None:
            d.invalid()
        else:
            d.act(aff, "click")


def submit_first(d: AppDriver, rng: SeedStream, budget: int) -> None:
    """Visit pages and submit every form at once, unfilled."""
    while not d.ended and d.steps < budget:
        forms = [a for a in d.affordances() if a.verb == "submit"]
        if forms:
            d.act(rng.choice(forms), "submit")
        links = [a for a in d.affordances() if a.href]
        if not d.ended and d.steps < budget and links:
            d.act(rng.choice(links), "click")


def undo_redo(d: AppDriver, rng: SeedStream, budget: int) -> None:
    """Reach the first undoable subgoal through the plan, then undo and redo it forever.

    The target is never the plan's last step: reaching that one simply does the task."""
    last = d.task.plan[-1].subgoal if d.task.plan else None
    target = next((g for g in d.task.subgoals if not g.sticky and g.witness and g.id != last), None)
    if target is None:
        return random_policy(d, rng, budget)
    for step in d.task.plan:
        if d.ended or d.steps >= budget:
            return
        if step.subgoal == target.id:
            aff = _find(d, step.sid)
            if aff is None:
                return
            while not d.ended and d.steps < budget:
                _redo(d, step, aff)
                if d.ended:
                    return
                _undo(d, aff, rng)
                fresh = _find(d, step.sid)
                if fresh is None:
                    return
                aff = fresh
            return
        aff = _find(d, step.sid)
        if aff is None:
            return
        _redo(d, step, aff)


def _redo(d: AppDriver, step: Any, aff: Affordance) -> None:
    verb = {"type": "fill"}.get(step.verb, step.verb)
    if verb == "click" and aff.kind == "Form":
        verb = "submit"
    if verb == "select":
        option = next((o for o in aff.options if o.label == step.value), None)
        d.act(aff, "select", option.value if option else None)
    else:
        d.act(aff, verb, step.value)


def _undo(d: AppDriver, aff: Affordance, rng: SeedStream) -> None:
    """The inverse of using `aff`: another option, other text, or the matching remove."""
    if aff.verb == "select" and aff.options:
        d.act(aff, "select", aff.options[0].value)
    elif aff.verb == "fill":
        d.act(aff, "fill", "")
    else:
        inverse = [
            a
            for a in d.affordances()
            if str(a.attr_map().get("role", "")).startswith(("remove", "delete", "undo"))
        ]
        if inverse:
            d.act(rng.choice(inverse), "click")
        else:
            d.invalid()


def shortcut_hunter(d: AppDriver, rng: SeedStream, budget: int) -> None:
    """Use only elements no task step lists (back doors, distractors, everything else), on
    every page reachable that way, typing the task's values wherever it can."""
    listed = d.task.permitted
    while not d.ended and d.steps < budget:
        options = [a for a in d.affordances() if a.sid not in listed]
        if not options:
            d.invalid()
            continue
        aff = rng.choice(options)
        if aff.verb == "fill":
            d.act(aff, "fill", rng.choice(list(d.task.values) or ["x"]))
        elif aff.verb == "select" and aff.options:
            d.act(aff, "select", rng.choice(aff.options).value)
        else:
            d.act(aff, aff.verb)


def _plan_routes(d: AppDriver) -> list[str]:
    """The pages the plan visits, in order (from its navigation subgoals)."""
    routes = []
    for g in d.task.subgoals:
        data = g.predicate.to_json()
        if data.get("op") == "eq" and data.get("path") == "route":
            routes.append(str(data["value"]))
    return list(dict.fromkeys(routes))


def wrong_order(d: AppDriver, rng: SeedStream, budget: int) -> None:
    """Visit the plan's pages last first, again and again, to collect their rewards."""
    routes = _plan_routes(d)[::-1] or ["/"]
    while not d.ended and d.steps < budget:
        for route in routes:
            if d.ended or d.steps >= budget:
                return
            d.navigate(route)


def cycle(d: AppDriver, rng: SeedStream, budget: int) -> None:
    """Go back and forth between two pages of the plan (or the start page and one)."""
    routes = [*_plan_routes(d), "/"][:2]
    while not d.ended and d.steps < budget:
        d.navigate(routes[d.steps % len(routes)])


def done_immediately(d: AppDriver, rng: SeedStream, budget: int) -> None:
    guess = rng.choice(list(d.task.values) or ["yes"])
    d.done(True, guess)


def give_up_immediately(d: AppDriver, rng: SeedStream, budget: int) -> None:
    d.done(False, "this cannot be done here")


ADVERSARIES: dict[str, Policy] = {
    "random": random_policy,
    "repeat_click": repeat_click,
    "submit_first": submit_first,
    "undo_redo": undo_redo,
    "shortcut_hunter": shortcut_hunter,
    "wrong_order": wrong_order,
    "cycle": cycle,
    "done_immediately": done_immediately,
    "give_up_immediately": give_up_immediately,
}


TRIVIAL_PLAN = 2


def paging_steps(task: CompiledTask) -> int:
    """Plan steps that only turn a list's pages to find a row (`widgets.pager`): searching,
    not doing. A policy that reaches the row's page some other way saves them."""
    return sum(1 for step in task.plan if step.sid.startswith("pager:"))


def is_trivial(task: CompiledTask) -> bool:
    """At most `TRIVIAL_PLAN` steps that do something: wandering does it now and then."""
    return len(task.plan) - paging_steps(task) <= TRIVIAL_PLAN


def may_outscore_by(task: CompiledTask, spec: RewardSpec | None = None) -> float:
    """How much more than the oracle a wanderer may earn on a trivial task: the step
    penalties of the paging it skipped, and of the steps that only lead to a page another
    link of the site opens directly (`Subgoal.leads_to`: that route earns their credit
    too); 0 on other tasks."""
    if not is_trivial(task):
        return 0.0
    leading = {g.id for g in task.subgoals if g.leads_to}
    skippable = paging_steps(task) + sum(1 for step in task.plan if step.subgoal in leading)
    return abs((spec or RewardSpec()).step_penalty) * skippable


@dataclass(frozen=True)
class Score:
    policy: str
    total: float
    success: bool
    steps: int


def play(
    family: str, task: str, seed: int, policy: str, budget: int = 60, difficulty: str = "easy"
) -> Score:
    """One episode of `policy` (an adversary or "oracle") on a task, without a browser."""
    site = generate_site(family, seed, difficulty)
    compiled = compile_for_site(task, site)
    driver = AppDriver(site, compiled)
    fn = oracle_policy if policy == "oracle" else ADVERSARIES[policy]
    fn(driver, SeedStream(seed).child("adversary").child(policy), budget)
    return Score(policy, driver.total, driver.success, driver.steps)


def check_task_unhackable(
    family: str, task: str, seeds: Sequence[int] = (0, 1, 2), budget: int = 60
) -> list[Score]:
    """Every adversary fails the task and scores below the oracle, on every seed.

    One exception: on a task of at most `TRIVIAL_PLAN` steps (e.g. "open the cart") any
    policy that wanders through links does the task now and then; that success is earned,
    not a hack, so there only the two `done` adversaries must fail and nobody may beat the
    oracle by more than the paging it skipped (`may_outscore_by`)."""
    scores = []
    for seed in seeds:
        site = generate_site(family, seed)
        compiled = compile_for_site(task, site)
        trivial, slack = is_trivial(compiled), may_outscore_by(compiled)
        oracle = play(family, task, seed, "oracle", budget)
        assert oracle.success, f"{family}/{task} seed {seed}: the oracle itself fails"
        for name in ADVERSARIES:
            s = play(family, task, seed, name, budget)
            scores.append(s)
            if not trivial or name in ("done_immediately", "give_up_immediately"):
                assert not s.success, (
                    f"{family}/{task} seed {seed}: {name} earned the success reward"
                )
            assert s.total < oracle.total or (trivial and s.total <= oracle.total + slack), (
                f"{family}/{task} seed {seed}: {name} scored {s.total:.2f}, "
                f"the oracle {oracle.total:.2f}"
            )
    return scores
