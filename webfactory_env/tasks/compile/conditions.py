"""Steps that state a condition: `assert` (checked now, pinned and made part of the goal)
and `wait` (checked to have come true)."""

from __future__ import annotations

from dataclasses import replace

from webfactory_env.core.predicates import Exists
from webfactory_env.dsl import ast
from webfactory_env.tasks.compile.context import CompileRun
from webfactory_env.tasks.compile.perform import prerequisites
from webfactory_env.tasks.compile.predicates import explain, holding_now, pin
from webfactory_env.tasks.compile.surface import slug, state_words
from webfactory_env.tasks.compile.values import is_number
from webfactory_env.tasks.compiled import Subgoal


def assert_holds(run: CompileRun, step: ast.Assert) -> None:
    """An assertion must hold after the steps above and not before the task starts; it
    becomes a conjunct of the goal and a subgoal that pays when it turns true."""
    predicate = holding_now(
        run, step.condition, "this assertion does not hold after the steps above"
    )
    pinned = replace(
        pin(run, predicate, step.condition), line=step.span.line, column=step.span.column
    )
    if pinned.new_record is None and pinned.predicate.holds(run.reset_view):
        raise run.error(
            "this assertion already holds before the task starts, so it cannot show "
            "that the task was done",
            step.condition,
            hint=explain(pinned.predicate, run.reset_view),
        )
    run.asserts.append(pinned)
    text = state_words(run, step.condition)
    # The subgoal pays when the pinned condition turns true (a condition on a record
    # the task creates: when such a record exists).
    shaping = (
        Exists((pinned.new_record[0],), pinned.predicate)
        if pinned.new_record is not None
        else pinned.predicate
    )
    paths = "-".join(slug(".".join(p)) for p in sorted(predicate.paths()))
    run.add_subgoal(
        Subgoal(
            id=run.unique_id("assert-" + paths[:60]),
            step=run.steps_seen,
            description=f"Make sure that {text}.",
            predicate=shaping,
            witness=(),
            sticky=False,
            prerequisites=prerequisites(run, None, predicate),
            line=step.span.line,
            column=step.span.column,
        )
    )
    run.surface.append(f"Make sure that {text}.")


def wait_until(run: CompileRun, step: ast.Wait) -> None:
    """A wait's condition must have come true after the steps above (the simulated site
    has no delays); a duration must be a non-negative number."""
    if step.condition is not None:
        holding_now(
            run, step.condition, "this wait condition never becomes true after the steps above"
        )
    if step.duration_ms is not None and (
        not is_number(step.duration_ms.value) or step.duration_ms.value < 0
    ):
        raise run.error("wait takes a non-negative number of milliseconds", step.duration_ms)
