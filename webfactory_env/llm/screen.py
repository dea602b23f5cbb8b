"""`ScreenAgent`: a vision model as a WebTask-v0 policy, one screenshot in, one action out.

Each step the model gets a system prompt rendered from the action docs, as the text agent's
is (`prompt.system_prompt`): the coordinate actions (`actions.COORDINATE_ACTIONS`, points in
pixels of the screenshot, which shows the whole viewport at its own size), or with
set-of-marks the element actions, naming the numbered marks drawn on the screenshot
(`observation.marks`). The user turn is the goal, the values, the step count and the recent
actions as text, and the screenshot as an image part: an OpenAI-compatible `image_url` whose
URL is `data:image/png;base64,...`.

The action comes back as the text agent's does (the last line that is one call), or with
`tool_calls` as a call of the `computer` function, whose schema is generated from the same
docs (`llm.tool`): `{"action": "click", "x": 312, "y": 88}` is `click(312, 88)`. Either
way the env gets the text call, so traces, replay and the refusals of unreadable replies
are the text agent's (`LLMAgent`), and so is the history's redaction of secret values.
"""

from __future__ import annotations

import base64
import io
import json
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from PIL import Image

from webfactory_env.actions import COORDINATE_ACTIONS, TEXT_ACTIONS
from webfactory_env.llm.agent import LLMAgent
from webfactory_env.llm.client import ChatClient, ChatReply
from webfactory_env.llm.prompt import (
    OPENING,
    RULES,
    PastStep,
    Unreadable,
    instruction,
    reply_format,
    system_prompt,
    user_turn,
)
from webfactory_env.llm.tool import TOOL_NAME, computer_tool, tool_arguments, tool_call_action

_POINTS = """\
Each turn you are shown the task (Goal), the exact strings it needs (Values), your recent \
actions and how they went, and a screenshot of the browser's viewport, {width}×{height} \
pixels. You act with the mouse and the keyboard at points of that screenshot: (0, 0) is its \
top-left corner, x grows to the right and y downwards; aim at the middle of what you mean \
to hit. Only what is in view is shown: scroll to see more."""

_MARKS = """\
Each turn you are shown the task (Goal), the exact strings it needs (Values), your recent \
actions and how they went, and a screenshot of the browser's viewport. Every element you \
can act on is outlined, with its index in a small coloured label at its top-left corner: \
actions name elements by that index, and indices change when the page changes, so always \
use the ones of the screenshot you are shown now. Only what is in view is shown: scroll to \
see more."""

_TOOL_FORMAT = """\
Each turn, call the {tool} function exactly once, with one action: its name and its \
numbers or text under the names the list below gives them, for example {example} for \
{call}, and {done} for {done_call}. You may think briefly first in your reply's text."""


def screen_prompt(
    viewport: tuple[int, int] = (1280, 800), *, marks: bool = False, tool_calls: bool = False
) -> str:
    """The system prompt of a `ScreenAgent`: coordinate actions at points of a `viewport`
    sized screenshot, or with `marks` the element actions naming the marks."""
    grammar = TEXT_ACTIONS if marks else COORDINATE_ACTIONS
    seen = _MARKS if marks else _POINTS.format(width=viewport[0], height=viewport[1])
    first = grammar[0].examples[0]
    if tool_calls:
        done = 'done(true, "answer")'
        example = json.dumps(tool_arguments(first, grammar))
        ending = json.dumps(tool_arguments(done, grammar))
        how = _TOOL_FORMAT.format(
            tool=TOOL_NAME, example=example, call=first, done=ending, done_call=done
        )
    else:
        how = reply_format(first)
    return system_prompt("\n\n".join([OPENING, seen, how, RULES]), grammar)


def png_data_url(screenshot: np.ndarray) -> str:
    """An RGB array as a `data:image/png;base64,...` URL (the same pixels, the same URL)."""
    buffer = io.BytesIO()
    Image.fromarray(np.asarray(screenshot, np.uint8)).save(buffer, format="PNG")
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


def screen_turn(
    info: Mapping[str, Any], max_steps: int, history: Sequence[PastStep], notes: Sequence[str]
) -> str:
    """The text of one step's user turn: goal, values and step (where the text agent's turn
    has its observation), then the recent actions and notes as the text agent's."""
    values = ", ".join(json.dumps(v, ensure_ascii=False) for v in info.get("values") or ())
    head = (
        f"Goal: {instruction(info)}\nValues: {values or '(none)'}\n"
        f"Step {int(info.get('steps') or 0)} of {max_steps}. The screenshot shows the page now."
    )
    return user_turn(head, history, notes)


# ------------------------------------------------------------------ the agent
class ScreenAgent(LLMAgent):
    """A policy whose actions are a vision model's replies to screenshots (see the module).

    `env` gives the viewport and the step budget the prompt states (None: 1280×800, 64)."""

    def __init__(
        self,
        env: Any,
        client: ChatClient,
        *,
        marks: bool = False,
        tool_calls: bool = False,
        seed: int | None = None,
        history: int = 8,
        max_malformed: int = 5,
    ) -> None:
        config = getattr(getattr(env, "unwrapped", None), "config", None)
        width, height = getattr(config, "viewport", (1280, 800))
        self.viewport = (int(width), int(height))
        self.max_steps = int(getattr(config, "max_steps", 64))
        self.grammar = TEXT_ACTIONS if marks else COORDINATE_ACTIONS
        self.tools = [computer_tool(self.grammar)] if tool_calls else []
        self._tool_problem: str | None = None
        super().__init__(env, client, seed=seed, history=history, max_malformed=max_malformed)
        self.system = screen_prompt(self.viewport, marks=marks, tool_calls=tool_calls)

    def user_content(
        self, obs: Any, info: Mapping[str, Any], recent: Sequence[PastStep], notes: list[str]
    ) -> Any:
        if not isinstance(obs, Mapping) or "screenshot" not in obs:
            raise TypeError("ScreenAgent needs a screenshot observation (obs_mode='pixels')")
        image = {"url": png_data_url(obs["screenshot"])}
        return [
            {"type": "text", "text": screen_turn(info, self.max_steps, recent, notes)},
            {"type": "image_url", "image_url": image},
        ]

    def read_action(self, reply: ChatReply) -> str | None:
        self._tool_problem = None
        calls = reply.tool_calls if self.tools else ()
        if not calls:  # a model may write the call as text all the same
            return super().read_action(reply)
        action, self._tool_problem = tool_call_action(calls[0], self.grammar)
        return action

    def unreadable(self, reply: ChatReply, truncated: bool) -> Unreadable:
        if truncated or self._tool_problem is None:  # a cut-off reply was never read
            return super().unreadable(reply, truncated)
        return Unreadable(
            f"(a {TOOL_NAME} call that could not be read)",
            f"Your last {TOOL_NAME} call was not carried out: {self._tool_problem}. Call"
            f" {TOOL_NAME} once, with an action and the arguments its form names.",
        )

    def fallback(self, reply: ChatReply) -> str:
        if self.tools and reply.tool_calls:  # the call not carried out: the trace keeps it
            call = reply.tool_calls[0]
            return f"{call.name[:40]}({call.arguments[:200]})"
        return super().fallback(reply)
