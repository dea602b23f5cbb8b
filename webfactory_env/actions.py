"""The action spaces, parsing, validation against the page, and masks.

Two modes. `multidiscrete` (for RL): `[verb, element, value_slot]`, where the element
indexes the rows of the current observation and the slot the task's value table
(`info["values"]`). `text` (for LLM agents): one call such as `click(12)`,
`type(3, "Alice Nguyen")`, `select(5, "Red")`, `press("Enter")`, `scroll(down)`, `back()`
or `done(true, "answer")`, read by a small tokenizer — never `eval`.

An action that does not fit the page (a hidden, disabled, covered or read-only element, a
verb the element does not take, an unknown option) is *invalid*: the env reports it in
`info["action_error"]`, charges the invalid penalty and leaves the page untouched. Only an
action of the wrong type or shape (not an array of three ints, not a string) raises.
"""

from __future__ import annotations

import re
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
    "click", "type", "select", "submit", "press_enter",
    "scroll_down", "scroll_up", "back", "done_success", "done_fail",
)  # fmt: skip
VERB_INDEX = {v: i for i, v in enumerate(VERBS)}
ELEMENT_VERBS = ("click", "type", "select", "submit", "press_enter")
DONE_VERBS = ("done_success", "done_fail")
ACTION_MODES = ("multidiscrete", "discrete", "text")
# In `discrete` mode these page-level actions keep fixed indices; element actions follow.
PAGE_ACTIONS = ("done_success", "done_fail", "scroll_down", "scroll_up", "back")
MAX_TEXT_ACTION = 2000
KEYS = frozenset(
    {
        "Enter",
        "Escape",
        "Tab",
        "Backspace",
        "Space",
        "ArrowUp",
        "ArrowDown",
        "ArrowLeft",
        "ArrowRight",
        "PageUp",
        "PageDown",
        "Home",
        "End",
    }
)
_SHORTCUT = re.compile(r"^Alt\+Shift\+[A-Z]$")


class InvalidActionError(ConfigError):
    """An action that is not even of the action space's shape or type."""


@dataclass(frozen=True)
class ActionConfig:
    max_elements: int = 128
    max_values: int = 16
    mode: str = "multidiscrete"
    max_actions: int = 512  # `discrete` mode: size of the action space
    done_actions: str = "auto"  # `auto`: done verbs only for answer/infeasible tasks

    def offers_done(self, expects_answer: bool) -> bool:
        """Whether done_success/done_fail are offered to a task (always in `text` mode)."""
        return self.done_actions == "always" or self.mode == "text" or expects_answer


@dataclass(frozen=True)
class Decoded:
    """An action in the env's own terms. `value` is the text to type or the option to
    select (from the value table, or written out in text mode); `text` is a done message."""

    verb: str
    index: int = 0
    value: str | None = None
    text: str = ""
    key: str = "Enter"


def action_space(config: ActionConfig) -> spaces.Space[Any]:
    if config.mode == "text":
        return spaces.Text(max_length=MAX_TEXT_ACTION, min_length=1, charset=_TEXT_CHARSET)
    if config.mode == "discrete":
        return spaces.Discrete(config.max_actions)
    return spaces.MultiDiscrete([len(VERBS), config.max_elements, config.max_values])


# Printable ASCII plus the typographic characters sites and agents commonly write.
_TEXT_CHARSET = frozenset(chr(c) for c in range(32, 127)) | set("\n\t’‘“”–—…€£×·★é")


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
        try:
            k = int(np.asarray(action).reshape(()))
        except (TypeError, ValueError):
            raise InvalidActionError(
                f"this env takes one integer action (an index into the valid actions); got "
                f"{action!r}"
            ) from None
        if not 0 <= k < config.max_actions:
            return f"action {k} is out of range 0..{config.max_actions - 1}"
        if k >= len(menu):
            return f"action {k} is not available now (only {len(menu)} actions are)"
        return menu[k]
    if config.mode == "text":
        if not isinstance(action, str):
            raise InvalidActionError(
                f"this env takes text actions such as 'click(3)'; got {type(action).__name__}."
                " Make it with action_mode='multidiscrete' for numeric actions."
            )
        return parse_text_action(action)
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


# ------------------------------------------------------------------------ text mode
_TOKEN = re.compile(
    r"""\s*(?:(?P<name>[A-Za-z_][A-Za-z_0-9+]*)|(?P<int>-?\d+)|(?P<str>"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')|(?P<punct>[(),]))"""
)
_ESCAPES = {"n": "\n", "t": "\t", '"': '"', "'": "'", "\\": "\\"}


def _tokens(text: str) -> list[tuple[str, str]] | str:
    out: list[tuple[str, str]] = []
    pos = 0
    text = text.strip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m or m.end() == pos:
            return f"cannot read the action at character {pos + 1}: {text[pos : pos + 12]!r}"
        kind = m.lastgroup or ""
        out.append((kind, m.group(kind)))
        pos = m.end()
        while pos < len(text) and text[pos].isspace():
            pos += 1
    return out


def _unquote(raw: str) -> str:
    body = raw[1:-1]
    out = []
    i = 0
    while i < len(body):
        ch = body[i]
        if (
            ch == "\\"
            and body[i + 1 : i + 2] == "u"
            and re.fullmatch(r"[0-9a-fA-F]{4}", body[i + 2 : i + 6])
        ):
            out.append(chr(int(body[i + 2 : i + 6], 16)))  # JSON-style \uXXXX
            i += 6
        elif ch == "\\" and i + 1 < len(body):
            out.append(_ESCAPES.get(body[i + 1], body[i + 1]))
            i += 2
        else:
            out.append(ch)
            i += 1
    return "".join(out)


def parse_text_action(text: str) -> Decoded | str:
    """`click(12)` → Decoded; anything else → a message that says what is accepted."""
    usage = (
        'write one of: click(i), type(i, "text"), select(i, "option"), submit(i), '
        'press("Enter") or press(i, "Enter"), scroll(up|down), back(), '
        'done(true|false, "message")'
    )
    if len(text) > MAX_TEXT_ACTION:
        return f"the action is longer than {MAX_TEXT_ACTION} characters"
    toks = _tokens(text)
    if isinstance(toks, str):
        return f"{toks}; {usage}"
    if (
        len(toks) < 3
        or toks[0][0] != "name"
        or toks[1] != ("punct", "(")
        or toks[-1] != ("punct", ")")
    ):
        return f"not an action call: {text[:60]!r}; {usage}"
    name = toks[0][1].lower()
    args: list[tuple[str, str]] = []
    inner = toks[2:-1]
    for i, tok in enumerate(inner):
        if i % 2 == 1:
            if tok != ("punct", ","):
                return f"arguments must be separated by commas; {usage}"
        elif tok[0] == "punct":
            return f"missing argument in {text[:60]!r}; {usage}"
        else:
            args.append(tok)
    if inner and inner[-1] == ("punct", ","):
        return f"trailing comma in {text[:60]!r}"
    kinds = [k for k, _ in args]

    def index(tok: tuple[str, str]) -> int | str:
        value = int(tok[1])
        return value if value >= 0 else f"element index {value} is negative"

    if name == "click" and kinds == ["int"]:
        idx = index(args[0])
        return idx if isinstance(idx, str) else Decoded("click", idx)
    if name == "submit" and kinds == ["int"]:
        idx = index(args[0])
        return idx if isinstance(idx, str) else Decoded("submit", idx)
    if name in ("type", "fill", "select") and kinds == ["int", "str"]:
        idx = index(args[0])
        verb = "select" if name == "select" else "type"
        return idx if isinstance(idx, str) else Decoded(verb, idx, _unquote(args[1][1]))
    if name == "press" and kinds in (["str"], ["int", "str"]):
        key = _unquote(args[-1][1])
        if key not in KEYS and not _SHORTCUT.match(key):
            return f"unknown key {key!r}; keys: {', '.join(sorted(KEYS))}, Alt+Shift+<letter>"
        if kinds == ["str"]:
            return Decoded("press_enter", -1, key=key)
        idx = index(args[0])
        return idx if isinstance(idx, str) else Decoded("press_enter", idx, key=key)
    if name == "scroll" and len(args) == 1 and args[0][1].strip("'\"").lower() in ("up", "down"):
        return Decoded("scroll_" + args[0][1].strip("'\"").lower())
    if name == "back" and not args:
        return Decoded("back")
    if name == "done" and kinds in (["name"], ["name", "str"]) and args[0][1] in ("true", "false"):
        message = _unquote(args[1][1]) if len(args) == 2 else ""
        return Decoded("done_success" if args[0][1] == "true" else "done_fail", text=message)
    return f"unknown action {text[:60]!r}; {usage}"


# ----------------------------------------------------------------------- validation
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
    for i in range(min(len(dom), n_el)):
        for name in ELEMENT_VERBS:
            candidates = values if name in ("type", "select") else (None,)
            if any(check(Decoded(name, i, value), dom)[1] is None for value in candidates):
                verb_ok[VERB_INDEX[name]] = True
                elem_ok[i] = True
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


def done_refusal(d: Decoded, config: ActionConfig, expects_answer: bool) -> str | None:
    """Why a done verb is refused (not offered to this task), or None."""
    if d.verb in DONE_VERBS and not config.offers_done(expects_answer):
        return (
            "done is not offered to this task (it ends when its goal holds, or after "
            "max_steps); make the env with done_actions='always' to offer it"
        )
    return None


def describe(d: Decoded, dom: DomSnapshot) -> str:
    """A discrete action in words (for people and debugging)."""
    if d.verb in PAGE_ACTIONS and d.text and d.index < len(dom):
        return f"done success, answering {d.text!r} (what [{d.index}] shows)"
    if d.verb in PAGE_ACTIONS:
        return d.verb.replace("_", " ")
    target = (
        f"[{d.index}] {dom.roles[d.index]} {dom.texts[d.index]!r}"
        if d.index < len(dom)
        else f"[{d.index}]"
    )
    value = f" {d.value!r}" if d.value is not None else ""
    return f"{d.verb}{value} {target}"


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

    def masks(self, dom: DomSnapshot, values: Sequence[str], expects_answer: bool) -> np.ndarray:
        """Which actions are valid now: per-dimension masks (verbs, elements, value slots)
        in `multidiscrete` mode, one per index in `discrete`."""
        offer = self.config.offers_done(expects_answer)
        if self.config.mode == "discrete":
            menu = self.actions(dom, values, expects_answer)
            return discrete_masks(dom, menu, self.config, offer)
        if self.config.mode == "text":
            raise ConfigError(
                "text actions have no mask; use action_mode='multidiscrete' "
                "or 'discrete' for masked policies"
            )
        return action_masks(dom, values, self.config, offer)
