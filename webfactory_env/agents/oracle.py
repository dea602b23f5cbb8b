"""The oracle: executes a task's compiled plan through the env's own action space."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np

from webfactory_env.actions import VERB_INDEX
from webfactory_env.env import WebTaskEnv

_PLAN_VERBS = {"click": "click", "type": "type", "select": "select", "submit": "submit"}


class OracleAgent:
    """Follows the plan step by step, scrolling to targets that are out of view.

    It reads the env's semantic side table to find plan targets, which no learning agent
    sees; everything it does goes through `env.step` like any other agent's actions.
    """

    def __init__(self, env: gym.Env[Any, Any], seed: int | None = None) -> None:
        unwrapped = env.unwrapped
        if not isinstance(unwrapped, WebTaskEnv):
            raise TypeError("the oracle needs a WebTask-v0 environment")
        self.env = unwrapped
        self._next = 0
        self._last: int | None = None

    def reset(self) -> None:
        self._next = 0
        self._last = None

    def observe(self, info: dict[str, Any]) -> None:
        """Advance past a plan step once the env accepted the action that executed it."""
        if self._last is not None and info.get("action_error") is None:
            self._next = self._last + 1
        self._last = None

    def act(self, obs: Any = None, info: dict[str, Any] | None = None) -> np.ndarray:
        if info is not None and info.get("record") is not None:
            self.observe(info)
        env = self.env
        assert env.task is not None
        plan = env.task.plan
        if self._next >= len(plan):
            return np.array([VERB_INDEX["done_success"], 0, 0])
        step = plan[self._next]
        dom = env.dom
        index = dom.index_of(step.sid)
        if index is None:
            direction = dom.offscreen.get(step.sid, 1)
            if direction < 0 and dom.can_scroll_up:
                return np.array([VERB_INDEX["scroll_up"], 0, 0])
            if dom.can_scroll_down:
                return np.array([VERB_INDEX["scroll_down"], 0, 0])
            return np.array([VERB_INDEX["scroll_up"], 0, 0])
        slot = env.task.values.index(step.value) if step.value is not None else 0
        self._last = self._next
        return np.array([VERB_INDEX[_PLAN_VERBS[step.verb]], index, slot])
