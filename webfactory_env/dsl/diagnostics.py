"""Lark's parse errors explained in terms of the task language, with a hint where one helps."""

from __future__ import annotations

import contextlib
import unicodedata
from collections.abc import Sequence

from lark import Token
from lark.exceptions import (
    UnexpectedCharacters,
    UnexpectedEOF,
    UnexpectedInput,
    UnexpectedToken,
)

from webfactory_env.core.errors import did_you_mean
from webfactory_env.dsl.ast import Span
from webfactory_env.dsl.errors import DslSyntaxError
from webfactory_env.dsl.syntax import (
    KEYWORD_TERMINALS,
    KEYWORDS,
    STATEMENT_TERMINALS,
    STATEMENTS,
    lark_parser,
    shorten,
    span_after,
    span_of,
)

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
    *sorted(KEYWORD_TERMINALS), "$END",
]  # fmt: skip
_STATEMENT_HINT = "statements are " + ", ".join(STATEMENTS)
_RESERVED_HINT = "reserved words: " + ", ".join(sorted(KEYWORDS, key=str.lower))


class Diagnoser:
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
        at_token = span_of(token)
        after_previous = span_after(previous) if previous is not None else Span(1, 1, 1, 2)
        suggestion = ""
        if token.type == "NAME":
            words = [KEYWORD_TERMINALS[t] for t in expected if t in KEYWORD_TERMINALS]
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

        if token.type in KEYWORD_TERMINALS and "NAME" in expected and token.type not in expected:
            word = KEYWORD_TERMINALS[token.type]
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

        if expected & STATEMENT_TERMINALS and expected <= STATEMENT_TERMINALS | {"_RBRACE"}:
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
        elif token.type in STATEMENT_TERMINALS and not context.braces:
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
            for token in lark_parser().parse_interactive(self.source).iter_parse():
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
                word = KEYWORD_TERMINALS[kind]
                pending = (f"'{word}' {'body' if word == 'for' else 'block'}", token)
            if kind in STATEMENT_TERMINALS:
                self.statement = KEYWORD_TERMINALS[kind]
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
    text = "".join(c if c.isprintable() else f"\\u{ord(c):04x}" for c in shorten(str(token)))
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
        (STATEMENT_TERMINALS, "a statement"),
        (_VALUE_TERMINALS, "a value"),
        (_STATE_TERMINALS, 'a state expression such as State(order.status = "placed")'),
        (_RELOP_TERMINALS, "an operator (=, ~=, >, <)"),
    ):
        if members <= remaining:
            remaining -= members
            groups.append(label)
    names = [
        f"'{_PUNCTUATION[t]}'" if t in _PUNCTUATION
        else f"'{KEYWORD_TERMINALS[t]}'" if t in KEYWORD_TERMINALS
        else {"STRING": "a string", "NUMBER": "a number", "NAME": "a name"}.get(t, "end of file")
        for t in sorted(remaining, key=lambda t: _ORDER.index(t) if t in _ORDER else len(_ORDER))
    ]  # fmt: skip
    items = names + groups
    if not items:
        return "nothing more"
    if len(items) == 1:
        return items[0]
    return ", ".join(items[:-1]) + " or " + items[-1]
