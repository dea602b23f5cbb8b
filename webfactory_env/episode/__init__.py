"""One episode's record keeping: each step's record, failures as events, and how it ended.

The env orchestrates; this module owns what it writes down. A step's record (`StepRecord`,
`info["record"]`) is what traces and replays are made of: the action as taken and as
described, its validity, the reward and its parts, subgoals reached, the state deltas, the
page's events, logical time. An episode's end is classified here (success / soft_fail /
hard_fail), with the artifacts captured before teardown (`EpisodeArtifacts`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from webfactory_env import actions as act
from webfactory_env.core.dom import DomSnapshot
from webfactory_env.core.predicates import AGENT_STATE
from webfactory_env.episode.ending import (
    Ending,
    EndScreenshot,
    EpisodeArtifacts,
    classify_ending,
    finish_episode,
)
from webfactory_env.episode.records import (
    StepFacts,
    StepRecord,
    error_event,
    fresh,
    hide,
    observation_digest,
    state_delta,
    step_record,
)
from webfactory_env.executor.input import INPUT_VERBS
from webfactory_env.executor.session import BrowserOp, StepResult
from webfactory_env.observation import StepContext
from webfactory_env.reward import ActionRecord, RewardOutcome, RewardSimulator, RewardSpec
from webfactory_env.sitegen.registry import Site
from webfactory_env.sitegen.served import ServedSite
from webfactory_env.tasks.compiled import CompiledTask

__all__ = [
    "STEP_MS",
    "BrowserStep",
    "EndScreenshot",
    "Ending",
    "Episode",
    "EpisodeArtifacts",
    "StepFacts",
    "StepOutcome",
    "StepRecord",
    "classify_ending",
    "error_event",
    "finish_episode",
    "fresh",
    "hide",
    "instruction_text",
    "observation_digest",
    "state_delta",
    "step_info",
    "step_record",
]

STEP_MS = 100  # logical time per action: nothing in a page or a reward reads the wall clock


@dataclass(frozen=True)
class BrowserStep:
    """What sending a valid action to the browser gave: the executor's result, or why the
    page or the browser died. Neither for an action that never reached the browser."""

    result: StepResult | None = None
    crash: str | None = None

    @property
    def error(self) -> str | None:
        """Why the action could not be done (e.g. selectors exhausted), if it could not."""
        return None if self.result is None or self.result.ok else str(self.result.error)

    @property
    def events(self) -> list[dict[str, Any]]:
        return self.result.events if self.result is not None else []

    @property
    def retries(self) -> list[dict[str, Any]]:
        return [r.model_dump() for r in self.result.retries] if self.result is not None else []

    @property
    def latency_ms(self) -> int:
        return self.result.latency_ms if self.result is not None else 0


@dataclass(frozen=True)
class StepOutcome:
    outcome: RewardOutcome
    terminated: bool
    truncated: bool
    valid: bool
    error: str | None
    record: StepRecord


class Episode:
    """The bookkeeping of one episode: logical clock, how the agent ended it, secrets typed
    (for redaction), failures as events, the reward simulator, the step records."""

    def __init__(
        self,
        task: CompiledTask,
        app: ServedSite,
        spec: RewardSpec,
        max_steps: int,
        action_mode: str = "multidiscrete",
        end_screenshot: EndScreenshot = "full",
    ) -> None:
        self.task = task
        self.action_mode = action_mode
        self.end_screenshot = end_screenshot
        self.app = app
        self.max_steps = max_steps
        self.steps = 0
        self.clock_ms = 0
        self.ended = False
        self.agent: dict[str, Any] = dict(AGENT_STATE)
        self.secrets: list[str] = []  # kept in memory for redaction; never written anywhere
        self.errors: list[dict[str, Any]] = []
        self.artifacts: EpisodeArtifacts | None = None
        self.state = self.full_state()
        self._last: act.Decoded | str | None = None  # the last valid action
        app.take_fired()
        self.sim = RewardSimulator(task, spec)
        self.sim.reset(self.state)

    def full_state(self) -> dict[str, Any]:
        """The app's state plus how the agent ended the episode (rewards read both)."""
        return {**self.app.state_view(), "agent": dict(self.agent)}

    def begin_step(self) -> None:
        self.steps += 1
        self.clock_ms += STEP_MS  # every attempt takes a step of logical time

    def note_error(self, kind: str, message: str) -> None:
        self.errors.append(error_event(kind, message, self.steps))

    def note_secret(self, value: str | None) -> None:
        if value and value not in self.secrets:
            self.secrets.append(value)

    def conclude(
        self,
        action: Any,
        decoded: act.Decoded | str,
        dom_before: DomSnapshot,
        op: BrowserOp | None,
        refused: str | None,
        ran: BrowserStep,
    ) -> StepOutcome:
        """Score the step and write its record: `refused` is why the action was invalid
        before reaching the browser, `ran` what the browser did with a valid one."""
        sid, redact = self._account(op, dom_before, ran)
        errors: list[dict[str, Any]] = []
        if refused is not None:
            errors.append(error_event("agent", f"invalid action: {refused}", self.steps))
        if ran.crash is not None:
            errors.append(error_event("browser", ran.crash, self.steps))
        elif ran.error is not None:
            kind = "executor" if ran.retries else "agent"
            errors.append(error_event(kind, ran.error, self.steps))
        error = refused or ran.crash or ran.error
        valid = error is None
        app_errors = self.app.take_errors()
        for app_error in app_errors:
            message = str(app_error.get("message") or app_error.get("kind"))
            errors.append(error_event("app", message, self.steps))
        done = isinstance(decoded, act.Decoded) and decoded.verb in act.DONE_VERBS and valid
        if done and isinstance(decoded, act.Decoded):
            self.agent = {
                "done": True,
                "claimed": decoded.verb == "done_success",
                "answer": self._answer(decoded, dom_before),
            }
        before, self.state = self.state, self.full_state()
        fired = self.app.take_fired()
        # A repeat without effect: neither the page nor the state moved (compared only for
        # a repeat, the state last: it is the costly part).
        page = ran.result.dom if ran.result is not None else None
        repeat = (
            valid
            and not done
            and decoded == self._last
            and page is not None
            and page.same_page(dom_before)
            and before == self.state
        )
        self._last = decoded if valid else None
        acted = ActionRecord(valid=valid, sid=sid, done=done, transitions=fired, repeat=repeat)
        outcome = self.sim.step(acted, self.state)
        terminated = outcome.terminated
        truncated = not terminated and (self.steps >= self.max_steps or ran.crash is not None)
        self.ended = terminated or truncated
        self.errors += errors
        facts = StepFacts(
            t=self.steps,
            action=action,
            decoded=decoded,
            dom_before=dom_before,
            op=op,
            sid=sid,
            redact=redact,
            done=done,
            answer=self.agent["answer"],
            valid=valid,
            error=error,
            outcome=outcome,
            total=self.sim.total,
            deltas=state_delta(before, self.state),
            events=ran.events,
            app_errors=app_errors,
            logical_ms=self.clock_ms,
            latency_ms=ran.latency_ms,
            retries=ran.retries,
            error_events=errors,
        )
        record = step_record(facts, self.secrets)
        return StepOutcome(outcome, terminated, truncated, valid, hide(error, self.secrets), record)

    def _account(
        self, op: BrowserOp | None, dom_before: DomSnapshot, ran: BrowserStep
    ) -> tuple[str | None, bool]:
        """For an action sent to the browser: the semantic id it acted on and whether it typed
        or selected a secret there (kept for redaction); the logical time it took."""
        if op is None or (ran.result is None and ran.crash is None):  # it never was sent
            return None, False
        index: int | None = op.index
        if op.verb == "keyboard_type":  # typed into whatever had focus
            index = act.focused_element(dom_before)
        sid = dom_before.sids[index] if index is not None and index >= 0 else None
        if sid is None and op.verb in INPUT_VERBS:
            # Input at a point: the element of the site it set off, if any (hit testing
            # is the browser's; the page's events name what took it).
            sid = next((str(e["sid"]) for e in ran.events if e.get("sid")), None)
        redact = op.verb in ("type", "select", "keyboard_type") and (
            index is not None and 0 <= index < len(dom_before) and dom_before.secrets[index]
        )
        if redact:
            self.note_secret(op.value)
        if ran.result is not None:  # server latency and retry backoff pass on the logical clock
            self.clock_ms += ran.result.latency_ms + ran.result.backoff_ms
        return sid, redact

    def context(self, config: Any, level_seed: int, record: StepRecord | None) -> StepContext:
        """What the text observation says besides the page (`config`: the env's `EnvConfig`):
        the instruction, the values, and how the step in `record` went, secrets hidden."""
        action = record["action"] if record is not None else None
        return StepContext(
            goal=instruction_text(self.task, config.instruction_style, level_seed),
            values=self.task.values_for(config.instruction_style, level_seed),
            step=self.steps,
            max_steps=self.max_steps,
            last_action=action["described"] if action is not None else None,
            last_error=record["error"] if record is not None else None,
        )

    def crash(self, message: str, dom: DomSnapshot) -> dict[str, Any] | None:
        """The browser failed after a step had returned (while a trace recorder took its
        screenshot, say): an episode still running ends truncated, as on any crash. The
        `info` entries that change, or None when the episode had already ended."""
        self.note_error("browser", message)
        if self.ended:
            return None
        self.ended = True
        return {"truncated": True, **self.finish(False, True, message, None, dom)}

    def _answer(self, decoded: act.Decoded, dom_before: DomSnapshot) -> str:
        if self.action_mode == "multidiscrete" and 0 <= decoded.index < len(dom_before):
            # Numeric agents answer by pointing at the element that shows the answer.
            return act.answer_text(dom_before, decoded.index)
        if self.action_mode == "coordinates" and decoded.coords:
            shown = act.element_at(dom_before, decoded.coords[0], decoded.coords[1])
            return act.answer_text(dom_before, shown) if shown is not None else ""
        return decoded.text

    def finish(
        self,
        success: bool,
        truncated: bool,
        crash: str | None,
        shot: bytes | Callable[[], bytes | None] | None,
        dom: DomSnapshot,
    ) -> dict[str, Any]:
        """Classify how the episode ended and keep its artifacts (`shot`: the screenshot,
        or how to take it later); the `info` entries."""
        ending = Ending(
            success=success,
            truncated=truncated,
            crash=crash,
            agent=self.agent,
            max_steps=self.max_steps,
            reached=sum(1 for g in self.task.subgoals if g.id in self.sim.credited),
            subgoals=len(self.task.subgoals),
            route=dom.route,
            frame=() if success else tuple(self.sim.beyond_goal(self.state)),
        )
        self.artifacts, info = classify_ending(ending, shot, dom, self.errors)
        return info


def instruction_text(task: CompiledTask, style: str, level_seed: int) -> str:
    """What the agent is told the task is: `info["instruction"]` and the text observation's
    goal line both come from here, so they always agree, whatever the style."""
    return task.text_for(style, level_seed)


def step_info(
    task: CompiledTask,
    site: Site,
    level_seed: int,
    dom: DomSnapshot,
    steps: int,
    obs: Any,
    record: StepRecord | None,
    style: str = "goal",
) -> dict[str, Any]:
    """The `info` every reset and step returns."""
    return {
        "instruction": instruction_text(task, style, level_seed),
        "recipe": task.instruction,
        "goal": task.goal_text,
        "values": list(task.values),
        "family": site.spec.family,
        "task": task.name,
        "level_seed": level_seed,
        "site_digest": site.digest,
        "task_digest": task.digest,
        "route": dom.route,
        "steps": steps,
        "obs_digest": observation_digest(obs or {}),
        "record": record,
    }
