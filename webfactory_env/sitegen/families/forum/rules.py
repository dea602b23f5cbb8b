"""The forum's validation rules: pure functions of what a member typed."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Mapping

FIELD_LIMITS = {
    "signin.username": 60,
    "signin.password": 200,
    "reply.body": 5000,
    "new_thread.title": 200,
    "new_thread.body": 5000,
}
EDIT_LIMIT = 5000
TITLE_MAX = 120


def reply_minimum(strict: bool) -> int:
    return 25 if strict else 15


def title_minimum(strict: bool) -> int:
    return 20 if strict else 15


def body_minimum(strict: bool) -> int:
    return 50 if strict else 30


def validate_signin(values: Mapping[str, str]) -> dict[str, str]:
    """Field -> error key (empty when both fields are filled)."""
    return {
        name: "required" for name in ("username", "password") if not values.get(name, "").strip()
    }


def validate_reply(body: str, strict: bool = False) -> dict[str, str]:
    text = body.strip()
    if not text:
        return {"body": "required"}
    if len(text) < reply_minimum(strict):
        return {"body": "reply_short"}
    return {}


def validate_thread(
    values: Mapping[str, str],
    *,
    titles: set[str],
    categories: set[str],
    tags: set[str],
    strict: bool = False,
) -> dict[str, str]:
    """Field -> error key for a new thread. Hard sites ask for longer text and a tag."""
    errors: dict[str, str] = {}
    title = values.get("title", "").strip()
    if not title:
        errors["title"] = "required"
    elif len(title) < title_minimum(strict):
        errors["title"] = "title_short"
    elif len(title) > TITLE_MAX:
        errors["title"] = "title_long"
    elif title.lower() in titles:
        errors["title"] = "title_taken"
    category = values.get("category", "")
    if category not in categories:
        errors["category"] = "category"
    tag = values.get("tag", "")
    if (tag and tag not in tags) or (strict and not tag):
        errors["tag"] = "tag"
    body = values.get("body", "").strip()
    if not body:
        errors["body"] = "required"
    elif len(body) < body_minimum(strict):
        errors["body"] = "body_short"
    return errors


def is_date(text: str) -> bool:
    """Whether `text` is a whole ISO date (a date still being typed is not)."""
    if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", text):
        return False
    try:
        dt.date.fromisoformat(text)
    except ValueError:
        return False
    return True


def tokens(text: str) -> list[str]:
    """The words a search matches on: lower-case letters and digits."""
    return re.findall(r"[0-9a-z]+", text.lower())
