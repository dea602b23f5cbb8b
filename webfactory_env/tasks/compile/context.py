"""One compile run: the site's app as the steps left it, and what the steps have recorded so
far (plan, subgoals, runs, bindings, words). Every module of the compiler reads and adds to it."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from webfactory_env.dsl import ast
from webfactory_env.sitegen.app import SiteApp
from webfactory_env.sitegen.registry import Site
from webfactory_env.sitegen.spec import Affordance, Option
from webfactory_env.sitegen.state import Schema
from webfactory_env.tasks.compile.errors import CompileError
from webfactory_env.tasks.compiled import CompileWarning, PlanStep, PlanVerb, Subgoal
from webfactory_env.tasks.goal import Conjunct, PinnedAssert, StepRun, by_meaning

# Whether the walk draws sketches of the pages it reads (what it reads of a page is the
# same either way: tests/test_compiler_pages.py).
SKETCH_PAGES = True


@dataclass(frozen=True)
class Move:
    """One oracle action made while compiling a step."""

    verb: PlanVerb
    sid: str
    value: str | None = None
    # The instruction's sentence for a move that is a step of its own for the agent:
    # opening the tab, dialog, section or menu a target is behind, paging a list forward.
    says: str = ""


@dataclass(frozen=True)
class Match:
    """An affordance a target names on the current page (and, for `select`, its option)."""

    affordance: Affordance
    option: Option | None = None


@dataclass(frozen=True)
class Tie:
    """A "first / best by X" choice whose runner-up ties it on X (the sort key)."""

    line: int
    column: int
    key: str
    chosen: str  # semantic id
    others: tuple[str, ...]


@dataclass(eq=False)
class CompileRun:
    """The walk of one task over a fresh app of one site, and everything it records."""

    file: ast.TaskFile
    task: ast.TaskDef
    site: Site
    # Which witness to take at a tied step (line, column) -> sid: set when the compiler
    # re-runs a task down a tied alternative to learn the answer it leads to.
    choose: dict[tuple[int, int], str] = field(default_factory=dict)
    forking: bool = True

    # The site, and the states it was seen in.
    app: SiteApp = field(init=False)
    schema: Schema = field(init=False)
    reset_view: Mapping[str, Any] = field(init=False)
    seen_views: list[Mapping[str, Any]] = field(init=False)  # for "did you mean"

    # What the task's values are.
    params: dict[str, Any] = field(default_factory=dict)
    loop_vars: dict[str, str] = field(default_factory=dict)  # loop variable -> sid

    # What the steps recorded, in order.
    plan: list[PlanStep] = field(default_factory=list)
    subgoals: list[Subgoal] = field(default_factory=list)
    runs: list[StepRun] = field(default_factory=list)  # what each step changed (the goal)
    mutated: set[str] = field(default_factory=set)  # subgoals whose step changed site data
    asserts: list[PinnedAssert] = field(default_factory=list)
    allowed: list[tuple[str, ...]] = field(default_factory=list)  # `allow`: the frame's too
    writes: dict[str, set[tuple[str, ...]]] = field(default_factory=dict)  # subgoal -> paths
    values: set[str] = field(default_factory=set)  # every value the plan types or selects
    bindings: dict[str, Any] = field(default_factory=dict)
    surface: list[str] = field(default_factory=list)  # the instruction, sentence by sentence
    # The values the instruction's steps type or choose, as its sentences state them.
    recipe_values: list[str] = field(default_factory=list)
    named_values: dict[str, Any] = field(default_factory=dict)  # field/choice -> value set
    warnings: list[CompileWarning] = field(default_factory=list)
    steps_seen: int = 0

    # Where the walk is.
    entry_subgoal: str | None = None  # the step that brought us to the current page
    sort_keys: dict[str, tuple[str, str]] = field(default_factory=dict)  # route -> key, order
    ties: list[Tie] = field(default_factory=list)
    asks_question: bool = field(init=False)

    # How the task ends: the `answer` or `infeasible` step, its conjunct and the answer.
    ending: ast.Step | None = None
    ending_conjunct: Conjunct | None = None
    final_answer: str = ""

    def __post_init__(self) -> None:
        self.app = self.site.new_app(shared_start=True)  # its start page and view: the env's
        self.app.patches = False  # no page is sent anywhere: render only what the walk reads
        self.app.sketches = SKETCH_PAGES  # and read the pages' affordances, regions and text
        self.schema = self.site.family.schema
        # State views are built afresh for every state and never changed afterwards (the
        # app's contract, tested in tests/test_state_views.py): keeping them costs no copy.
        self.reset_view = self.app.state_view()
        self.seen_views = [self.reset_view]
        self.asks_question = _ends_with_answer(self.task.steps)

    def error(self, message: str, node: Any, hint: str | None = None) -> CompileError:
        """An error pointing at `node` (anything with a `span`) in the task's source."""
        span = getattr(node, "span", ast.NO_SPAN)
        return CompileError(
            message, filename=self.file.filename, source=self.file.source, span=span, hint=hint
        )

    def warn(self, message: str, node: Any) -> None:
        """Note, once, that what `node` says should be written otherwise."""
        span = getattr(node, "span", ast.NO_SPAN)
        warning = CompileWarning(message, self.file.filename, span.line, span.column)
        if warning not in self.warnings:
            self.warnings.append(warning)

    def page_affordances(self) -> tuple[Affordance, ...]:
        return self.app.page().affordances

    def find(self, sid: str) -> Affordance | None:
        return next((a for a in self.page_affordances() if a.sid == sid), None)

    def need(self, sid: str, step: ast.Step) -> Affordance:
        found = self.find(sid)
        if found is None:
            raise self.error(f"the site does not show {sid!r} on page {self.app.route}", step)
        return found

    def add_subgoal(self, subgoal: Subgoal) -> None:
        """Record a subgoal, after the one recorded before it; typed values in it compare
        by meaning."""
        subgoal = replace(subgoal, predicate=by_meaning(self.schema, subgoal.predicate))
        if self.subgoals:
            subgoal = replace(subgoal, after=(self.subgoals[-1].id,))
        self.subgoals.append(subgoal)

    def unique_id(self, slug: str) -> str:
        """`slug`, numbered when a subgoal already has it."""
        taken = {g.id for g in self.subgoals}
        if slug not in taken:
            return slug
        n = 2
        while f"{slug}-{n}" in taken:
            n += 1
        return f"{slug}-{n}"


def _ends_with_answer(steps: Iterable[ast.Step]) -> bool:
    """Whether the task ends with `answer` (tied choices then lead to tied answers)."""
    last = list(steps)[-1:] if steps else []
    return bool(last) and isinstance(last[0], ast.Answer)
