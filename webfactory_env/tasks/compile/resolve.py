"""Targets to witnesses: the affordances (and options) of the current page a target names,
in page order, the first being the one the oracle uses."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from webfactory_env.core.errors import did_you_mean
from webfactory_env.core.predicates import fuzzy_match
from webfactory_env.dsl import ast
from webfactory_env.sitegen.spec import Affordance
from webfactory_env.tasks.compile.context import CompileRun, Match
from webfactory_env.tasks.compile.surface import attrs_text
from webfactory_env.tasks.compile.values import is_number, type_name, value_of


def resolve_target(
    run: CompileRun, target: ast.TargetExpr, verb: str, quiet: bool = False
) -> list[Match]:
    """What `target` names on the current page. `quiet`: an empty list, not an error, when
    the page has none (the target may still be revealed)."""
    if isinstance(target, ast.VarRef):
        return _loop_item(run, target, quiet)
    page = run.page_affordances()
    kinds = run.site.family.kinds
    if target.kind not in kinds:
        raise run.error(
            f"unknown kind {target.kind!r}.{did_you_mean(target.kind, kinds)}",
            target,
            hint="kinds on this site: " + ", ".join(kinds),
        )
    candidates = [a for a in page if a.kind == target.kind]
    if not candidates:
        if quiet:
            return []
        here = sorted({a.kind for a in page})
        raise run.error(
            f"no {target.kind} on page {run.app.route}",
            target,
            hint="this page has: " + ", ".join(here),
        )
    known_attrs = {k for a in candidates for k, _ in a.attrs} | {
        k for a in candidates for o in a.options for k, _ in o.attrs
    }
    for pred in target.preds:
        if pred.attr not in known_attrs:
            if quiet:  # maybe a target behind a tab or a dialog: let reveal look
                return []
            raise run.error(
                f"{target.kind} has no attribute {pred.attr!r}."
                f"{did_you_mean(pred.attr, known_attrs)}",
                pred,
                hint=f"{target.kind} attributes: " + ", ".join(sorted(known_attrs)),
            )
    preds = [(p, value_of(run, p.value)) for p in target.preds]
    matches: list[Match] = []
    for aff in candidates:
        if verb == "select" and aff.options:
            for opt in aff.options:
                merged = {**aff.attr_map(), **dict(opt.attrs)}
                if all(_attr_pred_holds(run, p, v, merged) for p, v in preds):
                    matches.append(Match(aff, opt))
        elif all(_attr_pred_holds(run, p, v, aff.attr_map()) for p, v in preds):
            matches.append(Match(aff))
    return matches


def _loop_item(run: CompileRun, target: ast.VarRef, quiet: bool) -> list[Match]:
    page = run.page_affordances()
    sid = run.loop_vars.get(target.name)
    if sid is None:
        raise run.error(
            f"{target.name!r} is not a loop variable here.",
            target,
            hint="targets look like Kind(attr = value)",
        )
    found = [a for a in page if a.sid == sid]
    if not found:
        if quiet:
            return []
        raise run.error(f"loop item {target.name!r} is not on page {run.app.route}", target)
    return [Match(found[0])]


def _attr_pred_holds(
    run: CompileRun, pred: ast.AttrPred, want: Any, attrs: Mapping[str, Any]
) -> bool:
    if pred.attr not in attrs:
        return False
    have = attrs[pred.attr]
    if pred.op in (">", "<"):
        if not is_number(want):
            raise run.error(f"{pred.op} compares numbers; got {type_name(want)}", pred.value)
        if not is_number(have):
            raise run.error(f"attribute {pred.attr!r} is {type_name(have)}, not a number", pred)
        return have > want if pred.op == ">" else have < want
    if pred.op == "~=":
        if not isinstance(want, str):
            raise run.error(f"~= matches text; got {type_name(want)}", pred.value)
        return fuzzy_match(str(have), want)
    # "="
    if isinstance(have, bool) or isinstance(want, bool):
        if isinstance(have, bool) != isinstance(want, bool):
            raise run.error(
                f"attribute {pred.attr!r} is {type_name(have)}; "
                f"compare it with {type_name(have)} values, not "
                f"{type_name(want)}",
                pred.value,
            )
        return have == want
    if is_number(have) != is_number(want):
        raise run.error(
            f"attribute {pred.attr!r} is {type_name(have)}; got {type_name(want)}", pred.value
        )
    if isinstance(have, str):
        return have.strip().lower() == str(want).strip().lower()
    return bool(have == want)


def near_misses(run: CompileRun, target: ast.TargetExpr) -> str | None:
    """A hint listing the entities of the target's kind the page does show."""
    if not isinstance(target, ast.Target):
        return None
    same = [a for a in run.page_affordances() if a.kind == target.kind]
    if not same:
        return None
    shown = ", ".join(f"{a.kind}({attrs_text(a)})" for a in same[:4])
    return f"{target.kind}s on this page: {shown}" + (" ..." if len(same) > 4 else "")


def same_kind(a: Affordance, b: Affordance) -> bool:
    """Entries of the same list: same kind and same `type`."""
    return a.kind == b.kind and a.attr_map().get("type") == b.attr_map().get("type")
