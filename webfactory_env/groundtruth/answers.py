"""Checks of an extraction task's answer key: every right answer in every spelling passes;
lists, hedges and negations fail."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable
from typing import Any

from webfactory_env.core.answers import AnswerKey, grade
from webfactory_env.core.predicates import _thaw
from webfactory_env.tasks import CompiledTask


def check_answers(task: CompiledTask) -> list[str]:
    """(d): tied answers and their reformattings pass; hedged and negated ones fail."""
    problems: list[str] = []
    ending = next((c for c in task.goal if c.kind == "answer"), None)
    if ending is None:
        return problems
    key_json = next(
        (p.value for p in walk(ending.predicate) if getattr(p, "op", "") == "answer"), None
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


def walk(p: Any) -> Iterable[Any]:
    yield p
    for child in getattr(p, "items", ()) or ():
        yield from walk(child)
    item = getattr(p, "item", None)
    if item is not None:
        yield from walk(item)


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


def accepted_answers(conjunct: Any) -> list[str]:
    for p in walk(conjunct.predicate):
        if getattr(p, "op", "") == "answer":
            return list(AnswerKey.from_json(_thaw(p.value)).accepted)
    return []
