"""The oracle: executes a task's compiled plan through the env's own action space."""

from __future__ import annotations

import json
from typing import Any

import gymnasium as gym
import numpy as np

from webfactory_env.actions import COORDINATE_MODES, VERB_INDEX
from webfactory_env.agents.coordinate_oracle import CoordinateOracle
from webfactory_env.core.predicates import answer_matches
from webfactory_env.env import WebTaskEnv


class OracleAgent:
    """Follows the plan step by step, scrolling to targets that are out of view.

    It reads the env's semantic side table to find plan targets, which no learning agent
    sees; everything it does goes through `env.step`, in the env's action mode (numeric
    actions, or text calls such as `click(4)`), like any other agent's actions. In the
    coordinate modes it is a `CoordinateOracle`'s mouse and keyboard, which drags where the
    page offers a drag for what the plan's next form does (`prefer_drag=False`: the form).
    """

    def __init__(
        self, env: gym.Env[Any, Any], seed: int | None = None, *, prefer_drag: bool = True
    ) -> None:
        unwrapped = env.unwrapped
        if not isinstance(unwrapped, WebTaskEnv):
            raise TypeError("the oracle needs a WebTask-v0 environment")
        self.env = unwrapped
        # Coordinate modes: the same plan, done with the mouse and the keyboard.
        coordinates = unwrapped.action_config.mode in COORDINATE_MODES
        self._pointer = (
            CoordinateOracle(unwrapped, prefer_drag=prefer_drag) if coordinates else None
        )
        self._next = 0
        self._last: int | None = None
        self._search = "down"  # where to look for an element that shows the answer

    def reset(self) -> None:
        if self._pointer is not None:
            self._pointer.reset()
        self._next = 0
        self._last = None
        self._search = "down"

    def observe(self, info: dict[str, Any]) -> None:
        """Advance past a plan step once the env accepted the action that executed it."""
        if self._pointer is not None:
            self._pointer.observe(info)
            return
        if self._last is not None and info.get("action_error") is None:
            self._next = self._last + 1
        self._last = None

    def act(self, obs: Any = None, info: dict[str, Any] | None = None) -> Any:
        if self._pointer is not None:
            return self._pointer.act(obs, info)
        if info is not None and info.get("record") is not None:
            self.observe(info)
        env = self.env
        assert env.task is not None
        plan = env.task.plan
        if self._next >= len(plan):
            return self._encode("done_success", 0, None, "")
        step = plan[self._next]
        dom = env.dom
        if step.verb in ("done_success", "done_fail"):
            # Numeric actions answer by pointing at an element that shows the answer: scroll
            # until one is in view (down first, then back up); if no part of the page shows
            # it, the first element is all it can point at. Text actions write it out.
            shown = next(
                (
                    i
                    for i in range(len(dom))
                    if step.value and answer_matches(f"{dom.texts[i]} {dom.values[i]}", step.value)
                ),
                None,
            )
            if shown is None and step.value and self.env.action_config.mode != "text":
                if self._search == "down" and not dom.can_scroll_down:
                    self._search = "up"
                if self._search == "up" and not dom.can_scroll_up:
                    self._search = "over"
                if self._search != "over":
                    return self._encode(f"scroll_{self._search}", 0, None, "")
            self._last = self._next
            return self._encode(step.verb, shown or 0, None, step.value or "")
        self._search = "down"
        index = dom.index_of(step.sid)
        if index is None:
            direction = dom.offscreen.get(step.sid, 1)
            if direction < 0 and dom.can_scroll_up:
                return self._encode("scroll_up", 0, None, "")
            if dom.can_scroll_down:
                return self._encode("scroll_down", 0, None, "")
            return self._encode("scroll_up", 0, None, "")
        self._last = self._next
        return self._encode(step.verb, index, step.value, "")

    def _encode(self, verb: str, index: int, value: str | None, text: str) -> Any:
        if self.env.action_config.mode == "discrete":
            menu = self.env._actions()
            if verb in ("done_success", "done_fail") and text:
                # Answer by the menu entry that points at the element showing the answer.
                for k, d in enumerate(menu):
                    if d.verb == verb and d.text and answer_matches(d.text, text):
                        return k
            want = (
                verb,
                index
                if verb not in ("scroll_down", "scroll_up", "back", "done_success", "done_fail")
                else 0,
                value,
            )
            for k, d in enumerate(menu):
                if (d.verb, d.index, d.value) == want:
                    return k
            return 1  # done_fail: the plan's action is not available (cannot happen)
        if self.env.action_config.mode == "text":

            def q(text: str | None) -> str:  # a JSON string literal is a valid argument
                return json.dumps(text, ensure_ascii=False)

            return {
                "click": f"click({index})",
                "type": f"type({index}, {q(value)})",
                "select": f"select({index}, {q(value)})",
                "submit": f"submit({index})",
                "scroll_down": "scroll(down)",
                "scroll_up": "scroll(up)",
                "done_success": f"done(true, {q(text)})",
                "done_fail": f"done(false, {q(text)})",
            }[verb]
        assert self.env.task is not None
        slot = (
            self.env.task.values.index(value)
            if value is not None and verb in ("type", "select")
            else 0
        )
        return np.array([VERB_INDEX[verb], index, slot])
