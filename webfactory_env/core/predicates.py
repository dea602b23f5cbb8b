"""Predicates over app state: the only thing rewards and success are computed from.

A predicate is a small immutable tree (`Eq`, `Contains`, `Match`, `Gt`, `Lt`, `All`, `Any`,
`Not`) over dotted paths into the JSON-like state view a site app exposes. Site families
declare the *effect* of each affordance as a predicate template whose values may be
`Ref`s; the task compiler binds them to concrete values. Predicates serialise to JSON so
compiled tasks, traces and replay bundles carry them verbatim.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

Path = tuple[str, ...]


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()


def parse_path(text: str | Path) -> Path:
    return tuple(text.split(".")) if isinstance(text, str) else tuple(text)


def lookup(state: Any, path: Path) -> Any:
    """Value at `path` in nested mappings (and lists by index), or MISSING."""
    node = state
    for part in path:
        if isinstance(node, Mapping):
            if part not in node:
                return MISSING
            node = node[part]
        elif isinstance(node, (list, tuple)) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            return MISSING
    return node


_WORD = re.compile(r"[0-9a-z]+")


def fuzzy_match(text: Any, pattern: Any) -> bool:
    """The DSL's `~=`: every word of `pattern` occurs in `text`, ignoring case and punctuation."""
    if not isinstance(text, str) or not isinstance(pattern, str):
        return False
    words = {_stem(w) for w in _WORD.findall(text.lower())}
    wanted = [_stem(w) for w in _WORD.findall(pattern.lower())]
    return bool(wanted) and all(w in words for w in wanted)


def _stem(word: str) -> str:
    # Crude plural folding so "Mugs" matches "Mug" without "Mugwort" matching "Mug".
    if len(word) > 4 and word.endswith("es") and word[-3] in "sxz":
        return word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


@dataclass(frozen=True, slots=True)
class Ref:
    """A placeholder in a predicate template, bound by the compiler (`value`, `state:a.b`)."""

    name: str


class Predicate:
    op: ClassVar[str]

    def holds(self, state: Mapping[str, Any]) -> bool:
        raise NotImplementedError

    def bind(self, resolve: Callable[[str], Any]) -> Predicate:
        raise NotImplementedError

    def to_json(self) -> dict[str, Any]:
        raise NotImplementedError

    def paths(self) -> set[Path]:
        raise NotImplementedError


def _bind_value(value: Any, resolve: Callable[[str], Any]) -> Any:
    return resolve(value.name) if isinstance(value, Ref) else value


def _json_value(value: Any) -> Any:
    if isinstance(value, Ref):
        return {"$ref": value.name}
    return _thaw(value)


def _value_from_json(value: Any) -> Any:
    if isinstance(value, dict) and set(value) == {"$ref"}:
        return Ref(value["$ref"])
    return value


@dataclass(frozen=True, slots=True)
class _Compare(Predicate):
    path: Path
    value: Any

    def __post_init__(self) -> None:
        object.__setattr__(self, "path", parse_path(self.path))
        object.__setattr__(self, "value", _freeze(self.value))

    def bind(self, resolve: Callable[[str], Any]) -> Predicate:
        return type(self)(self.path, _freeze(_bind_value(self.value, resolve)))

    def to_json(self) -> dict[str, Any]:
        return {"op": self.op, "path": ".".join(self.path), "value": _json_value(self.value)}

    def paths(self) -> set[Path]:
        return {self.path}

    def holds(self, state: Mapping[str, Any]) -> bool:
        actual = lookup(state, self.path)
        return actual is not MISSING and self.test(actual, _thaw(self.value))

    def test(self, actual: Any, expected: Any) -> bool:
        raise NotImplementedError


@dataclass(frozen=True, slots=True)
class Eq(_Compare):
    """The value at `path` equals `value` (mappings and lists compare structurally)."""

    op: ClassVar[str] = "eq"

    def test(self, actual: Any, expected: Any) -> bool:
        return bool(_thaw(actual) == expected)


@dataclass(frozen=True, slots=True)
class Contains(_Compare):
    """The collection at `path` contains `value` (every element, when `value` is a list)."""

    op: ClassVar[str] = "contains"

    def test(self, actual: Any, expected: Any) -> bool:
        if not isinstance(actual, (list, tuple, dict, set, frozenset)):
            return False
        wanted = expected if isinstance(expected, list) else [expected]
        return all(w in actual for w in wanted)


@dataclass(frozen=True, slots=True)
class Match(_Compare):
    """The text at `path` fuzzy-matches `value` (the DSL's `~=`)."""

    op: ClassVar[str] = "match"

    def test(self, actual: Any, expected: Any) -> bool:
        return fuzzy_match(actual, expected)


def _number(x: Any) -> float | None:
    if isinstance(x, bool):
        return None
    if isinstance(x, (int, float)):
        return float(x)
    return None


_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")


def _normal_words(text: str) -> str:
    text = text.lower().replace(",", "")
    return " ".join(re.findall(r"[0-9a-z\u00c0-\uffff]+(?:\.[0-9]+)?", text))


def answer_matches(text: Any, expected: Any) -> bool:
    """Grading of a free-text answer: numbers compare numerically (±0.005), other answers
    must appear as whole words, ignoring case, punctuation and currency signs."""
    if not isinstance(text, str) or expected is None:
        return False
    want = str(expected).strip()
    if not want:
        return False
    if _NUMBER.fullmatch(want.replace(",", "").lstrip("$€£")):
        target = float(want.replace(",", "").lstrip("$€£"))
        return any(abs(float(n) - target) < 0.005 for n in _NUMBER.findall(text.replace(",", "")))
    norm_text, norm_want = f" {_normal_words(text)} ", f" {_normal_words(want)} "
    return norm_want.strip() != "" and norm_want in norm_text


@dataclass(frozen=True, slots=True)
class AnswerMatch(_Compare):
    """The agent's answer at `path` reports `value` (see `answer_matches`)."""

    op: ClassVar[str] = "answer"

    def test(self, actual: Any, expected: Any) -> bool:
        return answer_matches(actual, expected)


@dataclass(frozen=True, slots=True)
class Gt(_Compare):
    op: ClassVar[str] = "gt"

    def test(self, actual: Any, expected: Any) -> bool:
        a, b = _number(actual), _number(expected)
        return a is not None and b is not None and a > b


@dataclass(frozen=True, slots=True)
class Lt(_Compare):
    op: ClassVar[str] = "lt"

    def test(self, actual: Any, expected: Any) -> bool:
        a, b = _number(actual), _number(expected)
        return a is not None and b is not None and a < b


@dataclass(frozen=True, slots=True)
class All(Predicate):
    items: tuple[Predicate, ...]
    op: ClassVar[str] = "all"

    def holds(self, state: Mapping[str, Any]) -> bool:
        return all(p.holds(state) for p in self.items)

    def bind(self, resolve: Callable[[str], Any]) -> Predicate:
        return All(tuple(p.bind(resolve) for p in self.items))

    def to_json(self) -> dict[str, Any]:
        return {"op": self.op, "items": [p.to_json() for p in self.items]}

    def paths(self) -> set[Path]:
        return set().union(*(p.paths() for p in self.items)) if self.items else set()


@dataclass(frozen=True, slots=True)
class Any_(Predicate):
    items: tuple[Predicate, ...]
    op: ClassVar[str] = "any"

    def holds(self, state: Mapping[str, Any]) -> bool:
        return any(p.holds(state) for p in self.items)

    def bind(self, resolve: Callable[[str], Any]) -> Predicate:
        return Any_(tuple(p.bind(resolve) for p in self.items))

    def to_json(self) -> dict[str, Any]:
        return {"op": self.op, "items": [p.to_json() for p in self.items]}

    def paths(self) -> set[Path]:
        return set().union(*(p.paths() for p in self.items)) if self.items else set()


@dataclass(frozen=True, slots=True)
class Not(Predicate):
    item: Predicate
    op: ClassVar[str] = "not"

    def holds(self, state: Mapping[str, Any]) -> bool:
        return not self.item.holds(state)

    def bind(self, resolve: Callable[[str], Any]) -> Predicate:
        return Not(self.item.bind(resolve))

    def to_json(self) -> dict[str, Any]:
        return {"op": self.op, "item": self.item.to_json()}

    def paths(self) -> set[Path]:
        return self.item.paths()


_COMPARES: dict[str, type[_Compare]] = {c.op: c for c in (Eq, Contains, Match, Gt, Lt, AnswerMatch)}

# What the env adds to the app's state about the agent itself: how it ended the episode.
AGENT_STATE: dict[str, Any] = {"done": False, "claimed": False, "answer": ""}


def predicate_from_json(data: Mapping[str, Any]) -> Predicate:
    """Inverse of `Predicate.to_json`."""
    op = data.get("op")
    if op in _COMPARES:
        return _COMPARES[op](parse_path(data["path"]), _freeze(_value_from_json(data["value"])))
    if op == "all":
        return All(tuple(predicate_from_json(p) for p in data["items"]))
    if op == "any":
        return Any_(tuple(predicate_from_json(p) for p in data["items"]))
    if op == "not":
        return Not(predicate_from_json(data["item"]))
    raise ValueError(f"unknown predicate op {op!r}")


class _FrozenMap(tuple):
    """A dict frozen as sorted (key, value) pairs, told apart from a frozen list."""


def _freeze(value: Any) -> Any:
    """Make list/dict values hashable so predicates stay frozen and comparable."""
    if isinstance(value, list | tuple) and not isinstance(value, _FrozenMap):
        return tuple(_freeze(v) for v in value)
    if isinstance(value, dict):
        return _FrozenMap(sorted((k, _freeze(v)) for k, v in value.items()))
    return value


def _thaw(value: Any) -> Any:
    if isinstance(value, _FrozenMap):
        return {k: _thaw(v) for k, v in value}
    if isinstance(value, tuple):
        return [_thaw(v) for v in value]
    return value
