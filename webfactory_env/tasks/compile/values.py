"""The values a task's steps use: parameters, literals, and the calls `route`, `next` and
`pick` (a seeded draw among what the site holds)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any

from webfactory_env.core.errors import did_you_mean
from webfactory_env.core.seeding import SeedStream
from webfactory_env.dsl import ast
from webfactory_env.tasks.compile.context import CompileRun

# Filters an effect template may apply to a value (`Ref("value|last4")`).
VALUE_FILTERS: dict[str, Callable[[str], Any]] = {
    "last4": lambda v: "".join(c for c in v if c.isdigit())[-4:],
    "bool": lambda v: v.strip().lower() in ("true", "on", "yes", "1"),
    "upper": lambda v: v.strip().upper(),
    "strip": lambda v: v.strip(),
    "lower": lambda v: v.strip().lower(),
}
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
PARAM_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "number": (int, float),
    "bool": (bool,),
}


def param_value(run: CompileRun, param: ast.Param) -> Any:
    """A parameter's value on this site: its default, checked against its declared type."""
    if param.default is None:
        raise run.error(
            f"parameter {param.name!r} has no value",
            param,
            hint=f'give it a default, e.g. {param.name} = "..."',
        )
    if isinstance(param.default, ast.Call) and param.default.name == "pick":
        return pick(run, param.default, param.name)
    value = value_of(run, param.default)
    expected = PARAM_TYPES.get(param.type or "")
    if expected is not None and (
        not isinstance(value, expected) or (param.type == "number" and isinstance(value, bool))
    ):
        raise run.error(
            f"parameter {param.name!r} is declared {param.type} but its default is "
            f"{type_name(value)}",
            param.default,
        )
    return value


def value_of(run: CompileRun, v: ast.Value) -> Any:
    """What a DSL value stands for: a literal, a parameter, a symbol or a call's result."""
    if isinstance(v, (ast.StringLit, ast.NumberLit, ast.BoolLit)):
        return v.value
    if isinstance(v, ast.Ident):
        if v.name in run.params:
            return run.params[v.name]
        return v.name  # a symbol such as `asc`
    if isinstance(v, ast.Call):
        return _call(run, v)
    raise run.error("unsupported value", v)  # pragma: no cover


def _call(run: CompileRun, call: ast.Call) -> Any:
    args = [value_of(run, a) for a in call.args]
    if call.name == "route":
        if len(args) != 1 or not isinstance(args[0], str) or not args[0].startswith("/"):
            raise run.error(
                'route() takes one path starting with "/"', call, hint='e.g. route("/shop")'
            )
        return args[0]
    if call.name == "next":
        if len(args) != 1 or str(args[0]).lower() not in WEEKDAYS:
            raise run.error(
                "next() takes a weekday name",
                call,
                hint='e.g. next("monday")' + did_you_mean(str(args[0] if args else ""), WEEKDAYS),
            )
        today = dt.date.fromisoformat(run.site.spec.today)
        delta = (WEEKDAYS.index(str(args[0]).lower()) - today.weekday()) % 7 or 7
        return (today + dt.timedelta(days=delta)).isoformat()
    if call.name == "pick":
        return pick(run, call, f"pick@{call.span.line}:{call.span.column}")
    raise run.error(
        f"unknown function {call.name!r}.{did_you_mean(call.name, ['route', 'next', 'pick'])}",
        call,
        hint="functions: route(path), next(weekday), pick(entity.attribute)",
    )


def pick(run: CompileRun, call: ast.Call, name: str) -> Any:
    """A seeded choice among the values an entity attribute takes on this site."""
    args = [value_of(run, a) for a in call.args]
    if len(args) not in (1, 3) or not isinstance(args[0], str) or "." not in args[0]:
        raise run.error(
            'pick() takes "entity.attribute", optionally followed by a filter attribute and value',
            call,
            hint='e.g. pick("products.color") or pick("products.title", "stock", 0)',
        )
    table, _, attr = args[0].partition(".")
    entities = run.site.spec.entities
    if table not in entities:
        raise run.error(
            f"no entity table {table!r} on this site.{did_you_mean(table, entities)}",
            call.args[0],
        )
    rows = entities[table]
    fields = sorted(getattr(rows[0], "__slots__", None) or vars(rows[0])) if rows else []
    for field_name, node in (
        (attr, call.args[0]),
        *(((args[1], call.args[1]),) if len(args) == 3 else ()),
    ):
        if field_name not in fields:
            raise run.error(
                f"{table} have no attribute {field_name!r}.{did_you_mean(str(field_name), fields)}",
                node,
            )
    if len(args) == 3:
        rows = tuple(r for r in rows if getattr(r, str(args[1])) == args[2])
    values = sorted({str(getattr(r, attr)) for r in rows})
    if not values:
        raise run.error(
            f"no {table} with {args[1]} = {args[2]!r} on this site to pick from",
            call,
            hint="this task cannot be instantiated on this seed",
        )
    rng = SeedStream(run.site.spec.seed).child("task").child(run.task.name).child(name)
    chosen = rng.choice(values)
    # What each drawn value is: checks swap it for another of the same kind.
    picked: dict[str, Any] = {"from": args[0], "value": chosen}
    if len(args) == 3:  # its siblings: the other values drawn under the same filter
        picked["where"] = {str(args[1]): args[2]}
    run.bindings.setdefault("picked", {})[name] = picked
    return chosen


def is_number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def type_name(x: Any) -> str:
    """What kind of value `x` is, in words ("a number", "text")."""
    if isinstance(x, bool):
        return "a boolean"
    if is_number(x):
        return "a number"
    if isinstance(x, str):
        return "text"
    return type(x).__name__


def jsonable(x: Any) -> Any:
    return x if isinstance(x, (str, int, float, bool)) or x is None else str(x)


def option_term(value: Any) -> str:
    """A select step's value as the option text it names (`true`, not `True`)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
