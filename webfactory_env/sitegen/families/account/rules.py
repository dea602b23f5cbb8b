"""The account portal's rules: pure functions of what a visitor typed (password policy,
usernames, e-mail addresses, profile and API-key forms)."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass

from webfactory_env.core.typed import parse_date
from webfactory_env.sitegen.families.account.content import AVATAR_LIMIT_KB, AvatarFile

MIN_AGE = 13
RESERVED = ("admin", "root", "support", "security", "help", "system")


@dataclass(frozen=True)
class PasswordPolicy:
    """Which rules a new password must meet; stricter with difficulty."""

    min_length: int
    symbol: bool
    mixed_case: bool
    no_username: bool
    no_repeats: bool

    def rules(self) -> list[str]:
        keys = ["length", "digit"]
        keys += ["symbol"] * self.symbol + ["case"] * self.mixed_case
        keys += ["username"] * self.no_username + ["repeat"] * self.no_repeats
        return keys


POLICIES = {
    "easy": PasswordPolicy(8, False, False, False, False),
    "medium": PasswordPolicy(10, True, False, True, False),
    "hard": PasswordPolicy(12, True, True, True, True),
}
_USERNAME = re.compile(r"^[a-z][a-z0-9._]{2,19}$")
_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[a-z]{2,}$", re.I)
_DISPLAY = re.compile(r"^[A-Za-z0-9][A-Za-z0-9 ._'-]{1,22}[A-Za-z0-9.]$")
_FULL_NAME = re.compile(r"^[^\W\d_]+(?:[ '\-.][^\W\d_]+)*$")
_KEY_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9 ._-]{1,38}[A-Za-z0-9]$")


def password_problems(
    password: str, policy: PasswordPolicy, username: str = "", email: str = ""
) -> list[str]:
    """The rules (keys of `policy.rules()`) that `password` does not meet yet."""
    low = password.lower()
    names = [x.lower() for x in (username, email.partition("@")[0]) if len(x) >= 3]
    broken = {
        "length": len(password) < policy.min_length,
        "digit": not any(c.isdigit() for c in password),
        "symbol": not any(not c.isalnum() and not c.isspace() for c in password),
        "case": not (any(c.isupper() for c in password) and any(c.islower() for c in password)),
        "username": any(n in low for n in names),
        "repeat": bool(re.search(r"(.)\1\1", password)),
    }
    return [k for k in policy.rules() if broken[k]]


def username_status(text: str, taken: Collection[str]) -> str:
    """`empty`, `invalid`, `taken` (existing or reserved) or `available`."""
    name = text.strip()
    if not name:
        return "empty"
    if not _USERNAME.match(name):
        return "invalid"
    if name.lower() in taken or name.lower() in RESERVED:
        return "taken"
    return "available"


def email_status(text: str, taken: Collection[str]) -> str:
    email = text.strip()
    if not email:
        return "empty"
    if not _EMAIL.match(email):
        return "invalid"
    return "taken" if email.lower() in taken else "available"


def validate_profile(
    values: Mapping[str, str],
    today: dt.date,
    files: Mapping[str, AvatarFile],
    countries: Collection[str],
) -> dict[str, str]:
    """Field -> error key for the profile form (empty when valid)."""
    errors: dict[str, str] = {}
    full = values.get("full_name", "").strip()
    if full and (len(full) > 60 or not _FULL_NAME.match(full)):
        errors["full_name"] = "full_name"
    display = values.get("display_name", "").strip()
    if not display:
        errors["display_name"] = "required"
    elif not _DISPLAY.match(display):
        errors["display_name"] = "display_name"
    birthday = values.get("birthday", "").strip()
    if birthday:
        error = birthday_error(birthday, today)
        if error:
            errors["birthday"] = error
    if values.get("country", "") not in countries:
        errors["country"] = "required"
    avatar = values.get("avatar", "")
    if avatar:
        f = files.get(avatar)
        if f is None or f.kind != "image":
            errors["avatar"] = "avatar_kind"
        elif f.size_kb > AVATAR_LIMIT_KB:
            errors["avatar"] = "avatar_size"
    return errors


def birthday_error(text: str, today: dt.date) -> str:
    day = parse_date(text)  # read as dates are (`core.typed`): the goal reads it the same
    if day is None or day >= today or day.year < 1900:
        return "birthday"
    age = today.year - day.year - ((today.month, today.day) < (day.month, day.day))
    return "birthday_young" if age < MIN_AGE else ""


def signup_profile_errors(
    values: Mapping[str, str], today: dt.date, countries: Collection[str]
) -> dict[str, str]:
    """Field -> error key for the last step of the sign-up wizard (empty when valid)."""
    errors: dict[str, str] = {}
    display = values.get("display_name", "").strip()
    if not display:
        errors["display_name"] = "required"
    elif not _DISPLAY.match(display):
        errors["display_name"] = "display_name"
    if values.get("country", "") not in countries:
        errors["country"] = "required"
    birthday = values.get("birthday", "").strip()
    if not birthday:
        errors["birthday"] = "required"
    elif birthday_error(birthday, today):
        errors["birthday"] = birthday_error(birthday, today)
    if values.get("terms") != "true":
        errors["terms"] = "terms"
    return errors


def key_errors(values: Mapping[str, str], names: Collection[str], today: dt.date) -> dict[str, str]:
    """Field -> error key for a new API key; `names` are the member's key names (lower case)."""
    errors: dict[str, str] = {}
    name = values.get("key_name", "").strip()
    if not name:
        errors["key_name"] = "required"
    elif not _KEY_NAME.match(name):
        errors["key_name"] = "key_name"
    elif name.lower() in names:
        errors["key_name"] = "key_name_taken"
    expires = values.get("expires", "").strip()
    if expires:
        day = parse_date(expires)
        if day is None or day <= today:
            errors["expires"] = "expires"
    return errors


def email_valid(text: str) -> bool:
    return bool(_EMAIL.match(text.strip()))
