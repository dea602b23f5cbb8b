"""The whole observation of each mode, composed from its parts: its space and its encoding.

The parts know nothing of one another: `encode` (the DOM tokens, the shapes' config, the
word hashing), `goal` (goal words, value slots, task id, the action menu's space) and
`text` (the text view). This module alone puts them together, so the keys of an
observation and of its space are decided in one place.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from gymnasium import spaces

from webfactory_env.core.dom import DomSnapshot
from webfactory_env.observation.encode import ObservationConfig, dom_space, encode_dom
from webfactory_env.observation.goal import MENU_KEY, goal_space, menu_space
from webfactory_env.observation.marks import draw_marks
from webfactory_env.observation.text import StepContext, render_observation, text_space


def observation_space(config: ObservationConfig) -> spaces.Space:
    """The space of `encode_observation`'s observations in `config.mode`."""
    if config.mode == "text":
        return text_space(config.max_chars)
    parts: dict[str, spaces.Space] = {}
    if config.tokens:
        parts.update(dom_space(config))
        parts.update(goal_space(config))
        parts.update(menu_space(config))
    if config.pixels:
        h, w = config.screenshot_size
        parts["screenshot"] = spaces.Box(0, 255, (h, w, 3), np.uint8)
    return spaces.Dict(parts)


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
    (downscaled to `config.screenshot_size`, with `config.set_of_marks` its marks drawn
    on: `observation.marks`); in token modes also the `goal` arrays
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
        if config.set_of_marks:
            screenshot = draw_marks(screenshot, dom, config.max_elements)
        obs["screenshot"] = screenshot
    return obs
