"""The travel site's validation rules: pure functions of what a traveller typed."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Mapping

from webfactory_env.core.typed import parse_code, parse_date, parse_phone

BOOKING_WINDOW_DAYS = 330
MAX_NIGHTS = 30
PASSENGER_FIELDS = ("first_name", "last_name", "email", "phone", "loyalty_number")
REQUIRED_PASSENGER = ("first_name", "last_name", "email")
_NAME = re.compile(r"^[^\W\d_]+(?:[ '\-.][^\W\d_]+)*\.?$")
_EMAIL = re.compile(r"^[^@\s]+@[^@\s.]+(?:\.[^@\s.]+)*\.[A-Za-z]{2,}$")
_LOYALTY = re.compile(r"^[A-Z]{2}\d{8}$")


def nights_between(checkin: str, checkout: str) -> int:
    """Nights from one date to another (0 unless both are dates)."""
    a, b = parse_date(checkin), parse_date(checkout)
    return (b - a).days if a and b else 0


def normalize_date(text: str) -> str:
    """A typed date as ISO when it parses, else as typed (trimmed): the page shows it."""
    d = parse_date(text)
    return d.isoformat() if d else text.strip()[:20]


def validate_passenger(values: Mapping[str, str], strict: bool = False) -> dict[str, str]:
    """Field -> error key for every invalid passenger field (empty when valid)."""
    errors: dict[str, str] = {}
    for name in REQUIRED_PASSENGER:
        if not values.get(name, "").strip():
            errors[name] = "required"
    for name in ("first_name", "last_name"):
        v = values.get(name, "").strip()
        if name not in errors and (not _NAME.match(v) or (strict and len(v) < 2)):
            errors[name] = "name"
    email = values.get("email", "").strip()
    if "email" not in errors and not _EMAIL.match(email):
        errors["email"] = "email"
    # Phone and loyalty numbers are read as their value type reads them (`core.typed`), so
    # the spellings this page accepts for one number are the spellings a goal accepts.
    phone = values.get("phone", "")
    digits = parse_phone(phone)
    if phone.strip() and (digits is None or not 10 <= len(digits) <= 15):
        errors["phone"] = "phone"
    loyalty = values.get("loyalty_number", "")
    code = parse_code(loyalty)
    if loyalty.strip() and (code is None or not _LOYALTY.match(code)):
        errors["loyalty_number"] = "loyalty_number"
    return errors


def validate_dates(
    first: str,
    second: str,
    today: dt.date,
    *,
    second_required: bool,
    names: tuple[str, str],
    min_gap: int,
    max_gap: int | None,
) -> dict[str, str]:
    """Errors of a date pair (departure and return, or check-in and check-out)."""
    errors: dict[str, str] = {}
    a, b = parse_date(first), parse_date(second)
    last = today + dt.timedelta(days=BOOKING_WINDOW_DAYS)
    if not first.strip():
        errors[names[0]] = "required"
    elif a is None:
        errors[names[0]] = "date"
    elif a < today:
        errors[names[0]] = "past"
    elif a > last:
        errors[names[0]] = "too_far"
    if not second_required:
        return errors
    if not second.strip():
        errors[names[1]] = "required"
    elif b is None:
        errors[names[1]] = "date"
    elif a is not None and (b - a).days < min_gap:
        errors[names[1]] = "before_start" if min_gap == 0 else "no_nights"
    elif b > last + dt.timedelta(days=MAX_NIGHTS):
        errors[names[1]] = "too_far"
    elif a is not None and max_gap is not None and (b - a).days > max_gap:
        errors[names[1]] = "too_long"
    return errors


def stay_errors(checkin: str, checkout: str, today: dt.date) -> dict[str, str]:
    """Errors of a hotel stay's dates: at least one night, at most `MAX_NIGHTS`."""
    return validate_dates(
        checkin,
        checkout,
        today,
        second_required=True,
        names=("checkin_date", "checkout_date"),
        min_gap=1,
        max_gap=MAX_NIGHTS,
    )
