"""Errors about task DSL source, printed compiler-style with the offending line and a caret."""

from __future__ import annotations

import unicodedata
from typing import Any

from webfactory_env.core.errors import WebfactoryError
from webfactory_env.dsl.ast import Span

_TAB_SIZE = 4
# Excerpts of very long lines (minified or generated files) are cut to a window around the caret.
_MAX_EXCERPT = 120


class DslError(WebfactoryError):
    """A mistake in a task file, located by `span` in `source`.

    `str(err)` reads `file:line:col: message`, the source line, a caret line, then `hint: ...`
    when there is a hint. The compiler subclasses this, so keep the constructor stable.
    """

    def __init__(
        self,
        message: str,
        *,
        filename: str,
        source: str,
        span: Span,
        hint: str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.filename = filename
        self.source = source
        self.span = span
        self.hint = hint
        self.line = span.line
        self.column = span.column

    def __str__(self) -> str:
        location = self.filename
        if self.span.line >= 1:
            location += f":{self.span.line}:{max(self.span.column, 1)}"
        lines = [f"{location}: {self.message}"]
        lines.extend(_excerpt(self.source, self.span))
        if self.hint:
            lines.append(f"hint: {self.hint}")
        return "\n".join(lines)

    def __reduce__(self) -> tuple[Any, ...]:
        # Exception's default pickling replays `args`, which breaks keyword-only constructors;
        # errors cross process boundaries in vectorised environments.
        return (
            _rebuild,
            (type(self), self.message, self.filename, self.source, self.span, self.hint),
            self.__dict__,
        )


class DslSyntaxError(DslError):
    """The text is not a well-formed task file (the only error parsing a string can raise)."""


def _rebuild(
    cls: type[DslError], message: str, filename: str, source: str, span: Span, hint: str | None
) -> DslError:
    return cls(message, filename=filename, source=source, span=span, hint=hint)


def _excerpt(source: str, span: Span) -> list[str]:
    """The source line of `span` and a caret line under it; empty when the span is unknown."""
    if span.line < 1:
        return []
    # Lark counts lines by "\n" only, so split the same way (not str.splitlines).
    source_lines = source.split("\n")
    text = source_lines[span.line - 1] if span.line <= len(source_lines) else ""
    text = text.rstrip("\r")
    start = max(span.column, 1) - 1
    if span.end_line == span.line and span.end_column > span.column:
        stop = max(span.end_column - 1, start + 1)
    else:
        stop = start + 1

    prefix = suffix = ""
    if len(text) > _MAX_EXCERPT:
        first = max(0, min(start - _MAX_EXCERPT // 2, len(text) - _MAX_EXCERPT))
        prefix = "…" if first > 0 else ""
        suffix = "…" if first + _MAX_EXCERPT < len(text) else ""
        text = text[first : first + _MAX_EXCERPT]
        start, stop = start - first, stop - first

    shown = [prefix]
    offsets: list[int] = []  # display column of each character of `text`, then of its end
    width = len(prefix)
    for char in text:
        offsets.append(width)
        cell = _display(char, width)
        shown.append(cell)
        width += _width(char, cell)
    offsets.append(width)
    shown.append(suffix)

    # A span may start past the end of the line (end of file, a missing ';'): pad with spaces.
    if start >= len(text):
        caret_at, caret_len = width + (start - len(text)), 1
    else:
        caret_at = offsets[start]
        caret_len = max(offsets[min(stop, len(text))] - caret_at, 1)
    return ["    " + "".join(shown), "    " + " " * caret_at + "^" + "~" * (caret_len - 1)]


def _display(char: str, width: int) -> str:
    """How one source character is shown: tabs expanded, invisible characters made visible."""
    if char == "\t":
        return " " * (_TAB_SIZE - width % _TAB_SIZE)
    if unicodedata.category(char) in {"Cc", "Cf", "Cs", "Zl", "Zp", "Co", "Cn"}:
        return "\N{REPLACEMENT CHARACTER}"
    return char


def _width(char: str, cell: str) -> int:
    if cell != char:
        return len(cell)
    # Wide (CJK, emoji) characters take two terminal cells; keep the caret under the right one.
    return 2 if unicodedata.east_asian_width(char) in {"W", "F"} else 1
