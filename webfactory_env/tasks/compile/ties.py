"""Ties: a "first / best by X" choice whose runner-up ties it on X. A task that acts on such
a choice is ambiguous; one that only asks a question accepts the answers of every tied
alternative, learnt by compiling the task again down each."""

from __future__ import annotations

from typing import Any

from webfactory_env.dsl import ast
from webfactory_env.sitegen.spec import Affordance
from webfactory_env.tasks.compile.context import CompileRun, Match, Tie
from webfactory_env.tasks.compile.errors import CompileError
from webfactory_env.tasks.compile.resolve import same_kind
from webfactory_env.tasks.compile.surface import target_words_for
from webfactory_env.tasks.instruction import attr_words, quote

MAX_TIE_FORKS = 6  # tied alternatives explored for the answers they lead to


def tied(run: CompileRun, chosen: Affordance, pool: list[Affordance]) -> list[Affordance]:
    """Entries of `pool` that tie `chosen` on the sort key the page is sorted by."""
    key = run.sort_keys.get(run.app.route, ("", ""))[0]
    value = chosen.attr_map().get(key) if key else None
    if value is None:
        return []
    return [a for a in pool if a.sid != chosen.sid and a.attr_map().get(key) == value]


def break_ties(
    run: CompileRun, step: ast.Step, target: ast.TargetExpr, matches: list[Match]
) -> list[Match]:
    """A "first / best by X" choice must be one entity: when the runner-up ties it on
    X, the goal is ambiguous (a compile error) unless the task only asks a question,
    whose tied answers are all accepted (the alternatives are compiled too)."""
    if not matches or not isinstance(target, ast.Target):
        return matches
    chosen = matches[0].affordance
    if chosen.kind not in ("Item", "Result"):
        return matches
    ranked = any(p.attr == "rank" for p in target.preds)
    if ranked:
        pool = [a for a in run.page_affordances() if same_kind(a, chosen)]
    elif len(matches) > 1:
        pool = [m.affordance for m in matches]
    else:
        return matches
    others = tied(run, chosen, pool)
    if not others:
        return matches
    where = (step.span.line, step.span.column)
    key = run.sort_keys[run.app.route][0]
    run.ties.append(Tie(where[0], where[1], key, chosen.sid, tuple(a.sid for a in others)))
    pick = run.choose.get(where)
    if pick is not None:
        alt = next((a for a in [chosen, *others] if a.sid == pick), chosen)
        return [Match(alt), *[m for m in matches if m.affordance.sid != alt.sid]]
    if not run.asks_question:
        names = ", ".join(quote(a.label) for a in [chosen, *others][:4])
        raise run.error(
            f"{target_words_for(run, target, chosen)} is not one entity on this site: "
            f"{names} tie on {attr_words(key)}, and the page's order does not say which the "
            "task means",
            target,
            hint="make the task say which one, or pick a seed without the tie",
        )
    return matches


def fork_answers(run: CompileRun) -> list[Any]:
    """The answers the tied alternatives lead to (the task re-run down each)."""
    # Imported here: compiling a fork runs every step, and the steps import this module.
    from webfactory_env.tasks.compile.run import compile_run

    found: list[Any] = []
    for tie in run.ties[:MAX_TIE_FORKS]:
        for other in tie.others[:MAX_TIE_FORKS]:
            fork = CompileRun(
                run.file,
                run.task,
                run.site,
                choose={**run.choose, (tie.line, tie.column): other},
                forking=False,
            )
            try:
                compile_run(fork)
            except CompileError:
                continue  # that alternative does not lead through the task
            found.append(fork.bindings.get("answer", {}).get("value"))
    return found
