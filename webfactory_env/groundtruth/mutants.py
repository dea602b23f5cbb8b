"""The mutants a skeptic makes of the oracle's plan: drop a step that writes goal state, or
choose another entity, option or value at a step where the plan chose one."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Sequence
from typing import Any

from webfactory_env.adversarial import AppDriver
from webfactory_env.groundtruth.plans import (
    Recorded,
    equivalent,
    find,
    signature,
    typing_instead,
    verb_of,
)
from webfactory_env.sitegen.registry import Site
from webfactory_env.sitegen.spec import Affordance
from webfactory_env.tasks import CompiledTask

ENTITY_KINDS = ("Item", "Result", "Link", "Button", "Toggle")
MAX_SWAPS_PER_STEP = 2


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


def did_every_goal_step(d: AppDriver, task: CompiledTask, site: Site) -> bool:
    """Whether a random policy happened to take every plan step that writes goal state, on
    the oracle's element with the oracle's value (a short task with its values in the value
    table is done by chance now and then: earned, not a hack)."""
    wanted = set(goal_steps(task, site))
    steps = [(p.sid, p.value) for p in task.plan if p.subgoal in wanted]
    done = set(d.acted)
    return bool(steps) and all(step in done for step in steps)


def view_only(
    site: Site, task: CompiledTask, recorded: Sequence[Recorded], kwargs: dict[str, Any]
) -> bool:
    """Whether the swapped step writes only what the page shows (a search text, a filter),
    never an entity, the session or a form draft."""
    step = recorded[kwargs["swap"][0]].step
    goal = next((g for g in task.subgoals if g.id == step.subgoal), None)
    if goal is None:
        return False
    schema = site.family.schema
    return all(schema.part(p) == "page" for p in goal.predicate.paths())


def swaps(
    site: Site, task: CompiledTask, recorded: Sequence[Recorded]
) -> list[tuple[int, str, Callable[[AppDriver, Affordance], bool]]]:
    """Every step where the plan chose an entity, with other choices of the same kind."""
    out: list[tuple[int, str, Callable[[AppDriver, Affordance], bool]]] = []
    for i, rec in enumerate(recorded):
        aff = rec.affordance
        if aff is None:
            continue
        attrs = aff.attr_map()
        verb = verb_of(rec.step, aff)
        if verb == "click" and aff.kind in ENTITY_KINDS and (attrs.get("type") or aff.handler):
            if not attrs.get("type") and aff.kind not in ("Item", "Result"):
                continue

            def pick_other(d: AppDriver, original: Affordance, k: int = 0) -> Affordance | None:
                same = [
                    a
                    for a in d.affordances()
                    if signature(a) == signature(original) and a.sid != original.sid
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
                    here = find(d, original.sid) or equivalent(d, original)
                    if here is None:
                        return False
                    d.act(here, "select", o.value)
                    return True

                out.append((i, f"step {i + 1}: option {o.value!r}", other_option))
        elif verb == "fill" and rec.step.value:
            other = _other_value(site, task, rec.step.value)
            if other is None:
                continue
            out.append((i, f"step {i + 1}: {other!r}", typing_instead(other)))
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
