"""The shop's validation rules: pure functions of what a customer typed."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Mapping

from webfactory_env.core.typed import parse_card, parse_postal

SHIPPING_FIELDS = ("full_name", "address_line1", "city", "postal_code")
CARD_FIELDS = ("card_number", "expiry", "cvc", "card_name")
STREET = re.compile(
    r"\b(st|street|ave|avenue|rd|road|blvd|ln|lane|dr|drive|way|ct|pl|sq)\b\.?", re.I
)
_NAME = re.compile(r"^[^\W\d_]+(?:[ '\-.][^\W\d_]+)+$")
_ZIP = re.compile(r"^\d{5}(?:-\d{4})?$")


def validate_shipping(values: Mapping[str, str], strict: bool = False) -> dict[str, str]:
    """Field -> error key for every invalid shipping field (empty when valid)."""
    errors: dict[str, str] = {}
    for name in SHIPPING_FIELDS:
        if not values.get(name, "").strip():
            errors[name] = "required"
    name = values.get("full_name", "").strip()
    if "full_name" not in errors and not _NAME.match(name):
        errors["full_name"] = "full_name"
    addr = values.get("address_line1", "").strip()
    has_digit = any(c.isdigit() for c in addr)
    has_alpha = any(c.isalpha() for c in addr)
    ok_addr = has_digit and has_alpha and len(addr) >= 5 and (not strict or STREET.search(addr))
    if "address_line1" not in errors and not ok_addr:
        errors["address_line1"] = "address_line1"
    city = values.get("city", "").strip()
    if "city" not in errors and (
        len(city) < 2 or not all(c.isalpha() or c in " .-'" for c in city)
    ):
        errors["city"] = "city"
    # Read as a postal code is read (`core.typed`): the spellings accepted are the goal's.
    postal = parse_postal(values.get("postal_code", "")) or ""
    if "postal_code" not in errors and not _ZIP.match(postal):
        errors["postal_code"] = "postal_code"
    return errors


def luhn_ok(number: str) -> bool:
    digits = [int(c) for c in parse_card(number) or ""]
    if not 13 <= len(digits) <= 19:
        return False
    total = 0
    for i, d in enumerate(reversed(digits)):
        if i % 2:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0


def validate_card(values: Mapping[str, str], today: dt.date) -> dict[str, str]:
    errors: dict[str, str] = {}
    if not luhn_ok(values.get("card_number", "")):
        errors["card_number"] = "card_number"
    m = re.match(r"^\s*(\d{2})\s*/\s*(\d{2})\s*$", values.get("expiry", ""))
    if (
        not m
        or not 1 <= int(m.group(1)) <= 12
        or (2000 + int(m.group(2)), int(m.group(1))) < (today.year, today.month)
    ):
        errors["expiry"] = "expiry"
    if not re.match(r"^\d{3}$", values.get("cvc", "").strip()):
        errors["cvc"] = "cvc"
    if len(values.get("card_name", "").strip()) < 3:
        errors["card_name"] = "card_name"
    return errors
