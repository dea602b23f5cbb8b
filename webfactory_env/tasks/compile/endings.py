"""How a task ends: `answer` (the agent reports a fact of the site; every answer a tied
choice leads to is accepted) or `infeasible` (the agent stops and says the task cannot be
done). The ending is the last subgoal and a conjunct of the goal."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from webfactory_env.core.answers import KINDS, AnswerKey, AnswerKind, kind_of
from webfactory_env.core.domains import Vocabulary
from webfactory_env.core.errors import did_you_mean
from webfactory_env.core.predicates import (
    MISSING,
    All,
    AnswerMatch,
    Eq,
    Predicate,
    answer_matches,
    lookup,
)
from webfactory_env.dsl import ast
from webfactory_env.tasks.compile.context import CompileRun, Move
from webfactory_env.tasks.compile.locate import locate, reveal_until
from webfactory_env.tasks.compile.predicates import holding_now, paths_in, state_path
from webfactory_env.tasks.compile.resolve import near_misses, same_kind
from webfactory_env.tasks.compile.surface import answer_text, describe_target, target_words_for
from webfactory_env.tasks.compile.ties import fork_answers, tied
from webfactory_env.tasks.compiled import PlanStep, Subgoal
from webfactory_env.tasks.goal import Conjunct
from webfactory_env.tasks.instruction import (
    INFEASIBLE_ENDING,
    answer_surface,
    answer_surface_state,
)


def answer(run: CompileRun, step: ast.Answer) -> None:
    """The agent must report a fact of the site with `done(true, text)`."""
    if step.target is not None:
        value, accepted, candidates, what, moves, field = _answer_on_page(run, step, step.target)
    else:
        value, accepted, candidates, what, moves, field = _answer_in_state(run, step)
    expected = answer_text(value)
    run.final_answer = expected
    if run.forking:
        accepted += [v for v in fork_answers(run) if v is not None]
    kind, domain = answer_kind(run, field, value)
    key = AnswerKey(
        accepted=tuple(dict.fromkeys(answer_text(v) for v in accepted if v is not None)),
        kind=kind,
        candidates=tuple(sorted({answer_text(v) for v in candidates if v not in (None, "")})),
        domain=domain,
    )
    run.bindings["answer"]["accepted"] = list(key.accepted)
    end_task(
        run,
        step,
        "answer",
        All(
            (
                Eq(("agent", "done"), True),
                Eq(("agent", "claimed"), True),
                AnswerMatch(("agent", "answer"), key.to_json()),
            )
        ),
        f"Report {what}.",
        moves,
        PlanStep("done_success", "", expected, "answer"),
    )


def answer_kind(run: CompileRun, field: str, value: Any) -> tuple[AnswerKind, str]:
    """The kind of value the question asks for, and the name of its domain: as the family
    declares the field ("login.city": every city it can produce), else read from the
    value's form (a number, a date, a time, a yes/no, text)."""
    declared = run.app.ANSWERS.get(field)
    if isinstance(declared, Vocabulary):
        return declared.kind, f"{run.app.family}.{declared.name}"  # type: ignore[return-value]
    if declared in KINDS:
        return declared, ""  # type: ignore[return-value]
    return kind_of([value]), ""


# The answer's value, the values accepted, the other values it could have been, what it
# is in words, the moves that show it, and the field it is ("login.city", "board.overdue").
_Found = tuple[Any, list[Any], list[Any], str, list[Move], str]


def _answer_on_page(run: CompileRun, step: ast.Answer, target: ast.TargetExpr) -> _Found:
    """`answer Kind(...).attr`: an attribute of an entity the page lists."""
    assert step.attr is not None
    matches, moves = locate(run, target, "any", None, step)
    if not matches:
        raise run.error(
            f"no {describe_target(target)} on page {run.app.route}",
            target,
            hint=near_misses(run, target),
        )
    aff = matches[0].affordance
    attrs = aff.attr_map()
    if step.attr not in attrs:
        raise run.error(
            f"{aff.kind} has no attribute {step.attr!r}.{did_you_mean(step.attr, attrs)}",
            step,
            hint=f"{aff.kind} attributes: " + ", ".join(sorted(attrs)),
        )
    value: Any = attrs[step.attr]
    same = [a for a in run.page_affordances() if same_kind(a, aff)]
    # Every item that ties the chosen one on the list's sort key answers too.
    accepted = [value] + [a.attr_map().get(step.attr) for a in tied(run, aff, same)]
    candidates = [a.attr_map().get(step.attr) for a in same]
    what = answer_surface(step.attr, target_words_for(run, target, aff))
    run.bindings["answer"] = {"sid": aff.sid, "attr": step.attr, "value": value}
    return value, accepted, candidates, what, moves, f"{attrs.get('type', aff.kind)}.{step.attr}"


def _answer_in_state(run: CompileRun, step: ast.Answer) -> _Found:
    """`answer State(a.b)`: a value the site holds, shown on the page if a page shows it."""
    assert step.path is not None
    path = state_path(run, step.path, step)
    state = run.app.state_view()
    value = lookup(state, path)
    text = ".".join(path)
    if value is MISSING:
        known = {".".join(p) for p in paths_in(state)}
        raise run.error(f"unknown state path {text!r}.{did_you_mean(text, known)}", step)
    if isinstance(value, (dict, list)) or value in ("", None):
        raise run.error(
            f"{text} is {value!r} here: not an answer",
            step,
            hint="answer a single value that the page shows",
        )
    candidates = _state_candidates(run, path)
    what = answer_surface_state(path, run.app.OPEN)
    run.bindings["answer"] = {"path": text, "value": value}
    # An agent that answers by pointing needs the value on the page: open the tab,
    # section or dialog that shows it (a value no page shows, such as a count the
    # agent must work out, stays as it is).
    want = answer_text(value)
    moves: list[Move] = []
    if not _page_shows(run, want):
        moves = reveal_until(run, lambda: _page_shows(run, want), step, depth=2) or []
    return value, [value], candidates, what, moves, text


def _state_candidates(run: CompileRun, path: tuple[str, ...]) -> list[Any]:
    """Other values the answer at `path` could have been: the same field of every
    record of the table the page shows, or of the table the family names for it (a
    name in `DOMAINS` wins: the open thread's accepted author is one of the members)."""
    state = run.app.state_view()
    domain = run.app.DOMAINS.get(".".join(path))
    if domain is not None:
        table, _, field = domain.partition(".")
    else:
        table, field = run.app.OPEN.get(path[0], ""), path[-1]
    records = lookup(state, (table,)) if table else MISSING
    if not isinstance(records, Mapping):
        return []
    return [rec.get(field) for rec in records.values() if isinstance(rec, Mapping)]


def _page_shows(run: CompileRun, want: str) -> bool:
    """Whether one text of the current page states `want`. Each text is graded on its
    own: a whole page names many numbers, and an answer that lists many fails."""
    return any(answer_matches(t, want) for t in run.app.page().texts())


def infeasible(run: CompileRun, step: ast.Infeasible) -> None:
    """The task cannot be done here; the agent should stop and say so."""
    predicate = holding_now(
        run, step.condition, "the task is not infeasible on this site: the condition does not hold"
    )
    run.bindings["infeasible"] = step.reason.value
    # Stopping is right only where the obstacle shows: the step that ran into it must
    # still hold, and so must the condition, when the agent says done(false). Without
    # this, done(false) at the first step would "solve" every infeasible task.
    obstacle = (run.subgoals[-1].predicate,) if run.subgoals else ()
    end_task(
        run,
        step,
        "infeasible",
        All(
            (
                *obstacle,
                predicate,
                Eq(("agent", "done"), True),
                Eq(("agent", "claimed"), False),
            )
        ),
        # The recipe leads up to the obstacle; followed to the letter, it must end there.
        INFEASIBLE_ENDING,
        [],
        PlanStep("done_fail", "", step.reason.value, "infeasible"),
        description=f"Stop and say that the task cannot be done: {step.reason.value}.",
    )


def end_task(
    run: CompileRun,
    step: ast.Step,
    slug: str,
    predicate: Predicate,
    surface: str,
    moves: list[Move],
    final: PlanStep,
    description: str = "",
) -> None:
    """Record the ending: its conjunct of the goal, its subgoal (after the last step),
    the moves that show what it reports, and the final `done` of the plan."""
    run.ending = step
    description = description or surface or "End the task correctly."
    run.ending_conjunct = Conjunct(
        slug, predicate, description, slug, step.span.line, step.span.column
    )
    run.add_subgoal(
        Subgoal(
            id=slug,
            step=run.steps_seen,
            description=description,
            predicate=predicate,
            witness=tuple(dict.fromkeys(m.sid for m in moves)),
            sticky=False,
            prerequisites=(run.subgoals[-1].id,) if run.subgoals else (),
            line=step.span.line,
            column=step.span.column,
        )
    )
    for mv in moves:
        run.plan.append(PlanStep(mv.verb, mv.sid, mv.value, slug))
    run.plan.append(final)
    run.surface += [mv.says for mv in moves if mv.says] + [surface]
