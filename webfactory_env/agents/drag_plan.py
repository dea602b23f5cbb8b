"""Drags that make the change a plan's form would: the form the plan is about to fill and
submit, read from the app's page, and where a drop sends the same transition.

A draggable item (`sitegen.widgets.dragging`) sends its transition a submit with the drop
zone's `name=value` and the place it landed ("top", "before:<key>", "last"), the event its
keyboard alternative, a form, sends. So when the next plan steps fill such a form and click
its submit, a drag of the item carrying the form's transition onto the zone carrying the
form's value does the same. Where the item and zone are comes from the browser's side table
(`DomSnapshot.drag_items`, `drop_zones`): their instrumentation never reaches the DOM.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from webfactory_env.core.dom import Box, DomSnapshot, DragItem, DropZone
from webfactory_env.sitegen.spec import Affordance, PageView
from webfactory_env.tasks.compiled import PlanStep

# A form's place choice and a drop's: a Move form's "bottom" (after every card, also what a
# place left unchosen means) is what a drop below every other item sends, "last".
DROP_PLACE = {"": "last", "bottom": "last"}
_INSTRUMENTED = re.compile(r"<[a-z]+\b[^>]*\bdata-wf-(?:drag|drop)=[^>]*>")
_ATTR = re.compile(r'data-wf-([a-z]+)="([^"]*)"')


@dataclass(frozen=True, slots=True)
class DragMove:
    """A change a drop can make: the item's transition (handler, argument) dropped on the
    zone sending `name=value` at `place`, in place of plan steps up to `end` (the submit)."""

    handler: str
    arg: str | None
    name: str
    value: str
    place: str
    end: int


def form_move(
    plan: Sequence[PlanStep], start: int, page: PageView, left_out: Callable[[int], bool]
) -> DragMove | None:
    """The drop that does what plan steps `start`.. do on `page` when they fill one form
    (its native fields, or menus of choices bound to it) and submit it, and what the form
    sends fits a drop (one choice and a place); else None."""
    controls = {a.sid: a for a in page.affordances if "name" in a.attr_map() and a.ui != "button"}
    options = {o.sid: (a, o.value) for a in controls.values() for o in a.options if o.sid}
    chosen: dict[str, str] = {}
    for end in range(start, len(plan)):
        if left_out(end):
            continue
        step = plan[end]
        if step.sid in options:  # an entry of an open menu of choices
            menu, value = options[step.sid]
            chosen[str(menu.attr_map()["name"])] = value
            continue
        control = controls.get(step.sid)
        if control is not None:
            name = str(control.attr_map()["name"])
            if step.verb == "type":
                chosen[name] = step.value or ""
            elif step.verb == "select":
                want = (step.value or "").strip().lower()
                match = [o.value for o in control.options if want in (o.label.lower(), o.value)]
                chosen[name] = match[0] if match else step.value or ""
            elif control.element != "button":  # a click that sets a value: not a menu's opener
                return None
            continue
        submit = page.affordance(step.sid) if step.verb == "click" else None
        if submit is None or submit.handler is None or not chosen:
            return None
        return _as_drop(page, submit, chosen, end)
    return None


def _as_drop(
    page: PageView, submit: Affordance, chosen: dict[str, str], end: int
) -> DragMove | None:
    """`submit`'s form sent with `chosen` values as a drop, if one can send it."""
    form = submit.attr_map().get("name")
    values = {
        str(a.attr_map()["name"]): a.value or ""
        for a in page.affordances
        if form is not None and a.attr_map().get("form") == form and a.ui != "button"
    }
    values |= page.form_values(submit.sid)
    if not set(chosen) <= set(values):
        return None  # a field outside the form the plan submits
    values |= chosen
    place = values.pop("place", "last")
    if len(values) != 1:
        return None
    ((name, value),) = values.items()
    assert submit.handler is not None
    return DragMove(submit.handler, submit.arg, name, value, DROP_PLACE.get(place, place), end)


def offers(page: PageView, move: DragMove) -> bool:
    """Whether `page` has an item that sends `move`'s transition and a zone for its value."""
    items, zones = False, False
    for tag in _INSTRUMENTED.findall("".join(page.regions.values())):
        a = {k: html.unescape(v) for k, v in _ATTR.findall(tag)}
        items |= a.get("drag") == move.handler and a.get("da") == move.arg
        zones |= a.get("drop") == move.value and a.get("dn") == move.name
    return items and zones


def targets(dom: DomSnapshot, move: DragMove) -> tuple[DragItem, DropZone] | None:
    """The item and zone of `move` on the observed page, in view or not."""
    item = next((d for d in dom.drag_items if (d.handler, d.arg) == (move.handler, move.arg)), None)
    zone = next((z for z in dom.drop_zones if (z.name, z.value) == (move.name, move.value)), None)
    return None if item is None or zone is None else (item, zone)


def drop_band(item: DragItem, zone: DropZone, others: Sequence[DragItem], place: str) -> Box:
    """The part of `zone` where a drop of `item` lands at `place`: the runtime puts it above
    the first other item in the zone whose middle is below the pointer (`drag.js`)."""
    x, top, w, h = zone.box
    inside = sorted(
        (o for o in others if o != item and _within(o.box, zone.box)), key=lambda o: o.box[1]
    )
    middles = [o.box[1] + o.box[3] / 2 for o in inside]
    low, high = float(top), float(top + h)
    if place == "top" and middles:
        high = middles[0]
    elif place == "last" and middles:
        low = middles[-1]
    elif place.startswith("before:"):
        keys, key = [o.key for o in inside], place.removeprefix("before:")
        at = keys.index(key) if key in keys else len(keys)
        low = middles[at - 1] if at > 0 else low
        high = middles[at] if at < len(middles) else high
    return (x, round(low), w, round(high) - round(low))


def _within(box: Box, outer: Box) -> bool:
    cx, cy = box[0] + box[2] / 2, box[1] + box[3] / 2
    return outer[0] <= cx < outer[0] + outer[2] and outer[1] <= cy < outer[1] + outer[3]
