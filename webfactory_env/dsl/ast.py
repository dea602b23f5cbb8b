"""The typed, immutable syntax tree of task files: what the parser builds and the compiler reads."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TypeAlias

DSL_VERSION = "0.4.0"


@dataclass(frozen=True, slots=True)
class Span:
    """Source range, 1-based like lark; `end_column` is the column just past the last character."""

    line: int
    column: int
    end_line: int
    end_column: int


# Nodes built by hand (tests, generators) have no source text. Every node's `span` is declared
# `field(default=NO_SPAN, compare=False, repr=False)`: positions are not meaning, so two trees
# that say the same thing compare equal, and test-failure diffs stay readable.
NO_SPAN = Span(0, 0, 0, 0)


# ---- values --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class StringLit:
    value: str
    span: Span = field(default=NO_SPAN, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class NumberLit:
    value: int | float
    span: Span = field(default=NO_SPAN, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class BoolLit:
    value: bool
    span: Span = field(default=NO_SPAN, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class Ident:
    """A bare name used as a value: a parameter, a loop variable, or a symbol such as `asc`."""

    name: str
    span: Span = field(default=NO_SPAN, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class Call:
    """`name(arg, ...)`, e.g. `route("/shop")` or `next("monday")`; arguments are values."""

    name: str
    args: tuple[Value, ...]
    span: Span = field(default=NO_SPAN, compare=False, repr=False)


Value: TypeAlias = StringLit | NumberLit | BoolLit | Ident | Call


# ---- targets -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class AttrPred:
    """`attr op value` inside a target; `op` is one of `=`, `~=`, `>`, `<`."""

    attr: str
    op: str
    value: Value
    span: Span = field(default=NO_SPAN, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class Target:
    """`Kind(pred, ...)`: the elements of that kind for which every predicate holds."""

    kind: str
    preds: tuple[AttrPred, ...]
    span: Span = field(default=NO_SPAN, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class VarRef:
    """A loop variable used as a target: `for p in Item(...) { click p; }`."""

    name: str
    span: Span = field(default=NO_SPAN, compare=False, repr=False)


TargetExpr: TypeAlias = Target | VarRef


# ---- state expressions ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PathKey:
    """`[value]` in a state path: the key of one entity of a table (`cards["C-12"]`)."""

    value: Value
    span: Span = field(default=NO_SPAN, compare=False, repr=False)


PathPart: TypeAlias = str | PathKey


@dataclass(frozen=True, slots=True)
class StateCond:
    """`a.b.c op value` inside `State(...)`; `cards[card].column` names one entity."""

    path: tuple[PathPart, ...]
    op: str
    value: Value
    span: Span = field(default=NO_SPAN, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class StateCall:
    """`State(cond, ...)`: holds when every condition holds."""

    conds: tuple[StateCond, ...]
    span: Span = field(default=NO_SPAN, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class StateNot:
    item: StateExpr
    span: Span = field(default=NO_SPAN, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class StateAnd:
    """Two or more operands, flattened: `a and b and c` is one node."""

    items: tuple[StateExpr, ...]
    span: Span = field(default=NO_SPAN, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class StateOr:
    """Two or more operands, flattened: `a or b or c` is one node."""

    items: tuple[StateExpr, ...]
    span: Span = field(default=NO_SPAN, compare=False, repr=False)


StateExpr: TypeAlias = StateCall | StateNot | StateAnd | StateOr


# ---- steps ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Goto:
    route: Value
    span: Span = field(default=NO_SPAN, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class Click:
    target: TargetExpr
    span: Span = field(default=NO_SPAN, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class Fill:
    target: TargetExpr
    value: Value
    span: Span = field(default=NO_SPAN, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class Select:
    target: TargetExpr
    value: Value
    span: Span = field(default=NO_SPAN, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class Submit:
    target: TargetExpr
    span: Span = field(default=NO_SPAN, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class Wait:
    """`wait cond;` (until it holds), `wait 500;` (logical ms) or `wait;` (both None)."""

    condition: StateExpr | None
    duration_ms: NumberLit | None
    span: Span = field(default=NO_SPAN, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class Assert:
    condition: StateExpr
    span: Span = field(default=NO_SPAN, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class If:
    """`otherwise` is empty without `else`; `else if` is a one-step `otherwise` holding an If."""

    condition: StateExpr
    then: tuple[Step, ...]
    otherwise: tuple[Step, ...]
    span: Span = field(default=NO_SPAN, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class For:
    var: str
    query: Target
    body: tuple[Step, ...]
    span: Span = field(default=NO_SPAN, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class Answer:
    """`answer Kind(...).attr;` or `answer State(a.b);`: what the agent must report with
    `done(true, text)`. Exactly one of (`target`, `attr`) and `path` is set."""

    target: TargetExpr | None
    attr: str | None
    path: tuple[PathPart, ...] | None
    span: Span = field(default=NO_SPAN, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class Infeasible:
    """`infeasible "reason" when cond;`: the task cannot be done on this site, because
    `cond` holds; the correct ending is `done(false)`."""

    reason: StringLit
    condition: StateExpr
    span: Span = field(default=NO_SPAN, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class FramePath:
    """A path in an `allow` clause: names, `[key]`s, and `*` for any key (`cards.*.labels`)."""

    parts: tuple[PathPart, ...]
    span: Span = field(default=NO_SPAN, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class Allow:
    """`allow orders, cards.*.labels;`: what the task may change besides its goal, in what
    the site keeps (its frame). Only directly in a task's body."""

    paths: tuple[FramePath, ...]
    span: Span = field(default=NO_SPAN, compare=False, repr=False)


Step: TypeAlias = (
    Goto | Click | Fill | Select | Submit | Wait | Assert | If | For | Answer | Infeasible | Allow
)


# ---- tasks ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Param:
    """`name`, `name: type`, `name = default` or `name: type = default`."""

    name: str
    type: str | None
    default: Value | None
    span: Span = field(default=NO_SPAN, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class TaskDef:
    """One `task`; `doc` is the `//` comment block directly above it (None if there is none)."""

    name: str
    params: tuple[Param, ...]
    steps: tuple[Step, ...]
    doc: str | None
    span: Span = field(default=NO_SPAN, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class TaskFile:
    """A parsed file; equality compares only the tasks, not where they came from."""

    filename: str = field(compare=False)
    source: str = field(compare=False, repr=False)
    tasks: tuple[TaskDef, ...]
    span: Span = field(default=NO_SPAN, compare=False, repr=False)
