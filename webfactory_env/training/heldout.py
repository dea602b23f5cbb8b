"""Agents played on held-out levels: success rate, mean return and steps; the random baselines."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import gymnasium as gym
import numpy as np

from webfactory_env.agents import RandomAgent
from webfactory_env.core.errors import ConfigError
from webfactory_env.env import WebTaskEnv
from webfactory_env.tasks.levels import UncompilableLevelError

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Evaluation:
    """How an agent did on a list of held-out levels."""

    episodes: int
    success_rate: float
    mean_return: float
    mean_steps: float
    skipped: int = 0  # levels the task cannot be compiled on: not played, not counted

    def to_json(self) -> dict[str, float]:
        return asdict(self)


# An actor maps (observation, env) to an action; the env is there for masks and agents.
Actor = Callable[[Any, WebTaskEnv], Any]


def evaluate(
    env: gym.Env[Any, Any],
    act: Actor,
    seeds: Iterable[int | tuple[int, Mapping[str, Any]]],
    options: Mapping[str, Any] | None = None,
) -> Evaluation:
    """Play one episode on each level seed (or (seed, reset options)) and count the
    successes."""
    unwrapped = env.unwrapped
    if not isinstance(unwrapped, WebTaskEnv):
        raise TypeError("evaluate() needs a WebTask-v0 environment")
    successes, returns, steps = [], [], []
    skipped = 0
    for entry in seeds:
        seed, extra = entry if isinstance(entry, tuple) else (entry, {})
        try:
            obs, info = env.reset(seed=int(seed), options={**dict(options or {}), **extra})
        except UncompilableLevelError as exc:  # one level cannot end a training run
            log.warning("held-out level skipped: %s cannot be compiled", exc.level)
            skipped += 1
            continue
        total, n, success = 0.0, 0, False
        while True:
            obs, reward, terminated, truncated, info = env.step(act(obs, unwrapped))
            total += float(reward)
            n += 1
            if terminated or truncated:
                success = bool(info["success"])
                break
        successes.append(success)
        returns.append(total)
        steps.append(n)
    if not successes:
        raise ConfigError(
            "evaluate() needs at least one seed whose level compiles"
            + (f" ({skipped} could not be compiled)" if skipped else "")
        )
    return Evaluation(
        episodes=len(successes),
        success_rate=float(np.mean(successes)),
        mean_return=float(np.mean(returns)),
        mean_steps=float(np.mean(steps)),
        skipped=skipped,
    )


def policy_actor(model: Any, deterministic: bool = True) -> Actor:
    """The trained policy as an actor (MaskablePPO gets the env's action masks)."""
    masked = type(model).__name__ == "MaskablePPO"

    def act(obs: Any, env: WebTaskEnv) -> Any:
        if masked:
            action, _ = model.predict(
                obs, deterministic=deterministic, action_masks=env.action_masks()
            )
        else:
            action, _ = model.predict(obs, deterministic=deterministic)
        return action

    return act


def random_actor(env: gym.Env[Any, Any], seed: int = 0) -> Actor:
    """What an untrained masked policy samples: uniformly among the allowed choices of
    each dimension of the masks (done included where the env offers it)."""
    agent = RandomAgent(env, seed=seed, allow_done=True)
    return lambda obs, _env: agent.act(obs)


def uniform_actor(space: gym.Space[Any], seed: int = 0) -> Actor:
    """Uniform samples of the whole action space (what an untrained PPO policy does)."""
    space = _copy_space(space)
    space.seed(seed)
    return lambda obs, _env: space.sample()


def _copy_space(space: gym.Space[Any]) -> gym.Space[Any]:
    import copy

    return copy.deepcopy(space)


def random_baselines(
    env: gym.Env[Any, Any], seeds: Sequence[Any], seed: int = 0
) -> dict[str, Evaluation]:
    """Both random baselines on the held-out seeds."""
    return {
        "random": evaluate(env, random_actor(env, seed), seeds),
        "uniform": evaluate(env, uniform_actor(env.action_space, seed), seeds),
    }
