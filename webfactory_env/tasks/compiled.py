"""What a compiled task is: a goal pinned to entities, the frame around it (nothing else
changes), subgoals for shaping (a DAG with witness sets), an oracle plan, the transitions it
permits, and a digest."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from webfactory_env.core.predicates import All, Predicate
from webfactory_env.tasks.frame import Frame
from webfactory_env.tasks.goal import Conjunct

PlanVerb = Literal["click", "type", "select", "submit", "done_success", "done_fail"]
# How the agent is told a task (`CompiledTask.text_for`; the env's `instruction_style`).
INSTRUCTION_STYLES = ("goal", "goal+hints", "recipe")


@dataclass(frozen=True, slots=True)
class Subgoal:
    """One step's effect on app state: the unit of shaping reward.

    `witness` ranks the semantic ids whose use counts as this step (first = the oracle's
    choice). `sticky` subgoals (navigation) stay achieved once reached; the others are
    undone when their predicate stops holding before anything built on them. A subgoal
    pays only once its `prerequisites` (the subgoals whose effects it builds on, and the
    one that brought the agent to its page) are credited; `after` is the authored order.
    A step that only leads to a page (`leads_to`: that page's subgoal) is done too once
    that page is reached, by whatever route (`tasks.compile.alternatives`).
    """

    id: str
    step: int
    description: str
    predicate: Predicate
    witness: tuple[str, ...]
    sticky: bool
    prerequisites: tuple[str, ...] = ()
    after: tuple[str, ...] = ()
    line: int = 0
    column: int = 0
    leads_to: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "step": self.step,
            "description": self.description,
            "predicate": self.predicate.to_json(),
            "witness": list(self.witness),
            "sticky": self.sticky,
            "prerequisites": list(self.prerequisites),
            "after": list(self.after),
            "leads_to": self.leads_to,
            "line": self.line,
            "column": self.column,
        }


@dataclass(frozen=True, slots=True)
class PlanStep:
    """An oracle action on a semantic element; `value` is an entry of the value table."""

    verb: PlanVerb
    sid: str
    value: str | None = None
    subgoal: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"verb": self.verb, "sid": self.sid, "value": self.value, "subgoal": self.subgoal}


@dataclass(frozen=True, slots=True)
class CompileWarning:
    """Something the task says that still compiles but should be written otherwise (an
    old state path), located in the task's source."""

    message: str
    filename: str
    line: int
    column: int

    def __str__(self) -> str:
        return f"{self.filename}:{self.line}:{self.column}: warning: {self.message}"

    def to_json(self) -> dict[str, Any]:
        return {"message": self.message, "line": self.line, "column": self.column}


@dataclass(frozen=True)
class CompiledTask:
    """A task bound to one generated site: everything rewards, agents and traces need."""

    name: str
    family: str
    site_digest: str
    source: str
    filename: str
    goal_text: str | None  # the goal in words, with this seed's values (from the doc comment)
    instruction: str
    subgoals: tuple[Subgoal, ...]
    plan: tuple[PlanStep, ...]
    values: tuple[str, ...]
    bindings: Mapping[str, Any]
    params: Mapping[str, Any]
    dsl_version: str
    compiler_version: str
    digest: str
    permitted: frozenset[str] = field(default_factory=frozenset)
    # What success means: every conjunct holds at once, by permitted means.
    goal: tuple[Conjunct, ...] = ()
    # The transitions (event handlers) the task's own steps use: a change made by any
    # other transition (a back door) does not count towards the goal.
    transitions: frozenset[str] = field(default_factory=frozenset)
    # The top-level state the goal may pin, whose provenance the reward tracks, with its
    # shape: ("orders", "table"), ("cart", "object"), ("wishlist", "value").
    tracked: tuple[tuple[str, str], ...] = ()
    # Other wordings of `instruction` that ask for exactly the same steps (for training
    # agents that do not overfit one phrasing); `instructions` lists all of them.
    paraphrases: tuple[str, ...] = ()
    # Other wordings of the goal (`goal_texts` lists all of them).
    goal_paraphrases: tuple[str, ...] = ()
    # Nothing else: what the task may change of what the site keeps besides its goal.
    # Success is the goal and the frame at once.
    frame: Frame = field(default_factory=Frame)
    # What the task should write otherwise (deprecated state paths), in source order.
    warnings: tuple[CompileWarning, ...] = ()
    # The strings each wording of the goal states exactly (`goal_texts` order), and the
    # values the recipe's steps type or choose: what the text observation's Values line
    # lists (`values_for`). `values` is the action space's table, which holds every value
    # the plan types or selects, the oracle's own choices included.
    goal_values: tuple[tuple[str, ...], ...] = ()
    recipe_values: tuple[str, ...] = ()

    def text_for(self, style: str, seed: int = 0) -> str:
        """What the agent is told: the goal in words (`goal`, one of its wordings chosen by
        `seed`), the goal followed by the step-by-step recipe as hints (`goal+hints`), or the
        recipe alone (`recipe`). A task without a goal in words falls back to the recipe."""
        goals = self.goal_texts
        if style == "recipe" or not goals:
            return self.instruction
        goal = goals[seed % len(goals)]
        return f"{goal}\nHints: {self.instruction}" if style == "goal+hints" else goal

    def values_for(self, style: str, seed: int = 0) -> tuple[str, ...]:
        """The strings the text `text_for(style, seed)` states that the agent types or
        chooses: the goal's own (its placeholders and quotes), or the recipe's values."""
        goals = self.goal_texts
        if style == "recipe" or not goals:
            return self.recipe_values
        return self.goal_values[seed % len(goals)] if self.goal_values else ()

    @property
    def goal_texts(self) -> tuple[str, ...]:
        return (self.goal_text, *self.goal_paraphrases) if self.goal_text else ()

    @property
    def instructions(self) -> tuple[str, ...]:
        return (self.instruction, *self.paraphrases)

    @property
    def success(self) -> Predicate:
        """The goal as one predicate (without provenance)."""
        return All(tuple(c.predicate for c in self.goal))

    @property
    def expects_answer(self) -> bool:
        """Whether the agent must end by saying something (an extraction task)."""
        return any(s.verb in ("done_success", "done_fail") and s.value for s in self.plan)

    def subgoal(self, subgoal_id: str) -> Subgoal:
        return next(g for g in self.subgoals if g.id == subgoal_id)

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "family": self.family,
            "site_digest": self.site_digest,
            "digest": self.digest,
            "dsl_version": self.dsl_version,
            "compiler_version": self.compiler_version,
            "goal_text": self.goal_text,
            "goal_paraphrases": list(self.goal_paraphrases),
            "goal_values": [list(v) for v in self.goal_values],
            "recipe_values": list(self.recipe_values),
            "instruction": self.instruction,
            "paraphrases": list(self.paraphrases),
            "params": dict(self.params),
            "values": list(self.values),
            "bindings": dict(self.bindings),
            "goal": [c.to_json() for c in self.goal],
            "frame": self.frame.to_json(),
            "transitions": sorted(self.transitions),
            "tracked": [list(t) for t in self.tracked],
            "subgoals": [g.to_json() for g in self.subgoals],
            "success": self.success.to_json(),
            "plan": [p.to_json() for p in self.plan],
            "warnings": [w.to_json() for w in self.warnings],
            "source": self.source,
            "filename": self.filename,
        }
