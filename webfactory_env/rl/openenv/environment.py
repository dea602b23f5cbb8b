"""The OpenEnv `Environment` of web tasks: one server session is one session on the episode
host, so many WebSocket clients play at once on one Chromium, each in a context of its own."""

from __future__ import annotations

import difflib
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

from openenv.core.env_server.interfaces import Environment
from openenv.core.env_server.types import EnvironmentMetadata

from webfactory_env.__about__ import __version__
from webfactory_env.core.errors import ConfigError
from webfactory_env.rl.episode import EpisodeSpec, StepReply
from webfactory_env.rl.host import EpisodeHost, HostTimeoutError, shared_host
from webfactory_env.rl.openenv.models import (
    WebTaskAction,
    WebTaskObservation,
    WebTaskState,
    observation_of,
)

RESET_ARGUMENTS = ("family", "task", "difficulty", "level_seed", "variation")


class WebTaskEnvironment(Environment[WebTaskAction, WebTaskObservation, WebTaskState]):
    """Seeded synthetic websites in a real Chromium, tasks compiled from a DSL, exact rewards.

    Description: each session plays one web task at a time as text: the page comes as
    numbered elements, the agent answers with one text action per step.

    Reset: `reset(family=, task=, difficulty="easy", level_seed=0, variation=None)`; `seed`
    stands for `level_seed` when that is not given, and `family`/`task` fall back to the
    server's defaults. An unknown task is an error naming the nearest one.

    Action: `WebTaskAction(action="click(3)")` (the env's own text grammar), with an optional
    `op_id` that makes a retried step idempotent.

    Observation: `WebTaskObservation` (text, goal, url, step, max_steps, action_error,
    success, outcome, scorable, episode_return, subgoals, metrics; reward and done).

    Rewards: the server's reward mode: `success` (1 or 0 at the end, the default for GRPO)
    or `return` (the shaped rewards). A rollout whose browser broke is *unscorable*:
    reward None and `scorable=False`, never 0.

    Episode end: success, a `done()` action, a hard failure or the step budget. The outcome
    freezes at the first ending; a later step changes nothing, pays 0 and says the episode
    has ended.

    Arguments: `host` (an `EpisodeHost`, or a callable that gives one; default: the
    process's shared host), `default_family`, `default_task`. Nothing starts a browser
    before the first reset: OpenEnv builds an environment for `/metadata` and `/schema` too.
    """

    SUPPORTS_CONCURRENT_SESSIONS = True
    # Browser work runs on the host's own thread, never on OpenEnv's executors, so any
    # executor may call us (the flag OpenEnv added for Playwright-bound envs is not needed).
    REQUIRES_SINGLE_THREAD_EXECUTOR = False

    def __init__(
        self,
        host: EpisodeHost | Callable[[], EpisodeHost] | None = None,
        *,
        default_family: str | None = None,
        default_task: str | None = None,
    ) -> None:
        super().__init__()
        self._host_source = host
        self._host: EpisodeHost | None = None
        self._defaults = {"family": default_family, "task": default_task}
        self._session: str | None = None
        self._spec: EpisodeSpec | None = None
        self._episode_id: str | None = None
        self._last: StepReply | None = None

    # ---------------------------------------------------------------- episode
    def reset(
        self,
        seed: int | None = None,
        episode_id: str | None = None,
        **kwargs: Any,
    ) -> WebTaskObservation:
        spec = self._begin(seed, episode_id, kwargs)
        host = self._ensure_session()
        assert self._session is not None
        return self._observe(host.reset(self._session, spec))

    async def reset_async(
        self,
        seed: int | None = None,
        episode_id: str | None = None,
        **kwargs: Any,
    ) -> WebTaskObservation:
        spec = self._begin(seed, episode_id, kwargs)
        host = self._ensure_session()
        assert self._session is not None
        return self._observe(await host.areset(self._session, spec))

    def step(
        self, action: WebTaskAction, timeout_s: float | None = None, **kwargs: Any
    ) -> WebTaskObservation:
        host, session = self._playing()
        try:
            reply = host.step(session, action.action, op_id=action.op_id, timeout_s=timeout_s)
        except HostTimeoutError as exc:
            return self._late(exc)
        return self._observe(reply)

    async def step_async(
        self, action: WebTaskAction, timeout_s: float | None = None, **kwargs: Any
    ) -> WebTaskObservation:
        host, session = self._playing()
        try:
            reply = await host.astep(
                session, action.action, op_id=action.op_id, timeout_s=timeout_s
            )
        except HostTimeoutError as exc:
            return self._late(exc)
        return self._observe(reply)

    @property
    def state(self) -> WebTaskState:
        spec, last = self._spec, self._last
        outcome = last.outcome if last is not None else None
        return WebTaskState(
            episode_id=self._episode_id,
            step_count=last.step if last is not None else 0,
            family=spec.family if spec else None,
            task=spec.task if spec else None,
            difficulty=spec.difficulty if spec else None,
            level_seed=spec.level_seed if spec else None,
            variation=dict(spec.variation) if spec and spec.variation else None,
            max_steps=last.max_steps if last is not None else 0,
            done=bool(last and last.done),
            success=bool(last and last.success),
            scorable=last.scorable if last is not None else True,
            outcome=outcome.outcome if outcome is not None else None,
            reward=outcome.reward if outcome is not None else None,
        )

    def get_metadata(self) -> EnvironmentMetadata:
        return EnvironmentMetadata(
            name="webfactory_env",
            description="Seeded synthetic websites in a real headless Chromium; tasks compiled"
            " from a DSL; exact rewards. Text actions in, text pages out.",
            version=__version__,
        )

    def close(self) -> None:
        """Give the session (and its browser context) back; safe to call again."""
        session, self._session = self._session, None
        if session is not None and self._host is not None:
            self._host.close_session(session)

    # --------------------------------------------------------------- internals
    def _begin(
        self, seed: int | None, episode_id: str | None, kwargs: Mapping[str, Any]
    ) -> EpisodeSpec:
        unknown = sorted(set(kwargs) - set(RESET_ARGUMENTS))
        if unknown:
            near = difflib.get_close_matches(unknown[0], RESET_ARGUMENTS, n=1)
            hint = f" Did you mean `{near[0]}`?" if near else ""
            raise ConfigError(
                f"reset does not take {', '.join(unknown)}; it takes seed, episode_id and"
                f" {', '.join(RESET_ARGUMENTS)}.{hint}"
            )
        family = kwargs.get("family") or self._defaults["family"]
        task = kwargs.get("task") or self._defaults["task"]
        if not family or not task:
            raise ConfigError(
                "reset needs family= and task= (the server has no defaults), e.g."
                ' reset(family="shop", task="buy_red_mug", level_seed=3);'
                " `webfactory tasks list` lists them"
            )
        level_seed = kwargs.get("level_seed")
        if level_seed is None:
            level_seed = seed if seed is not None else 0
        variation = kwargs.get("variation")
        self._spec = EpisodeSpec(
            family=str(family),
            task=str(task),
            difficulty=str(kwargs.get("difficulty") or "easy"),
            level_seed=int(level_seed),
            variation={str(k): str(v) for k, v in variation.items()} if variation else None,
        )
        self._episode_id, self._last = episode_id, None
        return self._spec

    def _ensure_session(self) -> EpisodeHost:
        if self._host is None:
            source = self._host_source
            self._host = source if isinstance(source, EpisodeHost) else (source or shared_host)()
        if self._session is None:
            self._session = self._host.open()
        return self._host

    def _playing(self) -> tuple[EpisodeHost, str]:
        if self._host is None or self._session is None or self._last is None:
            raise ConfigError("reset the environment before stepping it")
        return self._host, self._session

    def _late(self, exc: HostTimeoutError) -> WebTaskObservation:
        """A step past its deadline. Withdrawn (nothing happened): the error, to retry.
        Still running: the episode is unscorable, and the client sees it end so."""
        if exc.withdrawn or self._last is None:
            raise exc
        reply = replace(
            self._last, done=True, reward=None, scorable=False, success=False, action_error=str(exc)
        )
        return self._observe(reply)

    def _observe(self, reply: StepReply) -> WebTaskObservation:
        self._last = reply
        return observation_of(reply)
