"""The action space: verbs × element × value slot, validation against the page, and masks.

Element indices refer to the rows of the current observation; value slots to the task's
value table (`info["values"]`). An action that does not fit the page (a hidden, disabled,
covered or read-only element, a verb the element does not take, an unknown slot) is
*invalid*: the env reports it in `info["action_error"]`, charges the invalid penalty and
leaves the page untouched. Only a malformed action (wrong shape or type) raises.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from gymnasium import spaces

from webfactory_env.core import dom as f
from webfactory_env.core.dom import DomSnapshot
from webfactory_env.core.errors import ConfigError
from webfactory_env.executor.session import BrowserOp

VERBS = (
    "click",
    "type",
    "select",
    "submit",
    "press_enter",
    "scroll_down",
    "scroll_up",
    "back",
    "done_success",
    "done_fail",
)
VERB_INDEX = {v: i for i, v in enumerate(VERBS)}
ELEMENT_VERBS = ("click", "type", "select", "submit", "press_enter")
DONE_VERBS = ("done_success", "done_fail")


class InvalidActionError(ConfigError):
    """An action that is not even of the action space's shape or type."""


@dataclass(frozen=True)
class ActionConfig:
    max_elements: int = 128
    max_values: int = 16


@dataclass(frozen=True)
class Decoded:
    verb: str
    index: int
    slot: int


def action_space(config: ActionConfig) -> spaces.MultiDiscrete:
    return spaces.MultiDiscrete([len(VERBS), config.max_elements, config.max_values])


def decode(action: Any, config: ActionConfig) -> Decoded | str:
    """The (verb, element, slot) of `action`, or an explanation of why it is out of range."""
    try:
        arr = np.asarray(action)
    except Exception as exc:  # pragma: no cover - numpy accepts nearly anything
        raise InvalidActionError(f"cannot read action {action!r}: {exc}") from exc
    if arr.shape != (3,) or not np.issubdtype(arr.dtype, np.integer):
        raise InvalidActionError(
            f"actions are 3 integers [verb, element, value_slot]; got {action!r}."
            f" Sample one with env.action_space.sample() or build np.array([v, e, s])."
        )
    verb, index, slot = (int(x) for x in arr)
    if not 0 <= verb < len(VERBS):
        return f"verb {verb} is out of range 0..{len(VERBS) - 1}"
    if not 0 <= index < config.max_elements:
        return f"element {index} is out of range 0..{config.max_elements - 1}"
    if not 0 <= slot < config.max_values:
        return f"value slot {slot} is out of range 0..{config.max_values - 1}"
    return Decoded(VERBS[verb], index, slot)


def _usable(dom: DomSnapshot, i: int) -> str | None:
    if i >= len(dom):
        return f"element {i} is not on the page (only {len(dom)} elements are visible)"
    if dom.has(i, f.DISABLED):
        return f"element {i} is disabled"
    if dom.has(i, f.OCCLUDED):
        return f"element {i} is covered by another element"
    return None


def check(
    d: Decoded, dom: DomSnapshot, values: Sequence[str]
) -> tuple[BrowserOp | None, str | None]:
    """Turn a decoded action into a browser operation, or say why it is invalid.

    `(None, None)` means a valid action with no browser work (`done_*`).
    """
    v, i = d.verb, d.index
    if v in DONE_VERBS:
        return None, None
    if v == "scroll_down":
        return (
            (BrowserOp("scroll", value="down"), None)
            if dom.can_scroll_down
            else (None, "the page cannot scroll further down")
        )
    if v == "scroll_up":
        return (
            (BrowserOp("scroll", value="up"), None)
            if dom.can_scroll_up
            else (None, "the page is already at the top")
        )
    if v == "back":
        return (
            (BrowserOp("back"), None) if dom.can_back else (None, "there is no page to go back to")
        )
    problem = _usable(dom, i)
    if problem:
        return None, problem
    if v == "click":
        if not dom.has(i, f.CLICKABLE):
            return None, f"element {i} ({dom.roles[i]}) is not clickable"
        return BrowserOp("click", i, point=dom.center(i)), None
    if v == "press_enter":
        if not (dom.has(i, f.CLICKABLE) or dom.has(i, f.EDITABLE)):
            return None, f"element {i} ({dom.roles[i]}) cannot take a key press"
        return BrowserOp("press", i, "Enter"), None
    if v == "submit":
        if not dom.has(i, f.IN_FORM):
            return None, f"element {i} is not part of a form"
        return BrowserOp("submit", i), None
    if d.slot >= len(values):
        return None, f"value slot {d.slot} is empty (the task has {len(values)} values)"
    value = values[d.slot]
    if v == "type":
        if dom.has(i, f.READONLY):
            return None, f"element {i} is read-only"
        if not dom.has(i, f.EDITABLE):
            return None, f"element {i} ({dom.roles[i]}) is not a text field"
        return BrowserOp("type", i, value), None
    if v == "select":
        if not dom.has(i, f.SELECTABLE):
            return None, f"element {i} ({dom.roles[i]}) is not a dropdown"
        options = dom.options[i] or ()
        if value.strip().lower() not in {o.strip().lower() for o in options}:
            return None, f"element {i} has no option {value!r}"
        return BrowserOp("select", i, value), None
    return None, f"unknown verb {v!r}"  # pragma: no cover


def action_masks(dom: DomSnapshot, values: Sequence[str], config: ActionConfig) -> np.ndarray:
    """Per-dimension masks, concatenated (the layout sb3-contrib's MaskablePPO expects).

    MultiDiscrete masks cannot express joint validity: a verb is allowed when it is valid
    for some element, an element when some verb is valid on it.
    """
    n_el, n_val = config.max_elements, config.max_values
    verb_ok = np.zeros(len(VERBS), bool)
    elem_ok = np.zeros(n_el, bool)
    slot_ok = np.zeros(n_val, bool)
    slot_ok[: min(len(values), n_val)] = True
    for name in ("scroll_down", "scroll_up", "back", *DONE_VERBS):
        _, err = check(Decoded(name, 0, 0), dom, values)
        verb_ok[VERB_INDEX[name]] = err is None
    for i in range(min(len(dom), n_el)):
        for name in ELEMENT_VERBS:
            slots = range(len(values)) if name in ("type", "select") else (0,)
            if any(check(Decoded(name, i, s), dom, values)[1] is None for s in slots):
                verb_ok[VERB_INDEX[name]] = True
                elem_ok[i] = True
    if not elem_ok.any():
        elem_ok[0] = True  # element-free verbs still need one index to be legal
    if not slot_ok.any():
        slot_ok[0] = True
    return np.concatenate([verb_ok, elem_ok, slot_ok])
