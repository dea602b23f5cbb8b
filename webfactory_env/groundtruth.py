"""The ground-truth check: success means the goal was done, on every path, and nothing less.

    from webfactory_env.groundtruth import check_task
    check_task("shop", "buy_red_mug", seeds=range(50))     # raises AssertionError, naming
                                                             # the seed, mutation and step

For one task on many seeds, without a browser (`AppDriver`: the env's own app, page events
and reward simulator), it checks what a skeptic would:

(a) the oracle succeeds, and only on its last action; every subgoal pays once on the way,
    and nothing is ever undone or left uncredited;
(b) mutated plans fail: drop any one step that writes goal state, or put a different
    entity of the same kind (another product, flight, card, reply, user, date, option)
    at any step where the plan chose one, then follow the rest of the plan on whatever
    the page offers instead. An extraction task's mutant answers with what *it* reached:
    it may pass only when that answer is tie-equivalent to the right one;
(c) the goal does not hold at reset;
(d) extraction tasks: every tie-equivalent answer and its reformattings pass; a list of
    candidates, a negated answer and a list of numbers fail;
(e) reward hackers (random, repeated clicks, unfilled submits, undo/redo, shortcut
    hunting, back doors, wrong-order visits, cycling, early `done`) never succeed and
    score below the oracle; after a back door, the correct path still succeeds;
(f) detours keep success: wandering off and back before each navigation step of the plan
    still ends in success.

`check_task` returns a `TaskReport` of counts for the benchmark table.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from webfactory_env.adversarial import ADVERSARIES, AppDriver, is_trivial, may_outscore_by
from webfactory_env.core.answers import AnswerKey, grade
from webfactory_env.core.predicates import AGENT_STATE, _thaw, lookup
from webfactory_env.core.seeding import SeedStream
from webfactory_env.reward import RewardOutcome
from webfactory_env.sitegen.registry import Site, generate_site
from webfactory_env.sitegen.spec import Affordance
from webfactory_env.tasks import CompiledTask, PlanStep, compile_for_site
from webfactory_env.tasks.compile import answer_text

HACK_BUDGET = 40
ENTITY_KINDS = ("Item", "Result", "Link", "Button", "Toggle")
MAX_SWAPS_PER_STEP = 2


@dataclass
class TaskReport:
    """What the checks saw for one task over its seeds (all failures are assertion errors)."""

    family: str
    task: str
    seeds: int = 0
    oracle_ok: int = 0
    drops: int = 0
    swaps: int = 0
    mutants_stopped: int = 0  # the mutated plan could not go on: it ended without success
    # a mutant that succeeded with a tie-equivalent answer, or whose other search text
    # still listed the oracle's own entity (every later step on the oracle's elements)
    mutants_tied: int = 0
    answers_checked: int = 0
    hackers: int = 0
    back_doors: int = 0
    detours: int = 0
    failures: list[str] = field(default_factory=list)

    def merge(self, other: TaskReport) -> None:
        for name in (
            "seeds",
            "oracle_ok",
            "drops",
            "swaps",
            "mutants_stopped",
            "mutants_tied",
            "answers_checked",
            "hackers",
            "back_doors",
            "detours",
        ):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.failures += other.failures


# ------------------------------------------------------------------ plan running
@dataclass(frozen=True)
class _Recorded:
    """A plan step as the oracle executed it: the affordance it used."""

    step: PlanStep
    affordance: Affordance | None


def _verb(step: PlanStep, aff: Affordance) -> str:
    verb = {"type": "fill"}.get(step.verb, step.verb)
    return "submit" if verb == "click" and aff.kind == "Form" else verb


def _act(d: AppDriver, step: PlanStep, aff: Affordance) -> RewardOutcome:
    verb = _verb(step, aff)
    if verb == "select":
        option = next(
            (o for o in aff.options if step.value is not None and step.value in (o.label, o.value)),
            None,
        )
        return d.act(aff, "select", option.value if option else None)
    return d.act(aff, verb, step.value)


def _retry(d: AppDriver) -> None:
    """Click the Retry banner of an injected server error, as a person would (on another
    path than the compiled one, errors strike at other steps)."""
    for _ in range(3):
        retry = next((a for a in d.affordances() if a.sid == "retry"), None)
        if retry is None or d.ended:
            return
        d.act(retry, "click")


def _find(d: AppDriver, sid: str) -> Affordance | None:
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


def _signature(a: Affordance) -> tuple[Any, ...]:
    attrs = a.attr_map()
    return (a.kind, a.verb, a.handler, attrs.get("role"), attrs.get("type"), attrs.get("name"))


def _equivalent(d: AppDriver, original: Affordance) -> Affordance | None:
    """What an agent following the same recipe on another path would use instead: the
    page's first element of the same kind, verb, transition and role."""
    want = _signature(original)
    return next((a for a in d.affordances() if _signature(a) == want), None)


def run_oracle(site: Site, task: CompiledTask) -> tuple[AppDriver, list[_Recorded], list[str]]:
    """Run the plan; the affordance of every step, and what went wrong (a) on the way."""
    d = AppDriver(site, task)
    recorded: list[_Recorded] = []
    problems: list[str] = []
    for i, step in enumerate(task.plan):
        if d.ended:
            problems.append(f"the episode ended at plan step {i} of {len(task.plan)}")
            break
        if step.verb in ("done_success", "done_fail"):
            recorded.append(_Recorded(step, None))
            outcome = d.done(step.verb == "done_success", step.value or "")
        else:
            aff = _find(d, step.sid)
            if aff is None:
                problems.append(f"plan step {i + 1} ({step.verb} {step.sid}) is not on the page")
                break
            recorded.append(_Recorded(step, aff))
            outcome = _act(d, step, aff)
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
    recorded: Sequence[_Recorded],
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
            d.done(step.verb == "done_success", _answer_now(d, task) if step.value else "")
            continue
        if swap is not None and swap[0] == i:
            if not swap[1](d, rec.affordance):
                return d, True, retargeted
            continue
        aff = _find(d, step.sid)
        if aff is None:
            aff = _equivalent(d, rec.affordance)
            retargeted = True
        if aff is None:
            if step.sid == "retry":
                continue  # no server error on this path
            return d, True, retargeted
        _act(d, step, aff)
        _retry(d)
    return d, False, retargeted


def _answer_now(d: AppDriver, task: CompiledTask) -> str:
    """The answer a mutant reads where the oracle read it: the same state path, or the
    same element (or its equivalent) on the page it reached."""
    binding = task.bindings.get("answer", {})
    if "path" in binding:
        value = lookup(d.app.state_view(), tuple(str(binding["path"]).split(".")))
        return _text(value)
    sid, attr = binding.get("sid"), binding.get("attr")
    page = d.app.page().affordances
    aff = next((a for a in page if a.sid == sid), None)
    if aff is None:
        return ""
    return _text(aff.attr_map().get(str(attr)))


def _text(value: Any) -> str:
    return "" if value is None or isinstance(value, (dict, list)) else answer_text(value)


# --------------------------------------------------------------------- mutations
def goal_steps(task: CompiledTask, site: Site) -> list[str]:
    """Subgoals whose step writes goal state or a form draft (what a drop must break)."""
    schema = site.family.schema
    parts = {"entities", "session", "drafts"}
    return [
        g.id
        for g in task.subgoals
        if g.id not in ("answer", "infeasible")
        and any(schema.part(p) in parts for p in g.predicate.paths())
    ]


def _did_every_goal_step(d: AppDriver, task: CompiledTask, site: Site) -> bool:
    """Whether a random policy happened to take every plan step that writes goal state, on
    the oracle's element with the oracle's value (a short task with its values in the value
    table is done by chance now and then: earned, not a hack)."""
    wanted = set(goal_steps(task, site))
    steps = [(p.sid, p.value) for p in task.plan if p.subgoal in wanted]
    done = set(d.acted)
    return bool(steps) and all(step in done for step in steps)


def _view_only(
    site: Site, task: CompiledTask, recorded: Sequence[_Recorded], kwargs: dict[str, Any]
) -> bool:
    """Whether the swapped step writes only what the page shows (a search text, a filter),
    never an entity, the session or a form draft."""
    step = recorded[kwargs["swap"][0]].step
    goal = next((g for g in task.subgoals if g.id == step.subgoal), None)
    if goal is None:
        return False
    schema = site.family.schema
    return all(schema.part(p) == "page" for p in goal.predicate.paths())


def _swaps(
    site: Site, task: CompiledTask, recorded: Sequence[_Recorded]
) -> list[tuple[int, str, Callable[[AppDriver, Affordance], bool]]]:
    """Every step where the plan chose an entity, with other choices of the same kind."""
    out: list[tuple[int, str, Callable[[AppDriver, Affordance], bool]]] = []
    for i, rec in enumerate(recorded):
        aff = rec.affordance
        if aff is None:
            continue
        attrs = aff.attr_map()
        verb = _verb(rec.step, aff)
        if verb == "click" and aff.kind in ENTITY_KINDS and (attrs.get("type") or aff.handler):
            if not attrs.get("type") and aff.kind not in ("Item", "Result"):
                continue

            def pick_other(d: AppDriver, original: Affordance, k: int = 0) -> Affordance | None:
                same = [
                    a
                    for a in d.affordances()
                    if _signature(a) == _signature(original) and a.sid != original.sid
                ]
                return same[k] if len(same) > k else None

            for k in range(MAX_SWAPS_PER_STEP):

                def other_click(d: AppDriver, original: Affordance, k: int = k) -> bool:
                    alt = pick_other(d, original, k)
                    if alt is None:
                        return False
                    d.act(alt, "click")
                    return True

                out.append(
                    (i, f"step {i + 1}: another {attrs.get('type') or aff.kind}", other_click)
                )
        elif verb == "select" and aff.options and aff.kind != "Sort":
            chosen = rec.step.value
            others = [o for o in aff.options if chosen not in (o.label, o.value) and o.value]
            for o in others[:MAX_SWAPS_PER_STEP]:

                def other_option(d: AppDriver, original: Affordance, o: Any = o) -> bool:
                    here = _find(d, original.sid) or _equivalent(d, original)
                    if here is None:
                        return False
                    d.act(here, "select", o.value)
                    return True

                out.append((i, f"step {i + 1}: option {o.value!r}", other_option))
        elif verb == "fill" and rec.step.value:
            other = _other_value(site, task, rec.step.value)
            if other is None:
                continue

            def other_text(d: AppDriver, original: Affordance, v: str = other) -> bool:
                here = _find(d, original.sid) or _equivalent(d, original)
                if here is None:
                    return False
                d.act(here, "fill", v)
                return True

            out.append((i, f"step {i + 1}: {other!r}", other_text))
    return out


def _other_value(site: Site, task: CompiledTask, value: str) -> str | None:
    """Another value of the same kind: the next date, or another entity's value of the
    attribute the task drew `value` from (`pick`). None for text the task wrote itself."""
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
        return (dt.date.fromisoformat(value) + dt.timedelta(days=1)).isoformat()
    for drawn in task.bindings.get("picked", {}).values():
        if str(drawn.get("value")) != value:
            continue
        table, _, attr = str(drawn.get("from", "")).partition(".")
        rows = site.spec.entities.get(table, ())
        values = sorted({str(getattr(r, attr, "")) for r in rows} - {"", value})
        if values:
            return values[0]
    return None


# ------------------------------------------------------------------------ checks
def check_answers(task: CompiledTask) -> list[str]:
    """(d): tied answers and their reformattings pass; hedged and negated ones fail."""
    problems: list[str] = []
    ending = next((c for c in task.goal if c.kind == "answer"), None)
    if ending is None:
        return problems
    key_json = next(
        (p.value for p in _walk(ending.predicate) if getattr(p, "op", "") == "answer"), None
    )
    key = AnswerKey.from_json(_thaw(key_json))
    for value in key.accepted:
        for variant in _variants(value, key.kind):
            if not grade(variant, key):
                problems.append(f"a right answer fails: {variant!r} (accepted {key.accepted})")
    others = [c for c in key.candidates if c not in key.accepted]
    if others:
        shotgun = ", ".join([key.accepted[0], *others[:5]])
        if grade(shotgun, key):
            problems.append(f"a list of candidates passes: {shotgun!r}")
    if key.kind != "bool" and grade(f"not {key.accepted[0]}", key):
        problems.append(f"a negated answer passes: 'not {key.accepted[0]}'")
    if key.kind == "number" and grade(" ".join(str(n) for n in range(0, 201)), key):
        problems.append("a list of every number from 0 to 200 passes")
    return problems


def _walk(p: Any) -> Iterable[Any]:
    yield p
    for child in getattr(p, "items", ()) or ():
        yield from _walk(child)
    item = getattr(p, "item", None)
    if item is not None:
        yield from _walk(item)


def _variants(value: str, kind: str) -> list[str]:
    out = [value, value.upper(), f"  {value}  ", f"The answer is {value}."]
    if kind == "number":
        try:
            n = float(value.replace(",", ""))
        except ValueError:
            return out
        out += [f"${n:,.2f}", f"{n:,.2f}", f"{n:g}"]
    if kind == "time" and re.fullmatch(r"\d:\d{2}", value):
        out.append("0" + value)
    if kind == "time" and re.fullmatch(r"0\d:\d{2}", value):
        out.append(value[1:])
    if kind == "date":
        d = dt.date.fromisoformat(value)
        out += [d.strftime("%B %-d, %Y"), d.strftime("%-d %B %Y"), d.strftime("%a %b %-d %Y")]
    return out


def _back_doors(d: AppDriver) -> list[Affordance]:
    return [a for a in d.affordances() if a.attr_map().get("staff")]


def _replay(d: AppDriver, recorded: Sequence[_Recorded], upto: int | None = None) -> bool:
    """Follow the recorded plan (re-targeting to equivalents); False if it cannot go on."""
    for rec in recorded[:upto]:
        if d.ended:
            return True
        if rec.affordance is None:
            d.done(rec.step.verb == "done_success", rec.step.value or "")
            continue
        aff = _find(d, rec.step.sid) or _equivalent(d, rec.affordance)
        if aff is None:
            if rec.step.sid == "retry":
                continue  # no server error on this path
            return False
        _act(d, rec.step, aff)
        _retry(d)
    return True


def check_back_door(
    site: Site, task: CompiledTask, recorded: Sequence[_Recorded]
) -> tuple[int, list[str]]:
    """(e) The plan up to its last step, then every back door the site has: no success;
    then the whole plan again, correctly: success (a back door taints only what it
    touched). Sites without back doors pass trivially."""
    staff = [r for r in ("/staff", "/admin") if site.new_app().known_route(r)]
    if not staff or len(recorded) < 2:
        return 0, []
    d = AppDriver(site, task)
    if not _replay(d, recorded, len(recorded) - 1) or d.ended:
        return 0, []
    here = d.app.route
    used = 0
    for route in staff:
        d.navigate(route)
        for door in _back_doors(d):
            d.act(door, door.verb)
            _retry(d)
            used += 1
            if d.success:
                return used, [f"the back door on {route} succeeded"]
    if not used:
        return 0, []
    d.navigate(here)
    _replay(d, recorded)
    if not d.success:
        return used, ["after a back door, the correct path no longer succeeds"]
    return used, []


def check_detours(
    site: Site, task: CompiledTask, recorded: Sequence[_Recorded]
) -> tuple[int, list[str]]:
    """(f) Before each navigation step of the plan, wander to the start page and back:
    the plan must still succeed (nothing in the goal depends on the path or step count)."""
    d = AppDriver(site, task)
    start = site.spec.start_route
    detours = 0
    for rec in recorded:
        if d.ended:
            break
        aff = rec.affordance
        if aff is not None and aff.href and d.app.route != start and not d.app.ui.modal:
            here = d.app.route
            d.navigate(start)
            d.navigate(here)
            detours += 1
        if not _replay(d, [rec]):
            return detours, [f"after a detour, plan step {rec.step.sid} is not on the page"]
    if not d.success:
        return detours, ["a detour off the plan (to the start page and back) loses success"]
    return detours, []


# -------------------------------------------------------------------- the check
def check_seed(family: str, task_name: str, seed: int, difficulty: str = "easy") -> TaskReport:
    """Every check on one seed; failures are listed in the report."""
    report = TaskReport(family, task_name, seeds=1)
    site = generate_site(family, seed, difficulty)
    task = compile_for_site(task_name, site)
    where = f"{family}/{task_name} seed {seed}"

    def fail(message: str) -> None:
        report.failures.append(f"{where}: {message}")

    # (c) the goal at reset (also a compile-time error)
    at_reset = {**site.new_app().state_view(), "agent": dict(AGENT_STATE)}
    if all(c.predicate.holds(at_reset) for c in task.goal):
        fail("the goal holds at reset")
    # (a) the oracle
    oracle, recorded, problems = run_oracle(site, task)
    for p in problems:
        fail(p)
    if problems:
        return report
    report.oracle_ok += 1
    right = {a for c in task.goal if c.kind == "answer" for a in _accepted(c)}
    # (b) mutants
    by_subgoal: dict[str, set[int]] = {}
    for i, rec in enumerate(recorded):
        if rec.step.subgoal:
            by_subgoal.setdefault(rec.step.subgoal, set()).add(i)
    mutants: list[tuple[str, dict[str, Any]]] = []
    for gid in goal_steps(task, site):
        if gid in by_subgoal:
            mutants.append((f"drop {gid}", {"drop": by_subgoal[gid]}))
    for i, name, how in _swaps(site, task, recorded):
        mutants.append((f"swap at {name}", {"swap": (i, how)}))
    for name, kwargs in mutants:
        report.drops += name.startswith("drop")
        report.swaps += name.startswith("swap")
        d, stopped, retargeted = run_mutant(site, task, recorded, **kwargs)
        report.mutants_stopped += stopped
        if not d.success:
            continue
        if "swap" in kwargs and not retargeted and _view_only(site, task, recorded, kwargs):
            # Another search text that still lists the very entity the oracle used: every
            # later step acted on the oracle's own elements, so the goal was done.
            report.mutants_tied += 1
            continue
        said = str(d.agent.get("answer", ""))
        if right and any(grade(said, AnswerKey((r,), "text")) for r in right):
            report.mutants_tied += 1
            continue
        fail(f"the mutant '{name}' succeeds")
    # (d) answers
    for p in check_answers(task):
        fail(p)
    report.answers_checked += any(c.kind == "answer" for c in task.goal)
    # (e) hackers and back doors
    trivial, slack = is_trivial(task), may_outscore_by(task)
    for name, policy in ADVERSARIES.items():
        d = AppDriver(site, task)
        policy(d, SeedStream(seed).child("groundtruth").child(name), HACK_BUDGET)
        report.hackers += 1
        may_succeed = trivial and name not in ("done_immediately", "give_up_immediately")
        may_succeed = may_succeed or (name == "random" and _did_every_goal_step(d, task, site))
        if d.success and not may_succeed:
            fail(f"the reward hacker '{name}' succeeds")
        if d.total > oracle.total + slack + 1e-9 or (
            d.total >= oracle.total - 1e-9 and not may_succeed
        ):
            fail(f"the reward hacker '{name}' scores {d.total:.2f}, the oracle {oracle.total:.2f}")
    used, doors = check_back_door(site, task, recorded)
    report.back_doors += bool(used)
    for p in doors:
        fail(p)
    # (f) detours
    n, problems = check_detours(site, task, recorded)
    report.detours += n
    for p in problems:
        fail(p)
    return report


def _accepted(conjunct: Any) -> list[str]:
    for p in _walk(conjunct.predicate):
        if getattr(p, "op", "") == "answer":
            return list(AnswerKey.from_json(_thaw(p.value)).accepted)
    return []


def check_task(
    family: str, task: str, seeds: Iterable[int] = range(5), difficulty: str = "easy"
) -> TaskReport:
    """Every check on every seed; raises AssertionError listing all failures."""
    report = TaskReport(family, task)
    for seed in seeds:
        report.merge(check_seed(family, task, seed, difficulty))
    if report.failures:
        shown = "\n  ".join(report.failures[:20])
        more = f"\n  ... and {len(report.failures) - 20} more" if len(report.failures) > 20 else ""
        raise AssertionError(f"ground truth does not hold:\n  {shown}{more}")
    return report
