"""Observations: the DOM snapshot and screenshot encoded as fixed-shape arrays, or text.

Imports only `core`; the env imports it."""

from collections.abc import Mapping
from typing import Any

import numpy as np

from webfactory_env.core.dom import DomSnapshot
from webfactory_env.observation.encode import (
    FLAG_COLUMNS,
    ROLES,
    TAGS,
    ObservationConfig,
    encode_dom,
    observation_space,
    text_token_ids,
)
from webfactory_env.observation.goal import (
    GOAL_KEYS,
    MENU_KEY,
    encode_goal,
    task_id,
)
from webfactory_env.observation.text import StepContext, render_observation, render_text


def encode_observation(
    dom: DomSnapshot,
    config: ObservationConfig,
    screenshot: np.ndarray | None,
    goal: Mapping[str, np.ndarray] | None = None,
    menu: np.ndarray | None = None,
    context: StepContext | None = None,
) -> Any:
    """The observation of `dom` in `config.mode`: text (with `context`, the goal, values and
    last action above the page), or the arrays of the DOM tokens and/or the `screenshot`
    (downscaled to `config.screenshot_size`); in token modes also the `goal` arrays
    (`encode_goal`) and the discrete mode's `menu` (`actions.menu_array`)."""
    if config.mode == "text":
        return render_observation(dom, context, config.max_chars)
    obs: dict[str, np.ndarray] = {}
    if config.tokens:
        obs.update(encode_dom(dom, config))
        if config.goal_tokens:
            if goal is None:
                raise ValueError("this observation needs the goal arrays (encode_goal)")
            obs.update(goal)
        if config.menu_size:
            if menu is None:
                raise ValueError("this observation needs the action menu (encode_menu)")
            obs[MENU_KEY] = menu
    if config.pixels:
        if screenshot is None:
            raise ValueError("a pixel observation needs a screenshot")
        obs["screenshot"] = screenshot
    return obs


__all__ = [
    "FLAG_COLUMNS",
    "GOAL_KEYS",
    "MENU_KEY",
    "ROLES",
    "TAGS",
    "ObservationConfig",
    "StepContext",
    "encode_dom",
    "encode_goal",
    "encode_observation",
    "observation_space",
    "render_observation",
    "render_text",
    "task_id",
    "text_token_ids",
]
