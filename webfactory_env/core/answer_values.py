"""Reading values out of an answer's text: numbers, amounts, times and dates with where
they stand, and the words that hedge or negate an answer. Pure functions over strings."""

from __future__ import annotations

import contextlib
import datetime as dt
import re
import unicodedata
from collections.abc import Hashable
from dataclasses import dataclass

NEGATIONS = frozenset(
    {"not", "no", "never", "none", "neither", "nor", "without", "isnt", "wasnt", "arent",
     "werent", "doesnt", "didnt", "dont", "hasnt", "havent", "cannot", "cant", "non"}
)  # fmt: skip
# Words that make an answer two answers, or none: "X or Y", "maybe X", "either".
HEDGES = frozenset(
    {"or", "maybe", "perhaps", "possibly", "either", "probably", "might", "likely", "unsure",
     "guess"}
)  # fmt: skip
# What makes a number an estimate or a bound: "about 320", "at least 3", "~3".
_APPROXIMATE = re.compile(
    r"\b(?:about|around|approx(?:imately)?|roughly|circa|nearly|almost|at least|at most"
    r"|more than|less than|fewer than|up to)\b|[~±≈]"
)
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
COUNT_WORDS = {
    w: i
    for i, w in enumerate(
        ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
         "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen",
         "eighteen", "nineteen", "twenty")
    )
}  # fmt: skip


@dataclass(frozen=True)
class Found:
    """One value read from a text: its canonical form and where it stands."""

    value: Hashable
    start: int
    end: int


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


def phrase(text: str) -> str:
    """`text` as its words joined by single spaces: what phrases are matched on."""
    return " ".join(words(text))


# ------------------------------------------------------------------- numbers
# A number stands alone: not inside a code ("SKU-8EDB", "12a"), though a currency code may
# follow it ("45usd").
_NUMBER = re.compile(
    r"(?<![\w.])-?(?:\d{1,3}(?:[ ,]\d{3})+|\d+)(?:\.\d+)?(?![0-9_]|(?!usd|eur|gbp)[^\W\d_])"
)


def number_spans(text: str, counting: bool = False) -> list[Found]:
    """Numbers in normalised `text`, thousands separators understood ("$1,299.00" is 1299);
    with `counting`, also the number words of a count ("three")."""
    found = []
    for m in _NUMBER.finditer(text):
        raw = m.group(0).replace(",", "").replace(" ", "")
        with contextlib.suppress(ValueError):
            found.append(Found(round(float(raw), 2), m.start(), m.end()))
    if counting:
        for m in re.finditer(r"[a-z]+", text):
            if m.group(0) in COUNT_WORDS:
                found.append(Found(float(COUNT_WORDS[m.group(0)]), m.start(), m.end()))
    return sorted(found, key=lambda f: f.start)


def numbers(text: str) -> list[float]:
    """Numbers in `text`, with thousands separators and currency signs understood."""
    return [float(f.value) for f in number_spans(normalise(text))]  # type: ignore[arg-type]


# --------------------------------------------------------------------- times
_TIME = re.compile(r"\b(\d{1,2})\s*[:.h]\s*(\d{2})\s*(a\.?m\.?|p\.?m\.?)?(?![\d])", re.I)
_HOUR = re.compile(r"\b(\d{1,2})\s*(a\.?m\.?|p\.?m\.?)(?![a-z])")


def time_spans(text: str) -> list[Found]:
    """Times of day in normalised `text`, as minutes after midnight ("7:40 pm" → 1180;
    "7 pm" → 1140)."""
    out = []
    for pattern in (_TIME, _HOUR):
        for m in pattern.finditer(text):
            hour = int(m.group(1))
            minute = int(m.group(2)) if pattern is _TIME else 0
            half = (m.group(m.lastindex or 0) or "").replace(".", "")
            if half == "pm" and hour < 12:
                hour += 12
            elif half == "am" and hour == 12:
                hour = 0
            if 0 <= hour < 24 and 0 <= minute < 60:
                out.append(Found(hour * 60 + minute, m.start(), m.end()))
    return _disjoint(out)


def times(text: str) -> list[int]:
    """Times of day in `text`, as minutes after midnight ("7:40 pm" → 1180)."""
    return [int(f.value) for f in time_spans(normalise(text))]  # type: ignore[call-overload]


# --------------------------------------------------------------------- dates
_MONTH = r"(" + "|".join(sorted(MONTHS, key=len, reverse=True)) + r")\.?"


def date_spans(text: str, year: int | None = None) -> list[Found]:
    """Calendar dates in normalised `text` (ISO, "23 February 2026", "Feb 23, 2026",
    "23/02/2026"); a date without a year takes `year`."""
    out: list[Found] = []

    def add(m: re.Match[str], y: int | None, month: int, day: int) -> None:
        y = y if y is not None else year
        if y is None:
            return
        with contextlib.suppress(ValueError):  # 31 February is no date
            out.append(Found(dt.date(y, month, day), m.start(), m.end()))

    for m in re.finditer(r"\b(\d{4})-(\d{1,2})-(\d{1,2})\b", text):
        add(m, int(m.group(1)), int(m.group(2)), int(m.group(3)))
    for m in re.finditer(
        rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH}(?:,?\s+(\d{{4}})(?![-\d]))?", text
    ):
        add(m, int(m.group(3)) if m.group(3) else None, MONTHS[m.group(2)], int(m.group(1)))
    for m in re.finditer(
        rf"\b{_MONTH}\s+(\d{{1,2}})(?:st|nd|rd|th)?(?:,?\s+(\d{{4}})(?![-\d]))?", text
    ):
        add(m, int(m.group(3)) if m.group(3) else None, MONTHS[m.group(1)], int(m.group(2)))
    for m in re.finditer(r"\b(\d{1,2})/(\d{1,2})/(\d{4})\b", text):
        a, b, y = int(m.group(1)), int(m.group(2)), int(m.group(3))
        # Day and month are read both ways only when that cannot be ambiguous.
        if a > 12:
            add(m, y, b, a)
        elif b > 12 or a == b:
            add(m, y, a, b)
    return _disjoint(out)


def dates(text: str, year: int | None = None) -> list[dt.date]:
    """Calendar dates in `text` (ISO, "23 February 2026", "Feb 23, 2026", "23/02/2026");
    a date without a year takes `year`."""
    return [f.value for f in date_spans(normalise(text), year)]  # type: ignore[misc]


def _disjoint(found: list[Found]) -> list[Found]:
    """The longest readings that do not overlap, in text order ("7 pm" inside "7:00 pm"
    is the same time read twice)."""
    kept: list[Found] = []
    for f in sorted(found, key=lambda f: (f.start, -(f.end - f.start))):
        if not kept or f.start >= kept[-1].end:
            kept.append(f)
    return kept


# ------------------------------------------------------------- what is left
def without(text: str, spans: list[Found]) -> str:
    """`text` with each found value cut out (replaced by a bar, so words do not join)."""
    out, at = [], 0
    for f in sorted(spans, key=lambda f: f.start):
        if f.start >= at:
            out.append(text[at : f.start] + " | ")
            at = f.end
    return "".join(out) + text[at:]


def hedged(rest: str, approximate: bool = False) -> bool:
    """Whether the text around the value hedges: "or", "maybe", "not sure", a slash
    between words ("and/or", "A/B"); with `approximate`, also "about", "at least", "~"."""
    said = set(words(rest))
    if said & HEDGES or re.search(r"(?<!\d)/|/(?!\d)", rest):
        return True
    return approximate and bool(_APPROXIMATE.search(rest))


def negated(rest: str) -> bool:
    return bool(set(words(rest)) & NEGATIONS)
