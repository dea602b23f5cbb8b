"""Performing a step: its affordance's declared effect bound to the step's values, the
widget operated until the effect holds, and what the step did recorded in the run (its
subgoal and the subgoals it builds on, the state it changed, plan moves and bindings)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from webfactory_env.core.predicates import Predicate, lookup, parse_path
from webfactory_env.dsl import ast
from webfactory_env.sitegen.state import PINNED_PARTS, changes, leaf_changes
from webfactory_env.tasks.compile.context import CompileRun, Match, Move
from webfactory_env.tasks.compile.operate import operate
from webfactory_env.tasks.compile.predicates import overlaps, refs, site_feedback
from webfactory_env.tasks.compile.values import VALUE_FILTERS
from webfactory_env.tasks.compiled import PlanStep, Subgoal
from webfactory_env.tasks.goal import StepRun
from webfactory_env.tasks.instruction import keep_sentence


def perform(
    run: CompileRun,
    step: ast.Step,
    verb: str,
    matches: list[Match],
    value: Any,
    *,
    surface: str,
    slug: str,
    moves: list[Move] | None = None,
    stated: str | None = None,
) -> None:
    """Do what `step` asks with the first of `matches` (the others are its witnesses too),
    after `moves` that brought it into view, and record it; `stated` is the value its
    sentence asks to type or choose."""
    primary = matches[0]
    aff = primary.affordance
    before = run.app.state_view()
    bound_value: Any = value
    if verb == "select":
        assert primary.option is not None
        bound_value = primary.option.value
    if aff.effect is None:
        raise run.error(
            f"{aff.kind} {aff.label!r} has no declared effect on this site; a task cannot check it",
            step,
        )
    predicate = bind_effect(aff.effect, bound_value, before)
    if predicate.holds(before) and not aff.sticky:
        _keep(run, step, predicate, surface, moves or [])
        return
    moves = list(moves or [])
    opening = [mv.says for mv in moves if mv.says]
    sent = str(bound_value) if bound_value is not None else None
    fired = len(run.app.fired)
    moves += operate(run, step, verb, primary, sent, predicate)
    mutated = any(run.app.mutating(t) for t in run.app.fired[fired:])
    after = run.app.state_view()
    run.seen_views.append(after)
    if not predicate.holds(after):
        raise run.error(
            f"this step does not take effect on this site ({surface.rstrip('.')})",
            step,
            hint=site_feedback(after),
        )
    subgoal_id = _record_subgoal(
        run, step, matches, moves, surface, slug, predicate, (before, after)
    )
    if mutated:
        run.mutated.add(subgoal_id)
    for mv in moves:
        run.plan.append(PlanStep(mv.verb, mv.sid, mv.value, subgoal_id))
        if mv.value is not None:
            run.values.add(mv.value)
    _record_bindings(run, verb, matches, bound_value, subgoal_id)
    run.surface += [*opening, surface]
    if stated is not None:
        run.recipe_values.append(stated)
    if run.app.route != before["route"]:
        run.entry_subgoal = subgoal_id
    _note_sort_key(run, primary, bound_value)


def bind_effect(effect: Predicate, value: Any, before: Mapping[str, Any]) -> Predicate:
    """An effect template with its `Ref`s bound: `value` to what the step sends,
    `state:a.b` to the state before the step, each optionally through a filter (`|last4`)."""

    def resolve(name: str) -> Any:
        if name == "value":
            return value
        name, _, filt = name.partition("|")
        if name == "value":
            found: Any = value
        elif name.startswith("state:"):
            found = lookup(before, parse_path(name[6:]))
        else:
            raise KeyError(name)
        if not filt:
            return found
        if isinstance(found, Mapping):  # a whole draft: filter each of its values
            return {k: VALUE_FILTERS[filt](str(v)) for k, v in found.items()}
        return VALUE_FILTERS[filt](str(found))

    return effect.bind(resolve)


def _keep(
    run: CompileRun, step: ast.Step, predicate: Predicate, surface: str, moves: list[Move]
) -> None:
    """A step whose effect already holds: nothing to do or reward here. But a dialog or tab
    opened to find the target did change the page, so the plan must open it too. What the
    step asks for is still part of the goal when it is the site's data ("keep security
    alerts on"): it must still hold at the end."""
    for mv in moves:
        run.plan.append(PlanStep(mv.verb, mv.sid, mv.value, None))
    if all(run.schema.pinned(p) for p in predicate.paths()):
        run.runs.append(
            StepRun(
                subgoal="",
                line=step.span.line,
                column=step.span.column,
                maintained=predicate,
            )
        )
    run.surface += [mv.says for mv in moves if mv.says] + [keep_sentence(surface)]


def _record_subgoal(
    run: CompileRun,
    step: ast.Step,
    matches: list[Match],
    moves: list[Move],
    surface: str,
    slug: str,
    predicate: Predicate,
    before_after: tuple[Mapping[str, Any], Mapping[str, Any]],
) -> str:
    """The step's subgoal (witnessed by every match and every element moved on) and its
    run: what it changed in the site's data and drafts, or that it only navigated."""
    aff = matches[0].affordance
    before, after = before_after
    witness = tuple(dict.fromkeys([m.affordance.sid for m in matches] + [mv.sid for mv in moves]))
    subgoal_id = run.unique_id(slug)
    pinned = changes(run.schema, before, after, PINNED_PARTS)
    drafts = _draft_writes(run, before, after, predicate)
    run.add_subgoal(
        Subgoal(
            id=subgoal_id,
            step=run.steps_seen,
            description=surface,
            predicate=predicate,
            witness=witness,
            sticky=aff.sticky,
            prerequisites=prerequisites(run, aff.effect, predicate),
            line=step.span.line,
            column=step.span.column,
        )
    )
    run.runs.append(
        StepRun(
            subgoal=subgoal_id,
            line=step.span.line,
            column=step.span.column,
            changes=pinned,
            drafts=frozenset(drafts),
            navigation=not pinned and not drafts,
            page=predicate if not pinned and not drafts else None,
        )
    )
    run.writes[subgoal_id] = set(pinned) | drafts
    return subgoal_id


def _draft_writes(
    run: CompileRun, before: Mapping[str, Any], after: Mapping[str, Any], predicate: Predicate
) -> set[tuple[str, ...]]:
    """Draft fields a step wrote (or addressed: typing what was already there)."""
    out: set[tuple[str, ...]] = set()
    for name, node in run.schema.root.items():
        if node.part == "drafts":
            out |= set(leaf_changes(before.get(name), after.get(name), (name,)))
    out |= {p for p in predicate.paths() if run.schema.part(p) == "drafts"}
    return out


def prerequisites(run: CompileRun, template: Predicate | None, bound: Predicate) -> tuple[str, ...]:
    """The subgoals this step builds on: the one that brought the agent to this page,
    and those whose writes this step's effect reads (the cart an order is made of,
    the item a remove takes out)."""
    reads: set[tuple[str, ...]] = set(bound.paths())
    if template is not None:
        reads |= {
            parse_path(r[6:].partition("|")[0]) for r in refs(template) if r.startswith("state:")
        }
    found: list[str] = []
    if run.entry_subgoal and template is not None:
        found.append(run.entry_subgoal)
    for g in run.subgoals:
        if g.id in found or g.sticky:
            continue
        wrote = run.writes.get(g.id, set()) | g.predicate.paths()
        if any(overlaps(w, r) for w in wrote for r in reads):
            found.append(g.id)
    return tuple(found)


def _record_bindings(
    run: CompileRun, verb: str, matches: list[Match], bound_value: Any, subgoal_id: str
) -> None:
    """What the step acted on, for checks and traces; the value a named field or choice
    now holds, for the goal's words."""
    primary = matches[0]
    aff = primary.affordance
    binding: dict[str, Any] = {"sid": aff.sid, "label": aff.label, **aff.attr_map()}
    if primary.option is not None:
        binding["option"] = primary.option.value
    name = aff.attr_map().get("name")
    if name and verb in ("fill", "select"):
        shown = primary.option.label if primary.option is not None else bound_value
        run.named_values[str(name)] = shown
    fallbacks = [m.affordance.sid for m in matches[1:]]
    if fallbacks:
        binding["fallbacks"] = list(dict.fromkeys(fallbacks))
    run.bindings[subgoal_id] = binding


def _note_sort_key(run: CompileRun, primary: Match, bound_value: Any) -> None:
    """A sort control sets the key and order the current page's list is sorted by, which
    "first / best by X" targets and ties read."""
    aff = primary.affordance
    if aff.kind != "Sort":
        return
    merged = {**aff.attr_map(), **dict(primary.option.attrs if primary.option else ())}
    if merged.get("key"):
        order = str(merged.get("order") or bound_value or "asc")
        run.sort_keys[run.app.route] = (str(merged["key"]), order)
