"""`WebTask-v0`: a thin orchestrator over site generation, task compilation, the executor,
observation encoding, actions and the reward simulator."""

from __future__ import annotations

import hashlib
import os
import re
import weakref
from collections.abc import Iterator, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from dataclasses import replace as _replace
from typing import Any

import gymnasium as gym
import numpy as np

from webfactory_env import actions as act
from webfactory_env.core.dom import DomSnapshot
from webfactory_env.core.errors import BrowserCrashedError, ConfigError, UnknownNameError
from webfactory_env.core.predicates import AGENT_STATE
from webfactory_env.executor.browser import BrowserConfig
from webfactory_env.executor.session import EPOCH_MS, ObserveConfig, PageSession, SessionConfig
from webfactory_env.observation import (
    ObservationConfig,
    encode_dom,
    observation_space,
    render_text,
)
from webfactory_env.reward import ActionRecord, RewardSimulator, RewardSpec
from webfactory_env.sitegen import SiteApp, generate_site
from webfactory_env.sitegen.registry import Site
from webfactory_env.tasks import CompiledTask, compile_for_site

STEP_MS = 100  # logical time per action: nothing in a page or a reward reads the wall clock
RESET_OPTIONS = ("family", "task", "difficulty", "level_seed", "variation")


_compiler: ThreadPoolExecutor | None = None


def _compile_beside(task: str, site: Site) -> Future[CompiledTask]:
    """Compile `task` for `site` on the process's one compile thread."""
    global _compiler
    if _compiler is None:
        _compiler = ThreadPoolExecutor(max_workers=1, thread_name_prefix="webfactory-compile")
    return _compiler.submit(compile_for_site, task, site)


def _forget_compiler() -> None:
    global _compiler
    _compiler = None  # a forked child has no worker thread: it starts its own


os.register_at_fork(after_in_child=_forget_compiler)


class WebTaskEnv(gym.Env):
    """A generated website in headless Chromium, with a task compiled from the DSL.

    ## Description
    Each episode shows one seeded, procedurally generated site (family `shop`: catalog,
    filters, product pages, cart, checkout) in a real browser and one task compiled against
    it. The agent acts on page elements; rewards come from the task's subgoal predicates
    over the site's Python state.

    ## Action Space
    `MultiDiscrete([10, max_elements, max_values])`: a verb (click, type, select, submit,
    press_enter, scroll_down, scroll_up, back, done_success, done_fail), the index of an
    element of the current observation, and a slot of the task's value table
    (`info["values"]`, used by type and select). `action_masks()` gives per-dimension
    masks for sb3-contrib's `MaskablePPO`. Invalid actions cost `invalid_penalty`, change
    nothing, and are explained in `info["action_error"]`.

    ## Observation Space
    A `Dict` of fixed-shape arrays for the visible elements (`tag`, `role`, hashed `text`
    word ids, `bbox` in viewport fractions, `flags`, padding `mask`) and, in pixel modes, a
    downscaled RGB `screenshot` (uint8, H×W×3). `obs_mode` is `tokens`, `pixels` or
    `tokens+pixels`.

    ## Rewards
    Per step: `step_penalty`; `invalid_penalty` for invalid actions; `subgoal_reward` each
    time a subgoal is reached through a permitted element; `undo_penalty` when reached
    progress is undone; `success_reward` when every terminal subgoal holds. See `RewardSpec`.

    ## Starting State
    The site's start page, scrolled to the top, with a fixed clock and seeded randomness.
    `reset(seed=N)` shows the site of level seed N; `options` may set `family`, `task`,
    `difficulty` and `level_seed` for curricula.

    ## Episode End
    Terminated on success or when the agent acts `done_success`/`done_fail`; truncated
    after `max_steps` steps, or when the browser fails (it crashed, or the page hung for
    `step_timeout_ms`): then `info["reason"]` says so and the next reset opens a new page.

    ## Arguments
    `family`, `task` (library name or `.task` path), `difficulty`, `obs_mode`,
    `max_elements`, `max_tokens`, `vocab_size`, `screenshot_size` (H, W), `viewport`
    (W, H), `max_steps`, `max_values`, `reward` (`RewardSpec` or dict), `render_mode`
    (`"rgb_array"`), `browser` (`BrowserConfig`), `variation` (axes to fix, e.g.
    `{"theme": "dark"}`; the others are drawn from the level seed), `step_timeout_ms` (how
    long a browser call may hang before the step fails and the episode is truncated).

    ## Version History
    - v0: first release.
    """

    metadata = {"render_modes": ["rgb_array"], "render_fps": 4}

    def __init__(
        self,
        family: str = "shop",
        task: str = "buy_red_mug",
        difficulty: str = "easy",
        obs_mode: str = "tokens+pixels",
        max_elements: int = 128,
        max_tokens: int = 12,
        vocab_size: int = 4096,
        screenshot_size: tuple[int, int] = (128, 128),
        viewport: tuple[int, int] = (1280, 800),
        max_steps: int = 64,
        max_values: int = 16,
        reward: RewardSpec | Mapping[str, float] | None = None,
        render_mode: str | None = None,
        browser: BrowserConfig | None = None,
        variation: Mapping[str, str] | None = None,
        action_mode: str = "multidiscrete",
        max_chars: int = 8000,
        max_actions: int = 512,
        step_timeout_ms: int = 5_000,
    ) -> None:
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ConfigError(f"render_mode must be None or 'rgb_array', got {render_mode!r}")
        if max_steps < 1:
            raise ConfigError("max_steps must be at least 1")
        self.render_mode = render_mode
        if action_mode not in act.ACTION_MODES:
            raise UnknownNameError("action mode", action_mode, act.ACTION_MODES)
        height, width = screenshot_size
        self.obs_config = ObservationConfig(
            obs_mode,
            max_elements,
            max_tokens,
            vocab_size,
            (int(height), int(width)),
            max_chars=max_chars,
        )
        self.action_config = act.ActionConfig(max_elements, max_values, action_mode, max_actions)
        self.observation_space = observation_space(self.obs_config)
        self.action_space = act.action_space(self.action_config)
        self.reward_spec = (
            reward if isinstance(reward, RewardSpec) else RewardSpec(**(reward or {}))
        )
        self.max_steps = max_steps
        self._defaults: dict[str, Any] = {
            "family": family,
            "task": task,
            "difficulty": difficulty,
            "variation": variation,
        }
        # Fail on a bad family/task/difficulty/variation now, not at the first reset.
        compile_for_site(task, generate_site(family, 0, difficulty, variation))
        self._observe = ObserveConfig(max_elements=max_elements)
        self._session_config = SessionConfig(
            viewport=(int(viewport[0]), int(viewport[1])),
            browser=browser or BrowserConfig(),
            step_timeout_ms=int(step_timeout_ms),
        )
        self._session: PageSession | None = None
        self._release: weakref.finalize | None = None
        self.site: Site | None = None
        self.task: CompiledTask | None = None
        self.app: SiteApp | None = None
        self._sim: RewardSimulator | None = None
        self._dom: DomSnapshot | None = None
        self._obs: dict[str, np.ndarray] | None = None
        self._state: dict[str, Any] = {}
        self._agent: dict[str, Any] = dict(AGENT_STATE)
        self._error_events: list[dict[str, Any]] = []
        self.typed_secrets: list[str] = []
        self.artifacts: EpisodeArtifacts | None = None
        self._menu_cache: list[act.Decoded] = []
        self._menu_for: DomSnapshot | None = None
        self._steps = 0
        self._clock_ms = 0
        self._ended = False
        self.level_seed = 0
        self._episode: dict[str, Any] = dict(self._defaults)

    # ------------------------------------------------------------------ gym API
    def reset(self, *, seed: int | None = None, options: Mapping[str, Any] | None = None):
        super().reset(seed=seed)
        options = dict(options or {})
        unknown = set(options) - set(RESET_OPTIONS)
        if unknown:
            raise ConfigError(
                f"unknown reset option(s) {sorted(unknown)}; known: {', '.join(RESET_OPTIONS)}"
            )
        if options.get("level_seed") is not None:
            level_seed = int(options["level_seed"])
        elif seed is not None:
            level_seed = int(seed)
        else:
            level_seed = int(self.np_random.integers(0, 2**31 - 1))
        family = options.get("family", self._defaults["family"])
        task = options.get("task", self._defaults["task"])
        difficulty = options.get("difficulty", self._defaults["difficulty"])
        variation = options.get("variation", self._defaults["variation"])
        self.site = generate_site(family, level_seed, difficulty, variation)
        # The task compiles (pure Python) on a worker thread while Chromium mounts the new
        # site: the main thread only waits on the browser then, so the two overlap.
        compiling = _compile_beside(task, self.site)
        self._sim = None  # until the new task is in place, step() asks for a reset
        self.level_seed = level_seed
        self._episode = {
            "family": family,
            "task": task,
            "difficulty": difficulty,
            "variation": dict(variation) if variation else None,
        }
        self.app = self.site.new_app()
        if self._session is None:
            self._session = PageSession(self._session_config)
            # An env dropped without close() still gives its browser context back (the
            # browser itself is shared and ends with the interpreter).
            self._release = weakref.finalize(self, self._session.release)
            self._release.atexit = False
        self._steps = 0
        self._clock_ms = 0
        self._ended = False
        self._dom = self._session.load(
            self.app, seed=level_seed, observe=self._observe, clock_ms=EPOCH_MS
        )
        self.task = compiling.result()
        if len(self.task.values) > self.action_config.max_values:
            raise ConfigError(
                f"task {task!r} needs {len(self.task.values)} value slots; "
                f"make the env with max_values >= {len(self.task.values)}"
            )
        self._agent = dict(AGENT_STATE)
        self.typed_secrets = []
        self._error_events = []
        self.artifacts = None
        self._state = self._full_state()
        self.app.take_fired()
        self._sim = RewardSimulator(self.task, self.reward_spec)
        self._sim.reset(self._state)
        self._obs = self._encode(self._dom)
        return _fresh(self._obs), self._info(record=None)

    def step(self, action: Any):
        if self._sim is None or self._dom is None or self.app is None or self._session is None:
            raise ConfigError("call reset() before step()")
        if self._ended:
            raise ConfigError("the episode has ended; call reset() before stepping again")
        assert self.task is not None
        # Before counting the step: an action that is no action at all raises a user error
        # (InvalidActionError) and must leave the episode as it was.
        decoded = act.decode(action, self.action_config, self.task.values, self._menu())
        self._steps += 1
        dom_before = self._dom
        error: str | None
        op = None
        if isinstance(decoded, str):
            error = decoded
        else:
            op, error = act.check(decoded, dom_before)
        retries: list[dict[str, Any]] = []
        latency = 0
        self._clock_ms += STEP_MS  # every attempt takes a step of logical time
        valid = error is None
        sid = None
        redact = False
        crash: str | None = None
        events: list[dict[str, Any]] = []
        error_events: list[dict[str, Any]] = []
        if not valid:
            error_events.append(_error_event("agent", f"invalid action: {error}", self._steps))
        if valid and op is not None:
            sid = dom_before.sids[op.index] if op.index >= 0 else None
            redact = op.verb in ("type", "select") and (
                0 <= op.index < len(dom_before) and dom_before.secrets[op.index]
            )
            if redact and op.value and op.value not in self.typed_secrets:
                # Kept in memory for redaction (traces scrub them); never written anywhere.
                self.typed_secrets.append(op.value)
            try:
                result = self._session.perform(
                    op, observe=self._observe, clock_ms=EPOCH_MS + self._clock_ms
                )
                obs = self._encode(result.dom)
            except BrowserCrashedError as exc:
                # The page or the browser died: end the episode as truncated, keep what we
                # have (the last observation), and say why. The next reset relaunches.
                crash = str(exc)
                valid, error = False, crash
                error_events.append(_error_event("browser", crash, self._steps))
            else:
                self._dom, events = result.dom, result.events
                retries = [r.model_dump() for r in result.retries]
                # Server latency and retry backoff pass on the logical clock, never for real.
                latency = result.latency_ms
                self._clock_ms += result.latency_ms + result.backoff_ms
                if not result.ok:
                    valid, error = False, result.error
                    error_events.append(
                        _error_event(
                            "executor" if result.retries else "agent", str(error), self._steps
                        )
                    )
                self._obs = obs
        for app_error in self.app.errors:
            error_events.append(
                _error_event(
                    "app", str(app_error.get("message") or app_error.get("kind")), self._steps
                )
            )
        done = isinstance(decoded, act.Decoded) and decoded.verb in act.DONE_VERBS and valid
        if done and isinstance(decoded, act.Decoded):
            answer = decoded.text
            if self.action_config.mode == "multidiscrete" and 0 <= decoded.index < len(dom_before):
                # Numeric agents answer by pointing at the element that shows the answer.
                i = decoded.index
                answer = act.answer_text(dom_before, i)
            self._agent = {
                "done": True,
                "claimed": decoded.verb == "done_success",
                "answer": answer,
            }
        before = self._state
        self._state = self._full_state()
        fired = self.app.take_fired()
        outcome = self._sim.step(
            ActionRecord(valid=valid, sid=sid, done=done, transitions=fired), self._state
        )
        terminated = outcome.terminated
        truncated = not terminated and (self._steps >= self.max_steps or crash is not None)
        self._ended = terminated or truncated
        self._error_events += error_events
        record = {
            "t": self._steps,
            "action": {
                "raw": action
                if isinstance(action, str)
                else [int(x) for x in np.asarray(action).reshape(-1)],
                "described": act.describe(_shown(decoded, redact), dom_before)
                if isinstance(decoded, act.Decoded)
                else None,
                "verb": decoded.verb if isinstance(decoded, act.Decoded) else None,
                "index": decoded.index if isinstance(decoded, act.Decoded) else None,
                "target": sid,
                "value": (
                    ("REDACTED" if redact else op.value)
                    if op is not None and op.verb in ("type", "select")
                    else None
                ),
                "redact": redact,
                "text": self._agent["answer"] if done else None,
                # The acted-on element's box in the observation the agent chose it from.
                "box": _acted_box(decoded, dom_before),
            },
            "valid": valid,
            "error": _hide(error, self.typed_secrets),
            "reward": {
                "r": outcome.reward,
                "R": self._sim.total,
                "subgoals": list(outcome.newly),
                "undone": list(outcome.undone),
                "tainted": list(outcome.tainted),
                "components": dict(outcome.components),
            },
            "deltas": _hide(state_delta(before, self._state), self.typed_secrets),
            "events": _hide(events, self.typed_secrets),
            "app_errors": _hide(list(self.app.errors), self.typed_secrets),
            "logical_ms": self._clock_ms,
            "latency_ms": latency,
            "retries": retries,
            "error_events": error_events,
        }
        self.app.errors.clear()
        info = self._info(record=record)
        info["action_error"] = _hide(error, self.typed_secrets)
        info["success"] = outcome.success
        info["subgoals_newly"] = list(outcome.newly)
        if self._ended:
            # Artifacts while the page is still alive, before anyone tears it down.
            info.update(self._finish(outcome.success, truncated, crash))
        # Callers keep what we return: never hand out the same arrays twice.
        assert self._obs is not None
        obs = self._obs if op is not None and valid else _fresh(self._obs)
        return obs, outcome.reward, terminated, truncated, info

    def render(self) -> Any:  # an RGB array in "rgb_array" mode, else None
        if self.render_mode != "rgb_array" or self._session is None:
            return None
        return self._session.screenshot_array()

    def close(self) -> None:
        if self._release is not None:
            self._release.detach()
        if self._session is not None:
            self._session.close()
            self._session = None

    # ------------------------------------------------------------------ extras
    def action_masks(self) -> np.ndarray:
        """Which actions are valid now, for sb3-contrib's MaskablePPO: per-dimension masks
        (verbs, elements, value slots) in `multidiscrete` mode, one per index in `discrete`."""
        if self._dom is None or self.task is None:
            raise ConfigError("call reset() before action_masks()")
        if self.action_config.mode == "discrete":
            return act.discrete_masks(self._dom, self._menu(), self.action_config)
        if self.action_config.mode == "text":
            raise ConfigError(
                "text actions have no mask; use action_mode='multidiscrete' "
                "or 'discrete' for masked policies"
            )
        return act.action_masks(self._dom, self.task.values, self.action_config)

    def valid_actions(self) -> list[str]:
        """The `discrete` mode's actions now, in words (index = action)."""
        return [act.describe(d, self.dom) for d in self._menu()]

    def _menu(self) -> list[act.Decoded]:
        """The current enumeration of valid actions (`discrete` mode), cached per page."""
        if self.action_config.mode != "discrete" or self._dom is None or self.task is None:
            return []
        if self._menu_for is not self._dom:
            self._menu_cache = act.enumerate_actions(
                self._dom, self.task.values, self.action_config, self.task.expects_answer
            )
            self._menu_for = self._dom
        return self._menu_cache

    @property
    def dom(self) -> DomSnapshot:
        """The last DOM snapshot, with its semantic side table (for oracles and tools)."""
        if self._dom is None:
            raise ConfigError("call reset() first")
        return self._dom

    @property
    def session(self) -> PageSession:
        if self._session is None:
            raise ConfigError("call reset() first")
        return self._session

    def screenshot_png(self) -> bytes:
        return self.session.screenshot_png()

    def env_kwargs(self) -> dict[str, Any]:
        """Keyword arguments that re-create this env for the current episode (traces, replay)."""
        height, width = self.obs_config.screenshot_size
        return {
            **self._episode,
            "obs_mode": self.obs_config.mode,
            "max_elements": self.obs_config.max_elements,
            "max_tokens": self.obs_config.max_tokens,
            "vocab_size": self.obs_config.vocab_size,
            "screenshot_size": [height, width],
            "viewport": list(self._session_config.viewport),
            "max_steps": self.max_steps,
            "max_values": self.action_config.max_values,
            "reward": self.reward_spec.model_dump(),
            # Text and discrete actions replay only in an env of the same action mode.
            "action_mode": self.action_config.mode,
            "max_actions": self.action_config.max_actions,
            "max_chars": self.obs_config.max_chars,
        }

    # ---------------------------------------------------------------- internals
    def _finish(self, success: bool, truncated: bool, crash: str | None) -> dict[str, Any]:
        """Capture the episode's artifacts and classify how it ended (success / soft_fail /
        hard_fail: a failure is soft when it left artifacts and an actionable reason)."""
        assert self._dom is not None and self._sim is not None and self.task is not None
        shot: bytes | None = None
        if crash is None:
            try:
                shot = self.session.screenshot_png()
            except BrowserCrashedError as exc:
                self._error_events.append(_error_event("browser", str(exc), self._steps))
        page_text = render_text(self._dom, 4000)
        reached = sum(1 for g in self.task.subgoals if g.id in self._sim.credited)
        progress = f"{reached} of {len(self.task.subgoals)} subgoals reached"
        if success:
            reason = "the task was done"
        elif crash is not None:
            reason = f"the browser failed: {crash}"
        elif self._agent["done"]:
            said = f': "{self._agent["answer"][:200]}"' if self._agent["answer"] else ""
            reason = (
                "the agent gave up"
                if not self._agent["claimed"]
                else "the agent claimed success, but the task was not done"
            ) + said
        elif truncated:
            reason = f"ran out of steps (max_steps={self.max_steps})"
        else:
            reason = ""
        if reason and not success:
            reason += f"; {progress}; last page {self._dom.route}"
        has_artifacts = shot is not None or bool(page_text)
        outcome = "success" if success else "soft_fail" if has_artifacts and reason else "hard_fail"
        self.artifacts = EpisodeArtifacts(
            outcome=outcome,
            reason=reason,
            screenshot_png=shot,
            page_text=page_text,
            errors=list(self._error_events),
        )
        return {
            "outcome": outcome,
            "reason": reason,
            "artifacts": {
                "screenshot": shot is not None,
                "page_text": page_text,
                "errors": list(self._error_events),
            },
        }

    def _full_state(self) -> dict[str, Any]:
        """The app's state plus how the agent ended the episode (rewards read both)."""
        assert self.app is not None
        return {**self.app.state_view(), "agent": dict(self._agent)}

    def _encode(self, dom: DomSnapshot) -> Any:
        if self.obs_config.mode == "text":
            return render_text(dom, self.obs_config.max_chars)
        obs: dict[str, np.ndarray] = {}
        if self.obs_config.tokens:
            obs.update(encode_dom(dom, self.obs_config))
        if self.obs_config.pixels:
            assert self._session is not None
            obs["screenshot"] = self._session.screenshot_array(self.obs_config.screenshot_size)
        return obs

    def _info(self, record: dict[str, Any] | None) -> dict[str, Any]:
        assert self.task is not None and self.site is not None and self._dom is not None
        return {
            "instruction": self.task.instruction,
            "goal": self.task.goal_text,
            "values": list(self.task.values),
            "family": self.site.spec.family,
            "task": self.task.name,
            "level_seed": self.level_seed,
            "site_digest": self.site.digest,
            "task_digest": self.task.digest,
            "route": self._dom.route,
            "steps": self._steps,
            "obs_digest": observation_digest(self._obs or {}),
            "record": StepRecord(record) if record is not None else None,
        }


def _shown(decoded: act.Decoded, redact: bool) -> act.Decoded:
    """The action as described in the record: a value only where one is typed or selected,
    and never a secret one."""
    if decoded.verb not in ("type", "select"):
        return _replace(decoded, value=None)
    return _replace(decoded, value="REDACTED") if redact else decoded


def _hide(obj: Any, secrets: list[str]) -> Any:
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
        return {k: _hide(v, secrets) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [_hide(v, secrets) for v in obj]
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
        path = f"{prefix}{key}"
        a, b = before.get(key), after.get(key)
        if isinstance(a, Mapping) and isinstance(b, Mapping):
            out.update(state_delta(a, b, path + "."))
        elif a != b:
            out[path] = b
    return out


def _fresh(obs: Any) -> Any:
    """A copy callers may keep: never hand out the same arrays twice."""
    return {k: v.copy() for k, v in obs.items()} if isinstance(obs, dict) else obs


@dataclass
class EpisodeArtifacts:
    """What an ended episode left behind, captured before the page could go away."""

    outcome: str
    reason: str
    screenshot_png: bytes | None
    page_text: str
    errors: list[dict[str, Any]] = field(default_factory=list)


def _error_event(kind: str, message: str, step: int) -> dict[str, Any]:
    """A failure as a first-class event (kinds: agent, executor, app, browser)."""
    return {"event_type": kind, "message": message, "step": step, "has_error": True}


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
