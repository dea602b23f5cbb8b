"""Hedge mutants of an extraction task's answer: the right answer joined with a second value
of its kind ("X or Y", "X, Y", "X and/or Y", a range, a near miss, every status at once) or
softened ("maybe X", "probably X"). The task's own answer conjunct must reject every one."""

from __future__ import annotations

import datetime as dt
import zlib
from collections.abc import Sequence

from webfactory_env.core.answer_values import number_spans, phrase, words
from webfactory_env.core.answers import NUMERIC, AnswerKey
from webfactory_env.core.domains import Domain, domain
from webfactory_env.groundtruth.answers import answer_conjunct, answer_key, says
from webfactory_env.tasks import CompiledTask

REFERENCE_LETTERS = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
MAX_LIST = 40  # "every value at once" only for domains a person could list


def check_hedges(task: CompiledTask) -> tuple[int, list[str]]:
    """How many hedge mutants of the task's answer were tried, and those that passed."""
    conjunct, key = answer_conjunct(task), answer_key(task)
    if conjunct is None or key is None:
        return 0, []
    mutants = hedges(key)
    passed = [h for h in mutants if says(conjunct, h)]
    return len(mutants), [
        f"a hedged answer passes: {h!r} (accepted {key.accepted})" for h in passed
    ]


def hedges(key: AnswerKey) -> list[str]:
    """Every hedge of `key`'s first accepted answer: each names a second value of the kind,
    or softens the one it names."""
    right = key.accepted[0]
    out = [f"maybe {right}", f"probably {right}", f"{right}, possibly", f"either {right}"]
    for other in second_values(key):
        out += [
            f"{right} or {other}",
            f"{other} or {right}",
            f"{right}, {other}",
            f"{right} and/or {other}",
            f"either {right} or {other}",
            f"{right}, or maybe {other}",
            f"{right}/{other}",
        ]
        if key.kind in NUMERIC | {"time", "date"}:
            out += [f"{right}-{other}", f"{right} to {other}", f"between {right} and {other}"]
    if key.kind in NUMERIC:
        out += [f"about {right}", f"at least {right}", f"~{right}"]
    if key.kind == "money":
        out += [f"${right} or ${_shift(right, 1)}", f"{right} USD, maybe {_shift(right, 0.01)}"]
    vocabulary = domain(key.domain) if key.domain else None
    if vocabulary is not None and 1 < len(vocabulary.phrases) <= MAX_LIST:
        # A list of every value the site can show (every order status) names the right one.
        out.append(", ".join(sorted(vocabulary.phrases)))
    return list(dict.fromkeys(out))


def second_values(key: AnswerKey) -> list[str]:
    """Other values of the key's kind: near misses of a number, time or date (±1, ±0.01 of
    money), another name, place or status from the whole domain, a code like the
    reference, another candidate the page shows."""
    right = key.accepted[0]
    taken = {phrase(a) for a in key.accepted}
    page = [c for c in key.candidates if phrase(c) not in taken]
    if key.kind in NUMERIC:
        steps = (1, -1, 0.01) if key.kind == "money" else (1, -1)
        near = [_shift(right, s) for s in steps]
        return [n for n in near if not n.startswith("-")] + page[:1]
    if key.kind == "time":
        h, m = (int(x) for x in right.split(":"))
        return [f"{(h * 60 + m + d) // 60 % 24}:{(m + d) % 60:02d}" for d in (1, 60)]
    if key.kind == "date":
        day = dt.date.fromisoformat(right)
        return [(day + dt.timedelta(days=d)).isoformat() for d in (1, -1)]
    if key.kind == "bool":
        return ["no" if phrase(right) in ("yes", "true") else "yes"]
    out = page[:1]
    if key.kind == "reference":
        out.append(right[:-1] + _other_letter(right[-1]))
    vocabulary = domain(key.domain) if key.domain else None
    if vocabulary is not None:
        out += _from_domain(vocabulary, right, taken)
    return list(dict.fromkeys(out))


def _from_domain(vocabulary: Domain, right: str, taken: set[str]) -> list[str]:
    """Another phrase (a city of the same country first), another name made of the
    domain's parts, and one part alone ("Lars"), none of them the right answer's own."""
    own = set(words(right)) | {q for t in taken for q in vocabulary.qualifiers.get(t, ())}
    out: list[str] = []
    phrases = sorted(vocabulary.phrases - taken - own)
    if phrases:
        mine = {q for t in taken for q in vocabulary.qualifiers.get(t, ())}
        near = [p for p in phrases if vocabulary.qualifiers.get(p, frozenset()) & mine]
        out += [(near or phrases)[0].title(), _pick(phrases, right).title()]
    parts = sorted(p for p in vocabulary.parts if p not in own)
    if len(parts) >= 2:
        first = _pick(parts, right)
        second = _pick([p for p in parts if p != first], right + "|2")
        out += [f"{first} {second}".title(), first.title()]
    return out


def _pick(values: Sequence[str], seed: str) -> str:
    """One of `values`, chosen by `seed` (the same every run)."""
    return values[zlib.crc32(seed.encode()) % len(values)]


def _shift(value: str, by: float) -> str:
    n = number_spans(value.replace("$", ""))
    base = float(n[0].value) if n else 0.0  # type: ignore[arg-type]
    out = round(base + by, 2)
    return f"{out:.2f}" if by != int(by) or "." in value else str(int(out))


def _other_letter(c: str) -> str:
    letters = REFERENCE_LETTERS if c.isupper() or c.isdigit() else REFERENCE_LETTERS.lower()
    i = letters.find(c)
    return letters[(i + 1) % len(letters)] if i >= 0 else ("A" if c != "A" else "B")
