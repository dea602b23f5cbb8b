"""Grading of free-text answers: one value of the kind asked for, normalised, tie-aware.

An extraction task compiles to an `AnswerKey`: every value that answers the question (the
value itself and, when the question is "first / best by X", every tied candidate's value),
the kind of value asked for (a number, an amount of money, a count, a date, a time, a
yes/no, a person, a place, a status, a reference, text), the domain of that kind (every
name, place or status word the site's family can produce, by name: see `core.domains`),
and the other candidates the page shows. An answer passes when it states exactly one value
of that kind and that value is accepted, after normalisation (case, spacing, currency signs
and codes, thousands separators, time and date formats, a place's own country), and
neither hedges nor negates it. So "$1,299.00" passes for 1299, "07:40" for "7:40", "Feb 23,
2026" for 2026-02-23, "Lisbon, Portugal" for Lisbon; "$320 or $321", "2-3", "Lisbon or
Porto", "maybe shipped", "Kwame Khan, Lars" and "not delivered" do not.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from webfactory_env.core.answer_values import (
    NO,
    YES,
    Found,
    date_spans,
    dates,
    hedged,
    negated,
    normalise,
    number_spans,
    numbers,
    phrase,
    time_spans,
    times,
    without,
    words,
)
from webfactory_env.core.domains import domain

__all__ = [
    "AnswerKey",
    "AnswerKind",
    "dates",
    "grade",
    "kind_of",
    "normalise",
    "numbers",
    "times",
    "words",
]

AnswerKind = Literal[
    "number", "money", "count", "date", "time", "bool",
    "person", "place", "status", "reference", "text",
]  # fmt: skip
KINDS: tuple[str, ...] = AnswerKind.__args__  # type: ignore[attr-defined]
NUMERIC = frozenset({"number", "money", "count"})


@dataclass(frozen=True)
class AnswerKey:
    """What answers a question: `accepted` values, their `kind`, the `domain` of that kind
    (a declared vocabulary's name, or "" when the kind has none) and the other
    `candidates` the page shows."""

    accepted: tuple[str, ...]
    kind: AnswerKind = "text"
    candidates: tuple[str, ...] = ()
    domain: str = ""

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "accepted": list(self.accepted),
            "kind": self.kind,
            "candidates": list(self.candidates),
        }
        if self.domain:
            out["domain"] = self.domain
        return out

    @classmethod
    def from_json(cls, data: Any) -> AnswerKey:
        if isinstance(data, Mapping):
            kind = data.get("kind", "text")
            return cls(
                tuple(str(v) for v in data.get("accepted", ())),
                kind if kind in KINDS else "text",
                tuple(str(v) for v in data.get("candidates", ())),
                str(data.get("domain", "")),
            )
        return cls((str(data),), kind_of([str(data)]))

    @property
    def shown(self) -> str:
        """The canonical answer (the first accepted value)."""
        return self.accepted[0] if self.accepted else ""


def kind_of(values: Iterable[Any]) -> AnswerKind:
    """The kind shared by all `values`, read from their form (text when they disagree)."""
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
# What an answer says: the values of the key's kind it names (accepted or not) and the
# text around them, where hedges and negations are looked for.
_Reading = tuple[set[Hashable], str]


def grade(answer: Any, key: AnswerKey) -> bool:
    """Whether `answer` states one value of `key`'s kind, that value is accepted, and
    nothing hedges or negates it."""
    if not isinstance(answer, str) or not key.accepted:
        return False
    text = normalise(answer).replace("'", "")
    if key.kind == "bool":
        named = set(words(text))
        want_yes = normalise(key.accepted[0]) in YES
        yes, no = bool(named & YES), bool(named & NO)
        return ((yes and not no) if want_yes else (no and not yes)) and not hedged(text)
    said, accepted, rest = _read(answer, text, key)
    if len(said) != 1 or not said <= accepted:
        return False  # none, another, or more than one: a list or a hedge, not an answer
    return not hedged(rest, approximate=key.kind in NUMERIC) and not negated(rest)


def _read(answer: str, text: str, key: AnswerKey) -> tuple[set[Hashable], set[Hashable], str]:
    """The values of the key's kind the answer names, those the key accepts, and the rest."""
    if key.kind in NUMERIC:
        counting = key.kind == "count"
        said, rest = _read_numbers(text, counting)
        accepted = {v for a in key.accepted for v in _read_numbers(normalise(a), counting)[0]}
        return said, accepted, rest
    if key.kind in ("time", "date"):
        year = _year(key.accepted[0])
        spans = time_spans if key.kind == "time" else (lambda t: date_spans(t, year))
        said, rest = _read_with(text, spans)
        accepted = {v for a in key.accepted for v in _read_with(normalise(a), spans)[0]}
        return said, accepted, rest
    phrases = {p for p in (phrase(a) for a in key.accepted) if p}
    said, rest = _read_names(text, key, phrases)
    if key.kind == "reference":
        said |= _other_references(answer, key)
    return said, set(phrases), rest


def _read_numbers(text: str, counting: bool) -> _Reading:
    found = number_spans(text, counting)
    return {f.value for f in found}, without(text, found)


def _read_with(text: str, spans: Any) -> _Reading:
    """Times or dates, and every number left over beside them (a second day or hour)."""
    found: list[Found] = spans(text)
    rest = without(text, found)
    extra = number_spans(rest)
    return {f.value for f in found} | {("number", f.value) for f in extra}, without(rest, extra)


def _year(value: str) -> int | None:
    m = re.match(r"(\d{4})-", value.strip())
    return int(m.group(1)) if m else None


_WORD = r"0-9a-z\u00c0-\uffff"


def _spans(p: str, text: str) -> list[Found]:
    """Where the phrase `p` stands in `text`, whatever punctuation sits between its words."""
    pattern = rf"(?<![{_WORD}])" + rf"[^{_WORD}]+".join(map(re.escape, p.split()))
    return [Found(p, m.start(), m.end()) for m in re.finditer(pattern + rf"(?![{_WORD}])", text)]


def _read_names(text: str, key: AnswerKey, accepted: set[str]) -> _Reading:
    """Names, places, statuses, references and other text: the accepted phrases found
    (longest first, so "Sam Lee" is one person and not also "Lee"), then every other
    value of the domain or of the page's candidates left in the rest."""
    said: set[Hashable] = set()
    found: list[Found] = []
    vocabulary = domain(key.domain) if key.domain else None
    for p in sorted(accepted, key=len, reverse=True):
        spans = [s for s in _spans(p, text) if not any(_overlap(s, f) for f in found)]
        if spans:
            said.add(p)
            found += spans
            # A place qualified by its own country or region is one place.
            for q in vocabulary.qualifiers.get(p, ()) if vocabulary else ():
                found += [s for s in _spans(q, text) if not any(_overlap(s, f) for f in found)]
    rest = without(text, found)
    padded = f" {phrase(rest)} "
    own = {w for p in said for w in str(p).split()}
    if vocabulary is not None:
        # A first name or surname of the accepted person is that person again.
        said |= {
            ("other", hit)
            for hit in vocabulary.find(padded)
            if hit in vocabulary.phrases or hit not in own
        }
    others = {phrase(c) for c in key.candidates} - accepted - {""}
    said |= {("other", c) for c in others if f" {c} " in padded}
    return said, rest


def _overlap(a: Found, b: Found) -> bool:
    return a.start < b.end and b.start < a.end


def _other_references(answer: str, key: AnswerKey) -> set[Hashable]:
    """Codes shaped like the accepted reference ("CMGZQH" beside "TNKP8G"): written in
    capitals, or mixing letters and digits, so that ordinary words are not codes."""
    shapes = {re.sub(r"[A-Za-z0-9]", "x", a.strip()) for a in key.accepted}
    mine = {a.strip().casefold() for a in key.accepted}
    out: set[Hashable] = set()
    text = unicodedata.normalize("NFKC", answer)
    for m in re.finditer(r"(?<![A-Za-z0-9-])[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*(?![A-Za-z0-9])", text):
        token = m.group(0)
        coded = token.isupper() or (re.search(r"\d", token) and re.search(r"[A-Za-z]", token))
        shaped = re.sub(r"[A-Za-z0-9]", "x", token) in shapes
        if coded and shaped and token.casefold() not in mine:
            out.add(("other", token.casefold()))
    return out
