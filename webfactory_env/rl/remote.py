"""Sessions on a `webfactory openenv serve` server, with the episode host's own calls
(`open`, `reset`, `step`, `close_session`, `close`): what lets code written against an
`EpisodeHost`, such as TRL's `WebTaskToolEnv`, play on a server instead (extra `[openenv]`).

    with ServerHost("http://127.0.0.1:8000") as host:
        env = WebTaskToolEnv(host)

Each session is one OpenEnv WebSocket client, so one browser context on the server. A
connection or server failure is a `HostError`, as the in-process host's failures are: the
episode cannot be scored. The reward mode is the server's; say which it is.
"""

from __future__ import annotations

import contextlib
import threading
import uuid
from typing import Any

from webfactory_env.rl.episode import (
    EpisodeOutcome,
    EpisodeSettings,
    EpisodeSpec,
    RewardMode,
    StepReply,
)
from webfactory_env.rl.host import HostConfig, HostError, UnknownSessionError
from webfactory_env.rl.openenv.client import WebTaskClient
from webfactory_env.rl.openenv.models import WebTaskAction, WebTaskObservation


class ServerHost:
    """An `EpisodeHost` look-alike whose sessions live on a server (module docstring)."""

    def __init__(self, base_url: str, *, reward_mode: RewardMode = "success") -> None:
        self.base_url = base_url
        self.config = HostConfig(episode=EpisodeSettings(reward_mode=reward_mode))
        self._clients: dict[str, Any] = {}
        self._lock = threading.Lock()

    def open(self) -> str:
        try:
            client = WebTaskClient(base_url=self.base_url).sync()
        except Exception as exc:  # the server is down, full or unreachable
            raise HostError(f"cannot open a session on {self.base_url}: {exc}") from exc
        sid = uuid.uuid4().hex
        with self._lock:
            self._clients[sid] = client
        return sid

    def reset(self, session: str, spec: EpisodeSpec) -> StepReply:
        result = self._call(session, "reset", **spec.options())
        return self._reply(session, result.observation)

    def step(self, session: str, action: str) -> StepReply:
        result = self._call(session, "step", WebTaskAction(action=action))
        return self._reply(session, result.observation)

    def close_session(self, session: str) -> None:
        with self._lock:
            client = self._clients.pop(session, None)
        if client is not None:
            with contextlib.suppress(Exception):  # a dropped socket is closed already
                client.close()

    def close(self) -> None:
        for sid in list(self._clients):
            self.close_session(sid)

    def __enter__(self) -> ServerHost:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _call(self, session: str, name: str, *args: Any, **kwargs: Any) -> Any:
        with self._lock:
            client = self._clients.get(session)
        if client is None:
            raise UnknownSessionError(f"no open session {session!r} on {self.base_url}")
        try:
            return getattr(client, name)(*args, **kwargs)
        except Exception as exc:
            raise HostError(f"the server at {self.base_url} failed: {exc}") from exc

    def _reply(self, session: str, obs: WebTaskObservation) -> StepReply:
        """The host's reply for a wire observation; an ended episode's outcome comes from
        the session's state (its reward is the episode's, in the server's mode)."""
        outcome = None
        if obs.done:
            state = self._call(session, "state")
            outcome = EpisodeOutcome(
                success=obs.success,
                scorable=obs.scorable,
                reward=state.reward if obs.scorable else None,
                episode_return=obs.episode_return,
                components={k.removeprefix("reward/"): v for k, v in obs.metrics.items()},
                steps=obs.step,
                outcome=obs.outcome or "",
                reason=str((obs.metadata or {}).get("reason", "")),
                truncated=obs.step >= obs.max_steps,
            )
        return StepReply(
            text=obs.text,
            goal=obs.goal,
            url=obs.url,
            step=obs.step,
            max_steps=obs.max_steps,
            reward=obs.reward,
            done=obs.done,
            action_error=obs.action_error,
            success=obs.success,
            scorable=obs.scorable,
            episode_return=obs.episode_return,
            subgoals=tuple(obs.subgoals),
            outcome=outcome,
            metrics=dict(obs.metrics),
        )
