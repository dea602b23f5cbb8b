"""Text actions (for LLM agents): one call such as `click(12)`, read by a small tokenizer.

One source for the text grammar: each action's documentation sits next to the function
that reads its arguments, and the parser, its error messages and the LLM agent's prompt
(`llm.prompt`) are all rendered from `TEXT_ACTIONS`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from webfactory_env.actions.verbs import KEYS, MAX_TEXT_ACTION, SHORTCUT, Decoded

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
    name: str,
    forms: Sequence[str],
    doc: str,
    examples: Sequence[str],
    aliases: Sequence[str] = (),
    grammar: list[TextAction] = TEXT_ACTIONS,
) -> Callable[[Reader], Reader]:
    """Register the decorated argument reader as text action `name` of `grammar` (the
    element actions', or the coordinate actions' `actions.coordinates.COORDINATE_ACTIONS`)."""

    def register(read: Reader) -> Reader:
        grammar.append(TextAction(name, tuple(forms), doc, tuple(examples), read, tuple(aliases)))
        return read

    return register


def usage(grammar: Sequence[TextAction] = TEXT_ACTIONS) -> str:
    """Every accepted form, for error messages."""
    return "write one of: " + ", ".join(form for a in grammar for form in a.forms)


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


def quote_text(text: str) -> str:
    """`text` as a string argument of a text action (`unquote` reads it back): a JSON
    string literal is one, whatever quotes, backslashes or newlines it holds."""
    return json.dumps(text, ensure_ascii=False)


def parse_call(
    text: str, grammar: Sequence[TextAction] = TEXT_ACTIONS
) -> tuple[str, CallArgs] | str:
    """`name(arg, ..., key=value)` → (lower-case name, arguments), or what is wrong (the
    forms of `grammar` said in the message)."""
    toks = _tokens(text)
    if isinstance(toks, str):
        return f"{toks}; {usage(grammar)}"
    if (
        len(toks) < 3
        or toks[0][0] != "name"
        or toks[1] != ("punct", "(")
        or toks[-1] != ("punct", ")")
    ):
        return f"not an action call: {text[:60]!r}; {usage(grammar)}"
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
                    return f"missing value for {group[0][1]}= in {text[:60]!r}; {usage(grammar)}"
                keywords.append((group[0][1].lower(), group[2]))
            elif not group:
                return f"missing argument in {text[:60]!r}; {usage(grammar)}"
            elif len(group) == 1 and keywords:
                return f"a positional argument after a keyword one in {text[:60]!r}"
            else:
                return f"arguments must be separated by commas; {usage(grammar)}"
    return toks[0][1].lower(), CallArgs(tuple(positional), tuple(keywords))


def parse_text_action(text: str, grammar: Sequence[TextAction] = TEXT_ACTIONS) -> Decoded | str:
    """`click(12)` → Decoded; anything else → a message that says what is accepted."""
    if len(text) > MAX_TEXT_ACTION:
        return f"the action is longer than {MAX_TEXT_ACTION} characters"
    call = parse_call(text, grammar)
    if isinstance(call, str):
        return call
    name, args = call
    for action in grammar:
        if name == action.name or name in action.aliases:
            if args.keywords and action.name != "done":
                return f"{action.name}() takes no keyword arguments; {usage(grammar)}"
            return action.read(args)
    return f"unknown action {text[:60]!r}; {usage(grammar)}"


def _index(tok: Token) -> int | str:
    value = int(tok[1])
    return value if value >= 0 else f"element index {value} is negative"


def wrong_arguments(name: str, grammar: Sequence[TextAction] = TEXT_ACTIONS) -> str:
    """What to write instead of a call to `name` whose arguments do not fit."""
    forms = next(" or ".join(a.forms) for a in grammar if a.name == name)
    return f"wrong arguments for {name}: write {forms}"


@text_action(
    "click",
    ["click(i)"],
    "Click element [i]: a link, button, checkbox, radio button, tab, menu item or option.",
    ["click(12)"],
)
def _read_click(args: CallArgs) -> Decoded | str:
    if args.kinds != ["int"]:
        return wrong_arguments("click")
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
        return wrong_arguments("type")
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
        return wrong_arguments("select")
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
        return wrong_arguments("submit")
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
        return wrong_arguments("press")
    key = unquote(args.positional[-1][1])
    if key not in KEYS and not SHORTCUT.match(key):
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
        return wrong_arguments("scroll")
    return Decoded("scroll_" + where)


@text_action("back", ["back()"], "Go back to the previous page.", ["back()"])
def _read_back(args: CallArgs) -> Decoded | str:
    return Decoded("back") if not args.positional else wrong_arguments("back")


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
        return wrong_arguments("done")
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
