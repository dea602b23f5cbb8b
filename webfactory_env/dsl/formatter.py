"""The canonical text of a task AST: what `parse_task_source` reads back to an equal tree."""

from __future__ import annotations

import math

from webfactory_env.dsl.ast import (
    Allow,
    Answer,
    Assert,
    BoolLit,
    Call,
    Click,
    Fill,
    For,
    Goto,
    Ident,
    If,
    Infeasible,
    NumberLit,
    Param,
    PathKey,
    PathPart,
    Select,
    StateAnd,
    StateCall,
    StateExpr,
    StateNot,
    StateOr,
    Step,
    StringLit,
    Submit,
    TargetExpr,
    TaskDef,
    TaskFile,
    Value,
    VarRef,
    Wait,
)

INDENT = "  "

_SHORT_ESCAPES = {
    '"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t",
}  # fmt: skip


def format_task_file(task_file: TaskFile) -> str:
    """Canonical text of `task_file`: 2-space indent, one statement per line, trailing newline.

    Comments other than each task's `doc` are not part of the AST and are not printed.
    """
    return "\n".join(format_task(task) for task in task_file.tasks)


def format_task(task: TaskDef) -> str:
    """One task, preceded by its `doc` as `// ` lines, ending in a newline."""
    lines: list[str] = []
    if task.doc is not None:
        lines.extend(f"// {line}".rstrip() for line in task.doc.split("\n"))
    params = f"({', '.join(_param(p) for p in task.params)})" if task.params else ""
    lines.append(f"task {task.name}{params} {{")
    for step in task.steps:
        lines.extend(_step(step, 1))
    lines.append("}")
    return "\n".join(lines) + "\n"


def _param(param: Param) -> str:
    text = param.name
    if param.type is not None:
        text += f": {param.type}"
    if param.default is not None:
        text += f" = {format_value(param.default)}"
    return text


def _step(step: Step, depth: int) -> list[str]:
    pad = INDENT * depth
    match step:
        case Goto(route):
            return [f"{pad}goto {format_value(route)};"]
        case Click(target):
            return [f"{pad}click {format_target(target)};"]
        case Fill(target, value):
            return [f"{pad}fill {format_target(target)} with {format_value(value)};"]
        case Select(target, value):
            return [f"{pad}select {format_target(target)} option {format_value(value)};"]
        case Submit(target):
            return [f"{pad}submit {format_target(target)};"]
        case Wait(None, None):
            return [f"{pad}wait;"]
        case Wait(None, duration) if duration is not None:
            return [f"{pad}wait {format_value(duration)};"]
        case Wait(condition, None) if condition is not None:
            return [f"{pad}wait {format_state(condition)};"]
        case Assert(condition):
            return [f"{pad}assert {format_state(condition)};"]
        case If():
            return _if(step, depth)
        case For(var, query, body):
            return [
                f"{pad}for {var} in {format_target(query)} {{",
                *_block(body, depth + 1),
                f"{pad}}}",
            ]
        case Answer(target, attr, None) if target is not None and attr is not None:
            return [f"{pad}answer {format_target(target)}.{attr};"]
        case Answer(None, None, path) if path is not None:
            return [f"{pad}answer State({format_path(path)});"]
        case Infeasible(reason, condition):
            return [f"{pad}infeasible {format_value(reason)} when {format_state(condition)};"]
        case Allow(paths):
            return [f"{pad}allow {', '.join(format_path(p.parts) for p in paths)};"]
    raise ValueError(f"cannot format step {step!r}")


def _if(step: If, depth: int) -> list[str]:
    pad = INDENT * depth
    lines = [f"{pad}if {format_state(step.condition)} {{", *_block(step.then, depth + 1)]
    otherwise = step.otherwise
    if len(otherwise) == 1 and isinstance(otherwise[0], If):
        # `else { if ... }` with nothing else inside is printed as the `else if` it means.
        nested = _if(otherwise[0], depth)
        lines.append(f"{pad}}} else {nested[0].lstrip()}")
        lines.extend(nested[1:])
        return lines
    if otherwise:
        lines.append(f"{pad}}} else {{")
        lines.extend(_block(otherwise, depth + 1))
    lines.append(f"{pad}}}")
    return lines


def _block(steps: tuple[Step, ...], depth: int) -> list[str]:
    return [line for step in steps for line in _step(step, depth)]


def format_target(target: TargetExpr) -> str:
    """`Kind(attr=value, ...)` or a loop variable's name."""
    if isinstance(target, VarRef):
        return target.name
    preds = ", ".join(f"{p.attr}{p.op}{format_value(p.value)}" for p in target.preds)
    return f"{target.kind}({preds})"


def format_path(path: tuple[PathPart, ...]) -> str:
    """`a.b[key].c`."""
    out = ""
    for part in path:
        if isinstance(part, PathKey):
            out += f"[{format_value(part.value)}]"
        else:
            out += f".{part}" if out else part
    return out


def format_state(expr: StateExpr) -> str:
    """A state expression with only the parentheses its structure needs."""
    match expr:
        case StateCall(conds):
            inner = ", ".join(
                f"{format_path(c.path)} {c.op} {format_value(c.value)}" for c in conds
            )
            return f"State({inner})"
        case StateNot(item):
            return f"not {_operand(item, (StateAnd, StateOr))}"
        case StateAnd(items):
            # Nested `and`s keep their parentheses so the tree reads back with the same shape.
            return " and ".join(_operand(i, (StateAnd, StateOr)) for i in items)
        case StateOr(items):
            return " or ".join(_operand(i, (StateOr,)) for i in items)
    raise ValueError(f"cannot format state expression {expr!r}")


def _operand(expr: StateExpr, wrap: tuple[type, ...]) -> str:
    text = format_state(expr)
    return f"({text})" if isinstance(expr, wrap) else text


def format_value(value: Value) -> str:
    """A value as source text; strings are re-escaped, numbers keep int vs float."""
    match value:
        case StringLit(text):
            return format_string(text)
        case BoolLit(flag):
            return "true" if flag else "false"
        case NumberLit(number) if isinstance(number, int) and not isinstance(number, bool):
            return str(number)
        case NumberLit(number) if isinstance(number, float) and math.isfinite(number):
            return repr(number)  # shortest text that reads back as the same float
        case Ident(name):
            return name
        case Call(name, args):
            return f"{name}({', '.join(format_value(a) for a in args)})"
    raise ValueError(f"cannot format value {value!r}")


def format_string(text: str) -> str:
    """Double-quoted, escaping only quotes, backslashes and invisible characters."""
    out = ['"']
    for char in text:
        if char in _SHORT_ESCAPES:
            out.append(_SHORT_ESCAPES[char])
        elif _needs_escape(char):
            out.append(f"\\u{ord(char):04x}")
        else:
            out.append(char)
    out.append('"')
    return "".join(out)


def _needs_escape(char: str) -> bool:
    code = ord(char)
    # C0/C1 controls, line/paragraph separators and lone surrogates are invisible or unencodable.
    return code < 0x20 or 0x7F <= code < 0xA0 or code in (0x2028, 0x2029) or 0xD800 <= code < 0xE000
