"""RewardSpec and RewardSimulator: exact rewards from a compiled task's goal and subgoals.

Success is the task's goal, and nothing else: every conjunct holds at the same time, over
state whose *provenance* is clean, and the task's *frame* holds (`tasks.frame`: what the
site keeps and the goal does not name is as it was at reset). The simulator tracks who
last changed each piece of goal state (a record, a record's field, a session value): a
change made by an action that set off only transitions the task's own steps use (or
navigation) is clean; a change made through any other transition (a back door such as a
staff "force-complete" link) is tainted until a permitted action changes it again. A back
door thus taints only what it touched, and a later correct path (a new order, a new
booking) still succeeds: what a declared back door (a staff shortcut) changed is left to
provenance, not held against the frame. Any other transition the task does not use (a
stray setting, a second order) is held against it.

Per step the reward is the sum of:
- `step_penalty`, always;
- `invalid_penalty` when the action was invalid (it then changes nothing), and the same
  when it repeated the step before and changed neither the page nor the site's state (the
  thirteenth click on "Search" costs what an invalid action does, not a bare step);
- `subgoal_reward` for each subgoal credited for the first time: its predicate holds over
  clean state, it did not hold at reset (or has been false since), and every prerequisite
  in the compiled DAG is credited; a subgoal pays once per episode. A step that only
  leads to a page (`Subgoal.leads_to`) holds once that page is reached by any route, so
  another route to a page earns what the oracle's route earns;
- `undo_penalty` for each credited, non-sticky subgoal whose predicate stopped holding,
  unless the same step made a later subgoal true (a checkout empties the cart it orders)
  or the site refused the step with a server error (closing the dialog the refused
  change came from, so its Retry shows: the site undid it, not the agent; the credit
  still lapses);
- `success_reward` once the goal and the frame hold: the episode ends.
An agent's `done` action ends the episode without success on a feasible task.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from webfactory_env.sitegen.registry import get_family
from webfactory_env.tasks.compiled import CompiledTask, Subgoal
from webfactory_env.tasks.frame import breaches

Path = tuple[str, ...]


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
    """What the simulator needs to know about the step's action: whether it was valid,
    the element it used, whether it ended the episode, the app transitions it set off
    (`SiteApp.take_fired`), and whether it was a repeat without effect (the same action as
    the step before, leaving the page and the site's state as they were)."""

    valid: bool
    sid: str | None = None
    done: bool = False
    transitions: tuple[str, ...] = ()
    repeat: bool = False


@dataclass(frozen=True)
class RewardOutcome:
    reward: float
    newly: tuple[str, ...]
    undone: tuple[str, ...]
    success: bool
    terminated: bool
    components: Mapping[str, float] = field(default_factory=dict)
    uncredited: tuple[str, ...] = ()
    tainted: tuple[str, ...] = ()


def tracked_changes(
    tracked: tuple[tuple[str, str], ...], before: Mapping[str, Any], after: Mapping[str, Any]
) -> list[Path]:
    """What changed in the goal's state, at the grain provenance is kept: a record created
    or deleted, a record's field, a session object's field, a whole value."""
    out: list[Path] = []
    for name, kind in tracked:
        a, b = before.get(name), after.get(name)
        if a == b:
            continue
        if kind in ("table", "object") and isinstance(a, Mapping) and isinstance(b, Mapping):
            for key in set(a) | set(b):
                va, vb = a.get(key), b.get(key)
                if va == vb:
                    continue
                if kind == "table" and isinstance(va, Mapping) and isinstance(vb, Mapping):
                    out += [(name, key, f) for f in set(va) | set(vb) if va.get(f) != vb.get(f)]
                else:
                    out.append((name, key))
        else:
            out.append((name,))
    return out


class RewardSimulator:
    """Tracks goal provenance and subgoal progress for one episode of one compiled task."""

    def __init__(self, task: CompiledTask, spec: RewardSpec | None = None) -> None:
        self.task = task
        self.spec = spec or RewardSpec()
        self.order = {g.id: i for i, g in enumerate(task.subgoals)}
        self._by_id = {g.id: g for g in task.subgoals}
        table = get_family(task.family).app_class.transitions()
        self.neutral = frozenset(name for name, t in table.items() if t.neutral)
        self.credited: set[str] = set()
        self.paid: set[str] = set()
        self.tainted: set[Path] = set()
        self.by_back_door: set[Path] = set()  # tainted by a declared back door
        self._seen_false: dict[str, bool] = {}
        self._held: dict[str, bool] = {}
        self._prev: dict[str, Any] = {}
        self._at_reset: Mapping[str, Any] = {}
        self._refusing = False
        self.total = 0.0
        self.success = False

    def reset(self, state: Mapping[str, Any]) -> None:
        self.credited = set()
        self.paid = set()
        self.tainted = set()
        self.by_back_door = set()
        self._refusing = _server_error(state)
        self._held = self._holding(state)
        self._seen_false = {gid: not held for gid, held in self._held.items()}
        self._prev = {name: state.get(name) for name, _ in self.task.tracked}
        # What persists, as it was: the frame compares against it (views are never
        # changed after they are built, so keeping them costs no copy).
        self._at_reset = {k.name: state.get(k.name) for k in self.task.frame.kept}
        self.total = 0.0
        self.success = False

    # ---------------------------------------------------------------- provenance
    def permitted(self, action: ActionRecord) -> bool:
        """Whether what the action changed counts: it set off only the task's own
        transitions (or navigation), or it ended the episode."""
        if not action.valid:
            return False
        if action.done:
            return True
        allowed = self.task.transitions
        return all(t in self.neutral or t in allowed for t in action.transitions)

    def clean(self, path: Path) -> bool:
        """Whether `path` (and everything under it) was last changed by permitted means."""
        return not _overlaps(self.tainted, path)

    def _track(self, action: ActionRecord, state: Mapping[str, Any]) -> list[Path]:
        changed = tracked_changes(self.task.tracked, self._prev, state)
        self._prev = {name: state.get(name) for name, _ in self.task.tracked}
        permitted = self.permitted(action)
        back_door = any(t in self.task.frame.back_doors for t in action.transitions)
        for path in changed:
            if permitted:
                self.tainted = {t for t in self.tainted if t[: len(path)] != path}
                self.by_back_door = {t for t in self.by_back_door if t[: len(path)] != path}
            else:
                self.tainted.add(path)
                if back_door:
                    self.by_back_door.add(path)
        return [] if permitted else changed

    # --------------------------------------------------------------------- step
    def step(self, action: ActionRecord, state: Mapping[str, Any]) -> RewardOutcome:
        spec = self.spec
        parts = {"step": spec.step_penalty}
        if not action.valid:
            parts["invalid"] = spec.invalid_penalty
        elif action.repeat:
            parts["repeat"] = spec.invalid_penalty
        tainted_now = self._track(action, state)
        holds = self._holding(state, action)
        became_true = {gid for gid, h in holds.items() if h and not self._held[gid]}
        refusing = _server_error(state)
        refused_now, self._refusing = refusing and not self._refusing, refusing
        newly: list[str] = []
        undone: list[str] = []
        uncredited: list[str] = []
        for g in self.task.subgoals:
            if not holds[g.id]:
                self._seen_false[g.id] = True
            if g.id in self.credited:
                if holds[g.id] or g.sticky:
                    continue
                # Consumed, not undone, when this step made a later subgoal true.
                if any(self.order[h] > self.order[g.id] for h in became_true):
                    continue
                self.credited.discard(g.id)
                if not refused_now:
                    undone.append(g.id)
                continue
            if not holds[g.id] or not self._seen_false[g.id]:
                continue
            if not all(p in self.credited for p in g.prerequisites):
                continue
            if not self._holds_clean(g, state):
                if g.id in became_true:
                    uncredited.append(g.id)
                continue
            self.credited.add(g.id)
            if g.id not in self.paid:
                self.paid.add(g.id)
                newly.append(g.id)
        self._held = holds
        if newly:
            parts["subgoals"] = spec.subgoal_reward * len(newly)
        if undone:
            parts["undo"] = spec.undo_penalty * len(undone)
        success = self.goal_done(state) and not self.frame_breaches(state)
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
            tainted=tuple(".".join(p) for p in tainted_now),
        )

    def _holding(
        self, state: Mapping[str, Any], action: ActionRecord | None = None
    ) -> dict[str, bool]:
        """Each subgoal: does it hold now? A step that only leads to a page also holds once
        that page is reached, whatever route reached it: credited before, or arrived at
        now by using an element of the site (any link to it; not an address typed in)."""
        holds = {g.id: g.predicate.holds(state) for g in self.task.subgoals}
        used_element = action is not None and action.sid is not None
        for g in self.task.subgoals:
            page = g.leads_to
            if page is not None and not holds[g.id]:
                arrived = used_element and holds.get(page, False) and not self._held.get(page)
                holds[g.id] = page in self.credited or arrived
        return holds

    def _holds_clean(self, g: Subgoal, state: Mapping[str, Any]) -> bool:
        if g.predicate.holds_clean(state, self.clean):
            return True
        page = self._by_id.get(g.leads_to or "")
        return page is not None and (
            page.id in self.credited or page.predicate.holds_clean(state, self.clean)
        )

    def goal_status(self, state: Mapping[str, Any]) -> dict[str, bool]:
        """Each goal conjunct: does it hold over clean state now? And `frame`: is
        everything else the site keeps as it was at reset?"""
        status = {c.id: c.predicate.holds_clean(state, self.clean) for c in self.task.goal}
        status["frame"] = not self.frame_breaches(state)
        return status

    def goal_done(self, state: Mapping[str, Any]) -> bool:
        """Whether every goal conjunct holds over clean state (success, but for the frame)."""
        goal = self.task.goal
        return bool(goal) and all(c.predicate.holds_clean(state, self.clean) for c in goal)

    def beyond_goal(self, state: Mapping[str, Any]) -> list[str]:
        """When the goal is done but the frame does not hold: what else changed."""
        return self.frame_breaches(state) if self.goal_done(state) else []

    def frame_breaches(self, state: Mapping[str, Any]) -> list[str]:
        """What else changed in what the site keeps, beyond what the task allows (but
        for what a back door changed last): `["orders[O-1043] created"]`."""
        return breaches(
            self.task.frame, self._at_reset, state, lambda p: _overlaps(self.by_back_door, p)
        )


def _overlaps(paths: set[Path], path: Path) -> bool:
    """Whether one of `paths` is `path`, or lies above or below it."""
    return any(t[: min(len(t), len(path))] == path[: min(len(t), len(path))] for t in paths)


def _server_error(state: Mapping[str, Any]) -> bool:
    """Whether the site is showing a refused change (an injected server error) now."""
    server = state.get("server")
    return isinstance(server, Mapping) and bool(server.get("error"))
