"""Task DSL text to the typed AST, with compiler-style syntax errors (grammar: dsl/grammar.lark).

`syntax` holds the language's words and the lark parser, `builder` turns lark's tree into
the AST, and `diagnostics` explains what lark could not parse."""

from __future__ import annotations

import codecs
import errno
import os
from pathlib import Path

from lark.exceptions import UnexpectedInput

from webfactory_env.dsl.ast import Span, TaskFile
from webfactory_env.dsl.builder import AstBuilder
from webfactory_env.dsl.diagnostics import Diagnoser
from webfactory_env.dsl.errors import DslSyntaxError
from webfactory_env.dsl.syntax import lark_parser


def parse_task_source(source: str, filename: str = "<task>") -> TaskFile:
    """Parse DSL text into a `TaskFile`; any mistake in the text raises `DslSyntaxError`."""
    if not isinstance(source, str):
        raise TypeError(f"task source must be str, not {type(source).__name__}")
    try:
        tree = lark_parser().parse(source)
    except UnexpectedInput as exc:
        # `from None`: the lark exception is an implementation detail, not something to debug.
        raise Diagnoser(source, filename).explain(exc) from None
    builder = AstBuilder(source, filename)
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
