"""Bringing a target into view: paging a list forward, or opening the dialog, tab,
accordion or menu it is behind, and keeping the moves that did it for the plan."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from webfactory_env.dsl import ast
from webfactory_env.sitegen.spec import Affordance
from webfactory_env.tasks.compile.context import CompileRun, Match, Move
from webfactory_env.tasks.compile.operate import MAX_REVEAL, click
from webfactory_env.tasks.compile.resolve import resolve_target
from webfactory_env.tasks.compile.surface import opening_sentence
from webfactory_env.tasks.compile.values import option_term

UI_OPENERS = ("ui.modal", "ui.tab", "ui.toggle")  # handlers that only change what is shown
NOT_OPENERS = ("Filter", "Sort", "Choice", "DatePicker", "FileUpload")  # kinds that change data


def locate(
    run: CompileRun, target: ast.TargetExpr, verb: str, value: Any, step: ast.Step
) -> tuple[list[Match], list[Move]]:
    """Matches of `target`, bringing it into view first if it is further down a
    paginated list or behind a dialog, a tab, an accordion or a menu."""
    moves: list[Move] = []
    matches = resolve_target(run, target, verb, quiet=True)
    for _ in range(MAX_REVEAL):
        if _usable(matches, verb, value) or not isinstance(target, ast.Target):
            break
        nxt = _next_page_button(run)
        if nxt is None:
            break
        move = click(run, nxt, step)
        if nxt.kind != "More":  # an infinite list loads as the agent scrolls: no click
            moves.append(replace(move, says=opening_sentence(nxt)))
        matches = resolve_target(run, target, verb, quiet=True)
    if not _usable(matches, verb, value):
        opened = reveal_until(
            run,
            lambda: _usable(resolve_target(run, target, verb, quiet=True), verb, value),
            step,
            depth=2,
        )
        if opened is not None:
            moves += opened
            matches = resolve_target(run, target, verb, quiet=True)
    if not matches:
        matches = resolve_target(run, target, verb)  # raises the precise error
    return matches, moves


def _usable(matches: list[Match], verb: str, value: Any) -> bool:
    if verb == "select" and value is not None:
        term = option_term(value)
        return any(m.option is not None and m.option.matches(term) for m in matches)
    return bool(matches)


def reveal_until(
    run: CompileRun, shown: Callable[[], bool], step: ast.Step, depth: int
) -> list[Move] | None:
    """Try the page's UI-only openers (dialogs, tabs, accordions, menus), keeping the
    shortest path after which `shown()` (at most `depth` clicks) and undoing the others:
    the recipe then names only what must be opened."""
    for length in range(1, depth + 1):
        found = _reveal(run, shown, step, length)
        if found is not None:
            return found
    return None


def _reveal(
    run: CompileRun, shown: Callable[[], bool], step: ast.Step, depth: int
) -> list[Move] | None:
    """A path of exactly `depth` opener clicks after which `shown()`, or None."""
    if depth == 0:
        return None
    openers = [
        a
        for a in run.page_affordances()
        if a.handler in UI_OPENERS
        and not (a.handler == "ui.modal" and not a.arg)
        and a.kind not in NOT_OPENERS
    ]
    for opener in openers:
        saved = run.app.checkpoint()
        move = replace(click(run, opener, step), says=opening_sentence(opener))
        if depth == 1 and shown():
            return [move]
        deeper = _reveal(run, shown, step, depth - 1)
        if deeper is not None:
            return [move, *deeper]
        run.app.restore(saved)
    return None


def _next_page_button(run: CompileRun) -> Affordance | None:
    """The control that shows more of a list: a usable "next page" button."""
    for a in run.page_affordances():
        attrs = a.attr_map()
        if a.kind == "Button" and attrs.get("role") == "page" and attrs.get("step") == "next":
            return None if attrs.get("disabled") else a
        if a.kind == "More":
            return a
    return None
