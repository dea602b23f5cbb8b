"""Lark's parse tree to the typed AST, rejecting what the grammar lets through."""

from __future__ import annotations

import bisect
import math
import re
from collections.abc import Iterable

from lark import Token, Tree

from webfactory_env.dsl.ast import (
    Allow,
    Answer,
    Assert,
    AttrPred,
    BoolLit,
    Call,
    Click,
    Fill,
    For,
    FramePath,
    Goto,
    Ident,
    If,
    Infeasible,
    NumberLit,
    Param,
    PathKey,
    PathPart,
    Select,
    Span,
    StateAnd,
    StateCall,
    StateCond,
    StateExpr,
    StateNot,
    StateOr,
    Step,
    StringLit,
    Submit,
    Target,
    TargetExpr,
    TaskDef,
    TaskFile,
    Value,
    VarRef,
    Wait,
)
from webfactory_env.dsl.errors import DslSyntaxError
from webfactory_env.dsl.syntax import MAX_NESTING, MAX_SAFE_INT, shorten, span_of

_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}
_ESCAPE_HINT = r"valid escapes are \" \\ \/ \b \f \n \r \t and \uXXXX"
# What the lexer skips between tokens; mirrors WS / LINE_COMMENT / BLOCK_COMMENT in the grammar.
_GAP_ITEM = re.compile(r"[ \t\f\v\r\n]+|//[^\n]*|/\*[\s\S]*?\*/")


class AstBuilder:
    """Turns lark's parse tree into AST nodes, rejecting what the grammar lets through."""

    def __init__(self, source: str, filename: str) -> None:
        self.source = source
        self.filename = filename
        self._line_starts = [0] + [m.end() for m in re.finditer("\n", source)]

    def error(self, message: str, span: Span, hint: str | None = None) -> DslSyntaxError:
        return DslSyntaxError(
            message, filename=self.filename, source=self.source, span=span, hint=hint
        )

    def check_nesting(self, tree: Tree) -> None:
        # Iterative on purpose: a recursive walk is exactly what deep input would break.
        stack = [(tree, 1)]
        while stack:
            node, depth = stack.pop()
            if depth > MAX_NESTING:
                raise self.error(
                    f"nesting is too deep (more than {MAX_NESTING} levels)",
                    span_of(node),
                    hint="split the task or simplify the expression",
                )
            stack.extend((c, depth + 1) for c in node.children if isinstance(c, Tree))

    def task_file(self, tree: Tree) -> TaskFile:
        tasks: list[TaskDef] = []
        seen: dict[str, TaskDef] = {}
        previous_end = 0
        for child in tree.children:
            task = self.task(child, self.doc_comment(previous_end, child.meta.start_pos))
            previous_end = child.meta.end_pos
            if task.name in seen:
                first = seen[task.name].span
                raise self.error(
                    f"duplicate task {task.name!r} (first defined at {first.line}:{first.column})",
                    span_of(child.children[0]),
                    hint="task names must be unique within a file",
                )
            seen[task.name] = task
            tasks.append(task)
        last = len(self._line_starts)
        end_column = len(self.source) - self._line_starts[-1] + 1
        return TaskFile(self.filename, self.source, tuple(tasks), Span(1, 1, last, end_column))

    def doc_comment(self, gap_start: int, task_start: int) -> str | None:
        """The `//` lines directly above a task, each alone on its line, or None."""
        items = [
            m for m in _GAP_ITEM.finditer(self.source, gap_start, task_start) if m.end() > m.start()
        ]
        expected_line = self._line_of(task_start) - 1
        lines: list[str] = []
        for item in reversed(items):
            text = item.group()
            if not text.strip():
                continue
            start = item.start()
            line = self._line_of(start)
            line_start = self._line_starts[line - 1]
            own_line = not self.source[line_start:start].strip()
            if not text.startswith("//") or line != expected_line or not own_line:
                break
            body = text[2:]
            lines.append((body[1:] if body.startswith(" ") else body).rstrip())
            expected_line -= 1
        return "\n".join(reversed(lines)) if lines else None

    def _line_of(self, offset: int) -> int:
        return bisect.bisect_right(self._line_starts, offset)

    # -- tasks -----------------------------------------------------------------------------

    def task(self, tree: Tree, doc: str | None) -> TaskDef:
        name_token, *rest = tree.children
        params: tuple[Param, ...] = ()
        if rest and isinstance(rest[0], Tree) and rest[0].data == "params":
            params = self.params(rest.pop(0))
        if not rest:
            raise self.error(
                f"task {str(name_token)!r} has no steps",
                span_of(name_token),
                hint='add at least one statement, e.g. goto route("/");',
            )
        steps = self.steps(rest)
        return TaskDef(str(name_token), params, steps, doc, span_of(tree))

    def params(self, tree: Tree) -> tuple[Param, ...]:
        params: list[Param] = []
        for child in tree.children:
            if child is None:
                continue
            name, type_name, _eq, default = child.children
            if any(p.name == name for p in params):
                raise self.error(f"duplicate parameter {str(name)!r}", span_of(name))
            params.append(
                Param(
                    str(name),
                    None if type_name is None else str(type_name),
                    None if default is None else self.value(default),
                    span_of(child),
                )
            )
        return tuple(params)

    def steps(self, trees: Iterable[Tree]) -> tuple[Step, ...]:
        return tuple(self.step(tree) for tree in trees)

    def block(self, tree: Tree, what: str) -> tuple[Step, ...]:
        if not tree.children:
            raise self.error(
                f"the {what} is empty", span_of(tree), hint="a block needs at least one statement"
            )
        steps = self.steps(tree.children)
        for step in steps:
            if isinstance(step, Allow):
                raise self.error(
                    f"'allow' cannot be inside the {what}",
                    step.span,
                    hint="what a task may change holds for the whole task: put 'allow' "
                    "directly in the task's body",
                )
        return steps

    # -- statements ------------------------------------------------------------------------

    def step(self, tree: Tree) -> Step:
        kind = tree.data
        children = tree.children
        span = span_of(tree)
        if kind == "goto":
            return Goto(self.value(children[0]), span)
        if kind == "click":
            return Click(self.target(children[0]), span)
        if kind == "fill":
            return Fill(self.target(children[0]), self.value(children[1]), span)
        if kind == "select":
            return Select(self.target(children[0]), self.value(children[1]), span)
        if kind == "submit":
            return Submit(self.target(children[0]), span)
        if kind == "wait":
            return self.wait(children[0], span)
        if kind == "assert":
            return Assert(self.state(children[0]), span)
        if kind == "if_stmt":
            return self.if_stmt(tree)
        if kind == "for_stmt":
            return self.for_stmt(tree)
        if kind == "answer_attr":
            return Answer(self.target(children[0]), str(children[1]), None, span)
        if kind == "answer_state":
            return Answer(None, None, self.path(children[0]), span)
        if kind == "allow":
            return Allow(tuple(self.frame_path(c) for c in children), span)
        if kind == "infeasible":
            reason = children[0]
            assert isinstance(reason, Token)
            return Infeasible(self.string(reason), self.state(children[1]), span)
        raise AssertionError(f"grammar and parser disagree: unknown step {kind!r}")

    def wait(self, arg: Tree | Token | None, span: Span) -> Wait:
        if arg is None:
            return Wait(None, None, span)
        if isinstance(arg, Tree):
            return Wait(self.state(arg), None, span)
        duration = self.number(arg)
        if not isinstance(duration.value, int) or duration.value < 0:
            raise self.error(
                f"wait duration must be a whole number of milliseconds, not '{arg!s}'",
                duration.span,
                hint="write e.g. wait 500; (logical milliseconds, 0 or more)",
            )
        return Wait(None, duration, span)

    def if_stmt(self, tree: Tree) -> If:
        condition, then_block, else_part = tree.children
        otherwise: tuple[Step, ...] = ()
        if isinstance(else_part, Tree):
            if else_part.data == "if_stmt":
                otherwise = (self.if_stmt(else_part),)
            else:
                otherwise = self.block(else_part, "'else' block")
        return If(
            self.state(condition), self.block(then_block, "'if' block"), otherwise, span_of(tree)
        )

    def for_stmt(self, tree: Tree) -> For:
        var, query, body = tree.children
        if str(var)[0].isupper():
            raise self.error(
                f"loop variable {str(var)!r} must not start with an uppercase letter",
                span_of(var),
                hint="capitalized names are element kinds; use e.g. 'item'",
            )
        target = self.target(query)
        if isinstance(target, VarRef):
            raise self.error(
                f"'for ... in' needs a query such as Item(type=\"product\"), not {target.name!r}",
                target.span,
            )
        return For(str(var), target, self.block(body, "'for' body"), span_of(tree))

    # -- targets ---------------------------------------------------------------------------

    def target(self, tree: Tree) -> TargetExpr:
        name = tree.children[0]
        if tree.data == "var_ref":
            if str(name)[0].isupper():
                raise self.error(
                    f"target {str(name)!r} needs predicates",
                    span_of(name),
                    hint=f'write e.g. {name!s}(name="...") (a bare name is a loop variable)',
                )
            return VarRef(str(name), span_of(tree))
        if not str(name)[0].isupper():
            suggestion = str(name)[0].upper() + str(name)[1:]
            raise self.error(
                f"target kind {str(name)!r} must start with an uppercase letter",
                span_of(name),
                hint=f"did you mean {suggestion!r}?" if suggestion != name else None,
            )
        preds = tuple(self.attr_pred(c) for c in tree.children[1:] if c is not None)
        if not preds:
            raise self.error(
                f"target '{name!s}()' needs at least one predicate",
                span_of(tree),
                hint=f'write e.g. {name!s}(name="...")',
            )
        return Target(str(name), preds, span_of(tree))

    def attr_pred(self, tree: Tree) -> AttrPred:
        attr, op, value = tree.children
        return AttrPred(str(attr), str(op), self.value(value), span_of(tree))

    # -- state expressions -----------------------------------------------------------------

    def state(self, tree: Tree) -> StateExpr:
        kind = tree.data
        if kind == "state_or":
            return StateOr(tuple(self.state(c) for c in tree.children), span_of(tree))
        if kind == "state_and":
            return StateAnd(tuple(self.state(c) for c in tree.children), span_of(tree))
        if kind == "state_not":
            return StateNot(self.state(tree.children[0]), span_of(tree))
        if kind == "state_call":
            conds = tuple(self.state_cond(c) for c in tree.children if c is not None)
            if not conds:
                raise self.error(
                    "State() needs at least one condition",
                    span_of(tree),
                    hint='write e.g. State(order.status = "placed")',
                )
            return StateCall(conds, span_of(tree))
        raise AssertionError(f"grammar and parser disagree: unknown state {kind!r}")

    def state_cond(self, tree: Tree) -> StateCond:
        path, op, value = tree.children
        return StateCond(self.path(path), str(op), self.value(value), span_of(tree))

    def path(self, tree: Tree) -> tuple[PathPart, ...]:
        """Names, and `[value]` keys naming one entity of a table."""
        return tuple(
            str(c) if isinstance(c, Token) else PathKey(self.value(c), span_of(c))
            for c in tree.children
        )

    # -- values ----------------------------------------------------------------------------

    def frame_path(self, tree: Tree) -> FramePath:
        """An `allow` path: names, `*` for any key, and `[value]` keys."""
        parts = tuple(
            str(c) if isinstance(c, Token) else PathKey(self.value(c), span_of(c))
            for c in tree.children
        )
        return FramePath(parts, span_of(tree))

    def value(self, tree: Tree) -> Value:
        kind = tree.data
        span = span_of(tree)
        if kind in ("string", "number"):
            token = tree.children[0]
            assert isinstance(token, Token)
            return self.string(token) if kind == "string" else self.number(token)
        if kind in ("true", "false"):
            return BoolLit(kind == "true", span)
        if kind == "ident":
            return Ident(str(tree.children[0]), span)
        if kind == "call":
            name, *args = tree.children
            return Call(str(name), tuple(self.value(a) for a in args if a is not None), span)
        raise AssertionError(f"grammar and parser disagree: unknown value {kind!r}")

    def number(self, token: Token) -> NumberLit:
        text = str(token)
        span = span_of(token)
        if any(c in text for c in ".eE"):
            value: int | float = float(text)
            if not math.isfinite(value):
                raise self.error(f"number {shorten(text)} is out of range", span)
            return NumberLit(value, span)
        # Check the length first: int() refuses (ValueError) strings of over 4300 digits.
        digits = text.lstrip("-").lstrip("0")
        if len(digits) > 16 or abs(int(text)) > MAX_SAFE_INT:
            raise self.error(
                f"integer {shorten(text)} is out of range",
                span,
                hint=f"integers must lie within ±{MAX_SAFE_INT} (2**53 - 1)",
            )
        return NumberLit(int(text), span)

    def string(self, token: Token) -> StringLit:
        """Decode a JSON-style string literal, pointing at the exact bad escape if any."""
        raw = str(token)
        out: list[str] = []
        i, end = 1, len(raw) - 1
        while i < end:
            char = raw[i]
            if char != "\\":
                if char != "\t" and _is_control(char):
                    raise self.error(
                        f"control character U+{ord(char):04X} inside a string",
                        self._char_span(token, i, 1),
                        hint=f"write it as the escape \\u{ord(char):04x}",
                    )
                out.append(char)
                i += 1
                continue
            escape = raw[i + 1]
            if escape in _ESCAPES:
                out.append(_ESCAPES[escape])
                i += 2
                continue
            if escape != "u":
                raise self.error(
                    f"invalid escape '\\{escape}' in string",
                    self._char_span(token, i, 2),
                    hint=_ESCAPE_HINT,
                )
            code = self._hex4(token, raw, i)
            i += 6
            # A surrogate pair written as two escapes is one character, as in JSON.
            if 0xD800 <= code < 0xDC00 and raw.startswith("\\u", i) and i + 6 <= end:
                low = self._hex4(token, raw, i)
                if 0xDC00 <= low < 0xE000:
                    code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                    i += 6
            out.append(chr(code))
        return StringLit("".join(out), span_of(token))

    def _hex4(self, token: Token, raw: str, i: int) -> int:
        digits = raw[i + 2 : i + 6]
        if len(digits) != 4 or not all(c in "0123456789abcdefABCDEF" for c in digits):
            raise self.error(
                "invalid escape: '\\u' needs exactly four hex digits",
                self._char_span(token, i, 2 + len(digits)),
                hint="write e.g. \\u00e9 for é",
            )
        return int(digits, 16)

    @staticmethod
    def _char_span(token: Token, index: int, length: int) -> Span:
        # String tokens never span lines, so columns inside them are plain offsets.
        line, column = token.line or 1, (token.column or 1) + index
        return Span(line, column, line, column + length)


def _is_control(char: str) -> bool:
    code = ord(char)
    return code < 0x20 or 0x7F <= code < 0xA0
