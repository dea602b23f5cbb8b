"""A task's goal: what the site's state must show when the task is done, pinned to entities.

The compiler runs the task on the site's own app and records, for every step, what the
step changed in the state a goal may pin (entity records field by field, the session) and
which form drafts it wrote. From that run, `derive_goal` builds one conjunct per pinned
thing the steps changed, valued as the task left it:

- a field of an existing record (`cards["C-12"].column`) or of the session
  (`cart.items`) equals its final value; containers compare exactly, except histories
  (what was taken out, attached, ...), which must hold what the steps added;
- a record the steps created becomes "some record of that table has these values"
  (`Exists`): its fields that came from drafts the task never touched (a payment method
  nobody chose) are left out, and its bookkeeping (ids, totals, dates) never counts, so a
  later correct attempt still succeeds whatever id it gets;
- a record the steps deleted must be absent;
- a value written and then put back (a cart emptied by the checkout) is no goal: the
  step that consumed it pinned what mattered (the order's items);
- a step whose effect already held keeps it: "keep security alerts on" must still hold;
- explicit `assert`s add conjuncts, pinned to the entity open at that step, and override
  the derived conjunct on the same path (`contains` there means "at least");
- when the task ends on navigation steps, the page they lead to is a conjunct too.

All conjuncts must hold at the same time. A typed value (a field the family declares
`typed`: phone, email, card, date, postal, code) compares by meaning, not spelling
(`by_meaning`): every spelling the site accepts for the value the task typed succeeds.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from webfactory_env.core.predicates import (
    All,
    Any_,
    Contains,
    Eq,
    Exists,
    Has,
    Not,
    Predicate,
)
from webfactory_env.sitegen.state import Change, Path, Schema, lookup_path


@dataclass(frozen=True)
class StepRun:
    """What one compiled step did to the site's state."""

    subgoal: str
    line: int
    column: int
    changes: Mapping[Path, Change] = field(default_factory=dict)
    drafts: frozenset[Path] = frozenset()
    navigation: bool = False
    # The step's effect already held (a setting that is already right): keep it holding.
    maintained: Predicate | None = None
    # The page this navigation step leads to (route, open tab...).
    page: Predicate | None = None


@dataclass(frozen=True)
class Conjunct:
    """One part of a task's goal."""

    id: str
    predicate: Predicate
    description: str
    kind: str  # effect, kept, assert, page, answer, infeasible
    line: int = 0
    column: int = 0
    record: tuple[str, str] | None = None  # the record the compiled run created, if any

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "kind": self.kind,
            "description": self.description,
            "predicate": self.predicate.to_json(),
            "line": self.line,
            "column": self.column,
        }


@dataclass(frozen=True)
class PinnedAssert:
    """An `assert` after pinning: a predicate over entity paths, or conditions on a record
    the task created (merged into that record's `Exists`)."""

    predicate: Predicate
    line: int
    column: int
    new_record: tuple[str, str] | None = None  # (table, id) when it is about a new record


def written(runs: Sequence[StepRun]) -> set[Path]:
    """Every path the steps changed or addressed (drafts included): the sources a goal may
    pin a copied field from."""
    out: set[Path] = set()
    for run in runs:
        out |= set(run.changes)
        out |= set(run.drafts)
    return out


def _source_written(source: str, paths: set[Path]) -> bool:
    want = tuple(source.split("."))
    return any(p[: len(want)] == want or want[: len(p)] == p for p in paths)


def derive_goal(
    schema: Schema,
    reset: Mapping[str, Any],
    final: Mapping[str, Any],
    runs: Sequence[StepRun],
    asserts: Sequence[PinnedAssert] = (),
    ends_on_page: bool = True,
) -> list[Conjunct]:
    """The goal of a task whose compiled run is `runs`, from the state at reset and at
    the end (see the module docstring). `ends_on_page` is false for a task that ends with
    an answer or by giving up: where the agent stands then is no part of the goal."""
    sources = written(runs)
    first_step: dict[Path, StepRun] = {}
    for run in runs:
        for path in run.changes:
            first_step.setdefault(path, run)
    created = {p for run in runs for p, c in run.changes.items() if c == "created"}
    deleted = {p for run in runs for p, c in run.changes.items() if c == "deleted"}
    conjuncts: list[Conjunct] = []
    merged: dict[tuple[str, str], list[Predicate]] = {}
    for a in asserts:
        if a.new_record is not None:
            merged.setdefault(a.new_record, []).append(a.predicate)
    overridden = {p for a in asserts if a.new_record is None for p in a.predicate.paths()}

    def add(
        predicate: Predicate,
        description: str,
        kind: str,
        run: StepRun | None,
        record: tuple[str, str] | None = None,
    ) -> None:
        conjuncts.append(
            Conjunct(
                id=f"{kind}-{len(conjuncts) + 1}",
                predicate=by_meaning(schema, predicate),
                description=description,
                kind=kind,
                line=run.line if run else 0,
                column=run.column if run else 0,
                record=record,
            )
        )

    for path, run in first_step.items():
        if path in overridden or not schema.pinned(path):
            continue
        if path in created:
            record = lookup_path(final, path)
            if record is None:
                continue  # made and deleted again: nothing to show
            pins = _record_pins(schema, path[0], record, sources)
            where = list(
                {
                    repr(p.to_json()): p for p in [*pins, *merged.pop((path[0], path[1]), [])]
                }.values()
            )
            add(
                Exists((path[0],), All(tuple(where))),
                f"a new {_noun(path[0])} with {_fields_text(where)}",
                "effect",
                run,
                (path[0], path[1]),
            )
            continue
        if path in deleted:
            if lookup_path(final, path) is None and lookup_path(reset, path) is not None:
                add(Not(Has(path)), f"{_path_text(path)} is deleted", "effect", run)
            continue
        if len(path) == 3 and (path[0], path[1]) in created:
            continue  # a field of a record made in this task: its Exists pins it
        if len(path) == 3 and lookup_path(final, path[:2]) is None:
            continue  # a field of a record deleted later: the deletion is the goal
        node = schema.node(path)
        before, after = lookup_path(reset, path), lookup_path(final, path)
        if node is not None and node.history:
            added = _added(before, after)
            if added:
                add(Contains(path, added), f"{_path_text(path)} holds {added}", "effect", run)
            continue
        if after == before:
            continue  # written and put back: consumed by a later step
        add(Eq(path, after), f"{_path_text(path)} is {after!r}", "effect", run)

    for run in runs:
        if run.maintained is not None:
            add(run.maintained, f"keep {_predicate_text(run.maintained)}", "kept", run)
    for a in asserts:
        if a.new_record is None:
            add(a.predicate, _predicate_text(a.predicate), "assert", None)
    tail = _trailing_navigation(runs) if ends_on_page else []
    if tail:
        pages = tuple(r.page for r in tail if r.page is not None)
        if pages:
            add(
                pages[0] if len(pages) == 1 else All(pages),
                "end on " + " and ".join(_predicate_text(p) for p in pages),
                "page",
                tail[-1],
            )
    return conjuncts


def by_meaning(schema: Schema, p: Predicate, within: Path = ()) -> Predicate:
    """`p` with every equality on a typed value (`sitegen.state.typed`) comparing by
    meaning: a phone number by its digits, an e-mail address without case, a date in any
    format the site accepts. `within` is where `p`'s paths start (a record of a table)."""
    if isinstance(p, (All, Any_)):
        return type(p)(tuple(by_meaning(schema, x, within) for x in p.items))
    if isinstance(p, Not):
        return Not(by_meaning(schema, p.item, within))
    if isinstance(p, Exists):
        return Exists(p.path, by_meaning(schema, p.where, (*within, *p.path, "*")))
    if isinstance(p, Eq) and p.as_ is None:
        as_ = schema.value_type((*within, *p.path))
        if as_ is not None:
            return Eq(p.path, p.value, as_)
    return p


def _trailing_navigation(runs: Sequence[StepRun]) -> list[StepRun]:
    """The navigation steps after the last step that changed the site's data, from the
    last one that changed the page shown (what came before it no longer shows)."""
    tail: list[StepRun] = []
    for run in reversed(runs):
        if not run.navigation or run.maintained is not None:
            break
        tail.insert(0, run)
        if run.page is not None and ("route",) in run.page.paths():
            break
    return tail


def _record_pins(
    schema: Schema, table: str, record: Mapping[str, Any], sources: set[Path]
) -> list[Predicate]:
    """What pins a record the task created: its fields, except bookkeeping and fields
    copied from drafts the task never wrote."""
    node = schema.node((table, "*"))
    pins: list[Predicate] = []
    if node is None or node.kind != "object":
        return pins
    for name, sub in node.fields.items():
        if sub.derived or name not in record:
            continue
        if sub.source is not None and not _source_written(sub.source, sources):
            continue
        value = record[name]
        if sub.history:
            if value:
                pins.append(Contains((name,), value))
            continue
        pins.append(Eq((name,), value))
    return pins


def _added(before: Any, after: Any) -> list[Any]:
    old = list(before) if isinstance(before, (list, tuple, set, dict)) else []
    new = list(after) if isinstance(after, (list, tuple, set, dict)) else []
    return [x for x in new if x not in old]


# ------------------------------------------------------------------ descriptions
def _noun(table: str) -> str:
    return table[:-1] if table.endswith("s") else table


def _path_text(path: Path) -> str:
    head, *rest = path
    if len(path) >= 2:
        return f"{head}[{rest[0]}]" + "".join(f".{p}" for p in rest[1:])
    return head


def _fields_text(where: Sequence[Predicate]) -> str:
    return ", ".join(_predicate_text(p) for p in where) or "any values"


def _predicate_text(p: Predicate) -> str:
    data = p.to_json()
    op = data.get("op")
    if op in ("eq", "contains", "gt", "lt", "match"):
        words = {"eq": "is", "contains": "contains", "gt": ">", "lt": "<", "match": "~"}[op]
        return f"{data['path']} {words} {data['value']!r}"
    if op == "all":
        return " and ".join(_predicate_text(q) for q in p.items)  # type: ignore[attr-defined]
    if op == "not":
        return f"not ({_predicate_text(p.item)})"  # type: ignore[attr-defined]
    return str(data)
