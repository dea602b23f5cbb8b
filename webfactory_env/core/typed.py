"""Typed values: what a phone number, e-mail address, card number, date, postal code or code
typed into a form means, whatever its spelling.

A site family declares once which fields hold a typed value (`sitegen.state.typed`). Goals
and subgoals then compare those fields by meaning (`Eq(path, value, as_="phone")`), and
the family's validation reads the same `parse`, so whatever the site accepts as one value
is that value to the goal too: `+14155550188` and `+1 415 555 0188` are one phone number.

Each type has `parse` (the canonical form of a spelling it accepts, else None) and
`spellings` (other ways a person would type the same value, which the ground-truth suite's
format mutants type instead: every one of them must succeed).
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

_PHONE = re.compile(r"^\+?[\d\s().\-]+$")
_CARD = re.compile(r"^[\d\s\-]+$")
_POSTAL = re.compile(r"^[A-Z0-9][A-Z0-9 \-]{1,9}$")
DATE_FORMATS = ("%Y-%m-%d", "%Y/%m/%d", "%m/%d/%Y")  # the forms people type, ISO first


def _digits(text: str) -> str:
    return "".join(ch for ch in text if ch.isdigit())


def parse_phone(text: str) -> str | None:
    """A phone number's digits (the country code included, no `+`)."""
    text = text.strip()
    return _digits(text) if _PHONE.match(text) and _digits(text) else None


def parse_email(text: str) -> str | None:
    """An e-mail address without surrounding spaces, in lower case."""
    text = text.strip()
    return text.casefold() if text.count("@") == 1 and " " not in text else None


def parse_card(text: str) -> str | None:
    """A card number's digits (spaces and hyphens between groups are allowed)."""
    text = text.strip()
    return _digits(text) if _CARD.match(text) and _digits(text) else None


@lru_cache(maxsize=4096)
def parse_date(text: str) -> dt.date | None:
    """An ISO date, or the slashed forms people type (`2026/02/16`, `02/16/2026`)."""
    text = text.strip()
    for fmt in DATE_FORMATS:
        try:
            return dt.datetime.strptime(text, fmt).date()
        except ValueError:
            continue
    return None


def _date(text: str) -> str | None:
    found = parse_date(text)
    return found.isoformat() if found else None


def parse_postal(text: str) -> str | None:
    """A postal code in capitals with single spaces (`sw1a  1aa` is `SW1A 1AA`)."""
    text = " ".join(text.split()).upper()
    return text if _POSTAL.match(text) else None


def parse_code(text: str) -> str | None:
    """A code people read out in groups (a loyalty number, a coupon): capitals, no spaces."""
    text = "".join(text.split()).upper()
    return text if text.isalnum() else None


def _phone_spellings(text: str) -> tuple[str, ...]:
    d = parse_phone(text) or ""
    if len(d) == 11 and d[0] == "1":  # a North American number with its country code
        groups = [d[0], d[1:4], d[4:7], d[7:]]
        dashed, spaced = "+" + "-".join(groups), f"+1 ({d[1:4]}) {d[4:7]}-{d[7:]}"
        return (d, "+" + d, dashed, spaced, ".".join(groups))
    groups = [d[i : i + 3] for i in range(0, len(d), 3)]
    return (d, "-".join(groups), "+" + d if not text.strip().startswith("+") else d)


def _email_spellings(text: str) -> tuple[str, ...]:
    local, _, domain = text.strip().partition("@")
    return (text.strip().upper(), f"{local.title()}@{domain.title()}", f"  {text.strip()} ")


def _card_spellings(text: str) -> tuple[str, ...]:
    d = parse_card(text) or ""
    groups = [d[i : i + 4] for i in range(0, len(d), 4)]
    return (d, " ".join(groups), "-".join(groups))


def _date_spellings(text: str) -> tuple[str, ...]:
    found = parse_date(text)
    return tuple(found.strftime(f) for f in DATE_FORMATS) if found else ()


def _postal_spellings(text: str) -> tuple[str, ...]:
    return (f" {text.strip()} ", text.strip().lower())


def _code_spellings(text: str) -> tuple[str, ...]:
    code = parse_code(text) or ""
    return (code.lower(), " ".join(code[i : i + 4] for i in range(0, len(code), 4)))


@dataclass(frozen=True)
class ValueType:
    """One kind of typed value: its canonical form and its other spellings."""

    name: str
    parse: Callable[[str], str | None]
    spellings: Callable[[str], tuple[str, ...]]

    def canonical(self, value: Any) -> Any:
        """`value`'s canonical form; text that is no such value stays as typed (trimmed)."""
        if not isinstance(value, str):
            return value
        return self.parse(value) or value.strip()

    def respell(self, value: str) -> tuple[str, ...]:
        """Spellings of `value` other than `value` itself, each meaning the same."""
        mine = self.canonical(value)
        out = [s for s in self.spellings(value) if s != value and self.canonical(s) == mine]
        return tuple(dict.fromkeys(out))


VALUE_TYPES: dict[str, ValueType] = {
    t.name: t
    for t in (
        ValueType("phone", parse_phone, _phone_spellings),
        ValueType("email", parse_email, _email_spellings),
        ValueType("card", parse_card, _card_spellings),
        ValueType("date", _date, _date_spellings),
        ValueType("postal", parse_postal, _postal_spellings),
        ValueType("code", parse_code, _code_spellings),
    )
}


def canonical(type_name: str, text: str) -> str:
    """`text` as a site keeps a value of that type: its canonical form (a date in ISO),
    or as typed (trimmed) when it is no such value."""
    return str(VALUE_TYPES[type_name].canonical(text))


def meaning(as_: Any, value: Any) -> Any:
    """What `value` means as `as_` says: a type's name (`"phone"`), or a mapping of key ->
    type name for a mapping of typed values (`{"phone": "phone", "email": "email"}`);
    keys the mapping does not name, and untyped values, compare as they are."""
    if isinstance(as_, str):
        return VALUE_TYPES[as_].canonical(value)
    if isinstance(as_, Mapping) and isinstance(value, Mapping):
        return {k: meaning(as_.get(k), v) for k, v in value.items()}
    return value
