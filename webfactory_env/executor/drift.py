"""Selector drift: deriving alternatives for an element that moved or was renamed, and the
retry schedule (200 → 400 → 800 ms of logical time, three attempts) that tries them.

Shared by the web executor (selectors written by a planner) and the env (an element of the
last observation that was re-rendered before the action reached it).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel

from webfactory_env.core.errors import WebfactoryError

BACKOFF_MS = (200, 400, 800)
RETRY_EVENT: Literal["executor_web.retry"] = "executor_web.retry"


class RetryEvent(BaseModel):
    event: Literal["executor_web.retry"] = RETRY_EVENT
    attempt: int
    requested: str
    selector: str
    remaining: list[str]
    backoff_ms: int


class SelectorsExhausted(WebfactoryError):
    """No candidate selector found the element."""

    def __init__(self, requested: str, attempts: int, tried: Sequence[str]) -> None:
        self.requested = requested
        self.attempts = attempts
        self.tried = list(tried)
        super().__init__(
            f"no element for selector {requested!r} after {attempts} retries; "
            f"tried: {', '.join(self.tried)}"
        )


@dataclass
class LogicalClock:
    """Time that only moves when the executor says so: backoff never sleeps."""

    now_ms: int = 0

    def advance(self, ms: int) -> None:
        self.now_ms += ms


_HASHLIKE = re.compile(r"^(?=.*\d)[0-9a-f]{4,}$|^\d+$")
_GENERIC = frozenset({"input", "field", "btn", "button", "the", "a", "an", "el", "elem"})
ATTR_WEIGHT = {"testid": 5, "name": 4, "aria": 4, "id": 3, "label": 3, "placeholder": 2, "text": 3}


def words(text: str) -> list[str]:
    """Normalised words of a selector part or attribute: case, punctuation, camelCase and
    generated hash suffixes folded away (`userEmail-3fa9` → `user email`)."""
    spaced = re.sub(r"([a-z])([A-Z])", r"\1 \2", text)
    tokens = re.split(r"[^0-9a-z]+", spaced.lower())
    return [t for t in tokens if t and not _HASHLIKE.match(t) and t not in _GENERIC]


def selector_words(selector: str) -> list[str]:
    """The words a selector names its element by (ids, attribute values, classes, text)."""
    parts: list[str] = []
    parts += re.findall(r"#([\w-]+)", selector)
    parts += [m[1] for m in re.findall(r"\[[\w-]+\s*[*^$|~]?=\s*(['\"]?)([^'\"\]]+)\1\]", selector)]
    parts += re.findall(r"\.([\w-]+)", selector)
    parts += re.findall(r"text\s*=\s*['\"]?([^'\"]+)", selector)
    if not parts:
        parts = [selector]
    out: list[str] = []
    for p in parts:
        out += [w for w in words(p) if w not in out]
    return out


def _quote(value: str) -> str:
    return json.dumps(value)


def derive_candidates(
    requested: str,
    elements: Sequence[dict[str, str]],
    like: dict[str, str] | None = None,
) -> list[str]:
    """Selectors for page elements whose normalised attributes match the requested one's
    words, best first; between equal matches, one of the same kind as `like` (the lost
    element's tag and type, when known) first."""
    wanted = selector_words(requested)
    if not wanted:
        return []
    kind = (like.get("tag", ""), like.get("type", "")) if like else None
    scored: list[tuple[float, bool, int, str]] = []
    for order, el in enumerate(elements):
        best: tuple[float, str] | None = None
        for attr, weight in ATTR_WEIGHT.items():
            value = el.get(attr, "")
            if not value:
                continue
            have = set(words(value))
            hit = sum(1 for w in wanted if w in have)
            if hit == 0:
                continue
            score = weight * hit / len(wanted) + (1 if hit == len(wanted) == len(have) else 0)
            if best is None or score > best[0]:
                best = (score, _selector_for(el, attr))
        if best is not None:
            other_kind = kind is not None and (el.get("tag", ""), el.get("type", "")) != kind
            scored.append((-best[0], other_kind, order, best[1]))
    scored.sort()
    out: list[str] = []
    for *_, sel in scored:
        if sel not in out and sel != requested:
            out.append(sel)
    return out


def _selector_for(el: dict[str, str], attr: str) -> str:
    tag = el["tag"]
    if attr == "testid":
        return f"[data-testid={_quote(el['testid'])}]"
    if attr == "name":
        return f"{tag}[name={_quote(el['name'])}]"
    if attr == "aria":
        return f"[aria-label={_quote(el['aria'])}]"
    if attr == "id":
        return f"[id={_quote(el['id'])}]"
    if attr == "placeholder":
        return f"[placeholder={_quote(el['placeholder'])}]"
    if attr == "label" and el.get("id"):
        return f"[id={_quote(el['id'])}]"
    return f"{tag}:text-is({_quote(el['text'] or el['label'])})"


def retry_candidates(
    requested: str,
    candidates: list[str],
    probe: Callable[[str], bool],
    clock: LogicalClock,
    emit: Callable[[RetryEvent], None],
) -> tuple[str, int]:
    """Try `candidates` in order with exponential backoff; the first that `probe` accepts
    wins. Raises `SelectorsExhausted` after three attempts (or when none are left)."""
    pending = list(candidates)
    tried = [requested]
    for attempt, backoff in enumerate(BACKOFF_MS, start=1):
        if not pending:
            break
        selector = pending.pop(0)
        clock.advance(backoff)
        emit(
            RetryEvent(
                attempt=attempt,
                requested=requested,
                selector=selector,
                remaining=list(pending),
                backoff_ms=backoff,
            )
        )
        tried.append(selector)
        if probe(selector):
            return selector, attempt
    raise SelectorsExhausted(requested, len(tried) - 1, tried)


def describe_selector(old: dict[str, str]) -> str:
    """The selector that named a replaced element (its test id, name, label or text)."""
    if old.get("testid"):
        return f"[data-testid={json.dumps(old['testid'])}]"
    if old.get("name"):
        return f"{old['tag']}[name={json.dumps(old['name'])}]"
    if old.get("aria"):
        return f"[aria-label={json.dumps(old['aria'])}]"
    return f"{old['tag']}:text-is({json.dumps(old.get('label') or old.get('text') or '')})"
