"""The action spaces, parsing, validation against the page, and masks.

Two modes. `multidiscrete` (for RL): `[verb, element, value_slot]`, where the element
indexes the rows of the current observation and the slot the task's value table
(`info["values"]`). `text` (for LLM agents): one call such as `click(12)`,
`type(3, "Alice Nguyen")`, `select(5, "Red")`, `press("Enter")`, `scroll(down)`, `back()`
or `done(true, "answer", confidence=0.8)`, read by a small tokenizer — never `eval`. Each
text action is documented where its arguments are read (`TEXT_ACTIONS`).

An action that does not fit the page (a hidden, disabled, covered or read-only element, a
verb the element does not take, an unknown option) is *invalid*: the env reports it in
`info["action_error"]`, charges the invalid penalty and leaves the page untouched. Only an
action of the wrong type or shape (not an array of three ints, not a string) raises.

Text actions accept any Python string: code points UTF-8 cannot encode (lone surrogates, as
a JSON decoder makes of a broken `\\ud800` escape) become U+FFFD before anything reads them
(`core.text.clean_text`), so no page, observation or trace ever holds one; a surrogate pair
written as two code points becomes the character it encodes.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from gymnasium import spaces

from webfactory_env.core import dom as f
from webfactory_env.core.dom import DomSnapshot
from webfactory_env.core.errors import ConfigError
from webfactory_env.core.text import clean_text
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
    select (from the value table, or written out in text mode); `text` is a done message,
    `confidence` the probability a text-mode `done` gives that its ending is right."""

    verb: str
    index: int = 0
    value: str | None = None
    text: str = ""
    key: str = "Enter"
    confidence: float | None = None  # a done action's P(this ending is right), text mode


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


# ------------------------------------------------------------------------ text mode
# One source for the text grammar: each action's documentation sits next to the function
# that reads its arguments, and the parser, its error messages and the LLM agent's prompt
# (`llm.prompt`) are all rendered from `TEXT_ACTIONS`.
_TOKEN = re.compile(
    r"""\s*(?:(?P<name>[A-Za-z_][A-Za-z_0-9+]*)|(?P<num>-?\d+(?:\.\d+)?)|(?P<str>"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')|(?P<punct>[(),=]))"""
)
_ESCAPES = {"n": "\n", "t": "\t", '"': '"', "'": "'", "\\": "\\"}
Token = tuple[str, str]  # (kind, text): kind is name, int, float, str or punct


@dataclass(frozen=True)
class CallArgs:
    """A call's arguments as tokens: positional ones in order, keyword ones by name."""

    positional: tuple[Token, ...]
    keywords: tuple[tuple[str, Token], ...] = ()

    @property
    def kinds(self) -> list[str]:
        return [k for k, _ in self.positional]


Reader = Callable[[CallArgs], "Decoded | str"]


@dataclass(frozen=True)
class TextAction:
    """One action of the text grammar: how it is written, what it does, how it is read."""

    name: str
    forms: tuple[str, ...]  # how to write it, e.g. 'type(i, "text")'
    doc: str  # what it does, for people and models
    examples: tuple[str, ...]
    read: Reader
    aliases: tuple[str, ...] = ()


TEXT_ACTIONS: list[TextAction] = []


def text_action(
    name: str, forms: Sequence[str], doc: str, examples: Sequence[str], aliases: Sequence[str] = ()
) -> Callable[[Reader], Reader]:
    """Register the decorated argument reader as text action `name`, with its docs."""

    def register(read: Reader) -> Reader:
        TEXT_ACTIONS.append(
            TextAction(name, tuple(forms), doc, tuple(examples), read, tuple(aliases))
        )
        return read

    return register


def usage() -> str:
    """Every accepted form, for error messages."""
    return "write one of: " + ", ".join(form for a in TEXT_ACTIONS for form in a.forms)


def _tokens(text: str) -> list[Token] | str:
    out: list[Token] = []
    pos = 0
    text = text.strip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m or m.end() == pos:
            return f"cannot read the action at character {pos + 1}: {text[pos : pos + 12]!r}"
        kind = m.lastgroup or ""
        value = m.group(kind)
        if kind == "num":
            kind = "float" if "." in value else "int"
        out.append((kind, value))
        pos = m.end()
        while pos < len(text) and text[pos].isspace():
            pos += 1
    return out


def unquote(raw: str) -> str:
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


def parse_call(text: str) -> tuple[str, CallArgs] | str:
    """`name(arg, ..., key=value)` → (lower-case name, arguments), or what is wrong."""
    toks = _tokens(text)
    if isinstance(toks, str):
        return f"{toks}; {usage()}"
    if (
        len(toks) < 3
        or toks[0][0] != "name"
        or toks[1] != ("punct", "(")
        or toks[-1] != ("punct", ")")
    ):
        return f"not an action call: {text[:60]!r}; {usage()}"
    inner = toks[2:-1]
    if inner and inner[-1] == ("punct", ","):
        return f"trailing comma in {text[:60]!r}"
    positional: list[Token] = []
    keywords: list[tuple[str, Token]] = []
    groups: list[list[Token]] = [[]]
    for tok in inner:
        if tok == ("punct", ","):
            groups.append([])
        else:
            groups[-1].append(tok)
    if inner:
        for group in groups:
            if len(group) == 1 and group[0][0] != "punct" and not keywords:
                positional.append(group[0])
            elif len(group) in (2, 3) and group[0][0] == "name" and group[1] == ("punct", "="):
                if len(group) == 2 or group[2][0] == "punct":
                    return f"missing value for {group[0][1]}= in {text[:60]!r}; {usage()}"
                keywords.append((group[0][1].lower(), group[2]))
            elif not group:
                return f"missing argument in {text[:60]!r}; {usage()}"
            elif len(group) == 1 and keywords:
                return f"a positional argument after a keyword one in {text[:60]!r}"
            else:
                return f"arguments must be separated by commas; {usage()}"
    return toks[0][1].lower(), CallArgs(tuple(positional), tuple(keywords))


def parse_text_action(text: str) -> Decoded | str:
    """`click(12)` → Decoded; anything else → a message that says what is accepted."""
    if len(text) > MAX_TEXT_ACTION:
        return f"the action is longer than {MAX_TEXT_ACTION} characters"
    call = parse_call(text)
    if isinstance(call, str):
        return call
    name, args = call
    for action in TEXT_ACTIONS:
        if name == action.name or name in action.aliases:
            if args.keywords and action.name != "done":
                return f"{action.name}() takes no keyword arguments; {usage()}"
            return action.read(args)
    return f"unknown action {text[:60]!r}; {usage()}"


def _index(tok: Token) -> int | str:
    value = int(tok[1])
    return value if value >= 0 else f"element index {value} is negative"


def _wrong(name: str) -> str:
    forms = next(" or ".join(a.forms) for a in TEXT_ACTIONS if a.name == name)
    return f"wrong arguments for {name}: write {forms}"


@text_action(
    "click",
    ["click(i)"],
    "Click element [i]: a link, button, checkbox, radio button, tab, menu item or option.",
    ["click(12)"],
)
def _read_click(args: CallArgs) -> Decoded | str:
    if args.kinds != ["int"]:
        return _wrong("click")
    idx = _index(args.positional[0])
    return idx if isinstance(idx, str) else Decoded("click", idx)


@text_action(
    "type",
    ['type(i, "text")'],
    'Replace the text of field [i] with the given text (fill(i, "text") means the same).',
    ['type(3, "Alice Nguyen")'],
    aliases=("fill",),
)
def _read_type(args: CallArgs) -> Decoded | str:
    if args.kinds != ["int", "str"]:
        return _wrong("type")
    idx = _index(args.positional[0])
    return idx if isinstance(idx, str) else Decoded("type", idx, unquote(args.positional[1][1]))


@text_action(
    "select",
    ['select(i, "option")'],
    "Choose an option of dropdown [i] by its text, as listed in its options=[...].",
    ['select(5, "Red")'],
)
def _read_select(args: CallArgs) -> Decoded | str:
    if args.kinds != ["int", "str"]:
        return _wrong("select")
    idx = _index(args.positional[0])
    return idx if isinstance(idx, str) else Decoded("select", idx, unquote(args.positional[1][1]))


@text_action(
    "submit",
    ["submit(i)"],
    "Submit the form that element [i] belongs to.",
    ["submit(7)"],
)
def _read_submit(args: CallArgs) -> Decoded | str:
    if args.kinds != ["int"]:
        return _wrong("submit")
    idx = _index(args.positional[0])
    return idx if isinstance(idx, str) else Decoded("submit", idx)


@text_action(
    "press",
    ['press("Key")', 'press(i, "Key")'],
    "Press a key on the page, or on element [i]. Keys: "
    + ", ".join(sorted(KEYS))
    + ", and Alt+Shift+<letter> shortcuts.",
    ['press("Enter")', 'press(4, "Tab")'],
)
def _read_press(args: CallArgs) -> Decoded | str:
    if args.kinds not in (["str"], ["int", "str"]):
        return _wrong("press")
    key = unquote(args.positional[-1][1])
    if key not in KEYS and not _SHORTCUT.match(key):
        return f"unknown key {key!r}; keys: {', '.join(sorted(KEYS))}, Alt+Shift+<letter>"
    if args.kinds == ["str"]:
        return Decoded("press_enter", -1, key=key)
    idx = _index(args.positional[0])
    return idx if isinstance(idx, str) else Decoded("press_enter", idx, key=key)


@text_action(
    "scroll",
    ["scroll(down)", "scroll(up)"],
    "Scroll the page by one screen; only what is in view is shown.",
    ["scroll(down)"],
)
def _read_scroll(args: CallArgs) -> Decoded | str:
    where = args.positional[0][1].strip("'\"").lower() if len(args.positional) == 1 else ""
    if where not in ("up", "down") or args.positional[0][0] not in ("name", "str"):
        return _wrong("scroll")
    return Decoded("scroll_" + where)


@text_action("back", ["back()"], "Go back to the previous page.", ["back()"])
def _read_back(args: CallArgs) -> Decoded | str:
    return Decoded("back") if not args.positional else _wrong("back")


@text_action(
    "done",
    ['done(true, "answer")', 'done(false, "why")'],
    "End the episode. done(true, ...) claims the task is done: it succeeds only if the"
    " site shows it done; when the task asks a question, the text is the answer, graded"
    " after normalising case, spacing, currency, number, time and date formats. Give one"
    ' value and do not hedge: a second value of its kind, a list, a range, "or" or'
    ' "maybe" fails. done(false, ...) says the task cannot be done on this site (what'
    " it asks for does not exist or is not allowed): the right ending for such a task, a"
    " failure for any other; the text says why. Either may end with confidence=P, your"
    " probability from 0 to 1 that this ending is right.",
    ['done(true, "$12.99", confidence=0.9)', 'done(false, "no such coupon")'],
)
def _read_done(args: CallArgs) -> Decoded | str:
    if args.kinds not in (["name"], ["name", "str"]) or args.positional[0][1] not in (
        "true",
        "false",
    ):
        return _wrong("done")
    confidence: float | None = None
    for key, tok in args.keywords:
        if key != "confidence":
            return f"done() takes only confidence=P as a keyword, not {key}="
        if tok[0] not in ("int", "float") or not 0.0 <= float(tok[1]) <= 1.0:
            return f"confidence must be a number from 0 to 1, got {tok[1]}"
        confidence = float(tok[1])
    message = unquote(args.positional[1][1]) if len(args.positional) == 2 else ""
    verb = "done_success" if args.positional[0][1] == "true" else "done_fail"
    return Decoded(verb, text=message, confidence=confidence)


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
        if self.config.mode == "text":
            raise ConfigError(
                "text actions have no mask; use action_mode='multidiscrete' "
                "or 'discrete' for masked policies"
            )
        return action_masks(dom, values, self.config, offer)
