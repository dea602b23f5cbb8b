"""A random agent: uniform over the actions the masks allow (never `done`, by default)."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np

from webfactory_env.actions import DONE_VERBS, VERB_INDEX, VERBS
from webfactory_env.env import WebTaskEnv


class RandomAgent:
    """Samples a valid verb, then a valid element and value slot, from a seeded generator.

    With `allow_done=False` it never ends an episode on its own, so its episodes show what
    undirected exploration achieves within the step budget. With `allow_done=True` it
    samples what an untrained masked policy samples: uniformly among the choices each
    dimension's mask allows (`multidiscrete`), or among the valid actions (`discrete`);
    the env offers done verbs only where they belong (`done_actions`).
    """

    def __init__(self, env: gym.Env[Any, Any], seed: int | None = 0, allow_done: bool = False):
        unwrapped = env.unwrapped
        if not isinstance(unwrapped, WebTaskEnv):
            raise TypeError("the random agent needs a WebTask-v0 environment")
        self.env = unwrapped
        self.rng = np.random.default_rng(seed)
        self.allow_done = allow_done

    def reset(self) -> None:
        pass

    def act(self, obs: Any = None, info: dict[str, Any] | None = None) -> Any:
        mask = self.env.action_masks()
        if self.env.action_config.mode == "discrete":
            menu = self.env._actions()
            allowed = [
                k
                for k in np.flatnonzero(mask)
                if self.allow_done or k >= len(menu) or menu[k].verb not in DONE_VERBS
            ]
            return int(self.rng.choice(allowed)) if allowed else 1  # 1: done_fail
        if not self.allow_done:
            mask = mask.copy()
            mask[[VERB_INDEX[v] for v in DONE_VERBS]] = False
        if not mask[: len(VERBS)].any():
            return np.array([VERB_INDEX["done_fail"], 0, 0])
        cfg = self.env.action_config
        nvec = np.array([len(VERBS), cfg.max_elements, cfg.max_values])
        return sample_masked(mask, nvec, self.rng)[0]


def sample_masked(masks: np.ndarray, nvec: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One `multidiscrete` action per row of `masks` (one env's, or a vector env's stacked):
    each dimension uniform among the entries its part of the mask allows (0 if none is).

    A trainer's loop calls this on every step, next to the envs it meters: each draw is
    `rng.integers(0, n)`, the draw `rng.choice` makes over n entries (so a seed gives the
    same actions), without its argument checks (a quarter of the time)."""
    masks = np.atleast_2d(masks)
    ends = np.cumsum(nvec).tolist()
    spans = list(zip([0, *ends[:-1]], ends, strict=True))
    out = np.zeros((len(masks), len(spans)), dtype=np.int64)
    for row, mask in enumerate(masks):
        for dim, (start, end) in enumerate(spans):
            allowed = np.flatnonzero(mask[start:end])
            if len(allowed):
                out[row, dim] = allowed[rng.integers(0, len(allowed))]
    return out
