"""Walking the task's statements over the app, each by its entry in `STATEMENTS`: `goto`
and the actions on targets, `if` decided on the simulated state, `for` unrolled, and the
conditions and endings their own modules compile."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from webfactory_env.core.errors import did_you_mean
from webfactory_env.dsl import ast
from webfactory_env.tasks.compile.allowances import allow
from webfactory_env.tasks.compile.conditions import assert_holds, wait_until
from webfactory_env.tasks.compile.context import CompileRun, Match
from webfactory_env.tasks.compile.endings import answer, infeasible
from webfactory_env.tasks.compile.locate import locate
from webfactory_env.tasks.compile.perform import perform
from webfactory_env.tasks.compile.predicates import state_predicate
from webfactory_env.tasks.compile.resolve import near_misses, resolve_target
from webfactory_env.tasks.compile.surface import (
    describe_target,
    plain_label,
    slug,
    stated_value,
    step_sentence,
    target_slug,
)
from webfactory_env.tasks.compile.ties import break_ties
from webfactory_env.tasks.compile.values import option_term, type_name, value_of

MAX_LOOP_ITEMS = 50
HOW_TO_USE = {  # what a target's verb asks the task to write, for "not something to X"
    "click": "click X;",
    "fill": "fill X with <value>;",
    "select": "select X option <value>;",
    "submit": "submit X;",
}


def run_steps(run: CompileRun, steps: Iterable[ast.Step]) -> None:
    """Compile `steps` in order; nothing may follow the task's ending."""
    for step in steps:
        if isinstance(step, ast.Allow):  # a clause of the whole task, not a step
            allow(run, step)
            continue
        if run.ending is not None:
            what = "answer" if isinstance(run.ending, ast.Answer) else "infeasible"
            raise run.error(
                f"nothing can follow `{what}`: it is how the task ends",
                step,
                hint=f"move the `{what}` statement to the end of the task",
            )
        run.steps_seen += 1
        compile_statement = STATEMENTS.get(type(step))
        if compile_statement is None:  # pragma: no cover - the parser builds nothing else
            raise run.error(f"unsupported statement {type(step).__name__}", step)
        compile_statement(run, step)


def goto(run: CompileRun, step: ast.Goto) -> None:
    """Follow a link to the route (one in the navigation first); nothing if already there."""
    route = value_of(run, step.route)
    if not isinstance(route, str) or not route.startswith("/"):
        raise run.error("goto needs a route", step.route, hint='e.g. goto route("/shop");')
    if run.app.route == route:
        return  # already there: nothing to do, nothing to reward
    links = [a for a in run.page_affordances() if a.href == route and a.verb == "click"]
    if not links:
        if not run.app.known_route(route):
            routes = [r for r in run.site.spec.routes if not r.startswith("/product/")]
            raise run.error(
                f"route {route!r} does not exist on this site."
                f"{did_you_mean(route, run.site.spec.routes)}",
                step.route,
                hint="routes: " + ", ".join(routes),
            )
        raise run.error(
            f"no link to {route} on page {run.app.route}",
            step,
            hint="navigate to a page that links there first",
        )
    links.sort(key=lambda a: 0 if a.attr_map().get("region") == "nav" else 1)
    text = links[0].label or route
    perform(
        run,
        step,
        "click",
        [Match(a) for a in links],
        None,
        surface=f"Go to the {plain_label(text)} page.",
        slug=f"goto-{slug(route) or 'home'}",
    )


def act(
    run: CompileRun,
    step: ast.Step,
    verb: str,
    target: ast.TargetExpr,
    value_node: ast.Value | None,
) -> None:
    """`click`, `fill`, `select` or `submit` a target: find it (revealing it if need be),
    check it takes this verb and is usable, then perform the step on the first match."""
    value = value_of(run, value_node) if value_node is not None else None
    matches, moves = locate(run, target, verb, value, step)
    if verb == "select":
        matches = _chosen_options(run, matches, value, step, target)
    matches = _taking_verb(run, step, verb, target, matches)
    if verb == "click":
        matches = break_ties(run, step, target, matches)
    if verb == "fill":
        if not isinstance(value, (str, int, float)) or isinstance(value, bool):
            raise run.error(f"fill needs text; got {type_name(value)}", value_node)
        value = str(value)
    primary = matches[0].affordance
    if primary.attr_map().get("disabled") is True:
        raise run.error(
            f"{describe_target(target)} is disabled on this site "
            f"({primary.label!r} cannot be used)",
            target,
            hint="this task is infeasible on this seed",
        )
    perform(
        run,
        step,
        verb,
        matches,
        value,
        surface=step_sentence(run, verb, target, primary, matches[0].option, value),
        slug=f"{verb}-{target_slug(target, primary)}",
        moves=moves,
        stated=stated_value(verb, primary, matches[0].option, value),
    )


def _taking_verb(
    run: CompileRun, step: ast.Step, verb: str, target: ast.TargetExpr, matches: list[Match]
) -> list[Match]:
    """The matches that take `verb`; an error if none is there, or none takes it."""
    if not matches:
        raise run.error(
            f"no {describe_target(target)} on page {run.app.route}",
            target,
            hint=near_misses(run, target),
        )
    taking = [m for m in matches if m.affordance.verb == verb]
    if not taking:
        use = HOW_TO_USE[matches[0].affordance.verb]
        raise run.error(
            f"{describe_target(target)} is not something to {verb}; it takes `{use}`", step
        )
    return taking


def _chosen_options(
    run: CompileRun, matches: list[Match], value: Any, step: ast.Step, target: ast.TargetExpr
) -> list[Match]:
    """The matches whose option the select step names (by value, label or alias)."""
    if value is None:
        raise run.error("select needs an option", step)
    term = option_term(value)
    chosen = [m for m in matches if m.option is not None and m.option.matches(term)]
    if not chosen and matches:
        labels = sorted({m.option.label for m in matches if m.option is not None})
        raise run.error(
            f"{describe_target(target)} has no option {term!r}.{did_you_mean(term, labels)}",
            getattr(step, "value", step),
            hint="options: " + ", ".join(labels),
        )
    return chosen


def branch(run: CompileRun, step: ast.If) -> None:
    """`if`: decided on the simulated state; only the branch taken is compiled."""
    taken = state_predicate(run, step.condition).holds(run.app.state_view())
    run.bindings[f"if@{step.span.line}:{step.span.column}"] = "then" if taken else "else"
    run_steps(run, step.then if taken else step.otherwise)


def loop(run: CompileRun, step: ast.For) -> None:
    """`for`: the body compiled once for each entity the query names, in page order."""
    matches = resolve_target(run, step.query, "click")
    if not matches:
        raise run.error(
            f"no {describe_target(step.query)} on page {run.app.route} to loop over",
            step.query,
        )
    if len(matches) > MAX_LOOP_ITEMS:
        raise run.error(
            f"the loop would run {len(matches)} times (at most {MAX_LOOP_ITEMS})",
            step.query,
            hint="narrow the query",
        )
    outer = run.loop_vars.get(step.var)
    for i, m in enumerate(matches):
        run.loop_vars[step.var] = m.affordance.sid
        run.bindings[f"for@{step.span.line}:{step.span.column}#{i}"] = m.affordance.sid
        run_steps(run, step.body)
    if outer is None:
        run.loop_vars.pop(step.var, None)
    else:
        run.loop_vars[step.var] = outer


def _click(run: CompileRun, step: ast.Click) -> None:
    act(run, step, "click", step.target, None)


def _fill(run: CompileRun, step: ast.Fill) -> None:
    act(run, step, "fill", step.target, step.value)


def _select(run: CompileRun, step: ast.Select) -> None:
    act(run, step, "select", step.target, step.value)


def _submit(run: CompileRun, step: ast.Submit) -> None:
    act(run, step, "submit", step.target, None)


# How each statement compiles.
STATEMENTS: dict[type, Callable[[CompileRun, Any], None]] = {
    ast.Goto: goto,
    ast.Click: _click,
    ast.Fill: _fill,
    ast.Select: _select,
    ast.Submit: _submit,
    ast.Assert: assert_holds,
    ast.Wait: wait_until,
    ast.If: branch,
    ast.For: loop,
    ast.Answer: answer,
    ast.Infeasible: infeasible,
    ast.Allow: allow,
}
