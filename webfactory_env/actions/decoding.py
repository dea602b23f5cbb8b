"""The action space of each mode, and any action in it decoded to the env's own terms."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium import spaces

from webfactory_env.actions.coordinates import coordinate_space, decode_coordinates
from webfactory_env.actions.text import parse_text_action
from webfactory_env.actions.verbs import (
    COORDINATE_MODES,
    DONE_VERBS,
    MAX_TEXT_ACTION,
    TEXT_MODES,
    VERBS,
    ActionConfig,
    Decoded,
    InvalidActionError,
)
from webfactory_env.core.text import UnicodeText, clean_text


def action_space(config: ActionConfig) -> spaces.Space[Any]:
    if config.mode == "coordinates":
        return coordinate_space(config)
    if config.mode in TEXT_MODES:
        return UnicodeText(MAX_TEXT_ACTION, min_length=1)
    if config.mode == "discrete":
        return spaces.Discrete(config.max_actions)
    return spaces.MultiDiscrete([len(VERBS), config.max_elements, config.max_values])


def decode(
    action: Any,
    config: ActionConfig,
    values: Sequence[str],
    menu: Sequence[Decoded] = (),
    task: Any = None,
) -> Decoded | str:
    """The action in env terms, or an explanation of why it is out of range or not offered
    (a done verb to a `task` that does not end with one; see `done_refusal`).

    `menu` is the current enumeration of valid actions (`discrete` mode)."""
    decoded = _decode(action, config, values, menu)
    if isinstance(decoded, Decoded) and task is not None:
        return done_refusal(decoded, config, bool(task.expects_answer)) or decoded
    return decoded


def _decode(
    action: Any, config: ActionConfig, values: Sequence[str], menu: Sequence[Decoded]
) -> Decoded | str:
    if config.mode == "discrete":
        k = _index(action)
        if not 0 <= k < config.max_actions:
            return f"action {k} is out of range 0..{config.max_actions - 1}"
        if k >= len(menu):
            return f"action {k} is not available now (only {len(menu)} actions are)"
        return menu[k]
    if config.mode in COORDINATE_MODES:
        text = clean_text(action) if isinstance(action, str) else action
        return decode_coordinates(text, config, values)
    if config.mode == "text":
        if not isinstance(action, str):
            raise InvalidActionError(
                f"this env takes text actions such as 'click(3)'; got {type(action).__name__}."
                " Make it with action_mode='multidiscrete' for numeric actions."
            )
        return parse_text_action(clean_text(action))
    try:
        arr = np.asarray(action)
    except Exception as exc:  # pragma: no cover - numpy accepts nearly anything
        raise InvalidActionError(f"cannot read action {action!r}: {exc}") from exc
    if arr.shape != (3,) or not np.issubdtype(arr.dtype, np.integer):
        raise InvalidActionError(
            f"actions are 3 integers [verb, element, value_slot]; got {action!r}."
            " Sample one with env.action_space.sample() or build np.array([v, e, s])."
        )
    verb, index, slot = (int(x) for x in arr)
    if not 0 <= verb < len(VERBS):
        return f"verb {verb} is out of range 0..{len(VERBS) - 1}"
    if not 0 <= index < config.max_elements:
        return f"element {index} is out of range 0..{config.max_elements - 1}"
    if not 0 <= slot < config.max_values:
        return f"value slot {slot} is out of range 0..{config.max_values - 1}"
    name = VERBS[verb]
    if name in ("type", "select") and slot >= len(values):
        return f"value slot {slot} is empty (the task has {len(values)} values)"
    return Decoded(name, index, values[slot] if slot < len(values) else None)


def _index(action: Any) -> int:
    """A `discrete` action as an int: an integer, or a float with an integral value (what a
    policy's tensor may hold). NaN, infinities, fractions, strings and arrays of more than one
    number are no action at all."""
    if isinstance(action, int) and not isinstance(action, bool):
        return action  # any size: one past the range is out of range, not an error
    try:
        arr = np.asarray(action)
        if arr.size == 1 and arr.dtype.kind in "iu":
            return int(arr.reshape(()))
        if arr.size == 1 and arr.dtype.kind == "f":
            x = float(arr.reshape(()))
            if np.isfinite(x) and x.is_integer():
                return int(x)
    except (TypeError, ValueError, OverflowError):
        pass
    shown = repr(action)
    raise InvalidActionError(
        "this env takes one integer action (an index into the valid actions); got"
        f" {shown[:80]}{'…' if len(shown) > 80 else ''}"
    )


def done_refusal(d: Decoded, config: ActionConfig, expects_answer: bool) -> str | None:
    """Why a done verb is refused (not offered to this task), or None."""
    if d.verb in DONE_VERBS and not config.offers_done(expects_answer):
        return (
            "done is not offered to this task (it ends when its goal holds, or after "
            "max_steps); make the env with done_actions='always' to offer it"
        )
    return None


def value_slot(raw: Sequence[int]) -> int | None:
    """The value-table slot a numeric action names: `[verb, element, slot]`, or a
    coordinate action's `[verb, x, y, x2, y2, slot, key]`; None for other shapes."""
    at = {3: 2, 7: 5}.get(len(raw))
    return int(raw[at]) if at is not None else None
