"""The `computer` function a vision model may call instead of writing its action as text:
its schema generated from the action docs, and its calls read back as text calls.

`action` names one of the grammar's actions and each argument of its forms is a property
of the same name: `click(x, y)` is `{"action": "click", "x": 312, "y": 88}`, `type("text")`
is `{"action": "type", "text": "Alice"}`; with set-of-marks, `click(i)` is
`{"action": "click", "i": 12}`. Two kinds of action write no argument names, so they are
named here: `done(true, "answer")` takes `success`, `text` and `confidence`, and an action
whose forms are one word each (`scroll(down)`, `scroll(up)`) takes `direction`, one of
them. A call is read back into the text the env parses, so nothing downstream knows how
the model wrote it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from webfactory_env.actions import (
    COORDINATE_ACTIONS,
    TextAction,
    parse_call,
    quote_text,
    unquote,
)
from webfactory_env.llm.client import ToolCall

TOOL_NAME = "computer"
_FORM = re.compile(r"^\w+\((?P<args>.*)\)$")


@dataclass(frozen=True)
class Param:
    """One property of the function: its name, JSON type, and the words it may be."""

    name: str
    kind: str  # number, string or boolean
    choices: tuple[str, ...] = ()


DONE_PARAMS = (Param("success", "boolean"), Param("text", "string"), Param("confidence", "number"))


def _form_args(form: str) -> list[str]:
    m = _FORM.match(form)
    return [a.strip() for a in (m.group("args") if m else "").split(",") if a.strip()]


def _form_params(form: str) -> list[Param]:
    """The properties a form's arguments are: `"text"` a string named text, `x` a number."""
    return [
        Param(a.strip('"').lower(), "string") if a.startswith('"') else Param(a, "number")
        for a in _form_args(form)
    ]


def _choice(action: TextAction) -> Param | None:
    """`direction` for an action written as one word of several (`scroll(down)`)."""
    words = [_form_args(f) for f in action.forms]
    if len(words) > 1 and all(len(w) == 1 and w[0].isalpha() for w in words):
        return Param("direction", "string", tuple(w[0] for w in words))
    return None


def parameters(action: TextAction) -> tuple[Param, ...]:
    """Every property `action` may take, in the order its forms write them."""
    if action.name == "done":
        return DONE_PARAMS
    choice = _choice(action)
    if choice is not None:
        return (choice,)
    out: dict[str, Param] = {}
    for form in action.forms:
        for p in _form_params(form):
            out.setdefault(p.name, p)
    return tuple(out.values())


def computer_tool(grammar: Sequence[TextAction] = COORDINATE_ACTIONS) -> dict[str, Any]:
    """The function in the chat API's `tools` format, for the actions of `grammar`."""
    properties: dict[str, Any] = {}
    for action in grammar:
        for p in parameters(action):
            spec: dict[str, Any] = {"type": p.kind}
            if p.choices:
                spec["enum"] = list(p.choices)
            properties.setdefault(p.name, spec)
    docs = "\n".join(f"{a.name}: {' or '.join(a.forms)}: {a.doc}" for a in grammar)
    marks = any(p.name == "i" for a in grammar for p in parameters(a))
    where = (
        "on the elements numbered on the screenshot (i is an element's number)"
        if marks
        else "at points in pixels of the screenshot ((0, 0) is its top-left corner)"
    )
    return {
        "type": "function",
        "function": {
            "name": TOOL_NAME,
            "description": f"Use the browser: one action per call, {where}.",
            "parameters": {
                "type": "object",
                "properties": {
                    "action": {
                        "type": "string",
                        "enum": [a.name for a in grammar],
                        "description": docs,
                    },
                    **dict(sorted(properties.items())),
                },
                "required": ["action"],
                "additionalProperties": False,
            },
        },
    }


def tool_arguments(call: str, grammar: Sequence[TextAction] = COORDINATE_ACTIONS) -> dict[str, Any]:
    """The function's arguments for a text call such as `click(312, 88)` (the prompt's
    examples; what a scripted model sends)."""
    parsed = parse_call(call, grammar)
    if isinstance(parsed, str):
        raise ValueError(parsed)
    name, args = parsed
    action = next(a for a in grammar if name in (a.name, *a.aliases))
    values = [_value(kind, text) for kind, text in args.positional]
    out: dict[str, Any] = {"action": action.name}
    if action.name == "done":
        out["success"] = values[0] == "true"
        if len(values) > 1:
            out["text"] = values[1]
        out.update((key, _value(*tok)) for key, tok in args.keywords)
        return out
    choice = _choice(action)
    if choice is not None:
        return {**out, choice.name: values[0]}
    form = next(f for f in action.forms if len(_form_args(f)) == len(values))
    return {**out, **{p.name: v for p, v in zip(_form_params(form), values, strict=True)}}


def _value(kind: str, text: str) -> Any:
    if kind == "str":
        return unquote(text)
    if kind == "int":
        return int(text)
    return float(text) if kind == "float" else text


def tool_call_action(
    call: ToolCall, grammar: Sequence[TextAction] = COORDINATE_ACTIONS
) -> tuple[str | None, str | None]:
    """(the text call a function call stands for, None) or (None, what is wrong with it)."""
    if call.name != TOOL_NAME:
        return None, f"there is no function {call.name[:40]!r}; call {TOOL_NAME}"
    try:
        args = json.loads(call.arguments or "{}")
    except ValueError:
        args = None
    if not isinstance(args, dict):
        return None, "its arguments are not a JSON object"
    name = args.get("action")
    action = next((a for a in grammar if name == a.name or name in a.aliases), None)
    if action is None:
        names = ", ".join(a.name for a in grammar)
        return None, f"action {str(name)[:40]!r} is none of {names}"
    if action.name == "done":
        return _done(args)
    choice = _choice(action)
    if choice is not None:
        word = args.get(choice.name)
        if word not in choice.choices:
            return None, f"{action.name} needs {choice.name}: one of {', '.join(choice.choices)}"
        return f"{action.name}({word})", None
    problem = ""
    for form in sorted(action.forms, key=lambda f: -len(_form_args(f))):  # the fullest first
        written = []
        for p in _form_params(form):
            text = _written(p, args.get(p.name))
            if text is None:
                problem = f"{action.name} needs {p.name} as a {p.kind}"
                break
            written.append(text)
        else:
            return f"{action.name}({', '.join(written)})", None
    return None, problem


def _done(args: dict[str, Any]) -> tuple[str | None, str | None]:
    success, text, confidence = (args.get(p.name) for p in DONE_PARAMS)
    if not isinstance(success, bool):
        return None, "done needs success: true or false"
    written = ["true" if success else "false"]
    if text is not None:
        written.append(quote_text(str(text)))
    if confidence is not None:
        if isinstance(confidence, bool) or not isinstance(confidence, int | float):
            return None, "done's confidence is a number from 0 to 1"
        written.append(f"confidence={float(confidence):g}")
    return f"done({', '.join(written)})", None


def _written(param: Param, value: Any) -> str | None:
    """`value` as the text call writes it, or None when it is no `param.kind`."""
    if param.kind == "string":
        return quote_text(value) if isinstance(value, str) else None
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return str(int(value)) if float(value).is_integer() else f"{float(value):g}"
