"""Compile errors, located at the DSL source the compiler was walking."""

from __future__ import annotations

from dataclasses import dataclass

from webfactory_env.dsl import ast
from webfactory_env.dsl.errors import DslError


class CompileError(DslError):
    """The task cannot be compiled against this site; the message says where and why."""


@dataclass(frozen=True)
class Located:
    """A node-like position for errors about a compiled subgoal."""

    line: int
    column: int

    @property
    def span(self) -> ast.Span:
        return ast.Span(self.line, self.column, self.line, self.column + 1)
