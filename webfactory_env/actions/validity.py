"""Which actions the page allows: one action checked against the DOM, masks, the menu."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from webfactory_env.actions.coordinates import (
    check_coordinates,
    coordinate_masks,
    describe_coordinates,
)
from webfactory_env.actions.verbs import (
    DONE_VERBS,
    ELEMENT_VERBS,
    PAGE_ACTIONS,
    TEXT_MODES,
    VERB_INDEX,
    VERBS,
    ActionConfig,
    Decoded,
)
from webfactory_env.core import dom as f
from webfactory_env.core.dom import DomSnapshot
from webfactory_env.core.errors import ConfigError
from webfactory_env.executor.session import BrowserOp


def _usable(dom: DomSnapshot, i: int) -> str | None:
    if i >= len(dom) or i < 0:
        return f"element {i} is not on the page (only {len(dom)} elements are visible)"
    if dom.has(i, f.DISABLED):
        return f"element {i} is disabled"
    if dom.has(i, f.OCCLUDED):
        return f"element {i} is covered by another element"
    return None


def check(d: Decoded, dom: DomSnapshot) -> tuple[BrowserOp | None, str | None]:
    """Turn a decoded action into a browser operation, or say why it is invalid.

    `(None, None)` means a valid action with no browser work (`done_*`).
    """
    if d.coords is not None:
        return check_coordinates(d, dom)
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
    if v == "press_enter" and i < 0:
        return BrowserOp("press", -1, d.key), None
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
        return BrowserOp("press", i, d.key, label=dom.texts[i]), None
    if v == "submit":
        if not dom.has(i, f.IN_FORM):
            return None, f"element {i} is not part of a form"
        return BrowserOp("submit", i, label=dom.texts[i]), None
    if d.value is None:
        return None, f"{v} needs a value"
    if v == "type":
        if dom.has(i, f.READONLY):
            return None, f"element {i} is read-only"
        if not dom.has(i, f.EDITABLE):
            return None, f"element {i} ({dom.roles[i]}) is not a text field"
        return BrowserOp("type", i, d.value, label=dom.texts[i]), None
    if v == "select":
        if not dom.has(i, f.SELECTABLE):
            return None, f"element {i} ({dom.roles[i]}) is not a dropdown"
        options = dom.options[i] or ()
        if d.value.strip().lower() not in {o.strip().lower() for o in options}:
            return None, f"element {i} has no option {d.value!r}"
        return BrowserOp("select", i, d.value, label=dom.texts[i]), None
    return None, f"unknown verb {v!r}"  # pragma: no cover


def action_masks(
    dom: DomSnapshot, values: Sequence[str], config: ActionConfig, offer_done: bool = True
) -> np.ndarray:
    """Per-dimension masks, concatenated (the layout sb3-contrib's MaskablePPO expects).

    MultiDiscrete masks cannot express joint validity: a verb is allowed when it is valid
    for some element, an element when some verb is valid on it. (The `discrete` mode's
    masks are joint: every allowed index is a valid action.) Done verbs are allowed only
    when `offer_done`.
    """
    n_el, n_val = config.max_elements, config.max_values
    verb_ok = np.zeros(len(VERBS), bool)
    elem_ok = np.zeros(n_el, bool)
    slot_ok = np.zeros(n_val, bool)
    slot_ok[: min(len(values), n_val)] = True
    for name in ("scroll_down", "scroll_up", "back", *(DONE_VERBS if offer_done else ())):
        _, err = check(Decoded(name, 0), dom)
        verb_ok[VERB_INDEX[name]] = err is None
    # Per element, the element verbs `check` would accept (with some value slot), read off
    # the flags directly: this runs every step of a masked policy, for every element.
    wanted = {v.strip().lower() for v in values}
    for i in range(min(len(dom), n_el)):
        fl = dom.flags[i]
        if fl & (f.DISABLED | f.OCCLUDED):
            continue
        ok = {
            "click": fl & f.CLICKABLE,
            "press_enter": fl & (f.CLICKABLE | f.EDITABLE),
            "submit": fl & f.IN_FORM,
            "type": values and fl & f.EDITABLE and not fl & f.READONLY,
            "select": fl & f.SELECTABLE
            and any(o.strip().lower() in wanted for o in dom.options[i] or ()),
        }
        for name, valid in ok.items():
            if valid:
                verb_ok[VERB_INDEX[name]] = elem_ok[i] = True
    if not elem_ok.any():
        elem_ok[0] = True  # element-free verbs still need one index to be legal
    if not slot_ok.any():
        slot_ok[0] = True
    return np.concatenate([verb_ok, elem_ok, slot_ok])


def answer_text(dom: DomSnapshot, i: int) -> str:
    """What a numeric agent says when it answers by pointing at element `i`."""
    return f"{dom.texts[i]} {dom.values[i]}".strip()


def enumerate_actions(
    dom: DomSnapshot, values: Sequence[str], config: ActionConfig, answers: bool = False
) -> list[Decoded]:
    """Every valid action now, in a stable order: the page actions at fixed indices
    (`PAGE_ACTIONS`, valid or not), then each element's valid verbs in page order (typing
    and selecting once per value of the task's value table). When the task asks for an
    answer (`answers`), then one "done, answering with what element i shows" per element
    that shows text. Capped at `max_actions`."""
    menu = [Decoded(name) for name in PAGE_ACTIONS]
    shown = range(min(len(dom), config.max_elements))
    for i in shown:
        for name in ELEMENT_VERBS:
            for value in values if name in ("type", "select") else (None,):
                d = Decoded(name, i, value)
                if check(d, dom)[1] is None:
                    menu.append(d)
                    if len(menu) >= config.max_actions:
                        return menu
    if answers:
        for i in shown:
            text = answer_text(dom, i)
            if text:
                menu.append(Decoded("done_success", i, text=text))
                if len(menu) >= config.max_actions:
                    return menu
    return menu


def discrete_masks(
    dom: DomSnapshot, menu: Sequence[Decoded], config: ActionConfig, offer_done: bool = True
) -> np.ndarray:
    mask = np.zeros(config.max_actions, bool)
    for k, d in enumerate(menu):
        mask[k] = check(d, dom)[1] is None and (offer_done or d.verb not in DONE_VERBS)
    return mask


def menu_rows(menu: Sequence[Decoded], values: Sequence[str]) -> list[tuple[int, int, int]]:
    """The menu as (verb, element, slot) rows, the layout of the multidiscrete action: the
    element is 0 for page actions, the slot 0 unless the verb types or selects a value."""
    slot_of = {v: j for j, v in reversed(list(enumerate(values)))}
    rows = []
    for d in menu:
        element = d.index if d.verb in ELEMENT_VERBS or d.text else 0
        slot = slot_of.get(d.value, 0) if d.value is not None else 0
        rows.append((VERB_INDEX[d.verb], max(element, 0), slot))
    return rows


def menu_array(menu: Sequence[Decoded], values: Sequence[str], size: int) -> np.ndarray:
    """The observation's `menu`: `menu_rows` padded with -1 to `size` rows."""
    out = np.full((size, 3), -1, np.int64)
    rows = menu_rows(menu[:size], values)
    if rows:
        out[: len(rows)] = np.asarray(rows, np.int64)
    return out


def describe(d: Decoded, dom: DomSnapshot) -> str:
    """An action in words (for people, debugging and the text observation's last-action
    line). An action without an element (a key press on the page) names none: the index
    -1 that stands for "no element" is internal and never shown."""
    if d.coords is not None:
        return describe_coordinates(d)
    if d.verb in PAGE_ACTIONS and d.text and 0 <= d.index < len(dom):
        return f"done success, answering {d.text!r} (what [{d.index}] shows)"
    if d.verb in PAGE_ACTIONS:
        return d.verb.replace("_", " ")
    verb, value = d.verb, f" {d.value!r}" if d.value is not None else ""
    if d.verb == "press_enter":  # any key, not only Enter
        verb, value = "press", f" {d.key!r}"
    if d.index < 0:
        return f"{verb}{value}"
    target = (
        f"[{d.index}] {dom.roles[d.index]} {dom.texts[d.index]!r}"
        if d.index < len(dom)
        else f"[{d.index}]"
    )
    return f"{verb}{value} {target}"


class ActionMenu:
    """The `discrete` mode's enumeration of valid actions, made once per page."""

    def __init__(self, config: ActionConfig) -> None:
        self.config = config
        self._for: DomSnapshot | None = None
        self._menu: list[Decoded] = []

    def actions(
        self, dom: DomSnapshot | None, values: Sequence[str], expects_answer: bool
    ) -> list[Decoded]:
        if self.config.mode != "discrete" or dom is None:
            return []
        if self._for is not dom:
            self._menu = enumerate_actions(dom, values, self.config, expects_answer)
            self._for = dom
        return self._menu

    def rows(
        self, dom: DomSnapshot | None, values: Sequence[str], expects_answer: bool, size: int
    ) -> np.ndarray:
        """The observation's `menu` for `dom` (`menu_array`): (verb, element, slot) rows."""
        return menu_array(self.actions(dom, values, expects_answer), values, size)

    def masks(self, dom: DomSnapshot, values: Sequence[str], expects_answer: bool) -> np.ndarray:
        """Which actions are valid now: per-dimension masks (verbs, elements, value slots)
        in `multidiscrete` mode, one per index in `discrete`."""
        offer = self.config.offers_done(expects_answer)
        if self.config.mode == "discrete":
            menu = self.actions(dom, values, expects_answer)
            return discrete_masks(dom, menu, self.config, offer)
        if self.config.mode == "coordinates":
            return coordinate_masks(self.config, values, offer)
        if self.config.mode in TEXT_MODES:
            raise ConfigError(
                "text actions have no mask; use action_mode='multidiscrete', 'discrete' "
                "or 'coordinates' for masked policies"
            )
        return action_masks(dom, values, self.config, offer)
