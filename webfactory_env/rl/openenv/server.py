"""The OpenEnv server of web tasks: OpenEnv's own app (`create_app`) over one episode host,
which it makes at the first reset and closes when the app shuts down."""

from __future__ import annotations

import functools
import threading
from dataclasses import dataclass, field
from typing import Any

from openenv.core.env_server.http_server import create_app
from openenv.core.env_server.types import ConcurrencyConfig

from webfactory_env.rl.episode import EpisodeSettings
from webfactory_env.rl.host import EpisodeHost, HostConfig
from webfactory_env.rl.openenv.environment import WebTaskEnvironment
from webfactory_env.rl.openenv.models import WebTaskAction, WebTaskObservation, WebTaskState

ENV_NAME = "webfactory_env"


@dataclass(frozen=True)
class ServeConfig:
    """`max_sessions` WebSocket sessions at once (one browser context each); a session idle
    for `session_timeout_s` is closed; `call_timeout_s` bounds each reset and step."""

    max_sessions: int = 16
    session_timeout_s: float | None = 600.0
    call_timeout_s: float = 60.0
    default_family: str | None = None
    default_task: str | None = None
    episode: EpisodeSettings = field(default_factory=EpisodeSettings)

    def host_config(self) -> HostConfig:
        # The server reaps idle sessions itself (closing them through the environment), so
        # the host's own reaper stays off: it would close sessions under OpenEnv's feet.
        # OpenEnv frees a seat before the environment's close has run, so the host keeps
        # room for sessions on their way out; the server's cap is the one clients meet.
        return HostConfig(
            max_sessions=2 * self.max_sessions,
            idle_timeout_s=None,
            call_timeout_s=self.call_timeout_s,
            episode=self.episode,
        )


class LazyHost:
    """The server's episode host, made at its first use (a reset), not at start-up."""

    def __init__(self, config: HostConfig) -> None:
        self.config = config
        self.host: EpisodeHost | None = None
        self._lock = threading.Lock()

    def __call__(self) -> EpisodeHost:
        with self._lock:
            if self.host is None:
                self.host = EpisodeHost(self.config)
            return self.host

    def close(self) -> None:
        with self._lock:
            host, self.host = self.host, None
        if host is not None:
            host.close()


def make_app(config: ServeConfig | None = None) -> Any:
    """OpenEnv's FastAPI app serving web tasks (`/ws`, `/reset`, `/step`, `/state`,
    `/metadata`, `/schema`, `/health`). `app.state.host` is its `LazyHost`."""
    config = config or ServeConfig()
    host = LazyHost(config.host_config())
    factory = functools.partial(
        WebTaskEnvironment,
        host,
        default_family=config.default_family,
        default_task=config.default_task,
    )
    app = create_app(
        factory,
        WebTaskAction,
        WebTaskObservation,
        env_name=ENV_NAME,
        state_cls=WebTaskState,
        concurrency_config=ConcurrencyConfig(
            max_concurrent_envs=config.max_sessions, session_timeout=config.session_timeout_s
        ),
    )
    app.state.host = host
    app.router.on_shutdown.append(host.close)
    return app


def serve(config: ServeConfig, *, host: str = "127.0.0.1", port: int = 8000) -> None:
    """Serve `make_app(config)` with uvicorn until interrupted."""
    import uvicorn

    # Frames up to 16 MiB: a long page's text must not hit a 1 MiB limit.
    uvicorn.run(make_app(config), host=host, port=port, ws_max_size=16 * 1024 * 1024)
