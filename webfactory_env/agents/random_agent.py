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
        n_verbs = len(VERBS)
        n_el = self.env.action_config.max_elements
        verbs = np.flatnonzero(mask[:n_verbs])
        if not self.allow_done:
            verbs = np.array([v for v in verbs if VERBS[v] not in DONE_VERBS], dtype=int)
        if verbs.size == 0:
            return np.array([VERB_INDEX["done_fail"], 0, 0])
        elements = np.flatnonzero(mask[n_verbs : n_verbs + n_el])
        slots = np.flatnonzero(mask[n_verbs + n_el :])
        return np.array([self.rng.choice(verbs), self.rng.choice(elements), self.rng.choice(slots)])
