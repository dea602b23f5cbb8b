"""The declarative state model every site family's app keeps, and what derives from it.

A family declares its app's state once, as a dataclass deriving from `AppState`. Each
field plays one declared *part*:

- `entities()`: a table of records keyed by id (`dict[str, Order]`): orders, bookings,
  cards, replies, settings. Goals pin them field by field.
- `session(..., persists=...)`: what one visitor has going: the cart, who is signed in,
  the itinerary being built, and the settings that outlive the visit (saved items,
  newsletter sign-ups, stars and watches: `persists=True`). Goals pin it too.
- `drafts(...)`: what forms hold before they are submitted. Never pinned itself: a record
  field that copies a draft names it as its `source`, and is pinned only when the task's
  steps wrote that draft (a default nobody chose is not the goal's business).
- `view(...)`: how the visitor looks at things (filters, sort, page numbers, queries).
  Never pinned.
- `hidden(...)`: never in the view at all (full card numbers, passwords).

What *persists* (the entity tables, and the session values declared `persists=True`) is
what the frame of a task watches: a task may change only what its goal asks for there
(`tasks.frame`). A table may declare that some of its records are bookkeeping all the same:
`entities(log=True)` (records appear as things happen, like sign-in attempts: a new one
is nobody's doing) or `entities(visit="current")` (records whose `current` field is true
belong to this browser's visit, like its own session). A field a person would not expect
to outlive the visit is `transient(...)` (insurance ticked at a checkout not yet paid).

Inside records and session objects, `derived(...)` marks bookkeeping a goal never pins
(ids, totals, positions, timestamps, logs: whatever depends on the path or the number of
steps taken rather than on what was asked), `copied(source, ...)` a field filled from a
draft, and `history()` a container that records what happened (a goal pins "it holds
what the steps added"). Unordered containers are sets: their view is sorted, so they
compare exactly. `typed(...)` marks a field holding a typed value (a phone number, an
e-mail address, a date...: `core.typed`), which goals compare by meaning, not spelling.

From that declaration, generically: `view_of` (the JSON-like dict predicates read),
`Schema` (every legal path, checked by the task compiler, with its part and role),
`changes` (field-level differences between two views: trace deltas, provenance, the goal
the compiler derives); `sitegen.persistence` reads what persists off the schema. A family
adds computed, read-only *facts* (the open product, the cart's total) with a second
dataclass; they are merged into the view as derived fields.
"""

from __future__ import annotations

import dataclasses
import os
import types
import typing
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import Any, Literal, Self, get_args, get_origin

from webfactory_env.core.typed import VALUE_TYPES

Part = Literal["entities", "session", "drafts", "view", "hidden", "page"]
Path = tuple[str, ...]
PINNED_PARTS: frozenset[str] = frozenset({"entities", "session"})
_PART = "wf_part"
_DERIVED = "wf_derived"
_SOURCE = "wf_source"
_HIDDEN = "wf_hidden"
_HISTORY = "wf_history"
_PERSISTS = "wf_persists"
_TRANSIENT = "wf_transient"
_LOG = "wf_log"
_VISIT = "wf_visit"
_TYPE = "wf_type"


# --------------------------------------------------------------------- declaring
def entities(*, log: bool = False, visit: str | None = None) -> Any:
    """A table of records keyed by id; goals pin its records field by field, and it
    persists. `log`: new records are bookkeeping (sign-in attempts). `visit`: the name of
    a boolean field marking the records of this browser's visit (its own session)."""
    meta = {_PART: "entities", _PERSISTS: True, _LOG: log, _VISIT: visit}
    return field(default_factory=dict, metadata=meta)


def session(default_factory: Callable[[], Any], *, persists: bool) -> Any:
    """Per-visitor state a goal may pin: transient (the cart, sign-in, the itinerary being
    built) or, with `persists=True`, kept after the visit (saved items, sign-ups, stars)."""
    return field(default_factory=default_factory, metadata={_PART: "session", _PERSISTS: persists})


def drafts(default_factory: Callable[[], Any]) -> Any:
    """What forms hold before they are submitted (never pinned itself)."""
    return field(default_factory=default_factory, metadata={_PART: "drafts"})


def view(default_factory: Callable[[], Any]) -> Any:
    """How the visitor looks at things: filters, sort, pages, queries (never pinned)."""
    return field(default_factory=default_factory, metadata={_PART: "view"})


def hidden(default_factory: Callable[[], Any]) -> Any:
    """State that never reaches the view (secrets): rewards and traces cannot see it."""
    return field(default_factory=default_factory, metadata={_PART: "hidden", _HIDDEN: True})


def derived(
    default: Any = dataclasses.MISSING, *, default_factory: Any = dataclasses.MISSING
) -> Any:
    """A record or session field no goal pins: ids, totals, positions, timestamps, logs."""
    return field(default=default, default_factory=default_factory, metadata={_DERIVED: True})


def copied(
    source: str, default: Any = dataclasses.MISSING, *, default_factory: Any = dataclasses.MISSING
) -> Any:
    """A field filled from a draft (`source` is its path, e.g. "forms.payment.method"): a
    goal pins it only when the task's own steps wrote that draft."""
    return field(default=default, default_factory=default_factory, metadata={_SOURCE: source})


def transient(
    default: Any = dataclasses.MISSING, *, default_factory: Any = dataclasses.MISSING
) -> Any:
    """A field of a persistent record or session object that does not outlive the visit
    (a checkout option of a booking not yet made): the frame never watches it."""
    return field(default=default, default_factory=default_factory, metadata={_TRANSIENT: True})


def history(default_factory: Callable[[], Any] = set) -> Any:
    """A container that only records what happened (items taken out of a cart, files
    attached): a goal pins "it holds what the task's steps added", not its exact value."""
    return field(default_factory=default_factory, metadata={_HISTORY: True})


def typed(value_type: str, default: Any = "") -> Any:
    """A field holding a typed value (`core.typed`: phone, email, card, date, postal,
    code): goals and subgoals compare it by meaning, so every spelling the site accepts for
    the same value counts. A record field `copied` from it is typed the same."""
    _known_type(value_type)
    return field(default=default, metadata={_TYPE: value_type})


def typed_keys(default_factory: Callable[[], Any], **value_types: str) -> Any:
    """A mapping of form fields some of which hold typed values (`postal_code="postal"`)."""
    for name in value_types.values():
        _known_type(name)
    return field(default_factory=default_factory, metadata={_TYPE: dict(value_types)})


def _known_type(name: str) -> None:
    if name not in VALUE_TYPES:
        raise ValueError(f"unknown value type {name!r}; one of {', '.join(VALUE_TYPES)}")


def secret(default: Any = "") -> Any:
    """A record field that never reaches the view."""
    return field(default=default, metadata={_HIDDEN: True})


@dataclass(kw_only=True)
class Record:
    """An entity with an identity; tables map `id` to records."""

    id: str = derived("")


@dataclass
class AppState:
    """Base of every family's state dataclass (see the module docstring)."""

    @classmethod
    def start(cls, spec: Any) -> Self:
        """The state a visitor finds on the site `spec` describes (the seed's content that
        is state: past orders, existing cards). By default, empty."""
        return cls()

    def view(self) -> dict[str, Any]:
        return view_of(self)


# ---------------------------------------------------------------------- the view
@cache
def _fields(cls: type) -> tuple[tuple[str, bool], ...]:
    """(name, shown) of a dataclass's fields, in declaration order."""
    return tuple(
        (f.name, not f.metadata.get(_HIDDEN, False) and f.metadata.get(_PART) != "hidden")
        for f in dataclasses.fields(cls)
    )


@cache
def _shown(cls: type) -> tuple[str, ...] | None:
    """The names of a dataclass type's shown fields; None for a type that is no dataclass."""
    if not dataclasses.is_dataclass(cls):
        return None
    return tuple(name for name, shown in _fields(cls) if shown)


_LEAVES = frozenset({str, int, float, bool, type(None)})


def plain(value: Any) -> Any:
    """`value` as JSON-like data: dataclasses become dicts (hidden fields left out), sets
    become sorted lists, tuples lists."""
    kind: type = type(value)
    if kind in _LEAVES:  # most of a view: answered before any other test (views are big)
        return value
    convert = _CONVERTERS.get(kind)
    if convert is not None:
        return convert(value)
    if _shown(kind) is not None:
        convert = _CONVERTERS[kind] = _converter(kind)
        return convert(value)
    if isinstance(value, dict):
        return _plain_dict(value)
    if isinstance(value, (list, tuple)):
        return _plain_list(value)
    if isinstance(value, (set, frozenset)):
        return _plain_set(value)
    return value


# Leaves are copied inline, not through a call each: a view has thousands of them and
# every reset and step builds several views.
def _plain_dict(value: Mapping[Any, Any]) -> dict[str, Any]:
    leaves = _LEAVES
    return {str(k): v if type(v) in leaves else plain(v) for k, v in value.items()}


def _plain_list(value: list[Any] | tuple[Any, ...]) -> list[Any]:
    leaves = _LEAVES
    return [v if type(v) in leaves else plain(v) for v in value]


def _plain_set(value: set[Any] | frozenset[Any]) -> list[Any]:
    leaves = _LEAVES
    return sorted([v if type(v) in leaves else plain(v) for v in value])


# How `plain` converts each type it met: the containers, and one function per dataclass,
# written out field by field (a view is mostly records, and a record converted by
# straight-line code costs about half what a loop over its fields does).
_CONVERTERS: dict[type, Callable[[Any], Any]] = {
    dict: _plain_dict,
    list: _plain_list,
    tuple: _plain_list,
    set: _plain_set,
    frozenset: _plain_set,
}


def _converter(kind: type) -> Callable[[Any], dict[str, Any]]:
    """`plain` for instances of the dataclass `kind`: its shown fields, in order, each a
    leaf as it is or else through `plain`."""
    names = _shown(kind) or ()
    if not all(name.isidentifier() for name in names):  # pragma: no cover - dataclass fields
        raise TypeError(f"{kind.__name__} has a field that is no identifier")
    lines = ["def convert(value):"]
    lines += [f"    f{i} = value.{name}" for i, name in enumerate(names)]
    # A set of leaves (tags, who upvoted) is sorted straight away: records hold many.
    items = ", ".join(
        f"{name!r}: f{i} if type(f{i}) in leaves else sorted(f{i})"
        f" if type(f{i}) is set and leaves.issuperset(map(type, f{i})) else plain(f{i})"
        for i, name in enumerate(names)
    )
    lines.append(f"    return {{{items}}}")
    namespace: dict[str, Any] = {"leaves": _LEAVES, "plain": plain}
    exec("\n".join(lines), namespace)  # our own field names, checked above
    return namespace["convert"]


@cache
def entity_tables(cls: type) -> tuple[str, ...]:
    """The names of a state dataclass's entity tables (its `entities()` fields)."""
    return tuple(f.name for f in dataclasses.fields(cls) if f.metadata.get(_PART) == "entities")


# Check every reused table view against the table itself (the test suite sets it: a
# transition that changes a table without being declared mutating then fails).
CHECK_VIEWS = os.environ.get("WEBFACTORY_CHECK_VIEWS") == "1"


class TableViews:
    """The views of an app's entity tables (most of a state view), converted once per
    change of server data: typing into a form or opening a menu converts them no more.
    The app calls `changed()` when a table may have changed (a mutating transition, the
    retry of one, a `touch()` from outside)."""

    def __init__(self) -> None:
        self.version = 0
        self._memo: tuple[int, dict[str, Any]] | None = None

    def changed(self) -> None:
        self.version += 1

    def views(self, state: Any) -> dict[str, Any]:
        memo = self._memo
        if memo is None or memo[0] != self.version:
            kind: type = type(state)
            tables = {name: plain(getattr(state, name)) for name in entity_tables(kind)}
            memo = self._memo = (self.version, tables)
        return memo[1]

    def check(self, state: Any, fired: list[str]) -> None:
        """The views `views` hands out equal the tables as they are now
        (WEBFACTORY_CHECK_VIEWS=1)."""
        kind: type = type(state)
        reused = self.views(state)
        for name in entity_tables(kind):
            if reused[name] != plain(getattr(state, name)):
                raise AssertionError(
                    f"{kind.__name__}.{name} changed, but no transition that changes server "
                    f"data ran (fired since: {fired}): declare the one that changed it "
                    "mutating=True, or call the app's touch() after changing it"
                )


def view_of(
    state: Any, facts: Any = None, *, converted: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """The predicate view of a state dataclass, with `facts` (a dataclass of computed
    values) merged in: a fact named like a state object adds keys to it. `converted`:
    views of some of its top-level fields made before and still true (an app's entity
    tables while no server data changed), used as they are."""
    if converted:
        kind: type = type(state)
        names = _shown(kind) or ()
        out = {n: converted[n] if n in converted else plain(getattr(state, n)) for n in names}
    else:
        out = plain(state)
    if facts is not None:
        for name, value in plain(facts).items():
            if isinstance(value, dict) and isinstance(out.get(name), dict):
                out[name] = {**out[name], **{k: v for k, v in value.items() if k not in out[name]}}
            elif name not in out:
                out[name] = value
    return out


# -------------------------------------------------------------------- the schema
Kind = Literal["object", "table", "map", "list", "leaf"]


@dataclass(frozen=True)
class Node:
    """One node of a state schema: what a path may hold and what part it plays."""

    kind: Kind
    part: str | None = None
    fields: Mapping[str, Node] = field(default_factory=dict)
    item: Node | None = None
    record: bool = False
    derived: bool = False
    source: str | None = None
    history: bool = False
    persists: bool = False  # a top-level value that outlives the visit
    transient: bool = False  # a field that does not, inside one that does
    log: bool = False  # a table whose new records are bookkeeping
    visit: str | None = None  # a table's field marking the records of this visit
    # How its value compares: a value type's name, or key -> name for a mapping (`typed`).
    value_type: str | Mapping[str, str] | None = None

    def child(self, name: str) -> Node | None:
        if self.kind == "object":
            return self.fields.get(name)
        if self.kind in ("table", "map"):
            return self.item
        if self.kind == "list" and name.isdigit():
            return self.item
        return None


@dataclass(frozen=True)
class Schema:
    """Every path of a family's view, with its part: what the compiler checks paths and
    effects against, and what goals, diffs and provenance are derived from."""

    root: Mapping[str, Node]

    def node(self, path: Path | str) -> Node | None:
        parts = tuple(path.split(".")) if isinstance(path, str) else tuple(path)
        if not parts or parts[0] not in self.root:
            return None
        node: Node | None = self.root[parts[0]]
        for name in parts[1:]:
            if node is None:
                return None
            if node.kind == "leaf":
                return node if node.part is None else None
            node = node.child(name)
        return node

    def part(self, path: Path | str) -> str | None:
        parts = tuple(path.split(".")) if isinstance(path, str) else tuple(path)
        top = self.root.get(parts[0]) if parts else None
        return top.part if top is not None else None

    def pinned(self, path: Path) -> bool:
        """Whether a goal may pin `path`: in a pinned part, and not derived on the way."""
        if self.part(path) not in PINNED_PARTS:
            return False
        node: Node | None = self.root[path[0]]
        for name in path[1:]:
            if node is None or node.derived:
                return False
            node = node.child(name)
        return node is not None and not node.derived

    def value_type(self, path: Path | str) -> str | Mapping[str, str] | None:
        """How a value at `path` compares (`core.typed`): a value type's name, a mapping of
        key -> name for a mapping holding typed values, or None (as it is). A field copied
        from a draft compares as the draft's field does."""
        parts = tuple(path.split(".")) if isinstance(path, str) else tuple(path)
        node = self.root.get(parts[0]) if parts else None
        for i, name in enumerate(parts[1:], start=2):
            if node is None:
                return None
            declared = node.value_type
            if isinstance(declared, Mapping) and name in declared and i == len(parts):
                return declared[name]
            node = node.child(name)
        if node is None:
            return None
        if node.value_type is not None:
            return node.value_type
        if node.kind == "object":
            fields_ = {n: f.value_type for n, f in node.fields.items()}
            return {n: t for n, t in fields_.items() if isinstance(t, str)} or None
        return self.value_type(node.source) if node.source else None

    def merged(self, other: Schema) -> Schema:
        root = dict(self.root)
        for name, node in other.root.items():
            mine = root.get(name)
            if mine is not None and mine.kind == "object" and node.kind == "object":
                fields_ = {**{k: _derive(v) for k, v in node.fields.items()}, **mine.fields}
                root[name] = dataclasses.replace(mine, fields=fields_)
            elif mine is None:
                root[name] = node
        return Schema(root)


def _derive(node: Node) -> Node:
    return dataclasses.replace(node, derived=True)


def schema_of(state_type: type, facts_type: type | None = None) -> Schema:
    """The schema of a state dataclass (and of its facts, as the `page` part)."""
    root = {
        f.name: dataclasses.replace(
            _node(hint, f),
            part=f.metadata.get(_PART, "view"),
            persists=bool(f.metadata.get(_PERSISTS)),
            log=bool(f.metadata.get(_LOG)),
            visit=f.metadata.get(_VISIT),
        )
        for f, hint in _hinted_fields(state_type)
        if not f.metadata.get(_HIDDEN) and f.metadata.get(_PART) != "hidden"
    }
    schema = Schema(root)
    if facts_type is not None:
        facts = {
            f.name: dataclasses.replace(_node(hint, f), part="page", derived=True)
            for f, hint in _hinted_fields(facts_type)
        }
        schema = schema.merged(Schema(facts))
    return schema


def _hinted_fields(cls: type) -> Iterator[tuple[dataclasses.Field[Any], Any]]:
    hints = typing.get_type_hints(cls)
    for f in dataclasses.fields(cls):
        yield f, hints[f.name]


def _node(hint: Any, f: dataclasses.Field[Any] | None = None) -> Node:
    meta = f.metadata if f is not None else {}
    derived_ = bool(meta.get(_DERIVED))
    source = meta.get(_SOURCE)
    history_ = bool(meta.get(_HISTORY))
    value_type = meta.get(_TYPE)
    origin = get_origin(hint)
    args = get_args(hint)
    if origin in (typing.Union, types.UnionType):
        kinds = [a for a in args if a is not type(None)]
        node = _node(kinds[0]) if len(kinds) == 1 else Node("leaf")
    elif isinstance(hint, type) and dataclasses.is_dataclass(hint):
        fields_ = {
            sub.name: _node(sub_hint, sub)
            for sub, sub_hint in _hinted_fields(hint)
            if not sub.metadata.get(_HIDDEN)
        }
        node = Node("object", fields=fields_, record=issubclass(hint, Record))
    elif origin in (dict, Mapping) and len(args) == 2:
        item = _node(args[1])
        node = Node("table" if item.record else "map", item=item)
    elif origin in (list, tuple, set, frozenset) and args:
        node = Node("list", item=_node(args[0]))
    elif hint in (dict,):
        node = Node("map", item=Node("leaf"))
    else:
        node = Node("leaf")
    transient_ = bool(meta.get(_TRANSIENT))
    return dataclasses.replace(
        node,
        derived=derived_,
        source=source,
        history=history_,
        transient=transient_,
        value_type=value_type,
    )


# ------------------------------------------------------------------- differences
Change = Literal["created", "deleted", "changed"]


def changes(
    schema: Schema, before: Mapping[str, Any], after: Mapping[str, Any], parts: frozenset[str]
) -> dict[Path, Change]:
    """What changed between two views in the given parts, at the grain goals pin: a
    record created or deleted (`("orders", "ORD-1")`), a record's or a session object's
    field (`("cards", "C-1", "column")`, `("cart", "items")`), or a whole top-level value."""
    out: dict[Path, Change] = {}
    for name, node in schema.root.items():
        if node.part not in parts:
            continue
        a, b = before.get(name), after.get(name)
        if a == b:
            continue
        if node.kind == "table" and isinstance(a, Mapping) and isinstance(b, Mapping):
            for key in sorted(set(a) | set(b)):
                ra, rb = a.get(key), b.get(key)
                if ra == rb:
                    continue
                if ra is None:
                    out[(name, key)] = "created"
                elif rb is None:
                    out[(name, key)] = "deleted"
                else:
                    for f in sorted(set(ra) | set(rb)):
                        if ra.get(f) != rb.get(f):
                            out[(name, key, f)] = "changed"
        elif node.kind == "object" and isinstance(a, Mapping) and isinstance(b, Mapping):
            for f in sorted(set(a) | set(b)):
                if a.get(f) != b.get(f):
                    out[(name, f)] = "changed"
        else:
            out[(name,)] = "changed"
    return out


def leaf_changes(before: Any, after: Any, prefix: Path = ()) -> list[Path]:
    """Every leaf path whose value differs (drafts: which form fields a step wrote)."""
    if isinstance(before, Mapping) and isinstance(after, Mapping):
        if before == after:  # most drafts, most steps: compared at C speed, as `changes` does
            return []
        out: list[Path] = []
        for key in sorted(set(before) | set(after), key=str):
            out += leaf_changes(before.get(key), after.get(key), (*prefix, str(key)))
        return out
    return [prefix] if before != after else []


def lookup_path(view: Mapping[str, Any], path: Path) -> Any:
    node: Any = view
    for part in path:
        if not isinstance(node, Mapping) or part not in node:
            return None
        node = node[part]
    return node
