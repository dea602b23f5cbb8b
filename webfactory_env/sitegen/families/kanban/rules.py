"""The workspace's validation rules: pure functions of what a teammate typed.

Each returns an error key of the copy table's `errors` section ('' or {} when valid).
Strictness grows with difficulty: longer minimum titles and board names, a due date
required on new cards and a full name required on invitations at the hard level.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable, Mapping

from webfactory_env.core.typed import parse_date

TITLE_MIN = {"easy": 2, "medium": 3, "hard": 5}
BOARD_NAME_MIN = {"easy": 2, "medium": 3, "hard": 4}
TITLE_MAX, BOARD_NAME_MAX, COMMENT_MAX = 80, 40, 500
ACCESS = ("member", "admin", "observer")
_EMAIL = re.compile(r"^[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}$")
_FULL_NAME = re.compile(r"^[^\W\d_]+(?:[ '\-.][^\W\d_]+)+$")


def check_title(title: str, minimum: int, others: Iterable[str]) -> str:
    """The error key for a card title; `others` are the other titles on its board."""
    text = title.strip()
    if not text:
        return "required"
    if len(text) < minimum:
        return "title_short"
    if len(text) > TITLE_MAX:
        return "title_long"
    if text.lower() in {o.strip().lower() for o in others}:
        return "title_taken"
    return ""


def check_due(due: str, *, today: str, required: bool, allow_past: bool) -> str:
    """The error key for a due date (YYYY-MM-DD, or a form `core.typed` reads as a date)."""
    text = due.strip()
    if not text:
        return "due_required" if required else ""
    day = parse_date(text)
    if day is None:
        return "due_format"
    if not allow_past and day < dt.date.fromisoformat(today):
        return "due_past"
    return ""


def check_comment(text: str) -> str:
    body = text.strip()
    return "required" if not body else "comment_long" if len(body) > COMMENT_MAX else ""


def check_board_name(name: str, minimum: int, taken: Iterable[str]) -> str:
    text = name.strip()
    if not text:
        return "required"
    if len(text) < minimum:
        return "board_short"
    if len(text) > BOARD_NAME_MAX:
        return "board_long"
    if text.lower() in {t.lower() for t in taken}:
        return "board_taken"
    return ""


def validate_invite(
    values: Mapping[str, str], emails: Iterable[str], strict: bool
) -> dict[str, str]:
    """Field -> error key for the invitation form; `emails` are taken (members, invited)."""
    errors: dict[str, str] = {}
    name = values.get("name", "").strip()
    if not name:
        errors["name"] = "required"
    elif (strict and not _FULL_NAME.match(name)) or len(name) < 2:
        errors["name"] = "name"
    email = values.get("email", "").strip().lower()
    if not email:
        errors["email"] = "required"
    elif not _EMAIL.match(email):
        errors["email"] = "email"
    elif email in set(emails):
        errors["email"] = "email_taken"
    if values.get("role") not in ACCESS:
        errors["role"] = "required"
    return errors
