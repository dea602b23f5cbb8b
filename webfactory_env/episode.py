"""One episode's record keeping: each step's record, failures as events, and how it ended.

The env orchestrates; this module owns what it writes down. A step's record (`StepRecord`,
`info["record"]`) is what traces and replays are made of: the action as taken and as
described, its validity, the reward and its parts, subgoals reached, the state deltas, the
page's events, logical time. An episode's end is classified here (success / soft_fail /
hard_fail), with the artifacts captured before teardown (`EpisodeArtifacts`).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from dataclasses import replace as _replace
from typing import Any, Literal

import numpy as np

from webfactory_env import actions as act
from webfactory_env.core.dom import DomSnapshot
from webfactory_env.core.errors import BrowserCrashedError
from webfactory_env.core.predicates import AGENT_STATE
from webfactory_env.core.text import clean_text
from webfactory_env.executor.session import BrowserOp, PageSession, StepResult
from webfactory_env.observation import StepContext, render_text
from webfactory_env.reward import ActionRecord, RewardOutcome, RewardSimulator, RewardSpec
from webfactory_env.sitegen.registry import Site
from webfactory_env.sitegen.served import ServedSite
from webfactory_env.tasks.compiled import CompiledTask

STEP_MS = 100  # logical time per action: nothing in a page or a reward reads the wall clock


EndScreenshot = Literal["lazy", "full", "none"]


@dataclass
class EpisodeArtifacts:
    """What an ended episode left behind, captured before the page could go away.

    The page text and the errors are always kept. The full-size screenshot depends on the
    env's `end_screenshot`: `full` captures it as the episode ends; `lazy` (the default)
    captures it on the first read of `screenshot_png`, from the page the episode ended on,
    which the env keeps until its next `reset` or `close` (a training loop that never
    reads it never pays for it); read after that, it is None. `none` never captures one.
    """

    outcome: str
    reason: str
    page_text: str
    errors: list[dict[str, Any]] = field(default_factory=list)
    shot: bytes | None = None
    capture: Callable[[], bytes | None] | None = field(default=None, repr=False, compare=False)

    @property
    def screenshot_png(self) -> bytes | None:
        if self.shot is None and self.capture is not None:
            capture, self.capture = self.capture, None
            try:
                self.shot = capture()
            except BrowserCrashedError as exc:
                self.errors.append(error_event("browser", str(exc), -1))
        return self.shot


class StepRecord(Mapping[str, Any]):
    """The step's full record (`info["record"]`): read it like a dict, `to_dict()` for JSON.

    Not a `dict` on purpose: Gymnasium's vector envs turn nested info dicts into per-key
    arrays, which would need every field to keep one type in every step; the record is
    passed through whole instead (and pickles across processes).
    """

    __slots__ = ("_data",)

    def __init__(self, data: Mapping[str, Any]) -> None:
        self._data = dict(data)

    def __getitem__(self, key: str) -> Any:
        return self._data[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def to_dict(self) -> dict[str, Any]:
        return dict(self._data)

    def __reduce__(self) -> tuple[Any, ...]:
        return (StepRecord, (self._data,))

    def __repr__(self) -> str:
        return f"StepRecord({self._data!r})"


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
        outcome = self.sim.step(
            ActionRecord(valid=valid, sid=sid, done=done, transitions=fired), self.state
        )
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
        sid = dom_before.sids[op.index] if op.index >= 0 else None
        redact = op.verb in ("type", "select") and (
            0 <= op.index < len(dom_before) and dom_before.secrets[op.index]
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
        )
        self.artifacts, info = classify_ending(ending, shot, dom, self.errors)
        return info


def finish_episode(
    episode: Episode,
    session: PageSession,
    dom: DomSnapshot,
    success: bool,
    truncated: bool,
    crash: str | None,
) -> dict[str, Any]:
    """Keep the ended episode's artifacts while the page is still alive and classify the
    ending; the `info` entries. The screenshot (`episode.end_screenshot`) is taken now
    (`full`), on first read while the page is unchanged (`lazy`, see `EpisodeArtifacts`),
    or never (`none`, when the browser is what failed, or when it draws no frames)."""
    shot: bytes | Callable[[], bytes | None] | None = None
    can_shoot = crash is None and session.draws  # a browser that draws nothing has none
    if can_shoot and episode.end_screenshot == "lazy":
        shot = session.deferred_screenshot()
    elif can_shoot and episode.end_screenshot == "full":
        try:
            shot = session.screenshot_png()
        except BrowserCrashedError as exc:
            episode.note_error("browser", str(exc))
    return episode.finish(success, truncated, crash, shot, dom)


def error_event(kind: str, message: str, step: int) -> dict[str, Any]:
    """A failure as a first-class event (kinds: agent, executor, app, browser)."""
    return {"event_type": kind, "message": message, "step": step, "has_error": True}


@dataclass(frozen=True)
class StepFacts:
    """What happened in one step, as the env saw it (the record is made from this)."""

    t: int
    action: Any
    decoded: act.Decoded | str
    dom_before: DomSnapshot
    op: BrowserOp | None
    sid: str | None
    redact: bool
    done: bool
    answer: str
    valid: bool
    error: str | None
    outcome: RewardOutcome
    total: float
    deltas: dict[str, Any]
    events: list[dict[str, Any]]
    app_errors: list[dict[str, Any]]
    logical_ms: int
    latency_ms: int
    retries: list[dict[str, Any]]
    error_events: list[dict[str, Any]]


def step_record(s: StepFacts, secrets: list[str]) -> StepRecord:
    """The step's record, with every secret typed so far hidden."""
    decoded = s.decoded
    is_action = isinstance(decoded, act.Decoded)
    op = s.op
    return StepRecord(
        {
            "t": s.t,
            "action": {
                "raw": clean_text(s.action)
                if isinstance(s.action, str)
                else [int(x) for x in np.asarray(s.action).reshape(-1)],
                "described": act.describe(_shown(decoded, s.redact), s.dom_before)
                if isinstance(decoded, act.Decoded)
                else None,
                "verb": decoded.verb if isinstance(decoded, act.Decoded) else None,
                "index": decoded.index if isinstance(decoded, act.Decoded) else None,
                "target": s.sid,
                "value": (
                    ("REDACTED" if s.redact else op.value)
                    if op is not None and op.verb in ("type", "select")
                    else None
                ),
                "redact": s.redact,
                "text": s.answer if s.done else None,
                "confidence": decoded.confidence if isinstance(decoded, act.Decoded) else None,
                # The acted-on element's box in the observation the agent chose it from.
                "box": _acted_box(decoded, s.dom_before) if is_action else None,
            },
            "valid": s.valid,
            "error": hide(s.error, secrets),
            "reward": {
                "r": s.outcome.reward,
                "R": s.total,
                "subgoals": list(s.outcome.newly),
                "undone": list(s.outcome.undone),
                "tainted": list(s.outcome.tainted),
                "components": dict(s.outcome.components),
            },
            "deltas": hide(s.deltas, secrets),
            "events": hide(s.events, secrets),
            "app_errors": hide(s.app_errors, secrets),
            "logical_ms": s.logical_ms,
            "latency_ms": s.latency_ms,
            "retries": s.retries,
            "error_events": s.error_events,
        }
    )


@dataclass(frozen=True)
class Ending:
    """How an episode ended, as the env saw it."""

    success: bool
    truncated: bool
    crash: str | None
    agent: Mapping[str, Any]
    max_steps: int
    reached: int
    subgoals: int
    route: str


def classify_ending(
    ending: Ending,
    shot: bytes | Callable[[], bytes | None] | None,
    dom: DomSnapshot,
    errors: list[dict[str, Any]],
) -> tuple[EpisodeArtifacts, dict[str, Any]]:
    """The episode's outcome (success / soft_fail / hard_fail: a failure is soft when it
    left artifacts and an actionable reason), its artifacts, and the `info` entries
    (`artifacts.screenshot`: one was taken, or can be read until the next reset)."""
    page_text = render_text(dom, 4000)
    progress = f"{ending.reached} of {ending.subgoals} subgoals reached"
    agent = ending.agent
    if ending.success:
        reason = "the task was done"
    elif ending.crash is not None:
        reason = f"the browser failed: {ending.crash}"
    elif agent["done"]:
        said = f': "{agent["answer"][:200]}"' if agent["answer"] else ""
        reason = (
            "the agent gave up"
            if not agent["claimed"]
            else "the agent claimed success, but the task was not done"
        ) + said
    elif ending.truncated:
        reason = f"ran out of steps (max_steps={ending.max_steps})"
    else:
        reason = ""
    if reason and not ending.success:
        reason += f"; {progress}; last page {ending.route}"
    has_artifacts = shot is not None or bool(page_text)
    outcome = (
        "success" if ending.success else "soft_fail" if has_artifacts and reason else "hard_fail"
    )
    artifacts = EpisodeArtifacts(
        outcome=outcome,
        reason=reason,
        page_text=page_text,
        errors=list(errors),
        shot=shot if isinstance(shot, bytes) else None,
        capture=None if isinstance(shot, bytes) else shot,
    )
    info = {
        "outcome": outcome,
        "reason": reason,
        "artifacts": {
            "screenshot": shot is not None,
            "page_text": page_text,
            "errors": list(errors),
        },
    }
    return artifacts, info


# ------------------------------------------------------------------------ helpers
def _shown(decoded: act.Decoded | str, redact: bool) -> act.Decoded:
    """The action as described in the record: a value only where one is typed or selected,
    and never a secret one."""
    assert isinstance(decoded, act.Decoded)
    if decoded.verb not in ("type", "select"):
        return _replace(decoded, value=None)
    return _replace(decoded, value="REDACTED") if redact else decoded


def hide(obj: Any, secrets: list[str]) -> Any:
    """`obj` (JSON-like) with the secrets typed so far replaced by "REDACTED" (short ones as
    whole words only). Traces redact more (see `trace.redact`); this keeps the step record
    itself from echoing a password back through page events or state."""
    if not secrets or obj is None:
        return obj
    if isinstance(obj, str):
        for secret in sorted(secrets, key=len, reverse=True):
            if len(secret) >= 6:
                obj = obj.replace(secret, "REDACTED")
            elif secret in obj:
                obj = re.sub(rf"(?<!\w){re.escape(secret)}(?!\w)", "REDACTED", obj)
        return obj
    if isinstance(obj, dict):
        return {k: hide(v, secrets) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [hide(v, secrets) for v in obj]
    return obj


def _acted_box(decoded: act.Decoded | str, dom: DomSnapshot) -> list[int] | None:
    if not isinstance(decoded, act.Decoded) or decoded.verb not in act.ELEMENT_VERBS:
        return None
    if not 0 <= decoded.index < len(dom):
        return None
    return [int(v) for v in dom.boxes[decoded.index]]


def observation_digest(obs: Mapping[str, np.ndarray] | str) -> str:
    """SHA-256 over every observation array, in key order (or over the text observation)."""
    h = hashlib.sha256()
    if isinstance(obs, str):
        h.update(obs.encode())
        return h.hexdigest()
    for key in sorted(obs):
        arr = np.ascontiguousarray(obs[key])
        h.update(key.encode())
        h.update(str(arr.dtype).encode())
        h.update(str(arr.shape).encode())
        h.update(arr.tobytes())
    return h.hexdigest()


def state_delta(
    before: Mapping[str, Any], after: Mapping[str, Any], prefix: str = ""
) -> dict[str, Any]:
    """Dotted paths whose value changed, with the new value."""
    out: dict[str, Any] = {}
    for key in sorted(set(before) | set(after)):
        a, b = before.get(key), after.get(key)
        if a == b:  # one comparison in C for a whole unchanged subtree
            continue
        path = f"{prefix}{key}"
        if isinstance(a, Mapping) and isinstance(b, Mapping):
            out.update(state_delta(a, b, path + "."))
        else:
            out[path] = b
    return out


def fresh(obs: Any) -> Any:
    """A copy callers may keep: never hand out the same arrays twice."""
    return {k: v.copy() for k, v in obs.items()} if isinstance(obs, dict) else obs


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
