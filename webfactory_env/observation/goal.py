"""The goal part of a `tokens` observation: the goal text, the value slots and a task id as
fixed-shape word-id arrays (and the space of the `discrete` mode's action menu).

`encode_goal` is the one door for goal text: whatever the env is told to show (by default
`info["instruction"]`; see the env's `goal_source`) goes through it, so a new wording of
goals changes the words, never the shapes. Word ids are the element texts' own BLAKE2b ids
(`text_token_ids`), so a word in the goal and the same word on the page share one id in
every process; a task id is the same hash of the task's name.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from gymnasium import spaces

from webfactory_env.observation.encode import ObservationConfig, text_token_ids

GOAL_KEYS = ("goal", "slots", "task_id")
MENU_KEY = "menu"
N_VERBS = 10  # len(actions.VERBS); observation must not import actions (a test checks)
TASK_IDS = 1024  # task ids lie in 1..TASK_IDS-1; 0 means "no task"


def task_id(name: str) -> int:
    """A stable id for a task name (the same in every process and on every machine)."""
    h = int.from_bytes(hashlib.blake2b(name.encode(), digest_size=8).digest(), "little")
    return 1 + h % (TASK_IDS - 1)


def goal_space(config: ObservationConfig) -> dict[str, spaces.Space]:
    """The goal arrays' spaces (empty when the observation carries no goal)."""
    if not config.goal_tokens:
        return {}
    return {
        "goal": spaces.Box(0, config.vocab_size - 1, (config.goal_tokens,), np.int64),
        "slots": spaces.Box(
            0, config.vocab_size - 1, (config.max_values, config.max_tokens), np.int64
        ),
        "task_id": spaces.Box(0, TASK_IDS - 1, (1,), np.int64),
    }


def menu_space(config: ObservationConfig) -> dict[str, spaces.Space]:
    """The `discrete` mode's menu: row k is action k as (verb, element, slot), -1 padded."""
    if not config.menu_size:
        return {}
    high = max(N_VERBS, config.max_elements, config.max_values) - 1
    return {MENU_KEY: spaces.Box(-1, high, (config.menu_size, 3), np.int64)}


def encode_goal(
    text: str, values: Sequence[str], task: str, config: ObservationConfig
) -> dict[str, np.ndarray]:
    """Word ids of the goal `text` (its first `goal_tokens` words), of each value slot's
    string (first `max_tokens` words each; slots past the task's values are zeros), and
    the task id."""
    goal = np.zeros(config.goal_tokens, np.int64)
    ids = text_token_ids(text, config.goal_tokens, config.vocab_size)
    goal[: len(ids)] = ids
    slots = np.zeros((config.max_values, config.max_tokens), np.int64)
    for j, value in enumerate(values[: config.max_values]):
        ids = text_token_ids(value, config.max_tokens, config.vocab_size)
        slots[j, : len(ids)] = ids
    return {"goal": goal, "slots": slots, "task_id": np.array([task_id(task)], np.int64)}


class EpisodeGoal:
    """The goal arrays (`encode_goal`) of the episode an env is in: encoded for its first
    observation, copied for each one after (a caller may change the arrays a step hands
    out, and the goal is the same at every step)."""

    def __init__(self, config: ObservationConfig) -> None:
        self._config = config
        self._of: tuple[Any, int] | None = None  # the (task, level seed) they were made for
        self._arrays: dict[str, np.ndarray] = {}

    def arrays(
        self, task: Any, level: int, text: Callable[[Any, int], str]
    ) -> dict[str, np.ndarray]:
        """The goal arrays of compiled `task` on level `level`, whose goal is `text(task,
        level)`."""
        if self._of is None or self._of[0] is not task or self._of[1] != level:
            self._arrays = encode_goal(text(task, level), task.values, task.name, self._config)
            self._of = (task, level)
        return {key: array.copy() for key, array in self._arrays.items()}
