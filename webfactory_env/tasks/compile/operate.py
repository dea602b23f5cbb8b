"""Operating a widget the way the page requires, as a person would: each widget style (a
native select, a checkbox, options to click, a text input, a typeahead, a calendar) has its
operator, looked up by the step's verb and the affordance's `ui`, then its `element`."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable

from webfactory_env.core.predicates import Predicate
from webfactory_env.dsl import ast
from webfactory_env.sitegen.spec import Affordance, AppEvent
from webfactory_env.tasks.compile.context import CompileRun, Match, Move

MAX_REVEAL = 24  # pages forward, or months in a calendar, before giving up
MAX_RETRIES = 3  # Retry buttons pressed after injected server errors

# (run, step, what the step acts on, the value it sends, the effect it must have) -> moves
Operator = Callable[[CompileRun, ast.Step, Match, str | None, Predicate], list[Move]]


def operate(
    run: CompileRun, step: ast.Step, verb: str, match: Match, value: str | None, goal: Predicate
) -> list[Move]:
    """Act on the site the way its widget requires, returning the moves made."""
    moves = _operator(verb, match.affordance)(run, step, match, value, goal)
    # An injected server error leaves a Retry button: use it, as a person would.
    for _ in range(MAX_RETRIES):
        # Only a refused change shows the button: no page to render to look for it.
        retry = run.find("retry") if run.app.failed is not None else None
        if retry is None:
            break
        moves.append(click(run, retry, step))
    return moves


def click(run: CompileRun, aff: Affordance, step: ast.Step) -> Move:
    """Click `aff` as a person would."""
    return dispatch(run, aff.click_event(), Move("click", aff.sid), step)


def dispatch(run: CompileRun, event: AppEvent, move: Move, step: ast.Step) -> Move:
    """Send `event` to the app; the step fails if the site reports an error."""
    n_errors = len(run.app.errors)
    run.app.dispatch(event)
    if len(run.app.errors) > n_errors:
        raise run.error(f"the site failed on this step: {run.app.errors[-1].get('message')}", step)
    return move


def _click_it(
    run: CompileRun, step: ast.Step, match: Match, value: str | None, goal: Predicate
) -> list[Move]:
    return [click(run, match.affordance, step)]


def _submit_form(
    run: CompileRun, step: ast.Step, match: Match, value: str | None, goal: Predicate
) -> list[Move]:
    aff = match.affordance
    # What the browser's FormData would hold.
    values = run.app.page().form_values(aff.sid)
    event = AppEvent(type="submit", handler=aff.handler, arg=aff.arg, sid=aff.sid, values=values)
    return [dispatch(run, event, Move("click", aff.sid), step)]


def _choose_native_option(
    run: CompileRun, step: ast.Step, match: Match, value: str | None, goal: Predicate
) -> list[Move]:
    aff, option = match.affordance, match.option
    assert option is not None and value is not None
    event = AppEvent(type="change", handler=aff.handler, arg=aff.arg, sid=aff.sid, value=value)
    return [dispatch(run, event, Move("select", aff.sid, option.label), step)]


def _set_checkbox(
    run: CompileRun, step: ast.Step, match: Match, value: str | None, goal: Predicate
) -> list[Move]:
    aff, option = match.affordance, match.option
    assert option is not None and value is not None
    if bool(aff.attr_map().get("checked")) != (option.value == "true"):
        return [click(run, aff, step)]
    return []


def _click_option(
    run: CompileRun, step: ast.Step, match: Match, value: str | None, goal: Predicate
) -> list[Move]:
    """Options that are elements of their own (radios, a custom menu opened first)."""
    aff, option = match.affordance, match.option
    assert option is not None and value is not None
    assert option.sid is not None
    moves: list[Move] = []
    if run.find(option.sid) is None and aff.opener:
        moves.append(click(run, run.need(aff.opener, step), step))
    moves.append(click(run, run.need(option.sid, step), step))
    return moves


def _type_text(
    run: CompileRun, step: ast.Step, match: Match, value: str | None, goal: Predicate
) -> list[Move]:
    aff = match.affordance
    assert value is not None
    event = AppEvent(type="input", handler=aff.handler, arg=aff.arg, sid=aff.sid, value=value)
    return [dispatch(run, event, Move("type", aff.sid, value), step)]


def _type_and_suggest(
    run: CompileRun, step: ast.Step, match: Match, value: str | None, goal: Predicate
) -> list[Move]:
    """Type, then pick the matching suggestion unless typing alone did it."""
    moves = _type_text(run, step, match, value, goal)
    assert value is not None
    if not goal.holds(run.app.state_view()):
        moves.append(click(run, _suggestion(run, match.affordance, value, step), step))
    return moves


def _suggestion(run: CompileRun, field: Affordance, value: str, step: ast.Step) -> Affordance:
    name = field.attr_map().get("name")
    want = value.strip().lower()
    for a in run.page_affordances():
        if a.kind != "Suggestion":  # most of the page: no need to read its attributes
            continue
        attrs = a.attr_map()
        if attrs.get("field") == name and want in (
            str(attrs.get("value", "")).lower(),
            str(attrs.get("label", "")).lower(),
        ):
            return a
    raise run.error(f"typing {value!r} into {field.label!r} offers no matching suggestion", step)


def _pick_date(
    run: CompileRun, step: ast.Step, match: Match, value: str | None, goal: Predicate
) -> list[Move]:
    """Open the calendar, page through months towards the date, click its day."""
    picker = match.affordance
    assert value is not None
    iso = value
    name = picker.attr_map().get("name")
    moves: list[Move] = []
    try:
        dt.date.fromisoformat(iso)
    except ValueError:
        raise run.error(f"{iso!r} is not a date (YYYY-MM-DD)", step) from None
    day_sid = f"day:{name}={iso}"
    if (
        run.find(day_sid) is None
        and picker.opener
        and not any(_is_day_of(a, name) for a in run.page_affordances())
    ):
        moves.append(click(run, picker, step))
    for _ in range(MAX_REVEAL):
        day = run.find(day_sid)
        if day is not None:
            moves.append(click(run, day, step))
            return moves
        shown = [a.attr_map()["date"] for a in run.page_affordances() if _is_day_of(a, name)]
        if not shown:
            break
        role = "next-month" if iso > max(map(str, shown)) else "prev-month"
        moves.append(click(run, run.need(f"cal:{name}:{role}", step), step))
    raise run.error(f"the date picker {picker.label!r} never shows {iso}", step)


def _is_day_of(a: Affordance, picker_name: object) -> bool:
    return a.kind == "Day" and a.attr_map().get("picker") == picker_name


# Operators by (verb, ui), then (verb, element), then verb: the first found wins, so a
# native select is chosen from even when it is also something else.
BY_UI: dict[tuple[str, str], Operator] = {
    ("select", "native"): _choose_native_option,
    ("fill", "calendar"): _pick_date,
    ("fill", "typeahead"): _type_and_suggest,
}
BY_ELEMENT: dict[tuple[str, str], Operator] = {
    ("select", "checkbox"): _set_checkbox,
}
BY_VERB: dict[str, Operator] = {
    "click": _click_it,
    "submit": _submit_form,
    "select": _click_option,  # radios, menu items: each option its own element
    "fill": _type_text,
}


def _operator(verb: str, aff: Affordance) -> Operator:
    return BY_UI.get((verb, aff.ui)) or BY_ELEMENT.get((verb, aff.element)) or BY_VERB[verb]
