"""State in the task's terms: `State(...)` expressions as predicates, state paths with their
`[key]`s resolved, assertions pinned to the entities they mean, and explanations of why a
predicate does not hold."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from webfactory_env.core.errors import did_you_mean
from webfactory_env.core.predicates import (
    AGENT_STATE,
    MISSING,
    All,
    Any_,
    Contains,
    Eq,
    Gt,
    Lt,
    Match,
    Not,
    Predicate,
    lookup,
)
from webfactory_env.dsl import ast
from webfactory_env.sitegen.renamed import renamed_for
from webfactory_env.sitegen.state import PINNED_PARTS
from webfactory_env.tasks.compile.context import CompileRun
from webfactory_env.tasks.compile.values import is_number, type_name, value_of
from webfactory_env.tasks.goal import PinnedAssert

NAME_FIELDS = ("title", "name", "username", "code")  # how a `[key]` may name an entity
COMPARISONS: dict[str, type[Predicate]] = {
    "=": Eq,
    "~=": Match,
    ">": Gt,
    "<": Lt,
    "contains": Contains,
}


def state_predicate(run: CompileRun, expr: ast.StateExpr) -> Predicate:
    """The predicate a `State(...)` expression (with `not`, `and`, `or`) stands for."""
    if isinstance(expr, ast.StateCall):
        return (
            All(tuple(_condition(run, c) for c in expr.conds))
            if len(expr.conds) > 1
            else _condition(run, expr.conds[0])
        )
    if isinstance(expr, ast.StateNot):
        return Not(state_predicate(run, expr.item))
    if isinstance(expr, ast.StateAnd):
        return All(tuple(state_predicate(run, x) for x in expr.items))
    if isinstance(expr, ast.StateOr):
        return Any_(tuple(state_predicate(run, x) for x in expr.items))
    raise run.error("unsupported state expression", expr)  # pragma: no cover


def holding_now(run: CompileRun, expr: ast.StateExpr, failure: str) -> Predicate:
    """The predicate `expr` stands for, which must hold in the current state: if it does
    not, the error says `failure` and what the state holds instead."""
    predicate = state_predicate(run, expr)
    state = run.app.state_view()
    if not predicate.holds(state):
        raise run.error(failure, expr, hint=explain(predicate, state))
    return predicate


def _condition(run: CompileRun, cond: ast.StateCond) -> Predicate:
    value = value_of(run, cond.value)
    parts: tuple[ast.PathPart, ...] = cond.path
    shape = tuple("*" if isinstance(p, ast.PathKey) else p for p in parts)
    renamed = renamed_for(run.site.family.renamed, shape, cond.op, value)
    if renamed is not None:  # an old path keeps its meaning, spelled the new way
        parts, value = renamed.rewrite(parts, value)
        run.warn(renamed.message(), cond)
    path = state_path(run, parts, cond)
    text = ".".join(path)
    if run.schema.node(path) is None and path[0] != "agent":
        known = {".".join(p) for p in known_paths(run)}
        tops = sorted(run.schema.root)
        raise run.error(
            f"unknown state path {text!r}.{did_you_mean(text, known)}",
            cond,
            hint="state paths start with: " + ", ".join(tops),
        )
    if cond.op in (">", "<") and not is_number(value):
        raise run.error(f"{cond.op} compares numbers; got {type_name(value)}", cond.value)
    cls = COMPARISONS.get(cond.op)
    if cls is None:
        raise run.error(f"unsupported operator {cond.op!r} in State(...)", cond)
    return cls(path, value)  # type: ignore[call-arg]


def known_paths(run: CompileRun) -> set[tuple[str, ...]]:
    """Every state path the views seen so far hold, and the agent's own."""
    out = {("agent",), *(("agent", k) for k in AGENT_STATE)}
    for view in run.seen_views:
        out |= paths_in(view)
    return out


def state_path(run: CompileRun, parts: tuple[ast.PathPart, ...], node: Any) -> tuple[str, ...]:
    """A state path with its `[key]`s resolved: a key is an entity's id, or a value of
    its `title`/`name` that only one entity of the table has."""
    out: list[str] = []
    for part in parts:
        if not isinstance(part, ast.PathKey):
            out.append(part)
            continue
        key = value_of(run, part.value)
        table = lookup(run.app.state_view(), tuple(out))
        if not isinstance(table, Mapping):
            raise run.error(f"{'.'.join(out)} is not a table of entities", part)
        if str(key) not in table:
            named = [
                k
                for k, rec in table.items()
                if isinstance(rec, Mapping)
                and any(str(rec.get(f, "")).lower() == str(key).lower() for f in NAME_FIELDS)
            ]
            if len(named) != 1:
                raise run.error(
                    f"no single entity {key!r} in {'.'.join(out)}"
                    + (f" ({len(named)} have that name)" if named else ""),
                    part,
                    hint="a key is an id, or a title or name only one of them has",
                )
            key = named[0]
        out.append(str(key))
    return tuple(out)


def pin(run: CompileRun, predicate: Predicate, node: Any) -> PinnedAssert:
    """An assertion made a goal: paths about the page ("the card that is open") are
    pinned to the entity open now; a condition on a record this task created is
    merged into that record's conjunct. Paths that only describe the page (filters,
    drafts, the route) are not the site's data and cannot be a goal."""
    state = run.app.state_view()
    new: set[tuple[str, str]] = set()

    def pinned(p: Predicate) -> Predicate:
        if isinstance(p, (All, Any_)):
            return type(p)(tuple(pinned(x) for x in p.items))
        if isinstance(p, Not):
            return Not(pinned(p.item))
        path = getattr(p, "path", None)
        if path is None:
            return p
        table = run.app.OPEN.get(path[0])
        if table is not None:
            eid = str(lookup(state, (path[0], "id")) or "")
            if not eid:
                raise run.error(f"no {path[0].replace('_', ' ')} is open at this step", node)
            value = getattr(p, "value", None)
            if eid not in (run.reset_view.get(table) or {}):
                new.add((table, eid))
                return type(p)(path[1:], value)  # type: ignore[call-arg]
            path = (table, eid, *path[1:])
            p = type(p)(path, value)  # type: ignore[call-arg]
        if run.schema.part(path) not in PINNED_PARTS:
            raise run.error(
                f"State({'.'.join(path)}) describes the page being shown, not what the "
                "site keeps, so it cannot be part of the goal",
                node,
                hint="assert what the site keeps ("
                + ", ".join(n for n, x in run.schema.root.items() if x.part in PINNED_PARTS)
                + "), or let the steps' own effects be the goal",
            )
        return p

    result = pinned(predicate)
    if len(new) > 1 or (new and not _only_compares(result)):
        raise run.error(
            "an assertion about a record this task creates must name only that record, "
            "with plain conditions",
            node,
        )
    return PinnedAssert(result, node.span.line, node.span.column, new_record=next(iter(new), None))


def _only_compares(p: Predicate) -> bool:
    if isinstance(p, All):
        return all(_only_compares(x) for x in p.items)
    return hasattr(p, "path") and hasattr(p, "value")


def paths_in(state: Mapping[str, Any], prefix: tuple[str, ...] = ()) -> set[tuple[str, ...]]:
    """Every path of a state view, nested tables and records included."""
    out: set[tuple[str, ...]] = set()
    for key, value in state.items():
        path = (*prefix, str(key))
        out.add(path)
        if isinstance(value, Mapping):
            out |= paths_in(value, path)
    return out


def refs(pred: Predicate) -> set[str]:
    """The names of the `Ref`s a predicate template holds (`value`, `state:cart.items`)."""
    found: set[str] = set()

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            if set(node) == {"$ref"}:
                found.add(node["$ref"])
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk(pred.to_json())
    return found


def overlaps(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    """Whether one path lies within the other."""
    n = min(len(a), len(b))
    return a[:n] == b[:n]


def explain(predicate: Predicate, state: Mapping[str, Any]) -> str:
    """What the state holds at the predicate's paths (why it does not hold)."""
    parts = []
    for path in sorted(predicate.paths()):
        actual = lookup(state, path)
        parts.append(f"{'.'.join(path)} is {'missing' if actual is MISSING else repr(actual)}")
    return "; ".join(parts) or "the state does not match"


def site_feedback(state: Mapping[str, Any]) -> str | None:
    """Validation messages the app reports anywhere in its state (`...errors` mappings)."""
    found: list[str] = []

    def walk(node: Any, path: str) -> None:
        if isinstance(node, Mapping):
            for k, v in node.items():
                if str(k).endswith("errors") and isinstance(v, Mapping) and v:
                    found.extend(f"{name}: {msg}" for name, msg in v.items())
                else:
                    walk(v, f"{path}.{k}" if path else str(k))

    walk(state, "")
    return ("the site reported: " + "; ".join(found)) if found else None
