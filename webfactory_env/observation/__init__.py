"""Observations: the DOM snapshot and screenshot encoded as fixed-shape arrays."""

from webfactory_env.observation.encode import (
    FLAG_COLUMNS,
    ROLES,
    TAGS,
    ObservationConfig,
    encode_dom,
    observation_space,
    text_token_ids,
)
from webfactory_env.observation.text import render_text

__all__ = [
    "FLAG_COLUMNS",
    "ROLES",
    "TAGS",
    "ObservationConfig",
    "encode_dom",
    "observation_space",
    "render_text",
    "text_token_ids",
]
