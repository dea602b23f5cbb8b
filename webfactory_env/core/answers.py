"""Grading of free-text answers: normalised, tie-aware, and strict about hedging.

An extraction task compiles to an `AnswerKey`: every value that answers the question (the
value itself and, when the question is "first / best by X", every tied candidate's value),
the kind of value (a number, an amount of money, a time, a date, a yes/no, text), and the
other candidates of the same kind the site shows. An answer passes when it states an
accepted value after normalisation (case, spacing, currency signs, thousands separators,
leading zeros in times, date formats), does not also state another candidate, and does not
negate what it states. So "$1,299.00" passes for 1299, "07:40" for "7:40", "Feb 23, 2026"
for 2026-02-23; "0 1 2 … 200", "Sam, Alex or Kim" and "not delivered" do not.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import re
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

AnswerKind = Literal["number", "time", "date", "bool", "text"]
MAX_NUMBERS = 3  # more distinct numbers than this in one answer is a list, not an answer
NEGATIONS = frozenset(
    {"not", "no", "never", "none", "neither", "nor", "without", "isnt", "wasnt", "arent",
     "werent", "doesnt", "didnt", "dont", "hasnt", "havent", "cannot", "cant", "non"}
)  # fmt: skip
YES = frozenset({"yes", "true", "y", "yep", "correct"})
NO = frozenset({"no", "false", "n", "nope"})
MONTHS = {
    m: i + 1
    for i, names in enumerate(
        ("jan january", "feb february", "mar march", "apr april", "may", "jun june",
         "jul july", "aug august", "sep sept september", "oct october", "nov november",
         "dec december")
    )
    for m in names.split()
}  # fmt: skip


@dataclass(frozen=True)
class AnswerKey:
    """What answers a question: `accepted` values, their `kind`, and the other
    `candidates` of that kind an agent could have named instead."""

    accepted: tuple[str, ...]
    kind: AnswerKind = "text"
    candidates: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "accepted": list(self.accepted),
            "kind": self.kind,
            "candidates": list(self.candidates),
        }

    @classmethod
    def from_json(cls, data: Any) -> AnswerKey:
        if isinstance(data, Mapping):
            return cls(
                tuple(str(v) for v in data.get("accepted", ())),
                data.get("kind", "text"),
                tuple(str(v) for v in data.get("candidates", ())),
            )
        return cls((str(data),), kind_of([str(data)]))

    @property
    def shown(self) -> str:
        """The canonical answer (the first accepted value)."""
        return self.accepted[0] if self.accepted else ""


# ------------------------------------------------------------------ normalising
def normalise(text: str) -> str:
    """Lower case, compatibility forms, one kind of space, no zero-width characters."""
    text = unicodedata.normalize("NFKC", text).casefold()
    text = re.sub(r"[\u200b-\u200d\u2060\ufeff]", "", text)
    text = re.sub(r"[\u2010-\u2015\u2212]", "-", text)
    text = text.replace("\u2019", "'").replace("\u2018", "'")
    return re.sub(r"\s+", " ", text).strip()


def words(text: str) -> list[str]:
    """Word tokens: letters and digits (apostrophes dropped: "isn't" → "isnt")."""
    return re.findall(r"[0-9a-z\u00c0-\uffff]+", normalise(text).replace("'", ""))


_NUMBER = re.compile(
    r"(?<![\w.])-?\d{1,3}(?:[ ,]\d{3})+(?:\.\d+)?(?![\w])|(?<![\w.])-?\d+(?:\.\d+)?"
)


def numbers(text: str) -> list[float]:
    """Numbers in `text`, with thousands separators and currency signs understood."""
    found = []
    for m in _NUMBER.finditer(normalise(text).replace("\u00a0", " ")):
        raw = m.group(0).replace(",", "").replace(" ", "")
        try:
            found.append(float(raw))
        except ValueError:
            continue
    return found


_TIME = re.compile(r"\b(\d{1,2})\s*[:.h]\s*(\d{2})\s*(a\.?m\.?|p\.?m\.?)?(?![\d])", re.I)


def times(text: str) -> list[int]:
    """Times of day in `text`, as minutes after midnight ("7:40 pm" → 1180)."""
    out = []
    for m in _TIME.finditer(normalise(text)):
        hour, minute, half = int(m.group(1)), int(m.group(2)), (m.group(3) or "").replace(".", "")
        if half == "pm" and hour < 12:
            hour += 12
        elif half == "am" and hour == 12:
            hour = 0
        if 0 <= hour < 24 and 0 <= minute < 60:
            out.append(hour * 60 + minute)
    return out


def dates(text: str, year: int | None = None) -> list[dt.date]:
    """Calendar dates in `text` (ISO, "23 February 2026", "Feb 23, 2026", "23/02/2026");
    a date without a year takes `year`."""
    t = normalise(text)
    out: list[dt.date] = []

    def add(y: int | None, m: int, d: int) -> None:
        y = y if y is not None else year
        if y is None:
            return
        with contextlib.suppress(ValueError):  # 31 February is no date
            out.append(dt.date(y, m, d))

    for m in re.finditer(r"\b(\d{4})-(\d{1,2})-(\d{1,2})\b", t):
        add(int(m.group(1)), int(m.group(2)), int(m.group(3)))
    month = r"(" + "|".join(sorted(MONTHS, key=len, reverse=True)) + r")\.?"
    for m in re.finditer(
        rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?{month}(?:,?\s+(\d{{4}}))?", t
    ):
        add(int(m.group(3)) if m.group(3) else None, MONTHS[m.group(2)], int(m.group(1)))
    for m in re.finditer(rf"\b{month}\s+(\d{{1,2}})(?:st|nd|rd|th)?(?:,?\s+(\d{{4}}))?", t):
        add(int(m.group(3)) if m.group(3) else None, MONTHS[m.group(1)], int(m.group(2)))
    for m in re.finditer(r"\b(\d{1,2})/(\d{1,2})/(\d{4})\b", t):
        a, b, y = int(m.group(1)), int(m.group(2)), int(m.group(3))
        # Day and month are read both ways only when that cannot be ambiguous.
        if a > 12:
            add(y, b, a)
        elif b > 12 or a == b:
            add(y, a, b)
    return out


def kind_of(values: Iterable[Any]) -> AnswerKind:
    """The kind shared by all `values` (text when they disagree)."""
    kinds = set()
    for value in values:
        if isinstance(value, bool):
            kinds.add("bool")
        elif isinstance(value, (int, float)):
            kinds.add("number")
        else:
            s = str(value).strip()
            if re.fullmatch(r"\d{4}-\d{2}-\d{2}", s):
                kinds.add("date")
            elif re.fullmatch(r"\d{1,2}:\d{2}", s):
                kinds.add("time")
            elif s.lower() in ("yes", "no", "true", "false"):
                kinds.add("bool")
            elif re.fullmatch(r"[$€£]?\s?-?[\d,]+(?:\.\d+)?\s?(?:usd|eur|gbp)?", s.lower()):
                kinds.add("number")
            else:
                kinds.add("text")
    return kinds.pop() if len(kinds) == 1 else "text"  # type: ignore[return-value]


# ---------------------------------------------------------------------- grading
def grade(answer: Any, key: AnswerKey) -> bool:
    """Whether `answer` states what `key` accepts, and nothing that contradicts it."""
    if not isinstance(answer, str) or not key.accepted:
        return False
    if key.kind == "bool":
        said = set(words(answer))
        want_yes = normalise(key.accepted[0]) in YES
        yes, no = bool(said & YES), bool(said & NO)
        return (yes and not no) if want_yes else (no and not yes)
    if key.kind == "number":
        return _grade_number(answer, key)
    if key.kind == "time":
        return _grade_parsed(answer, key, times)
    if key.kind == "date":
        year = _year(key.accepted[0])
        return _grade_parsed(answer, key, lambda t: dates(t, year))
    return _grade_text(answer, key)


def _negated(text: str) -> bool:
    return bool(set(words(text)) & NEGATIONS)


def _as_float(value: str) -> float | None:
    found = numbers(value)
    return found[0] if len(found) == 1 else None


def _grade_number(answer: str, key: AnswerKey) -> bool:
    said = numbers(answer)
    accepted = [v for v in (_as_float(a) for a in key.accepted) if v is not None]
    others = [v for v in (_as_float(c) for c in key.candidates) if v is not None]
    others = [v for v in others if not any(abs(v - a) < 0.005 for a in accepted)]
    hits = [n for n in said if any(abs(n - a) < 0.005 for a in accepted)]
    if not hits or len({round(n, 2) for n in said}) > MAX_NUMBERS:
        return False
    if any(abs(n - o) < 0.005 for n in said for o in others):
        return False
    return not _negated(answer)


def _grade_parsed(answer: str, key: AnswerKey, parse: Any) -> bool:
    said = set(parse(answer))
    accepted = {v for a in key.accepted for v in parse(a)}
    others = {v for c in key.candidates for v in parse(c)} - accepted
    return bool(said & accepted) and not (said & others) and not _negated(answer)


def _year(value: str) -> int | None:
    m = re.match(r"(\d{4})-", value.strip())
    return int(m.group(1)) if m else None


def _phrase(value: str) -> str:
    return " ".join(words(value))


def _grade_text(answer: str, key: AnswerKey) -> bool:
    text = f" {_phrase(answer)} "
    accepted = [p for p in (_phrase(a) for a in key.accepted) if p]
    spans = sorted({*accepted, *(_phrase(c) for c in key.candidates)} - {""}, key=len, reverse=True)
    hit = False
    rest = text
    # Longest phrases first, so "Sam Lee" is one candidate and not also "Lee".
    for phrase in spans:
        needle = f" {phrase} "
        if needle in rest:
            if phrase in accepted:
                hit = True
            else:
                return False  # another candidate named too: a list, not an answer
            rest = rest.replace(needle, " | ")
    if not hit:
        return False
    return not (set(rest.split()) & NEGATIONS)
