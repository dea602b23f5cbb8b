"""One hosted episode: a text-mode WebTask-v0 env, its outcome frozen at the first ending.

A `HostedEpisode` runs only on its host's browser thread (`rl.host`). It takes text actions
(the env's own parser reads them: there is no second grammar here), keeps the shaped reward
and its components, and ends exactly once: the first termination or truncation freezes an
`EpisodeOutcome`, and every later step costs nothing, changes nothing and says that the
episode has ended. A browser or infrastructure failure makes the episode *unscorable*
(`scorable=False`, reward None), never a failure scored 0.
"""

from __future__ import annotations

import weakref
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from webfactory_env.core.errors import ConfigError
from webfactory_env.env import WebTaskEnv
from webfactory_env.executor.browser import BrowserConfig, SharedBrowser
from webfactory_env.executor.session import ORIGIN, PageSession
from webfactory_env.suites import SuiteEpisode

RewardMode = Literal["success", "return"]
REWARD_MODES: tuple[RewardMode, ...] = ("success", "return")
ENDED = "the episode has ended; reset to start another (this action was not carried out)"


@dataclass(frozen=True)
class EpisodeSpec:
    """Which episode to play: what `reset` takes (`level_seed` fixes the site)."""

    family: str
    task: str
    difficulty: str = "easy"
    level_seed: int = 0
    variation: Mapping[str, str] | None = None

    @classmethod
    def from_suite(cls, episode: SuiteEpisode) -> EpisodeSpec:
        """The episode a suite lists (its seed is the level seed)."""
        ep = episode
        return cls(ep.family, ep.task, ep.difficulty, ep.seed, ep.variation)

    def options(self) -> dict[str, Any]:
        """The env's reset options for this episode."""
        return {
            "family": self.family,
            "task": self.task,
            "difficulty": self.difficulty,
            "level_seed": self.level_seed,
            "variation": dict(self.variation) if self.variation else None,
        }


@dataclass(frozen=True)
class EpisodeOutcome:
    """How an episode ended, frozen at its first ending. `reward` is the episode's score in
    the host's reward mode (`success`: 1 or 0; `return`: the shaped sum), None when the
    episode is unscorable; `components` sums each reward part (always, whatever the mode)."""

    success: bool
    scorable: bool
    reward: float | None
    episode_return: float
    components: Mapping[str, float]
    steps: int
    outcome: str  # success, soft_fail, hard_fail or unscorable
    reason: str
    truncated: bool


@dataclass(frozen=True)
class StepReply:
    """What a reset or a step gives back: the text the agent reads and the numbers a
    trainer reads. `reward` is this step's reward in the host's mode (None: unscorable)."""

    text: str
    goal: str
    url: str
    step: int
    max_steps: int
    reward: float | None
    done: bool
    action_error: str | None = None
    success: bool = False
    scorable: bool = True
    episode_return: float = 0.0
    subgoals: tuple[str, ...] = ()
    outcome: EpisodeOutcome | None = None
    metrics: Mapping[str, float] = field(default_factory=dict)


@dataclass(frozen=True)
class EpisodeSettings:
    """How every hosted episode is made: the text observation's budget and the steps."""

    max_steps: int = 30
    max_chars: int = 6000
    reward_mode: RewardMode = "success"
    step_timeout_ms: int = 5_000
    browser: BrowserConfig = field(default_factory=lambda: BrowserConfig(pixels=False))

    def __post_init__(self) -> None:
        if self.reward_mode not in REWARD_MODES:
            raise ConfigError(
                f"reward_mode must be one of {', '.join(REWARD_MODES)}, got {self.reward_mode!r}"
            )


class HostedEpisode:
    """One session's env and its running tally (see the module docstring). Not
    thread-safe: its host calls it from the browser thread only."""

    def __init__(self, settings: EpisodeSettings, browser: SharedBrowser) -> None:
        self.settings = settings
        self._browser = browser
        self.env: WebTaskEnv | None = None
        self.spec: EpisodeSpec | None = None
        self.outcome: EpisodeOutcome | None = None
        self.broken: str | None = None  # why the episode cannot be scored
        self._last: StepReply | None = None
        self._return = 0.0
        self._components: dict[str, float] = {}
        self._subgoals: list[str] = []

    # ---------------------------------------------------------------- episode
    def reset(self, spec: EpisodeSpec) -> StepReply:
        """Start `spec`'s episode (the env is made at the first reset and kept). A user
        mistake (an unknown task) raises `ConfigError`; a browser that fails leaves the
        episode unscorable and its page closed, never a half-made sandbox."""
        self.spec, self.outcome, self.broken, self._last = spec, None, None, None
        self._return, self._components, self._subgoals = 0.0, {}, []
        if self.env is None:
            self.env = self._make_env(spec)
        try:
            obs, info = self.env.reset(options=spec.options())
        except ConfigError:
            raise
        except Exception as exc:  # whatever broke, the page goes: no sandbox is left behind
            self._drop_env()
            return self._unscorable(f"the episode could not start: {_first_line(exc)}", 0)
        self._last = self._reply(info, str(obs), 0.0, False, None)
        return self._last

    def step(self, action: str) -> StepReply:
        """Carry out one text action (read by the env's parser), or, once the episode has
        ended, nothing at all: the frozen outcome and a note that it has ended."""
        if self.outcome is not None or self.env is None or self._last is None:
            return self._after_end()
        if self.broken is not None:
            return self._unscorable(self.broken, self._last.step)
        try:
            obs, reward, terminated, truncated, info = self.env.step(action)
        except ConfigError:
            raise
        except Exception as exc:  # the env's own crash handling did not catch it
            self._drop_env()
            return self._unscorable(f"the browser failed: {_first_line(exc)}", self._last.step)
        record = info.get("record") or {}
        parts = (record.get("reward") or {}).get("components") or {}
        for name, value in parts.items():
            # Rounded: sums of 0.01s and 0.2s read as the numbers they are.
            self._components[name] = round(self._components.get(name, 0.0) + float(value), 9)
        self._return = round(self._return + float(reward), 9)
        self._subgoals += [g for g in info.get("subgoals_newly", []) if g not in self._subgoals]
        crashed = any(e.get("event_type") == "browser" for e in record.get("error_events", []))
        if crashed:
            return self._unscorable(str(info.get("reason") or "the browser failed"), info["steps"])
        done = bool(terminated or truncated)
        if done:
            self.outcome = self._freeze(info, bool(truncated))
        step_reward = float(reward) if self.settings.reward_mode == "return" else 0.0
        if done and self.settings.reward_mode == "success":
            step_reward = 1.0 if info.get("success") else 0.0
        self._last = self._reply(info, str(obs), step_reward, done, info.get("action_error"))
        return self._last

    def close(self) -> None:
        self._drop_env()

    # ---------------------------------------------------------------- internals
    def _make_env(self, spec: EpisodeSpec) -> WebTaskEnv:
        env = text_env(spec, self.settings)
        _attach_page(env, self._browser)
        return env

    def _drop_env(self) -> None:
        env, self.env = self.env, None
        if env is not None:
            env.close()

    def _freeze(self, info: Mapping[str, Any], truncated: bool) -> EpisodeOutcome:
        success = bool(info.get("success"))
        mode_reward = self._return if self.settings.reward_mode == "return" else float(success)
        return EpisodeOutcome(
            success=success,
            scorable=True,
            reward=mode_reward,
            episode_return=self._return,
            components=dict(self._components),
            steps=int(info["steps"]),
            outcome=str(info.get("outcome") or ("success" if success else "soft_fail")),
            reason=str(info.get("reason") or ""),
            truncated=truncated,
        )

    def _unscorable(self, reason: str, steps: int) -> StepReply:
        """End the episode as unscorable: no reward at all, the reason in the reply."""
        self.broken = reason
        self.outcome = EpisodeOutcome(
            success=False,
            scorable=False,
            reward=None,
            episode_return=self._return,
            components=dict(self._components),
            steps=steps,
            outcome="unscorable",
            reason=reason,
            truncated=True,
        )
        last = self._last
        self._last = StepReply(
            text=last.text if last is not None else "",
            goal=last.goal if last is not None else "",
            url=last.url if last is not None else "",
            step=steps,
            max_steps=self.settings.max_steps,
            reward=None,
            done=True,
            action_error=reason,
            scorable=False,
            episode_return=self._return,
            subgoals=tuple(self._subgoals),
            outcome=self.outcome,
            metrics=self._metrics(),
        )
        return self._last

    def _after_end(self) -> StepReply:
        if self._last is None:
            raise ConfigError("reset the session before stepping it")
        reward = None if self.outcome is not None and not self.outcome.scorable else 0.0
        return replace(self._last, text=ENDED, reward=reward, done=True, action_error=ENDED)

    def _reply(
        self, info: Mapping[str, Any], text: str, reward: float, done: bool, error: str | None
    ) -> StepReply:
        return StepReply(
            text=text,
            goal=str(info.get("instruction") or ""),
            url=ORIGIN + str(info.get("route") or "/"),
            step=int(info.get("steps", 0)),
            max_steps=self.settings.max_steps,
            reward=reward,
            done=done,
            action_error=error,
            success=bool(info.get("success")),
            episode_return=self._return,
            subgoals=tuple(self._subgoals),
            outcome=self.outcome,
            metrics=self._metrics(),
        )

    def _metrics(self) -> dict[str, float]:
        return {f"reward/{k}": v for k, v in sorted(self._components.items())}


def text_env(spec: EpisodeSpec, settings: EpisodeSettings) -> WebTaskEnv:
    """The text-mode env a hosted episode of `spec` plays in (no page until its reset)."""
    return WebTaskEnv(
        family=spec.family,
        task=spec.task,
        difficulty=spec.difficulty,
        obs_mode="text",
        action_mode="text",
        max_steps=settings.max_steps,
        max_chars=settings.max_chars,
        browser=settings.browser,
        step_timeout_ms=settings.step_timeout_ms,
        end_screenshot="none",
        variation=dict(spec.variation) if spec.variation else None,
    )


def _attach_page(env: WebTaskEnv, browser: SharedBrowser) -> None:
    """Give `env` its page in the host's own Chromium before its first reset. A WebTaskEnv
    opens its page in the process's shared browser, which belongs to whichever thread
    started it (a notebook's, a test's); the host's browser is its own thread's. The env
    keeps a page it already has, and gives it back when closed or collected. (Set here,
    not through an env method: env.py stays a thin orchestrator of at most 300 lines.)"""
    page = PageSession(env.config.session(), shared=browser)
    env._session = page
    env._release = weakref.finalize(env, page.release)
    env._release.atexit = False


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return (text[0] if text else type(exc).__name__)[:300]
