"""Observations: the DOM snapshot and screenshot encoded as fixed-shape arrays, or text.

Imports only `core`; the env imports it."""

from webfactory_env.observation.compose import encode_observation, observation_space
from webfactory_env.observation.encode import (
    CONTEXT_PARTS,
    FLAG_COLUMNS,
    ROLES,
    TAGS,
    ObservationConfig,
    encode_dom,
    text_token_ids,
)
from webfactory_env.observation.goal import (
    GOAL_KEYS,
    MENU_KEY,
    EpisodeGoal,
    encode_goal,
    task_id,
)
from webfactory_env.observation.text import StepContext, render_observation, render_text

__all__ = [
    "CONTEXT_PARTS",
    "FLAG_COLUMNS",
    "GOAL_KEYS",
    "MENU_KEY",
    "ROLES",
    "TAGS",
    "EpisodeGoal",
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
