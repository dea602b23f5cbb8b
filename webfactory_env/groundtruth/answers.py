"""Checks of an extraction task's answer key: every right answer in every spelling passes;
lists, hedges and negations fail."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable
from typing import Any

from webfactory_env.core.answer_values import COUNT_WORDS, number_spans, phrase
from webfactory_env.core.answers import AnswerKey
from webfactory_env.core.domains import domain
from webfactory_env.core.predicates import _thaw
from webfactory_env.tasks import CompiledTask
from webfactory_env.tasks.goal import Conjunct


def check_answers(task: CompiledTask) -> tuple[int, list[str]]:
    """(d): tied answers and their reformattings pass; hedged and negated ones fail. Returns
    how many right-answer spellings passed, and the problems."""
    problems: list[str] = []
    conjunct, key = answer_conjunct(task), answer_key(task)
    if conjunct is None or key is None:
        return 0, problems
    passed = 0
    for value in key.accepted:
        for variant in right_answers(value, key):
            if says(conjunct, variant):
                passed += 1
            else:
                problems.append(f"a right answer fails: {variant!r} (accepted {key.accepted})")
    others = [c for c in key.candidates if c not in key.accepted]
    if others:
        shotgun = ", ".join([key.accepted[0], *others[:5]])
        if says(conjunct, shotgun):
            problems.append(f"a list of candidates passes: {shotgun!r}")
    if key.kind != "bool" and says(conjunct, f"not {key.accepted[0]}"):
        problems.append(f"a negated answer passes: 'not {key.accepted[0]}'")
    if key.kind in ("number", "money", "count") and says(
        conjunct, " ".join(str(n) for n in range(0, 201))
    ):
        problems.append("a list of every number from 0 to 200 passes")
    return passed, problems


def answer_conjunct(task: CompiledTask) -> Conjunct | None:
    return next((c for c in task.goal if c.kind == "answer"), None)


def answer_key(task: CompiledTask) -> AnswerKey | None:
    """The key the task's answer conjunct grades with, as the compiled task holds it."""
    conjunct = answer_conjunct(task)
    if conjunct is None:
        return None
    found = next(p.value for p in walk(conjunct.predicate) if getattr(p, "op", "") == "answer")
    return AnswerKey.from_json(_thaw(found))


def accepted_answers(conjunct: Any) -> list[str]:
    for p in walk(conjunct.predicate):
        if getattr(p, "op", "") == "answer":
            return list(AnswerKey.from_json(_thaw(p.value)).accepted)
    return []


def says(conjunct: Conjunct, answer: str) -> bool:
    """Whether `done(true, answer)` satisfies the task's answer conjunct."""
    agent = {"done": True, "claimed": True, "answer": answer}
    return conjunct.predicate.holds({"agent": agent})


def walk(p: Any) -> Iterable[Any]:
    yield p
    for child in getattr(p, "items", ()) or ():
        yield from walk(child)
    item = getattr(p, "item", None)
    if item is not None:
        yield from walk(item)


def right_answers(value: str, key: AnswerKey) -> list[str]:
    """`value` as people write it: other case and spacing, inside a short sentence, and
    in the other forms of its kind (currency signs and codes, thousands separators, a
    count in words, 12- and 24-hour times, written dates, a place with its country)."""
    out = [value, value.upper(), value.lower(), f"  {value}  ", f"The answer is {value}."]
    kind = key.kind
    if kind in ("number", "money", "count"):
        found = number_spans(value.replace(",", ""))
        if not found:
            return out
        n = float(found[0].value)  # type: ignore[arg-type]
        out += [f"{n:,.2f}", f"{n:,.0f}" if n == int(n) else f"{n:,.2f}", f"{n:g}"]
        if kind == "money":
            out += [f"${n:,.2f}", f"{n:.2f} USD", f"USD {n:,.2f}", f"It costs ${n:,.2f}."]
        if kind == "count" and n == int(n):
            words = [w for w, i in COUNT_WORDS.items() if i == int(n)]
            out += [f"There are {int(n)}.", *(w.title() for w in words)]
    if kind == "time":
        h, m = (int(x) for x in value.split(":"))
        half = "am" if h < 12 else "pm"
        out += [f"{h:02d}:{m:02d}", f"{h}:{m:02d}", f"{(h - 1) % 12 + 1}:{m:02d} {half}"]
    if kind == "date":
        d = dt.date.fromisoformat(value)
        out += [d.strftime("%B %-d, %Y"), d.strftime("%-d %B %Y"), d.strftime("%a %b %-d %Y")]
    if kind == "bool":
        out += [f"{value.title()}.", f"{value.upper()}!"]
    if kind in ("person", "place", "status", "reference", "text"):
        out += [value.title(), f"It is {value}.", f"{value}."]
    if kind == "status":
        out += [f"The status is {value}.", f"It has been {value}."]
    if key.domain:
        own = domain(key.domain).qualifiers.get(phrase(value), frozenset())
        for q in sorted(own):
            out += [f"{value}, {q.title()}", f"{value} ({q.title()})"]
    return [v for v in dict.fromkeys(out) if re.search(r"\S", v)]
