"""The task's goal from its run (`tasks.goal` derives it), checked: it holds when the task
ends, not at reset, and every record it says a step creates is new."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from webfactory_env.core.predicates import AGENT_STATE, Exists
from webfactory_env.dsl import ast
from webfactory_env.tasks.compile.context import CompileRun
from webfactory_env.tasks.compile.errors import Located
from webfactory_env.tasks.compile.predicates import explain
from webfactory_env.tasks.goal import Conjunct, derive_goal


def checked_goal(run: CompileRun) -> list[Conjunct]:
    """The task's goal from its run (see `tasks.goal`), checked: it holds at the end,
    not at reset, and every conjunct is pinned to what the steps did."""
    final = run.app.state_view()
    goal = derive_goal(run.schema, run.reset_view, final, run.runs, run.asserts, run.ending is None)
    if run.ending_conjunct is not None:
        goal.append(run.ending_conjunct)
    _assertions_pay_when_their_record_is_made(run, goal)
    if not goal:
        raise run.error(
            f"task {run.task.name!r} has no goal: none of its steps changes what the "
            "site keeps (orders, bookings, cards, settings, sign-in...) and it does not "
            "end on a page or with an answer",
            run.task,
            hint="add the step that does the task, or end it with `answer` or an `assert`",
        )
    _check_holds_at_end(run, goal, {**final, "agent": _agent_at_end(run)})
    _check_not_done_at_reset(run, goal)
    return goal


def _assertions_pay_when_their_record_is_made(run: CompileRun, goal: list[Conjunct]) -> None:
    """An assertion about a record the task creates pays when that record is made: its
    subgoal takes the record's conjunct."""
    made = {c.record: c.predicate for c in goal if c.record is not None}
    for a in run.asserts:
        if a.new_record in made:
            run.subgoals = [
                replace(g, predicate=made[a.new_record])
                if (g.line, g.column, g.id.startswith("assert")) == (a.line, a.column, True)
                else g
                for g in run.subgoals
            ]


def _agent_at_end(run: CompileRun) -> dict[str, Any]:
    """What the agent has said when it ends the task as the plan does."""
    return {
        "done": True,
        "claimed": not isinstance(run.ending, ast.Infeasible),
        "answer": run.final_answer,
    }


def _check_holds_at_end(run: CompileRun, goal: list[Conjunct], at_end: Mapping[str, Any]) -> None:
    for c in goal:
        if not c.predicate.holds(at_end):
            raise run.error(
                f"the goal does not hold when the task ends: {c.description}",
                Located(c.line, c.column) if c.line else run.task,
                hint=explain(c.predicate, at_end),
            )


def _check_not_done_at_reset(run: CompileRun, goal: list[Conjunct]) -> None:
    """No agent could show it did a task whose goal holds before anything is done, nor
    create a record that exists already."""
    at_reset = {**run.reset_view, "agent": dict(AGENT_STATE)}
    if all(c.predicate.holds(at_reset) for c in goal):
        raise run.error(
            f"the goal of task {run.task.name!r} already holds before anything is done "
            "on this site, so no agent could show it did the task",
            run.task,
            hint="; ".join(c.description for c in goal)[:300],
        )
    for c in goal:
        if isinstance(c.predicate, Exists) and c.predicate.holds(run.reset_view):
            raise run.error(
                f"this step creates nothing new on this site: {c.description} exists already",
                Located(c.line, c.column),
            )
