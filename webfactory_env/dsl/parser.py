"""Task DSL text to the typed AST, with compiler-style syntax errors (grammar: dsl/grammar.lark)."""

from __future__ import annotations

import bisect
import codecs
import contextlib
import errno
import math
import os
import re
import unicodedata
from collections.abc import Iterable, Sequence
from functools import cache
from pathlib import Path

from lark import Lark, Token, Tree
from lark.exceptions import (
    UnexpectedCharacters,
    UnexpectedEOF,
    UnexpectedInput,
    UnexpectedToken,
)

from webfactory_env.core.errors import did_you_mean
from webfactory_env.core.resources import read_text
from webfactory_env.dsl.ast import (
    NO_SPAN,
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

KEYWORDS: frozenset[str] = frozenset(
    {
        "task", "goto", "click", "fill", "with", "select", "option", "submit", "wait", "assert",
        "if", "else", "for", "in", "true", "false", "and", "or", "not", "State",
        "answer", "infeasible", "when", "contains", "allow",
    }
)  # fmt: skip
STATEMENTS: tuple[str, ...] = (
    "goto", "click", "fill", "select", "submit", "wait", "assert", "if", "for", "answer",
    "infeasible", "allow",
)  # fmt: skip
OPERATORS: tuple[str, ...] = ("=", "~=", ">", "<", "contains")

# Lark tree levels. The LALR parser itself is iterative, but building and printing the AST
# recurse; this keeps every such walk far below Python's recursion limit.
MAX_NESTING = 200
# Integers must survive a trip through JSON and JavaScript (the sites run in Chromium).
MAX_SAFE_INT = 2**53 - 1

_KEYWORD_TERMINALS = {"_" + kw.upper(): kw for kw in KEYWORDS if kw != "contains"}
_STATEMENT_TERMINALS = frozenset("_" + kw.upper() for kw in STATEMENTS)
_RELOP_TERMINALS = frozenset({"EQ", "MATCH", "GT", "LT", "CONTAINS"})
_VALUE_TERMINALS = frozenset({"STRING", "NUMBER", "NAME", "_TRUE", "_FALSE"})
_STATE_TERMINALS = frozenset({"_STATE", "_NOT", "_LPAR"})
_PUNCTUATION = {
    "_LBRACE": "{", "_RBRACE": "}", "_LPAR": "(", "_RPAR": ")", "_COMMA": ",", "_SEMI": ";",
    "_COLON": ":", "_DOT": ".", "EQ": "=", "MATCH": "~=", "GT": ">", "LT": "<",
    "_LBRACK": "[", "_RBRACK": "]", "CONTAINS": "contains", "STAR": "*",
}  # fmt: skip
# Order in which expected tokens are listed: punctuation first, then words.
_ORDER = [
    "_SEMI", "_COMMA", "_RPAR", "_LPAR", "_RBRACE", "_LBRACE", "_DOT", "_COLON",
    "_LBRACK", "_RBRACK", "EQ", "MATCH", "GT", "LT", "CONTAINS", "STAR", "STRING", "NUMBER",
    "NAME",
    *sorted(_KEYWORD_TERMINALS), "$END",
]  # fmt: skip
_STATEMENT_HINT = "statements are " + ", ".join(STATEMENTS)
_RESERVED_HINT = "reserved words: " + ", ".join(sorted(KEYWORDS, key=str.lower))
_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}
_ESCAPE_HINT = r"valid escapes are \" \\ \/ \b \f \n \r \t and \uXXXX"
# What the lexer skips between tokens; mirrors WS / LINE_COMMENT / BLOCK_COMMENT in the grammar.
_GAP_ITEM = re.compile(r"[ \t\f\v\r\n]+|//[^\n]*|/\*[\s\S]*?\*/")


@cache
def _lark() -> Lark:
    # Built once per process (~0.1 s); a typical task file then parses in about a millisecond.
    return Lark(
        read_text("dsl", "grammar.lark"),
        parser="lalr",
        lexer="basic",
        propagate_positions=True,
        maybe_placeholders=True,
    )


def parse_task_source(source: str, filename: str = "<task>") -> TaskFile:
    """Parse DSL text into a `TaskFile`; any mistake in the text raises `DslSyntaxError`."""
    if not isinstance(source, str):
        raise TypeError(f"task source must be str, not {type(source).__name__}")
    try:
        tree = _lark().parse(source)
    except UnexpectedInput as exc:
        # `from None`: the lark exception is an implementation detail, not something to debug.
        raise _Diagnoser(source, filename).explain(exc) from None
    builder = _Builder(source, filename)
    builder.check_nesting(tree)
    return builder.task_file(tree)


def parse_task_file(path: str | os.PathLike[str]) -> TaskFile:
    """Read a UTF-8 task file and parse it; the filename in errors is `path` as given."""
    file = Path(path)
    try:
        data = file.read_bytes()
    except FileNotFoundError:
        raise FileNotFoundError(
            errno.ENOENT,
            f"task file {str(file)!r} does not exist (resolved to {file.resolve()})",
            str(file),
        ) from None
    # Editors on Windows may add a byte-order mark; it is not part of the text.
    data = data.removeprefix(codecs.BOM_UTF8)
    try:
        source = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        text = data.decode("utf-8", errors="replace")
        before = data[: exc.start].decode("utf-8", errors="replace")
        line = before.count("\n") + 1
        column = len(before) - (before.rfind("\n") + 1) + 1
        raise DslSyntaxError(
            f"file is not valid UTF-8 (byte 0x{data[exc.start]:02x})",
            filename=os.fspath(path),
            source=text,
            span=Span(line, column, line, column + 1),
            hint="save the file as UTF-8",
        ) from None
    return parse_task_source(source, os.fspath(path))


# ---- positions -----------------------------------------------------------------------------


def _span(item: Tree | Token) -> Span:
    if isinstance(item, Token):
        return Span(item.line or 0, item.column or 0, item.end_line or 0, item.end_column or 0)
    meta = item.meta
    if meta.empty:
        return NO_SPAN
    return Span(meta.line, meta.column, meta.end_line, meta.end_column)


def _after(token: Token) -> Span:
    """The one-character span just past `token`: where a missing ';' or '}' belongs."""
    line, column = token.end_line or 1, token.end_column or 1
    return Span(line, column, line, column + 1)


# ---- tree to AST ---------------------------------------------------------------------------


class _Builder:
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
                    _span(node),
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
                    _span(child.children[0]),
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
                _span(name_token),
                hint='add at least one statement, e.g. goto route("/");',
            )
        steps = self.steps(rest)
        return TaskDef(str(name_token), params, steps, doc, _span(tree))

    def params(self, tree: Tree) -> tuple[Param, ...]:
        params: list[Param] = []
        for child in tree.children:
            if child is None:
                continue
            name, type_name, _eq, default = child.children
            if any(p.name == name for p in params):
                raise self.error(f"duplicate parameter {str(name)!r}", _span(name))
            params.append(
                Param(
                    str(name),
                    None if type_name is None else str(type_name),
                    None if default is None else self.value(default),
                    _span(child),
                )
            )
        return tuple(params)

    def steps(self, trees: Iterable[Tree]) -> tuple[Step, ...]:
        return tuple(self.step(tree) for tree in trees)

    def block(self, tree: Tree, what: str) -> tuple[Step, ...]:
        if not tree.children:
            raise self.error(
                f"the {what} is empty", _span(tree), hint="a block needs at least one statement"
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
        span = _span(tree)
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
            self.state(condition), self.block(then_block, "'if' block"), otherwise, _span(tree)
        )

    def for_stmt(self, tree: Tree) -> For:
        var, query, body = tree.children
        if str(var)[0].isupper():
            raise self.error(
                f"loop variable {str(var)!r} must not start with an uppercase letter",
                _span(var),
                hint="capitalized names are element kinds; use e.g. 'item'",
            )
        target = self.target(query)
        if isinstance(target, VarRef):
            raise self.error(
                f"'for ... in' needs a query such as Item(type=\"product\"), not {target.name!r}",
                target.span,
            )
        return For(str(var), target, self.block(body, "'for' body"), _span(tree))

    # -- targets ---------------------------------------------------------------------------

    def target(self, tree: Tree) -> TargetExpr:
        name = tree.children[0]
        if tree.data == "var_ref":
            if str(name)[0].isupper():
                raise self.error(
                    f"target {str(name)!r} needs predicates",
                    _span(name),
                    hint=f'write e.g. {name!s}(name="...") (a bare name is a loop variable)',
                )
            return VarRef(str(name), _span(tree))
        if not str(name)[0].isupper():
            suggestion = str(name)[0].upper() + str(name)[1:]
            raise self.error(
                f"target kind {str(name)!r} must start with an uppercase letter",
                _span(name),
                hint=f"did you mean {suggestion!r}?" if suggestion != name else None,
            )
        preds = tuple(self.attr_pred(c) for c in tree.children[1:] if c is not None)
        if not preds:
            raise self.error(
                f"target '{name!s}()' needs at least one predicate",
                _span(tree),
                hint=f'write e.g. {name!s}(name="...")',
            )
        return Target(str(name), preds, _span(tree))

    def attr_pred(self, tree: Tree) -> AttrPred:
        attr, op, value = tree.children
        return AttrPred(str(attr), str(op), self.value(value), _span(tree))

    # -- state expressions -----------------------------------------------------------------

    def state(self, tree: Tree) -> StateExpr:
        kind = tree.data
        if kind == "state_or":
            return StateOr(tuple(self.state(c) for c in tree.children), _span(tree))
        if kind == "state_and":
            return StateAnd(tuple(self.state(c) for c in tree.children), _span(tree))
        if kind == "state_not":
            return StateNot(self.state(tree.children[0]), _span(tree))
        if kind == "state_call":
            conds = tuple(self.state_cond(c) for c in tree.children if c is not None)
            if not conds:
                raise self.error(
                    "State() needs at least one condition",
                    _span(tree),
                    hint='write e.g. State(order.status = "placed")',
                )
            return StateCall(conds, _span(tree))
        raise AssertionError(f"grammar and parser disagree: unknown state {kind!r}")

    def state_cond(self, tree: Tree) -> StateCond:
        path, op, value = tree.children
        return StateCond(self.path(path), str(op), self.value(value), _span(tree))

    def path(self, tree: Tree) -> tuple[PathPart, ...]:
        """Names, and `[value]` keys naming one entity of a table."""
        return tuple(
            str(c) if isinstance(c, Token) else PathKey(self.value(c), _span(c))
            for c in tree.children
        )

    def frame_path(self, tree: Tree) -> FramePath:
        """An `allow` path: names, `*` for any key, and `[value]` keys."""
        parts = tuple(
            str(c) if isinstance(c, Token) else PathKey(self.value(c), _span(c))
            for c in tree.children
        )
        return FramePath(parts, _span(tree))

    # -- values ----------------------------------------------------------------------------

    def value(self, tree: Tree) -> Value:
        kind = tree.data
        span = _span(tree)
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
        span = _span(token)
        if any(c in text for c in ".eE"):
            value: int | float = float(text)
            if not math.isfinite(value):
                raise self.error(f"number {_shorten(text)} is out of range", span)
            return NumberLit(value, span)
        # Check the length first: int() refuses (ValueError) strings of over 4300 digits.
        digits = text.lstrip("-").lstrip("0")
        if len(digits) > 16 or abs(int(text)) > MAX_SAFE_INT:
            raise self.error(
                f"integer {_shorten(text)} is out of range",
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
        return StringLit("".join(out), _span(token))

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


def _shorten(text: str, limit: int = 24) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


# ---- lark errors to human messages ---------------------------------------------------------


class _Diagnoser:
    """Explains a lark parse failure in terms of the task language."""

    def __init__(self, source: str, filename: str) -> None:
        self.source = source
        self.filename = filename

    def error(self, message: str, span: Span, hint: str | None = None) -> DslSyntaxError:
        return DslSyntaxError(
            message, filename=self.filename, source=self.source, span=span, hint=hint
        )

    def explain(self, exc: UnexpectedInput) -> DslSyntaxError:
        if isinstance(exc, UnexpectedCharacters):
            return self.bad_character(int(exc.pos_in_stream or 0), exc.line, exc.column)
        if isinstance(exc, UnexpectedToken):
            expected = set(exc.expected)
            # `accepts` replays the parser, so it drops lookaheads LALR merged in; if the replay
            # fails, the plain `expected` set still gives a usable message.
            with contextlib.suppress(Exception):
                expected = set(exc.accepts or expected)
            return self.bad_token(exc.token, expected)
        if isinstance(exc, UnexpectedEOF):
            return self.bad_token(Token("$END", ""), set(exc.expected))
        return self.error("syntax error", Span(1, 1, 1, 2))

    # -- characters the lexer cannot start a token with ----------------------------------------

    def bad_character(self, pos: int, line: int, column: int) -> DslSyntaxError:
        source = self.source
        char = source[pos]
        rest_of_line = source.find("\n", pos)
        line_end = len(source) if rest_of_line < 0 else rest_of_line

        def span(length: int) -> Span:
            return Span(line, column, line, column + max(length, 1))

        if char == '"':
            return self.error(
                "unterminated string",
                span(len(source[pos:line_end].rstrip("\r"))),
                hint='close it with " on the same line; write a line break as \\n',
            )
        if source.startswith("/*", pos):
            return self.error("unterminated block comment", span(2), hint="close it with */")
        two = source[pos : pos + 2]
        if two in ("!=", "==", ">=", "<=", "=>", "=<"):
            return self.error(f"{two!r} is not an operator", span(2), hint=_OPERATOR_HINT)
        if two in ("&&", "||") or char == "!":
            word = {"&&": "and", "||": "or"}.get(two, "not")
            length = 2 if two in ("&&", "||") else 1
            return self.error(
                f"{source[pos : pos + length]!r} is not an operator; write {word!r}", span(length)
            )
        if char == "'":
            return self.error(
                "strings use double quotes", span(1), hint="write \"text\", not 'text'"
            )
        if char == "-":
            return self.error(
                "'-' must start a number", span(1), hint="write negative numbers like -1 or -0.5"
            )
        return self.error(f"unexpected character {_describe_char(char)}", span(1))

    # -- tokens the parser did not expect ------------------------------------------------------

    def bad_token(self, token: Token, expected: set[str]) -> DslSyntaxError:
        end_of_file = token.type == "$END"
        before = self.tokens_before(None if end_of_file else token.start_pos)
        context = _Context(before)
        previous = before[-1] if before else None
        found = _describe_token(token)
        if (
            not end_of_file
            and previous is not None
            and (token.line or 0) > (previous.end_line or 0)
        ):
            found += f" on line {token.line}"
        at_token = _span(token)
        after_previous = _after(previous) if previous is not None else Span(1, 1, 1, 2)
        suggestion = ""
        if token.type == "NAME":
            words = [_KEYWORD_TERMINALS[t] for t in expected if t in _KEYWORD_TERMINALS]
            close = did_you_mean(str(token), words)
            suggestion = f".{close}" if close else ""

        if end_of_file:
            return self.end_of_file(context, expected, after_previous, found)

        if token.type == "_TASK" and context.braces and context.statement is None:
            desc, opener = context.braces[-1]
            return self.error(
                f"missing '}}' to close {desc} opened at {_at(opener)}, found {found}",
                after_previous,
            )

        if token.type in _KEYWORD_TERMINALS and "NAME" in expected and token.type not in expected:
            word = _KEYWORD_TERMINALS[token.type]
            if previous is not None and previous.type == "_ALLOW":
                return self.error(
                    f"'allow' takes state paths, found {found}",
                    at_token,
                    hint="write e.g. allow orders, cards.*.labels;",
                )
            if previous is not None and previous.type == "_FOR":
                return self.error(
                    f"'for' needs a loop variable name before {found}",
                    at_token,
                    hint='write e.g. for item in Item(type="product") { ... }',
                )
            return self.error(
                f"{word!r} is a reserved word and cannot be used as a name",
                at_token,
                hint=_RESERVED_HINT,
            )

        if expected & _STATEMENT_TERMINALS and expected <= _STATEMENT_TERMINALS | {"_RBRACE"}:
            if token.type == "NAME":
                return self.error(
                    f"unknown statement {str(token)!r}.{did_you_mean(str(token), STATEMENTS)}",
                    at_token,
                    hint=_STATEMENT_HINT,
                )
            if token.type == "_ELSE":
                return self.error("'else' must directly follow the '}' of an 'if' block", at_token)
            return self.error(
                f"expected a statement or '}}', found {found}", at_token, hint=_STATEMENT_HINT
            )

        for keyword, statement, usage in (
            ("_OPTION", "select", "'option <value>'"),
            ("_WITH", "fill", "'with <value>'"),
            ("_IN", "for", "'in <query>'"),
        ):
            if keyword in expected and token.type != keyword:
                return self.error(
                    f"{statement!r} needs {usage} after its "
                    f"{'variable' if statement == 'for' else 'target'}, found {found}" + suggestion,
                    at_token,
                )

        if "_SEMI" in expected and token.type != "_SEMI":
            what = f" to end the {context.statement!r} statement" if context.statement else ""
            return self.error(f"expected ';'{what}, found {found}{suggestion}", after_previous)

        if (
            token.type == "EQ"
            and previous is not None
            and previous.type in ("EQ", "GT", "LT")
            and previous.end_pos == token.start_pos
        ):
            operator = f"{previous!s}="
            return self.error(
                f"{operator!r} is not an operator",
                Span(previous.line or 1, previous.column or 1, token.end_line or 1,
                     token.end_column or 1),
                hint=_OPERATOR_HINT,
            )  # fmt: skip

        if expected == {"NAME"} and previous is not None and previous.type in _NAME_ROLES:
            return self.error(f"expected {_NAME_ROLES[previous.type]}, found {found}", at_token)

        hint = None
        if token.type == "_RBRACE" and not context.braces:
            hint = "this '}' has no matching '{'"
        elif token.type in _STATEMENT_TERMINALS and not context.braces:
            hint = "statements go inside a task: task name { ... }"
        elif expected == {"_COMMA", "_RPAR"} and context.parens:
            desc, opener = context.parens[-1]
            hint = f"{desc} opened at {_at(opener)} is not closed with ')'"
        return self.error(
            f"expected {_describe_expected(expected)}, found {found}{suggestion}",
            at_token,
            hint=hint,
        )

    def end_of_file(
        self, context: _Context, expected: set[str], at: Span, found: str
    ) -> DslSyntaxError:
        if not context.tokens:
            return self.error(
                "empty task file: expected 'task'",
                Span(1, 1, 1, 2),
                hint='a task file holds definitions like: task name { goto route("/"); }',
            )
        openers = [*context.braces[-1:], *context.parens[-1:]]
        if openers:
            desc, opener = max(openers, key=lambda o: o[1].start_pos or 0)
            closer = ")" if opener.type == "_LPAR" else "}"
            return self.error(f"missing {closer!r} to close {desc} opened at {_at(opener)}", at)
        if "_SEMI" in expected:
            what = f" to end the {context.statement!r} statement" if context.statement else ""
            return self.error(f"expected ';'{what}, found {found}", at)
        last = context.tokens[-1].type
        if expected == {"NAME"} and last in _NAME_ROLES:
            return self.error(f"expected {_NAME_ROLES[last]}, found {found}", at)
        return self.error(f"expected {_describe_expected(expected)}, found {found}", at)

    def tokens_before(self, position: int | None) -> list[Token]:
        """The tokens the parser accepted before failing at `position` (None: end of file)."""
        tokens: list[Token] = []
        try:
            # Replays the parse with the parser's own lexer (Lark.lex would rebuild one per call).
            for token in _lark().parse_interactive(self.source).iter_parse():
                if token.type == "$END" or (
                    position is not None and (token.start_pos or 0) >= position
                ):
                    break
                tokens.append(token)
        except UnexpectedInput:
            pass  # The replay fails where the parse did; the tokens before are all we need.
        return tokens


# What a lone expected NAME means, by the token before it.
_NAME_ROLES = {
    "_TASK": "a task name",
    "_FOR": "a loop variable name",
    "_DOT": "a name after '.'",
    "_ALLOW": "a state path such as orders or cards.*.labels",
    **dict.fromkeys(
        ("_CLICK", "_FILL", "_SELECT", "_SUBMIT", "_IN"), 'a target such as Button(role="submit")'
    ),
}
_OPERATOR_HINT = (
    "the operators are =, ~= (contains), > and <; negate a whole condition with not State(...)"
)


class _Context:
    """What is open where the parser failed: blocks, parentheses, the current statement."""

    def __init__(self, tokens: Sequence[Token]) -> None:
        self.tokens = tokens
        self.braces: list[tuple[str, Token]] = []
        self.parens: list[tuple[str, Token]] = []
        self.statement: str | None = None
        pending: tuple[str, Token] | None = None
        previous: Token | None = None
        for index, token in enumerate(tokens):
            kind = token.type
            if kind == "_TASK":
                name = tokens[index + 1] if index + 1 < len(tokens) else None
                named = name is not None and name.type == "NAME"
                label = f"task {str(name)!r}" if named else "task"
                pending = (label, token)
            elif kind in ("_IF", "_ELSE", "_FOR"):
                word = _KEYWORD_TERMINALS[kind]
                pending = (f"'{word}' {'body' if word == 'for' else 'block'}", token)
            if kind in _STATEMENT_TERMINALS:
                self.statement = _KEYWORD_TERMINALS[kind]
            elif kind == "_LBRACE":
                self.braces.append(pending or ("block", token))
                pending = None
                self.statement = None
            elif kind == "_RBRACE":
                if self.braces:
                    self.braces.pop()
                self.statement = None
            elif kind == "_SEMI":
                self.statement = None
            elif kind == "_LPAR":
                named = previous is not None and previous.type in ("NAME", "_STATE")
                opener = f"'{previous!s}('" if named else "'('"
                self.parens.append((opener, token))
            elif kind == "_RPAR" and self.parens:
                self.parens.pop()
            previous = token


def _at(token: Token) -> str:
    return f"{token.line}:{token.column}"


def _describe_token(token: Token) -> str:
    if token.type == "$END":
        return "end of file"
    # Tokens can hold control characters (inside strings); never echo them to a terminal raw.
    text = "".join(c if c.isprintable() else f"\\u{ord(c):04x}" for c in _shorten(str(token)))
    return f"'{text}'"


def _describe_char(char: str) -> str:
    if char.isprintable() and not char.isspace():
        return f"'{char}'"
    name = unicodedata.name(char, "")
    return f"U+{ord(char):04X}" + (f" ({name})" if name else "")


def _describe_expected(expected: set[str]) -> str:
    """`{'_COMMA', '_RPAR'}` -> "',' or ')'", grouping value, operator and statement starts."""
    remaining = set(expected)
    groups: list[str] = []
    for members, label in (
        (_STATEMENT_TERMINALS, "a statement"),
        (_VALUE_TERMINALS, "a value"),
        (_STATE_TERMINALS, 'a state expression such as State(order.status = "placed")'),
        (_RELOP_TERMINALS, "an operator (=, ~=, >, <)"),
    ):
        if members <= remaining:
            remaining -= members
            groups.append(label)
    names = [
        f"'{_PUNCTUATION[t]}'" if t in _PUNCTUATION
        else f"'{_KEYWORD_TERMINALS[t]}'" if t in _KEYWORD_TERMINALS
        else {"STRING": "a string", "NUMBER": "a number", "NAME": "a name"}.get(t, "end of file")
        for t in sorted(remaining, key=lambda t: _ORDER.index(t) if t in _ORDER else len(_ORDER))
    ]  # fmt: skip
    items = names + groups
    if not items:
        return "nothing more"
    if len(items) == 1:
        return items[0]
    return ", ".join(items[:-1]) + " or " + items[-1]
