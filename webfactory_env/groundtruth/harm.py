"""Extra-harm mutants: the oracle's plan plus one effectful action nobody asked for, done
before the last goal step. Every one that leaves a persistent trace must fail.

Three kinds, each found on the pages the oracle's own run shows:

- *a sibling's control*: where the plan uses an effectful control (an upvote, a sign-out,
  a revoke, a setting's switch), the same control of another record or setting on that
  page (another reply's upvote, another device, another key, SMS alerts);
- *a sibling's run*: the plan's effectful part done first on another entity, option or
  value (another product ordered, another To-do card deleted, a junk card, a second
  invite, a booking on another day), then back to where the state still is as the plan
  left it, and the oracle's plan from there;
- *a stray action*: an effectful control the plan never uses, on a page it visits (a
  login reported, a label switched, a board starred), or, before an answer, on any page
  of the site (there and back).

A mutant is *harmful* when what persists ends otherwise than after the oracle's run
(records by id, the records each table gained, saved lists): it must fail. One whose
extra action left no such trace is *harmless*, not a failure of the check.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from webfactory_env.adversarial import AppDriver
from webfactory_env.groundtruth.mutants import swaps
from webfactory_env.groundtruth.plans import (
    Recorded,
    act,
    equivalent,
    find,
    retry,
    signature,
    verb_of,
)
from webfactory_env.sitegen.persistence import Kept, kept_values
from webfactory_env.sitegen.registry import Site
from webfactory_env.sitegen.spec import Affordance
from webfactory_env.sitegen.state import lookup_path
from webfactory_env.tasks import CompiledTask
from webfactory_env.tasks.frame import persistent_changes

MAX_PER_STEP = 2  # sibling controls per plan step, sibling values per typed value
MAX_STRAY = 3
MAX_ELSEWHERE = 2
HARM_VERBS = ("click", "select")

# The extra action(s) of a mutant, on the driver where they start: the plan step to go on
# from, or None when they cannot be done on this run.
Extra = Callable[[AppDriver], "int | None"]


@dataclass(frozen=True)
class Harm:
    """One extra-harm mutant: `extra` runs just before plan step `at`; `control`, when
    that is all it does, is the control of the page there it acts on (`_do`)."""

    name: str
    at: int
    extra: Extra
    control: Affordance | None = None


@dataclass(frozen=True)
class HarmOutcome:
    name: str
    harmful: bool  # what persists ends otherwise than after the oracle's run
    goal_met: bool  # the goal held at the end (what success was before the frame)
    success: bool
    breaches: tuple[str, ...]


@dataclass(frozen=True)
class Survey:
    """The oracle's run as a person saw it: before each plan step, the page's controls
    and the route."""

    pages: list[list[Affordance]]
    routes: list[str]


def harms(site: Site, task: CompiledTask, recorded: Sequence[Recorded]) -> list[Harm]:
    """Every extra-harm mutant of the plan (see the module docstring)."""
    seen = survey(site, task, recorded)
    effectful = _effectful(site)
    changes_state = bool(task.frame.exempt or task.frame.creates)
    return [
        *_sibling_controls(recorded, seen, effectful),
        *(_sibling_runs(site, task, recorded, seen) if changes_state else []),
        *_stray_actions(recorded, seen, effectful),
        *_stray_elsewhere(site, task, recorded, effectful),
    ]


def check_harms(
    site: Site, task: CompiledTask, oracle: AppDriver, recorded: Sequence[Recorded], report: Any
) -> list[str]:
    """(g) Every extra-harm mutant that leaves a persistent trace fails; counted in the
    report (`harms`, `harms_caught`, `harms_by_frame`, `harmless`)."""
    problems: list[str] = []
    kept = kept_values(site.family.schema)
    reset = AppDriver(site, task).state()
    expected = footprint(kept, reset, oracle.state())
    for harm in harms(site, task, recorded):
        d = run_harm(site, task, recorded, harm)
        if d is None:
            continue
        outcome = judge(d, harm.name, footprint(kept, reset, d.state()) != expected)
        report.harms += 1
        if not outcome.harmful:
            report.harmless += 1
        elif outcome.success:
            problems.append(f"the harm mutant '{harm.name}' succeeds")
        else:
            report.harms_caught += 1
            report.harms_by_frame += outcome.goal_met
    return problems


def run_harm(
    site: Site, task: CompiledTask, recorded: Sequence[Recorded], harm: Harm
) -> AppDriver | None:
    """The plan with `harm` inserted; None when the extra action could not be done."""
    d = AppDriver(site, task)
    i, inserted = 0, False
    while i < len(recorded):
        if i == harm.at and not inserted:
            inserted = True
            resume = harm.extra(d)
            if resume is None or d.ended:
                return None
            i = resume
            continue
        if d.ended or not _follow(d, recorded[i]):
            break
        i += 1
    return d


def judge(d: AppDriver, name: str, harmful: bool) -> HarmOutcome:
    """How a harm mutant ended (`harmful`: its persistent state differs from the oracle's)."""
    end = d.state()
    breaches = tuple(d.sim.frame_breaches(end))
    return HarmOutcome(name, harmful, d.sim.goal_done(end), d.success, breaches)


def footprint(kept: Sequence[Kept], reset: Mapping[str, Any], end: Mapping[str, Any]) -> Any:
    """What persists at the end, as it differs from reset: each change with its value, and
    the records each table gained, by their kept fields (their ids depend on the path)."""
    fields = {k.name: k.fields for k in kept}
    made: list[str] = []
    changed: dict[tuple[str, ...], Any] = {}
    for c in persistent_changes(kept, reset, end):
        if c.what == "created":
            record = lookup_path(end, c.path) or {}
            values = {f: record.get(f) for f in fields[c.path[0]]}
            made.append(c.path[0] + json.dumps(values, sort_keys=True, default=str))
        else:
            changed[c.path] = (c.what, lookup_path(end, c.path))
    return changed, sorted(made)


# ------------------------------------------------------------------ the plan
def survey(site: Site, task: CompiledTask, recorded: Sequence[Recorded]) -> Survey:
    """The oracle's run again, noting what each plan step saw."""
    d = AppDriver(site, task)
    seen = Survey([], [])
    for rec in recorded:
        seen.pages.append(d.affordances() if not d.ended else [])
        seen.routes.append(d.app.route)
        if d.ended or not _follow(d, rec):
            break
    return seen


def _follow(d: AppDriver, rec: Recorded) -> bool:
    """One plan step, on its element or the page's equivalent; the oracle's own answer."""
    if rec.affordance is None:
        d.done(rec.step.verb == "done_success", rec.step.value or "")
        return True
    aff = find(d, rec.step.sid) or equivalent(d, rec.affordance) or _in_dialog(d, rec.affordance)
    if aff is None:
        return rec.step.sid == "retry"  # no server error on this path
    act(d, rec.step, aff)
    retry(d)
    return True


def _in_dialog(d: AppDriver, original: Affordance) -> Affordance | None:
    """The open dialog's control that does what `original` did in the oracle's dialog
    (another card's "Delete" button: `equivalent` sees only controls named `modal:`)."""
    if not d.app.ui.modal:
        return None
    want = signature(original)
    return next((a for a in d.app.page().affordances if signature(a) == want), None)


def _effectful(site: Site) -> Callable[[Affordance], bool]:
    """Whether a control may change what the site keeps: a mutating transition that is
    no back door (those are judged by provenance, `paths.check_back_door`), acted on by a
    click or a choice (typing only writes a draft), whose declared effect, if any, is not
    only on what this visit holds (signing out, the cart, a reset link opened)."""
    app = site.family.app_class
    root = site.family.schema.root

    def this_visit_only(a: Affordance) -> bool:
        tops = [root.get(p[0]) for p in a.effect.paths()] if a.effect is not None else []
        return bool(tops) and all(
            t is not None and t.part in ("session", "drafts", "view") and not t.persists
            for t in tops
        )

    return lambda a: (
        a.verb in HARM_VERBS
        and app.mutating(a.handler)
        and not a.attr_map().get("staff")
        and not this_visit_only(a)
    )


def _do(aff: Affordance, resume: int) -> Extra:
    """Act on `aff` (found again on the page), then go on with plan step `resume`: a
    click, or a choice that changes what the site keeps (the other state of a switch;
    else each other option in turn until one does)."""

    def extra(d: AppDriver) -> int | None:
        here = find(d, aff.sid)
        if here is None:
            return None
        if here.verb != "select":
            d.act(here, "click")
            retry(d)
            return resume
        checked = here.attr_map().get("checked")
        current = here.value if checked is None else str(bool(checked)).lower()
        kept = [k.name for k in kept_values(d.site.family.schema)]
        before = [d.app.state_view().get(k) for k in kept]
        for option in [o for o in here.options if o.value != current]:
            again = find(d, aff.sid)
            if again is None or d.ended:
                break
            d.act(again, "select", option.value)
            retry(d)
            if [d.app.state_view().get(k) for k in kept] != before:
                break
        return resume

    return extra


# -------------------------------------------------------------- the three kinds
def _sibling_controls(
    recorded: Sequence[Recorded], seen: Survey, effectful: Callable[[Affordance], bool]
) -> list[Harm]:
    """Where the plan uses an effectful control: the same control of another record."""
    out: list[Harm] = []
    for i, (rec, page) in enumerate(zip(recorded, seen.pages, strict=False)):
        aff = rec.affordance
        if aff is None or not effectful(aff):
            continue
        siblings = [
            a
            for a in page
            if a.handler == aff.handler and a.arg != aff.arg and a.sid != aff.sid and effectful(a)
        ]
        for sibling in siblings[:MAX_PER_STEP]:
            out.append(Harm(f"step {i + 1}: also {sibling.sid}", i, _do(sibling, i), sibling))
    return out


def _sibling_runs(
    site: Site, task: CompiledTask, recorded: Sequence[Recorded], seen: Survey
) -> list[Harm]:
    """The plan's effectful part done first on another entity, option or value (a swap,
    or a sibling's value typed), before the oracle's plan."""
    last = max(
        (i for i, r in enumerate(recorded) if r.affordance is not None and r.step.subgoal),
        default=-1,
    )
    variants = [s for s in swaps(site, task, recorded) if not _is_fill(recorded[s[0]])]
    for i, rec in enumerate(recorded):
        if _is_fill(rec) and rec.step.value:
            for other in other_texts(site, task, rec.step.value):
                variants.append((i, f"step {i + 1}: {other!r}", _type(other)))
    return [
        Harm(f"first on a sibling: {name}", i, _on_sibling(task, recorded, seen, i, how))
        for i, name, how in sorted(variants, key=lambda v: v[0])
        if i <= last
    ]


def _on_sibling(
    task: CompiledTask,
    recorded: Sequence[Recorded],
    seen: Survey,
    at: int,
    how: Callable[[AppDriver, Affordance], bool],
) -> Extra:
    """Step `at` done the sibling's way and the plan's rest after it (up to its ending);
    then back to the latest page of the plan from which the state is still as the plan
    had it (the sign-in holds, the itinerary is gone), and the plan from there."""

    def extra(d: AppDriver) -> int | None:
        rec = recorded[at]
        if rec.affordance is None or not how(d, rec.affordance):
            return None
        retry(d)
        for later in recorded[at + 1 :]:
            if later.affordance is None or d.ended or not _follow(d, later):
                break
        if d.ended:
            return None
        restart = _restart(task, recorded, d, at)
        if restart >= len(seen.routes):
            return None
        d.navigate(seen.routes[restart])
        return restart

    return extra


def _restart(task: CompiledTask, recorded: Sequence[Recorded], d: AppDriver, upto: int) -> int:
    """The latest plan step at or before `upto` that follows a link (or the first step)
    before which every step's effect still holds (navigation aside)."""
    state = d.state()
    best = 0
    for k in range(1, upto + 1):
        before = recorded[k - 1].step.subgoal
        goal = next((g for g in task.subgoals if g.id == before), None)
        if goal is not None and not goal.sticky and not goal.predicate.holds(state):
            break
        link = recorded[k].affordance
        if link is not None and link.href:
            best = k
    return best


def _stray_actions(
    recorded: Sequence[Recorded], seen: Survey, effectful: Callable[[Affordance], bool]
) -> list[Harm]:
    """Effectful controls the plan never uses, on the pages it visits, latest first."""
    used = {r.affordance.handler for r in recorded if r.affordance is not None}
    out: list[Harm] = []
    for i in reversed(range(min(len(seen.pages), len(recorded)))):
        for a in seen.pages[i]:
            if len(out) >= MAX_STRAY:
                return out
            if a.handler not in used and effectful(a):
                used.add(a.handler)
                out.append(Harm(f"step {i + 1}: first {a.sid}", i, _do(a, i), a))
    return out


def _stray_elsewhere(
    site: Site,
    task: CompiledTask,
    recorded: Sequence[Recorded],
    effectful: Callable[[Affordance], bool],
) -> list[Harm]:
    """Before the answer (or the giving up) that ends a task: an effectful control of any
    page of the site, there and back."""
    at = len(recorded) - 1
    if at < 0 or recorded[at].affordance is not None:
        return []
    d = AppDriver(site, task)
    for rec in recorded[:at]:
        if d.ended or not _follow(d, rec):
            return []
    back = d.app.route
    used = {r.affordance.handler for r in recorded if r.affordance is not None}
    out: list[Harm] = []
    for route in site.representative_routes():
        d.navigate(route)
        for a in d.affordances():
            if len(out) < MAX_ELSEWHERE and a.handler not in used and effectful(a):
                used.add(a.handler)
                name = f"before the end: {a.sid} on {route}"
                out.append(Harm(name, at, _away(route, a, back, at)))
    return out


def _away(route: str, aff: Affordance, back: str, resume: int) -> Extra:
    """To `route`, act on `aff` there, and back to `back`."""

    def extra(d: AppDriver) -> int | None:
        d.navigate(route)
        done = _do(aff, resume)(d)
        if not d.ended:
            d.navigate(back)
        return done

    return extra


def _type(value: str) -> Callable[[AppDriver, Affordance], bool]:
    def other(d: AppDriver, original: Affordance) -> bool:
        here = find(d, original.sid) or equivalent(d, original)
        if here is None:
            return False
        d.act(here, "fill", value)
        return True

    return other


def other_texts(site: Site, task: CompiledTask, value: str) -> list[str]:
    """Other values of the same kind as `value`: siblings' values, drawn from the entities
    the task drew `value` from under the same filter (other To-do cards' titles), or a
    junk one (another e-mail address, the next number or day, another digit, a plural)."""
    for drawn in task.bindings.get("picked", {}).values():
        if str(drawn.get("value")) != value:
            continue
        table, _, attr = str(drawn.get("from", "")).partition(".")
        where = dict(drawn.get("where", {}))
        rows = [
            r
            for r in site.spec.entities.get(table, ())
            if all(getattr(r, k, None) == v for k, v in where.items())
        ]
        others = sorted({str(getattr(r, attr, "")) for r in rows} - {"", value})
        if others:
            return others[:MAX_PER_STEP]
    if re.fullmatch(r"[^@\s]+@[^@\s]+", value):
        return ["other." + value]
    if re.fullmatch(r"-?\d+", value):
        return [str(int(value) + 1)]
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
        return [(dt.date.fromisoformat(value) + dt.timedelta(days=1)).isoformat()]
    digits = [m.start() for m in re.finditer(r"\d", value)]
    if digits:
        i = digits[-1]
        return [value[:i] + str((int(value[i]) + 1) % 10) + value[i + 1 :]]
    return [value + "s"]


# ---------------------------------------------------------------------- helpers
def _is_fill(rec: Recorded) -> bool:
    return rec.affordance is not None and verb_of(rec.step, rec.affordance) == "fill"
