"""Many `WebTask-v0` envs on one machine: worker processes that share one Chromium.

    envs = gymnasium.make_vec("WebTask-v0", num_envs=4, obs_mode="tokens")
    # or: envs = WebTaskVectorEnv(4, obs_mode="tokens")
    obs, info = envs.reset(seed=0)
    masks = envs.action_masks()          # (num_envs, n) for masked policies

`WebTaskVectorEnv` is Gymnasium's `AsyncVectorEnv` (one env per worker process, observations
through shared memory) whose workers all connect to one Chromium (a `BrowserServer` it starts
and stops), each env in a browser context of its own: one browser process tree for the whole
vector instead of one per env. On a machine with few cores, a Chromium per env spends the
cores on browser processes competing with each other (and on memory); one shared browser
keeps its renderers busy with the envs' pages only. Cookies, storage and request routes stay
per env (per context), so envs never see each other's sites.

`share_browser=False` gives every worker its own Chromium, as plain `AsyncVectorEnv` does.
If the shared Chromium dies, the next `step` or `reset` starts it again at the same address
first: every env's step on the dead browser ends its episode (truncated, with the reason
in `info["reason"]`), and the next reset (the autoreset) connects to the new browser.

Nothing outlives the process that made the vector: the shared Chromium listens on no port
(only its workers reach it, through a private Unix socket) and goes when its owner goes,
however that dies (see `executor.browser_server`); the workers, Gymnasium's, end when the
owner's end of their pipes closes, and each worker's Playwright driver with them.
"""

from __future__ import annotations

import functools
import logging
import multiprocessing
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.spaces import Discrete, MultiDiscrete
from gymnasium.vector import AsyncVectorEnv, AutoresetMode

from webfactory_env import actions as act
from webfactory_env.config import EnvConfig
from webfactory_env.core.errors import ConfigError
from webfactory_env.executor.browser_server import BrowserServer

log = logging.getLogger(__name__)


SharedMasks = tuple[Any, Any]  # (masks, published): RawArrays of every worker's rows


def make_env(
    kwargs: dict[str, Any], shared: SharedMasks | None = None, index: int = 0
) -> gym.Env[Any, Any]:
    """One `WebTask-v0` in a worker (importing this module registers the env there too),
    publishing its action masks into `shared` when given (`PublishedMasks`)."""
    env = gym.make("WebTask-v0", **kwargs)
    return env if shared is None else PublishedMasks(env, shared, index)


class PublishedMasks(gym.Wrapper):
    """A worker's env that, after every reset and step, writes its action masks into its row
    of arrays the vector env shares with its workers: `WebTaskVectorEnv.action_masks()`
    reads them there instead of asking every worker through its pipe at every step. A row
    is marked unpublished while its env resets or steps, and stays so when the env has no
    masks then (the vector env asks the worker, which raises what the env raises)."""

    def __init__(self, env: gym.Env[Any, Any], shared: SharedMasks, index: int) -> None:
        super().__init__(env)
        masks, self._published = shared
        self._row = np.frombuffer(masks, np.bool_).reshape(len(self._published), -1)[index]
        self._index = index

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> Any:
        self._published[self._index] = 0
        out = self.env.reset(seed=seed, options=options)
        self._publish()
        return out

    def step(self, action: Any) -> Any:
        self._published[self._index] = 0
        out = self.env.step(action)
        self._publish()
        return out

    def _publish(self) -> None:
        try:
            masks = self.env.get_wrapper_attr("action_masks")()
        except Exception:  # no masks now: asked for, the worker raises this again
            return
        self._row[:] = masks
        self._published[self._index] = 1


class WebTaskVectorEnv(AsyncVectorEnv):
    """`num_envs` envs in worker processes sharing one Chromium (see the module docstring).

    Keyword arguments other than these go to every env (`WebTask-v0`'s own arguments):
    `share_browser` (default True), `autoreset_mode` (Gymnasium's; `next_step` by default),
    `context` (multiprocessing start method), `daemon`.
    """

    def __init__(
        self,
        num_envs: int = 1,
        *,
        share_browser: bool = True,
        autoreset_mode: str | AutoresetMode = AutoresetMode.NEXT_STEP,
        context: str | None = None,
        daemon: bool = True,
        **env_kwargs: Any,
    ) -> None:
        if not isinstance(num_envs, int) or num_envs < 1:
            raise ConfigError(f"num_envs must be a positive integer (got {num_envs!r})")
        env_kwargs.pop("max_episode_steps", None)  # Gymnasium's; the env has max_steps
        # A mistake is one clear error here, not one per worker; the shared Chromium draws
        # frames only if the envs can be asked for pixels or move the mouse (`EnvConfig.draws`).
        config = EnvConfig.parse(env_kwargs)
        browser = config.browser_config()
        self.server: BrowserServer | None = None
        if share_browser and not (browser.cdp_endpoint or browser.server_endpoint):
            self.server = BrowserServer(browser)
            env_kwargs["browser"] = self.server.config
        # Action masks come back through shared memory (`PublishedMasks`); text actions
        # have none.
        self._shared: SharedMasks | None = None
        self._reset_sent = False
        space = act.action_space(config.actions())
        if isinstance(space, (MultiDiscrete, Discrete)):
            width = int(np.sum(space.nvec)) if isinstance(space, MultiDiscrete) else space.n
            ctx = multiprocessing.get_context(context)
            self._shared = (ctx.RawArray("b", num_envs * int(width)), ctx.RawArray("b", num_envs))
        makers = [functools.partial(make_env, env_kwargs, self._shared, i) for i in range(num_envs)]
        try:
            super().__init__(
                makers,
                context=context,
                daemon=daemon,
                autoreset_mode=autoreset_mode,
                # A text observation holds any character a page shows; Gymnasium's shared
                # memory only those of its Text space's sampling charset: pipe it instead.
                shared_memory=config.obs_mode != "text",
            )
        except BaseException:
            self._stop_server()
            raise

    def reset_async(self, seed: Any = None, options: Any = None) -> None:
        self._revive_server()
        super().reset_async(seed=seed, options=options)
        self._reset_sent = True

    def step_async(self, actions: np.ndarray) -> None:
        self._revive_server()
        super().step_async(actions)

    def _revive_server(self) -> None:
        """The shared Chromium died (killed, crashed): start it again at the same address, so
        that each env's step on the dead browser ends its episode (truncated, with the
        reason) and its next reset connects to the new one."""
        if self.server is not None and not self.server.alive:
            log.warning("the shared Chromium died; starting it again")
            self.server.restart()

    def action_masks(self) -> np.ndarray:
        """Every env's `action_masks()`, stacked: (num_envs, mask length); read from what the
        workers published after their last reset or step, else asked for."""
        if self._shared is not None and not self.closed and all(self._shared[1]):
            masks = np.frombuffer(self._shared[0], np.bool_)
            return masks.reshape(self.num_envs, -1).copy()
        if not self._reset_sent:
            # Asked of the workers, every one would raise this, and Gymnasium shuts down a
            # worker that raises: the vector env could not be reset afterwards.
            raise ConfigError("call reset() before action_masks()")
        return np.stack(self.call("action_masks"))

    def close(self, **kwargs: Any) -> None:
        try:
            super().close(**kwargs)
        finally:
            self._stop_server()  # after the workers closed their contexts

    def _stop_server(self) -> None:
        if self.server is not None:
            self.server.close()
            self.server = None
