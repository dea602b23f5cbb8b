"""A task's frame: what it may change in what the site keeps, besides its goal ("and nothing else").

What persists is declared once per family in its state (`sitegen.state`: entity tables and
the session values declared `persists=True`, less bookkeeping). The compiler derives the
frame from the same run that derives the goal: every persistent change the oracle's run
made is *exempt* (the goal pins its value, or leaves it free), a table may gain as many new
records as the run made, and the task's `allow` clauses exempt more. Everything else must
end as it was at reset: no other record created, deleted or edited, no other setting
changed, nothing added to or taken out of a saved list.

Success is the goal and the frame at once (`reward.simulator`), whatever transitions made
the change, but for a declared back door (a staff shortcut): what it changed is judged by
provenance instead (it never counts towards the goal, and a correct path after it still
succeeds). `breaches` names what else changed, for `info["reason"]`.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from webfactory_env.sitegen.persistence import Kept, kept_values
from webfactory_env.sitegen.state import Path, Schema

ANY_KEY = "*"


@dataclass(frozen=True)
class PersistentChange:
    """One change to what persists: a record `created` or `deleted` (`("orders", "O-1")`),
    a field `changed` (`("cards", "C-12", "column")`, `("extras", "price_alert")`), or a
    member `added` to or `removed` from a saved list (`("watching", "C-3")`)."""

    path: Path
    what: str

    def text(self) -> str:
        head, *rest = self.path
        if self.what in ("added", "removed"):
            return f"{'.'.join(self.path[:-1])}: {self.path[-1]} {self.what}"
        if self.what in ("created", "deleted") or (rest and len(self.path) == 3):
            where = f"{head}[{rest[0]}]" + "".join(f".{p}" for p in rest[1:])
            return f"{where} {self.what}"
        return f"{'.'.join(self.path)} {self.what}"


@dataclass(frozen=True)
class Frame:
    """What a task may change of what persists, besides its goal: the paths its run changed
    or its `allow` clauses name (`exempt`, `*` for any key), and how many records it may
    create per table. `kept` is what persists on this site, as the frame watches it."""

    kept: tuple[Kept, ...] = ()
    exempt: tuple[Path, ...] = ()
    creates: Mapping[str, int] = field(default_factory=dict)
    allowed: tuple[Path, ...] = ()  # the `allow` clauses (also in `exempt`)
    back_doors: tuple[str, ...] = ()  # transitions judged by provenance, not by the frame

    def exempts(self, path: Path) -> bool:
        return any(_matches(p, path) for p in self.exempt)

    def may_create(self, table: str) -> int | None:
        """How many records `table` may gain (None: any number, the task allows it)."""
        if self.exempts((table, ANY_KEY)):
            return None
        return self.creates.get(table, 0)

    def describe(self) -> list[str]:
        """The frame in words, one line per rule, paths as the DSL writes them."""
        watched = ", ".join(k.name for k in self.kept) or "nothing"
        tables = {k.name for k in self.kept if k.kind == "table"}
        lines = [f"kept as at reset, but for what follows: {watched}"]
        for table, n in sorted(self.creates.items()):
            lines.append(f"the task creates: {n} record{'s' if n != 1 else ''} in {table}")
        for path in self.exempt:
            if path not in self.allowed:
                lines.append(f"the task changes: {path_text(path, tables)}")
        for path in self.allowed:
            lines.append(f"allowed: {path_text(path, tables)}")
        return lines

    def to_json(self) -> dict[str, Any]:
        return {
            "kept": [k.to_json() for k in self.kept],
            "exempt": [list(p) for p in self.exempt],
            "creates": dict(sorted(self.creates.items())),
            "allowed": [list(p) for p in self.allowed],
            "back_doors": list(self.back_doors),
        }


def derive_frame(
    schema: Schema,
    reset: Mapping[str, Any],
    final: Mapping[str, Any],
    allowed: Sequence[Path] = (),
    back_doors: Sequence[str] = (),
) -> Frame:
    """The frame of a task whose oracle run went from `reset` to `final` (see the module
    docstring); `back_doors` are the site's transitions judged by provenance instead."""
    kept = kept_values(schema)
    changes = list(persistent_changes(kept, reset, final))
    creates = Counter(c.path[0] for c in changes if c.what == "created")
    exempt = {c.path for c in changes if c.what != "created"} | set(allowed)
    return Frame(
        kept=kept,
        exempt=tuple(sorted(exempt)),
        creates=dict(sorted(creates.items())),
        allowed=tuple(dict.fromkeys(allowed)),
        back_doors=tuple(sorted(back_doors)),
    )


def breaches(
    frame: Frame,
    reset: Mapping[str, Any],
    now: Mapping[str, Any],
    by_back_door: Callable[[Path], bool] = lambda _: False,
) -> list[str]:
    """What changed in what persists that the frame does not allow, in words (empty when
    the frame holds). What a back door changed last is left to provenance."""
    out: list[str] = []
    made: dict[str, list[PersistentChange]] = {}
    for c in persistent_changes(frame.kept, reset, now):
        if by_back_door(c.path):
            continue
        if c.what == "created":
            made.setdefault(c.path[0], []).append(c)
        elif not frame.exempts(c.path):
            out.append(c.text())
    for table, new in made.items():
        allowed = frame.may_create(table)
        if allowed == 0:
            out += [c.text() for c in new]
        elif allowed is not None and len(new) > allowed:
            ids = ", ".join(c.path[1] for c in new)
            out.append(f"{len(new)} new {table} ({ids}) where the task makes {allowed}")
    return out


def beyond_goal(breaches: Sequence[str]) -> str:
    """A failure's reason when the goal was done and the frame broken."""
    return "the task's goal was done, but the site's data changed beyond it: " + ", ".join(
        breaches[:5]
    )


def persistent_changes(
    kept: Sequence[Kept], before: Mapping[str, Any], after: Mapping[str, Any]
) -> Iterator[PersistentChange]:
    """Every change between two views to what persists, at the grain the frame judges."""
    for k in kept:
        a, b = before.get(k.name), after.get(k.name)
        if a == b:
            continue
        if k.kind == "table":
            yield from _table_changes(k, _mapping(a), _mapping(b))
        elif k.kind == "object":
            ma, mb = _mapping(a), _mapping(b)
            for f in k.fields:
                yield from _value_changes((k.name, f), ma.get(f), mb.get(f))
        else:
            yield from _value_changes((k.name,), a, b)


def _table_changes(
    k: Kept, a: Mapping[str, Any], b: Mapping[str, Any]
) -> Iterator[PersistentChange]:
    for key in sorted(set(a) | set(b)):
        ra, rb = a.get(key), b.get(key)
        if ra == rb or _this_visit(k, ra) or _this_visit(k, rb):
            continue
        if ra is None:
            if not k.log:
                yield PersistentChange((k.name, key), "created")
        elif rb is None:
            yield PersistentChange((k.name, key), "deleted")
        else:
            for f in k.fields:
                if ra.get(f) != rb.get(f):
                    yield PersistentChange((k.name, key, f), "changed")


def _value_changes(path: Path, a: Any, b: Any) -> Iterator[PersistentChange]:
    if a == b:
        return
    if isinstance(a, list) and isinstance(b, list):
        added = [x for x in b if x not in a]
        removed = [x for x in a if x not in b]
        yield from (PersistentChange((*path, str(x)), "added") for x in added)
        yield from (PersistentChange((*path, str(x)), "removed") for x in removed)
        if added or removed:
            return
    yield PersistentChange(path, "changed")


def _this_visit(k: Kept, record: Any) -> bool:
    return bool(k.visit) and isinstance(record, Mapping) and bool(record.get(str(k.visit)))


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _matches(pattern: Path, path: Path) -> bool:
    return len(pattern) <= len(path) and all(
        p in (ANY_KEY, q) for p, q in zip(pattern, path, strict=False)
    )


def path_text(path: Path, tables: set[str] | frozenset[str] = frozenset()) -> str:
    """A frame path as the DSL writes it: `cards["C-12"].column`, `cards.*.labels`, `orders`."""
    head, *rest = path
    if head in tables and rest and rest[0] != ANY_KEY:
        return f"{head}[{json.dumps(rest[0])}]" + "".join(f".{p}" for p in rest[1:])
    return ".".join(path)
