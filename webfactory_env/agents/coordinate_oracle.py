"""The oracle with a mouse and a keyboard: a task's compiled plan done at viewport points.

Each plan step becomes what a person does: a click at the middle of the target's box; for
a field, a click, Control+a when it holds text, then typing; for a native dropdown, a
click (which opens its list), arrow keys to the option, Enter (headless Chromium draws the
list outside the page, where no click can reach it; the keyboard drives it as it does for
a person). A target out of view is scrolled to with the mouse wheel. It finds targets in
the env's semantic side table, which no learning agent sees.

Where a page offers a drag for what the plan's next form does (`drag_plan`: the same
transition and value), it drags instead, as a person at a board does: from the item's middle
to the point of the zone where the plan's place is; when the drag is on a page one link
away (a card's board, from the card's page), it goes there, drags, and comes back by a link
when the plan goes on there. `prefer_drag=False` keeps to the forms.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from webfactory_env import actions as act
from webfactory_env.actions import Decoded
from webfactory_env.agents.drag_plan import DragMove, drop_band, form_move, offers, targets
from webfactory_env.core.dom import Box
from webfactory_env.core.predicates import answer_matches
from webfactory_env.env import WebTaskEnv
from webfactory_env.sitegen import SiteApp
from webfactory_env.tasks.compiled import PlanStep


def _action(verb: str, coords: tuple[float, ...] = (), text: str = "") -> Decoded:
    """One coordinate action: the verb, its viewport numbers, and the text or key it uses."""
    if verb == "key":
        return Decoded(verb, -1, key=text, coords=coords)
    if verb == "type":
        return Decoded(verb, -1, text, coords=coords)
    return Decoded(verb, -1, text=text, coords=coords)


class CoordinateOracle:
    """Follows the plan in `coordinates` or `coordinates_text` mode (see the module)."""

    def __init__(self, env: WebTaskEnv, *, prefer_drag: bool = True) -> None:
        self.env = env
        self.prefer_drag = prefer_drag
        self.reset()

    def reset(self) -> None:
        self._next = 0  # the plan step being done
        self._after = 0  # the plan step to go on with once the queue is done
        self._queue: list[Decoded] = []  # what is left of it
        self._sent: Decoded | None = None
        self._search = "down"  # where to look for an element that shows the answer
        self._move: DragMove | None = None  # a drag chosen in place of the next form
        self._back_to: str | None = None  # the plan's page, to return to after a drag
        self._probed: dict[tuple[int, str], str | None] = {}  # (step, route): link to a drag

    def observe(self, info: dict[str, Any]) -> None:
        """Move on once the env accepted an action; start the step afresh if it did not."""
        sent, self._sent = self._sent, None
        if sent is None:
            return
        if info.get("action_error") is not None:
            self._queue = []
            return
        if self._queue and self._queue[0] == sent:
            self._queue.pop(0)
            if not self._queue:
                if sent.verb == "drag":
                    self._move = None
                self._next = self._after

    def act(self, obs: Any = None, info: dict[str, Any] | None = None) -> Any:
        if info is not None and info.get("record") is not None:
            self.observe(info)
        if not self._queue:
            first = self._plan_step()
            if first is not None:  # a scroll or a search: not part of the step itself
                return self._encode(first)
        self._sent = self._queue[0]
        return self._encode(self._sent)

    # ------------------------------------------------------------------ planning
    def _plan_step(self) -> Decoded | None:
        """Fill the queue with the current plan step's actions, or return the scroll that
        must come first."""
        env = self.env
        assert env.task is not None
        plan, dom = self._plan(), env.dom
        if self._next >= len(plan):
            self._queue = [_action("done_success")]
            return None
        step = plan[self._next]
        if step.verb in act.DONE_VERBS:
            return self._answer(step.verb, step.value or "")
        self._search = "down"
        self._after = self._next + 1
        if self.prefer_drag:
            first = self._drag_step()
            if first is not None or self._queue:
                return first
        i = dom.index_of(step.sid)
        if i is None:
            return self._scroll_to(step.sid)
        x, y = dom.center(i)
        click = _action("click", (x, y))
        if step.verb == "click":
            self._queue = [click]
        elif step.verb == "type":
            value = step.value or ""
            clear = [_action("key", text="Control+a")] if dom.values[i] else []
            typing = [_action("type", text=value)] if value else [_action("key", text="Delete")]
            self._queue = [click, *clear, *typing]
        elif step.verb == "select":
            self._queue = [click, *self._choose(dom.options[i] or (), dom.values[i], step.value)]
        else:  # pragma: no cover - plans use the verbs above
            raise ValueError(f"the coordinate oracle cannot do plan verb {step.verb!r}")
        return None

    def _plan(self) -> Sequence[PlanStep]:
        """The steps to do: the task's compiled plan (a mutant's has steps added)."""
        assert self.env.task is not None  # an oracle acts after a reset
        return self.env.task.plan

    def _left_out(self, index: int) -> bool:
        """Whether plan step `index` is not to be done (a mutant's dropped steps)."""
        return False

    def _scroll_to(self, sid: str) -> Decoded:
        dom = self.env.dom
        up = (dom.offscreen.get(sid, 1) < 0 and dom.can_scroll_up) or not dom.can_scroll_down
        return self._scroll(-1 if up else 1)

    # ------------------------------------------------------------------ dragging
    @property
    def _app(self) -> SiteApp:
        """The site's app: its pages say what a form sends and where a drag is offered."""
        assert self.env.app is not None  # an oracle acts after a reset
        return self.env.app

    def _drag_step(self) -> Decoded | None:
        """Queue the drag that stands for the plan's next form, or the link click on the
        way to or back from it; a scroll that must come first is returned. Nothing queued
        and None: no drag here, fill the form."""
        env = self.env
        assert env.task is not None
        route = env.dom.route
        if self._move is None and self._back_to is not None:
            if route != self._back_to:
                return self._follow(lambda href: href == self._back_to)
            self._back_to = None
        if self._move is None:
            page = self._app.page()
            move = form_move(self._plan(), self._next, page, self._left_out)
            if move is None:
                return None
            if not offers(page, move):
                link = self._probe(move)
                if link is None:
                    return None
                rest = self._plan()[move.end + 1 :]
                if any(s.verb not in act.DONE_VERBS for s in rest):
                    self._back_to = route
                self._move = move
                return self._follow(lambda href: href == link)
            self._move = move
        return self._drag(self._move)

    def _probe(self, move: DragMove) -> str | None:
        """The route of the first page one link away (a link in view or scrolled to) that
        offers `move`'s drag, as the app would draw it."""
        app, dom = self._app, self.env.dom
        key = (self._next, dom.route)
        if key not in self._probed:
            self._probed[key] = next(
                (
                    a.href
                    for a in app.page().affordances
                    if a.href is not None
                    and (a.sid in dom.offscreen or dom.index_of(a.sid) is not None)
                    and offers(app.render(a.href), move)
                ),
                None,
            )
        return self._probed[key]

    def _follow(self, wanted: Callable[[str], bool]) -> Decoded | None:
        """Queue a click on a link of the page whose route is `wanted` (a test on it),
        scrolling to it first; without one, give the detour up."""
        dom = self.env.dom
        link = next((a for a in self._app.page().affordances if a.href and wanted(a.href)), None)
        if link is None or (link.sid not in dom.offscreen and dom.index_of(link.sid) is None):
            self._move = self._back_to = None
            return None
        i = dom.index_of(link.sid)
        if i is None:
            return self._scroll_to(link.sid)
        self._queue, self._after = [_action("click", dom.center(i))], self._next
        return None

    def _drag(self, move: DragMove) -> Decoded | None:
        """Queue the drag of `move`'s item onto its zone at its place, scrolling first to
        whichever of the two is out of view."""
        dom = self.env.dom
        found = targets(dom, move)
        if found is None:
            self._move = self._back_to = None
            return None
        item, zone = found
        start = self._point_in(item.box)
        band = drop_band(item, zone, dom.drag_items, move.place)
        end = self._point_in(band)
        for box, point in ((item.box, start), (band, end)):
            if point is None:
                down = box[1] + box[3] / 2 > dom.viewport[1] / 2
                if not (dom.can_scroll_down if down else dom.can_scroll_up):
                    self._move = self._back_to = None
                    return None
                return self._scroll(1 if down else -1)
        assert start is not None and end is not None
        self._queue, self._after = [_action("drag", (*start, *end))], move.end + 1
        return None

    def _point_in(self, box: Box) -> tuple[float, float] | None:
        """A point of `box` in view, as near its middle as lets the action land inside it."""
        vw, vh = self.env.dom.viewport
        left, top = max(box[0], 0), max(box[1], 0)
        right, bottom = min(box[0] + box[2], vw), min(box[1] + box[3], vh)
        if right - left < 1 or bottom - top < 1:
            return None
        x, y = (left + right) / 2, (top + bottom) / 2
        for dy in sorted(range(int(top - y), int(bottom - y) + 1), key=abs):
            lx, ly = self._landing((x, y + dy))
            if left <= lx < right and top <= ly < bottom:
                return (lx, ly)
        return None

    @staticmethod
    def _choose(options: tuple[str, ...], current: str, value: str | None) -> list[Decoded]:
        """Keys that move an open dropdown's highlight from `current` to `value`, and Enter."""
        texts = [o.strip().lower() for o in options]
        want = (value or "").strip().lower()
        target = texts.index(want) if want in texts else 0
        here = texts.index(current.strip().lower()) if current.strip().lower() in texts else 0
        key = "ArrowDown" if target > here else "ArrowUp"
        return [_action("key", text=key)] * abs(target - here) + [_action("key", text="Enter")]

    def _scroll(self, direction: int) -> Decoded:
        """The wheel by what a scroll action scrolls, at the middle of the viewport's width
        and where the numeric form can say it: (x, y) and (x, y + dy) both in view."""
        vw, vh = self.env.dom.viewport
        dy = round(vh * act.SCROLL_FRACTION) * direction
        return _action("scroll", (vw / 2, (vh - dy) / 2, 0.0, float(dy)))

    def _answer(self, verb: str, value: str) -> Decoded | None:
        """End the episode: text actions write the answer; numeric ones point at an element
        that shows it, scrolling until one is in view (down first, then back up)."""
        if self.env.action_config.mode == "coordinates_text" or not value:
            self._queue = [_action(verb, text=value)]
            return None
        dom = self.env.dom
        for i in range(len(dom)):
            point = self._landing(dom.center(i))
            shown = act.element_at(dom, *point)
            if shown is not None and answer_matches(act.answer_text(dom, shown), value):
                self._queue = [_action(verb, point)]
                return None
        if self._search == "down" and not dom.can_scroll_down:
            self._search = "up"
        if self._search == "up" and not dom.can_scroll_up:
            self._search = "over"
        if self._search != "over":
            return self._scroll(1 if self._search == "down" else -1)
        self._queue = [_action(verb, (0.0, 0.0))]
        return None

    # ------------------------------------------------------------------ encoding
    def _landing(self, point: tuple[float, float]) -> tuple[float, float]:
        """Where an action aimed at `point` lands: the middle of its grid cell (numeric
        actions), the whole pixel it is written as (text ones)."""
        cfg = self.env.action_config
        if cfg.mode != "coordinates":
            return (round(point[0]), round(point[1]))
        cell = act.viewport_to_grid(point, cfg.grid, cfg.viewport)
        return act.grid_to_viewport(cell, cfg.grid, cfg.viewport)

    def _encode(self, d: Decoded) -> Any:
        if self.env.action_config.mode == "coordinates_text":  # whole pixels, as people write
            return act.coordinate_call(replace(d, coords=tuple(round(v) for v in d.coords or ())))
        cfg, task = self.env.action_config, self.env.task
        assert task is not None
        c: tuple[float, ...] = d.coords or ()
        x, y = act.viewport_to_grid((c[0], c[1]), cfg.grid, cfg.viewport) if c else (0, 0)
        x2, y2 = x, y
        if d.verb == "scroll":  # the numeric form: what (x2, y2) shows comes to (x, y)
            end = (c[0] + c[2], c[1] + c[3])
            x2, y2 = act.viewport_to_grid(end, cfg.grid, cfg.viewport)
        elif d.verb == "drag":
            x2, y2 = act.viewport_to_grid((c[2], c[3]), cfg.grid, cfg.viewport)
        slot = task.values.index(d.value or "") if d.verb == "type" else 0
        key = act.COORDINATE_KEYS.index(d.key) if d.verb == "key" else 0
        verb = act.COORDINATE_VERB_INDEX[d.verb]
        return np.array([verb, x, y, x2, y2, slot, key])
