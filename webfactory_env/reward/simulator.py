"""RewardSpec and RewardSimulator: dense, exact rewards from compiled subgoal predicates.

Per step the reward is the sum of:
- `step_penalty`, always;
- `invalid_penalty` when the action was invalid (it then changes nothing);
- `subgoal_reward` for each subgoal whose predicate turned true on this step, credited only
  when the action used a permitted element (one in some subgoal's witness set): a hidden
  shortcut that flips state earns nothing, and the subgoal stays uncredited until a
  permitted action makes it true again;
- `undo_penalty` for each credited, non-sticky subgoal whose predicate stopped holding
  (it can then be earned again, so undo/redo cycles never pay);
- `success_reward` once every terminal subgoal is credited and holds: the episode ends.
An agent's `done` action ends the episode without success on a feasible task.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from webfactory_env.tasks.compiled import CompiledTask


class RewardSpec(BaseModel):
    """Reward magnitudes. Penalties are negative numbers."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    step_penalty: float = Field(default=-0.01, le=0)
    invalid_penalty: float = Field(default=-0.2, le=0)
    subgoal_reward: float = Field(default=0.2, ge=0)
    undo_penalty: float = Field(default=-0.2, le=0)
    success_reward: float = Field(default=1.0, ge=0)


@dataclass(frozen=True)
class ActionRecord:
    """What the simulator needs to know about the step's action."""

    valid: bool
    sid: str | None = None
    done: bool = False


@dataclass(frozen=True)
class RewardOutcome:
    reward: float
    newly: tuple[str, ...]
    undone: tuple[str, ...]
    success: bool
    terminated: bool
    components: Mapping[str, float] = field(default_factory=dict)
    uncredited: tuple[str, ...] = ()


class RewardSimulator:
    """Tracks subgoal progress for one episode of one compiled task."""

    def __init__(self, task: CompiledTask, spec: RewardSpec | None = None) -> None:
        self.task = task
        self.spec = spec or RewardSpec()
        self.credited: set[str] = set()
        self._held: dict[str, bool] = {}
        self.total = 0.0
        self.success = False

    def reset(self, state: Mapping[str, Any]) -> None:
        self.credited = set()
        self._held = {g.id: g.predicate.holds(state) for g in self.task.subgoals}
        self.total = 0.0
        self.success = False

    def step(self, action: ActionRecord, state: Mapping[str, Any]) -> RewardOutcome:
        spec = self.spec
        parts = {"step": spec.step_penalty}
        if not action.valid:
            parts["invalid"] = spec.invalid_penalty
        # Progress counts only through witness elements, or by ending the episode (the only
        # way to reach the agent's own `agent.*` state: answers and infeasibility claims).
        permitted = action.valid and (
            action.done or (action.sid is not None and action.sid in self.task.permitted)
        )
        newly: list[str] = []
        undone: list[str] = []
        uncredited: list[str] = []
        for g in self.task.subgoals:
            holds = g.predicate.holds(state)
            was = self._held[g.id]
            self._held[g.id] = holds
            if holds and not was and g.id not in self.credited:
                if permitted:
                    self.credited.add(g.id)
                    newly.append(g.id)
                else:
                    uncredited.append(g.id)
            elif not holds and was and g.id in self.credited and not g.sticky:
                self.credited.discard(g.id)
                undone.append(g.id)
        if newly:
            parts["subgoals"] = spec.subgoal_reward * len(newly)
        if undone:
            parts["undo"] = spec.undo_penalty * len(undone)
        terminal = self.task.terminal
        success = bool(terminal) and all(
            g.id in self.credited and self._held[g.id] for g in terminal
        )
        if success:
            parts["success"] = spec.success_reward
            self.success = True
        reward = float(sum(parts.values()))
        self.total += reward
        return RewardOutcome(
            reward=reward,
            newly=tuple(newly),
            undone=tuple(undone),
            success=success,
            terminated=success or action.done,
            components=parts,
            uncredited=tuple(uncredited),
        )
