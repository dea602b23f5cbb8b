"""`allow` clauses: what a task may change besides its goal (its frame), as paths checked
against the family's schema: each must name something the site keeps."""

from __future__ import annotations

from webfactory_env.core.errors import did_you_mean
from webfactory_env.dsl import ast
from webfactory_env.sitegen.persistence import path_doc, path_docs
from webfactory_env.sitegen.state import Path
from webfactory_env.tasks.compile.context import CompileRun
from webfactory_env.tasks.compile.predicates import state_path
from webfactory_env.tasks.frame import ANY_KEY


def allow(run: CompileRun, step: ast.Allow) -> None:
    """Record the paths the task allows to change (its frame exempts them)."""
    for written in step.paths:
        run.allowed.append(frame_path(run, written))


def frame_path(run: CompileRun, written: ast.FramePath) -> Path:
    """An `allow` path with its `[key]`s resolved, checked to name a part of what the site
    keeps (an entity table, a record's field, a lasting setting)."""
    path = state_path(run, written.parts, written)
    text = ".".join(ANY_KEY if isinstance(p, ast.PathKey) else p for p in written.parts)
    doc = path_doc(run.schema, path)
    kept = [d.path for d in path_docs(run.schema) if d.kept]
    if doc is None:
        raise run.error(
            f"unknown state path {text!r} in 'allow'.{did_you_mean(text, kept)}",
            written,
            hint="`webfactory schema --family F` lists every path and whether it is kept",
        )
    if not doc.kept:
        raise run.error(
            f"{text!r} is not something the site keeps ({doc.why}): changing it never "
            "fails a task, so there is nothing to allow",
            written,
            hint="what the site keeps: " + ", ".join(sorted({p.split(".")[0] for p in kept})),
        )
    return path
