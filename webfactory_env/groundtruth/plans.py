"""Running a compiled plan without a browser: the oracle's own run, and a plan run with steps
dropped or done differently (mutants), re-targeted to what the page offers."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from webfactory_env.adversarial import AppDriver
from webfactory_env.core.predicates import lookup
from webfactory_env.reward import RewardOutcome
from webfactory_env.sitegen.registry import Site
from webfactory_env.sitegen.spec import Affordance
from webfactory_env.tasks import CompiledTask, PlanStep
from webfactory_env.tasks.compile import answer_text


@dataclass(frozen=True)
class Recorded:
    """A plan step as the oracle executed it: the affordance it used."""

    step: PlanStep
    affordance: Affordance | None


def verb_of(step: PlanStep, aff: Affordance) -> str:
    verb = {"type": "fill"}.get(step.verb, step.verb)
    return "submit" if verb == "click" and aff.kind == "Form" else verb


def act(d: AppDriver, step: PlanStep, aff: Affordance) -> RewardOutcome:
    verb = verb_of(step, aff)
    if verb == "select":
        option = next(
            (o for o in aff.options if step.value is not None and step.value in (o.label, o.value)),
            None,
        )
        return d.act(aff, "select", option.value if option else None)
    return d.act(aff, verb, step.value)


def retry(d: AppDriver) -> None:
    """Click the Retry banner of an injected server error, as a person would (on another
    path than the compiled one, errors strike at other steps)."""
    for _ in range(3):
        retry = next((a for a in d.affordances() if a.sid == "retry"), None)
        if retry is None or d.ended:
            return
        d.act(retry, "click")


def find(d: AppDriver, sid: str) -> Affordance | None:
    """The element `sid` on this page, looking further down an infinite list or on the
    list's other pages as a person would."""
    for _ in range(20):  # infinite lists load as an agent scrolls
        page = d.app.page().affordances
        found = next((a for a in page if a.sid == sid), None)
        if found is not None:
            return found
        more = next((a for a in page if a.kind == "More"), None)
        if more is None:
            break
        d.app.dispatch(more.click_event())
        d.app.take_fired()
    pages = [
        a
        for a in d.app.page().affordances
        if a.attr_map().get("role") == "page" and a.attr_map().get("step") == "number"
    ]
    for pager in pages:
        here = next((a for a in d.app.page().affordances if a.sid == pager.sid), None)
        if here is None or here.attr_map().get("disabled"):
            continue
        d.act(here, "click")
        found = next((a for a in d.app.page().affordances if a.sid == sid), None)
        if found is not None:
            return found
    return None


def signature(a: Affordance) -> tuple[Any, ...]:
    attrs = a.attr_map()
    return (a.kind, a.verb, a.handler, attrs.get("role"), attrs.get("type"), attrs.get("name"))


def equivalent(d: AppDriver, original: Affordance) -> Affordance | None:
    """What an agent following the same recipe on another path would use instead: the
    page's first element of the same kind, verb, transition and role."""
    want = signature(original)
    return next((a for a in d.affordances() if signature(a) == want), None)


def typing_instead(value: str) -> Callable[[AppDriver, Affordance], bool]:
    """A mutant's step: type `value` into the field the oracle typed into (or its
    equivalent on this path); False when there is no such field."""

    def type_it(d: AppDriver, original: Affordance) -> bool:
        here = find(d, original.sid) or equivalent(d, original)
        if here is None:
            return False
        d.act(here, "fill", value)
        return True

    return type_it


def run_oracle(site: Site, task: CompiledTask) -> tuple[AppDriver, list[Recorded], list[str]]:
    """Run the plan; the affordance of every step, and what went wrong (a) on the way."""
    d = AppDriver(site, task)
    recorded: list[Recorded] = []
    problems: list[str] = []
    for i, step in enumerate(task.plan):
        if d.ended:
            problems.append(f"the episode ended at plan step {i} of {len(task.plan)}")
            break
        if step.verb in ("done_success", "done_fail"):
            recorded.append(Recorded(step, None))
            outcome = d.done(step.verb == "done_success", step.value or "")
        else:
            aff = find(d, step.sid)
            if aff is None:
                problems.append(f"plan step {i + 1} ({step.verb} {step.sid}) is not on the page")
                break
            recorded.append(Recorded(step, aff))
            outcome = act(d, step, aff)
        last = i == len(task.plan) - 1
        if outcome.success and not last:
            problems.append(f"success before the plan ends: at step {i + 1} of {len(task.plan)}")
        if outcome.undone:
            problems.append(f"the oracle undid {list(outcome.undone)} at step {i + 1}")
        if outcome.uncredited:
            problems.append(
                f"the oracle's step {i + 1} was not credited: {list(outcome.uncredited)}"
            )
    if not d.success:
        problems.append("the oracle does not succeed")
    unpaid = [g.id for g in task.subgoals if g.id not in d.sim.paid]
    if d.success and unpaid:
        problems.append(f"subgoals never paid to the oracle: {unpaid}")
    return d, recorded, problems


def run_mutant(
    site: Site,
    task: CompiledTask,
    recorded: Sequence[Recorded],
    *,
    drop: set[int] = frozenset(),  # type: ignore[assignment]
    swap: tuple[int, Callable[[AppDriver, Affordance], bool]] | None = None,
) -> tuple[AppDriver, bool, bool]:
    """Run the plan with some steps dropped or one step done differently, re-targeting
    later steps to what the page offers; (driver, stopped early, re-targeted: some later
    step used another element than the oracle's)."""
    d = AppDriver(site, task)
    retargeted = False
    for i, rec in enumerate(recorded):
        if d.ended:
            break
        if i in drop:
            continue
        step = rec.step
        if rec.affordance is None:
            d.done(step.verb == "done_success", answer_now(d, task) if step.value else "")
            continue
        if swap is not None and swap[0] == i:
            if not swap[1](d, rec.affordance):
                return d, True, retargeted
            continue
        aff = find(d, step.sid)
        if aff is None:
            aff = equivalent(d, rec.affordance)
            retargeted = True
        if aff is None:
            if step.sid == "retry":
                continue  # no server error on this path
            return d, True, retargeted
        act(d, step, aff)
        retry(d)
    return d, False, retargeted


def replay(d: AppDriver, recorded: Sequence[Recorded], upto: int | None = None) -> bool:
    """Follow the recorded plan (re-targeting to equivalents); False if it cannot go on."""
    for rec in recorded[:upto]:
        if d.ended:
            return True
        if rec.affordance is None:
            d.done(rec.step.verb == "done_success", rec.step.value or "")
            continue
        aff = find(d, rec.step.sid) or equivalent(d, rec.affordance)
        if aff is None:
            if rec.step.sid == "retry":
                continue  # no server error on this path
            return False
        act(d, rec.step, aff)
        retry(d)
    return True


def answer_now(d: AppDriver, task: CompiledTask) -> str:
    """The answer a mutant reads where the oracle read it: the same state path, or the
    same element (or its equivalent) on the page it reached."""
    return answer_in(d.app, task)


def answer_in(app: Any, task: CompiledTask) -> str:
    """`answer_now` for a site app (an `AppDriver`'s, or an env's)."""
    binding = task.bindings.get("answer", {})
    if "path" in binding:
        value = lookup(app.state_view(), tuple(str(binding["path"]).split(".")))
        return _text(value)
    sid, attr = binding.get("sid"), binding.get("attr")
    page = app.page().affordances
    aff = next((a for a in page if a.sid == sid), None)
    if aff is None:
        return ""
    return _text(aff.attr_map().get(str(attr)))


def _text(value: Any) -> str:
    return "" if value is None or isinstance(value, (dict, list)) else answer_text(value)
