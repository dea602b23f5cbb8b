"""The task language's words and limits, and the lark parser built from dsl/grammar.lark."""

from __future__ import annotations

from functools import cache

from lark import Lark, Token, Tree

from webfactory_env.core.resources import read_text
from webfactory_env.dsl.ast import NO_SPAN, Span

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

# Lark terminal names of the keywords and of the statement keywords ("_GOTO": "goto").
KEYWORD_TERMINALS = {"_" + kw.upper(): kw for kw in KEYWORDS if kw != "contains"}
STATEMENT_TERMINALS = frozenset("_" + kw.upper() for kw in STATEMENTS)


@cache
def lark_parser() -> Lark:
    # Built once per process (~0.1 s); a typical task file then parses in about a millisecond.
    return Lark(
        read_text("dsl", "grammar.lark"),
        parser="lalr",
        lexer="basic",
        propagate_positions=True,
        maybe_placeholders=True,
    )


def span_of(item: Tree | Token) -> Span:
    if isinstance(item, Token):
        return Span(item.line or 0, item.column or 0, item.end_line or 0, item.end_column or 0)
    meta = item.meta
    if meta.empty:
        return NO_SPAN
    return Span(meta.line, meta.column, meta.end_line, meta.end_column)


def span_after(token: Token) -> Span:
    """The one-character span just past `token`: where a missing ';' or '}' belongs."""
    line, column = token.end_line or 1, token.end_column or 1
    return Span(line, column, line, column + 1)


def shorten(text: str, limit: int = 24) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
