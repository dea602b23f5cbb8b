"""Predicates over app state: the only thing rewards and success are computed from.

A predicate is a small immutable tree (`Eq`, `Contains`, `Match`, `Gt`, `Lt`, `Has`,
`Exists`, `AnswerMatch`, `All`, `Any`, `Not`) over paths into the JSON-like state view a
site app exposes; entity tables are keyed by id, so `("cards", "C-12", "column")` names one
card's column. Site families declare the *effect* of each affordance as a predicate
template whose values may be `Ref`s; the task compiler binds them to concrete values.

`holds_clean(state, clean)` is `holds` restricted to state whose provenance is clean: the
reward simulator passes a `clean(path)` that is false for what an unpermitted action (a
back door) last changed. Predicates serialise to JSON so compiled tasks, traces and replay
bundles carry them verbatim.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from webfactory_env.core.answers import AnswerKey, grade
from webfactory_env.core.typed import meaning

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
        # A state view's nodes are dicts: answered before the abstract-class check.
        if type(node) is dict or isinstance(node, Mapping):
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

    def holds_clean(self, state: Mapping[str, Any], clean: Clean) -> bool:
        """`holds`, counting only state whose provenance is clean."""
        return self.holds(state) and all(clean(p) for p in self.paths())


Clean = Callable[[Path], bool]


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
    """The value at `path` equals `value` (mappings and lists compare structurally). With
    `as_`, typed values compare by meaning (`core.typed`): `as_="phone"` compares phone
    numbers by their digits, `as_={"email": "email"}` a mapping's `email` without case."""

    as_: Any = None
    op: ClassVar[str] = "eq"

    def __post_init__(self) -> None:
        _Compare.__post_init__(self)
        object.__setattr__(self, "as_", _freeze(self.as_))

    def holds(self, state: Mapping[str, Any]) -> bool:
        actual = lookup(state, self.path)
        if actual is MISSING:
            return False
        value = self.value
        if self.as_ is None and type(value) in _SCALARS and type(self) is Eq:
            # What `test` answers for a scalar (thawing changes only containers, and no
            # container equals a scalar): most of a reward's predicates, every step. Not
            # for a subclass, whose `test` may compare otherwise.
            return bool(actual == value)
        return self.test(actual, _thaw(value))

    def bind(self, resolve: Callable[[str], Any]) -> Predicate:
        return Eq(self.path, _freeze(_bind_value(self.value, resolve)), self.as_)

    def to_json(self) -> dict[str, Any]:
        data = _Compare.to_json(self)
        if self.as_ is not None:
            data["as"] = _thaw(self.as_)
        return data

    def test(self, actual: Any, expected: Any) -> bool:
        if self.as_ is None:
            return bool(_thaw(actual) == expected)
        as_ = _thaw(self.as_)
        return bool(meaning(as_, _thaw(actual)) == meaning(as_, expected))


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


def answer_matches(text: Any, expected: Any) -> bool:
    """Whether the answer `text` states `expected` (a value, or an `AnswerKey` as JSON):
    see `webfactory_env.core.answers.grade`."""
    if expected is None or (isinstance(expected, str) and not expected.strip()):
        return False
    key = expected if isinstance(expected, AnswerKey) else AnswerKey.from_json(expected)
    return grade(text, key)


@dataclass(frozen=True, slots=True)
class AnswerMatch(_Compare):
    """The agent's answer at `path` states `value`, an `AnswerKey` (as JSON) or a plain
    value (see `answer_matches`)."""

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
class Has(Predicate):
    """Something is at `path` (a record exists): `Not(Has(("cards", "C-9")))` is "card C-9
    is deleted"."""

    path: Path
    op: ClassVar[str] = "has"

    def __post_init__(self) -> None:
        object.__setattr__(self, "path", parse_path(self.path))

    def holds(self, state: Mapping[str, Any]) -> bool:
        return lookup(state, self.path) is not MISSING

    def bind(self, resolve: Callable[[str], Any]) -> Predicate:
        return self

    def to_json(self) -> dict[str, Any]:
        return {"op": self.op, "path": ".".join(self.path)}

    def paths(self) -> set[Path]:
        return {self.path}


@dataclass(frozen=True, slots=True)
class Exists(Predicate):
    """Some record of the table at `path` satisfies `where` (whose paths are relative to
    the record): "an order of exactly this mug, shipped to Alice". With provenance, the
    record must have been made, and last changed, by permitted actions."""

    path: Path
    where: Predicate
    op: ClassVar[str] = "exists"

    def __post_init__(self) -> None:
        object.__setattr__(self, "path", parse_path(self.path))

    def _records(self, state: Mapping[str, Any]) -> list[tuple[str, Any]]:
        table = lookup(state, self.path)
        if not isinstance(table, Mapping):
            return []
        return [(str(k), v) for k, v in table.items() if isinstance(v, Mapping)]

    def holds(self, state: Mapping[str, Any]) -> bool:
        table = lookup(state, self.path)
        if not isinstance(table, Mapping):
            return False
        where = self.where  # the records `_records` gives, without their keys
        return any(
            where.holds(rec)
            for rec in table.values()
            if type(rec) is dict or isinstance(rec, Mapping)
        )

    def holds_clean(self, state: Mapping[str, Any], clean: Clean) -> bool:
        return any(
            self.where.holds(rec) and clean((*self.path, key)) for key, rec in self._records(state)
        )

    def matching(self, state: Mapping[str, Any]) -> list[str]:
        """Ids of the records that satisfy `where`."""
        return [key for key, rec in self._records(state) if self.where.holds(rec)]

    def bind(self, resolve: Callable[[str], Any]) -> Predicate:
        return Exists(self.path, self.where.bind(resolve))

    def to_json(self) -> dict[str, Any]:
        return {"op": self.op, "path": ".".join(self.path), "where": self.where.to_json()}

    def paths(self) -> set[Path]:
        return {self.path}


@dataclass(frozen=True, slots=True)
class All(Predicate):
    items: tuple[Predicate, ...]
    op: ClassVar[str] = "all"

    def holds(self, state: Mapping[str, Any]) -> bool:
        return all(p.holds(state) for p in self.items)

    def holds_clean(self, state: Mapping[str, Any], clean: Clean) -> bool:
        return all(p.holds_clean(state, clean) for p in self.items)

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

    def holds_clean(self, state: Mapping[str, Any], clean: Clean) -> bool:
        return any(p.holds_clean(state, clean) for p in self.items)

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
    if op == "eq" and "as" in data:
        return Eq(parse_path(data["path"]), _freeze(_value_from_json(data["value"])), data["as"])
    if op in _COMPARES:
        return _COMPARES[op](parse_path(data["path"]), _freeze(_value_from_json(data["value"])))
    if op == "all":
        return All(tuple(predicate_from_json(p) for p in data["items"]))
    if op == "any":
        return Any_(tuple(predicate_from_json(p) for p in data["items"]))
    if op == "not":
        return Not(predicate_from_json(data["item"]))
    if op == "has":
        return Has(parse_path(data["path"]))
    if op == "exists":
        return Exists(parse_path(data["path"]), predicate_from_json(data["where"]))
    raise ValueError(f"unknown predicate op {op!r}")


_SCALARS = frozenset({str, int, float, bool, type(None)})


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
