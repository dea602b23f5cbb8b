"""What an action is: the verbs, the keys, the env's action options and a decoded action."""

from __future__ import annotations

import re
from dataclasses import dataclass

from webfactory_env.core.errors import ConfigError

VERBS = (
    "click", "type", "select", "submit", "press_enter",
    "scroll_down", "scroll_up", "back", "done_success", "done_fail",
)  # fmt: skip
VERB_INDEX = {v: i for i, v in enumerate(VERBS)}
ELEMENT_VERBS = ("click", "type", "select", "submit", "press_enter")
DONE_VERBS = ("done_success", "done_fail")
ACTION_MODES = ("multidiscrete", "discrete", "text", "coordinates", "coordinates_text")
# Modes whose actions are text calls (for LLM agents), and modes that act at viewport points.
TEXT_MODES = ("text", "coordinates_text")
COORDINATE_MODES = ("coordinates", "coordinates_text")
# In `discrete` mode these page-level actions keep fixed indices; element actions follow.
PAGE_ACTIONS = ("done_success", "done_fail", "scroll_down", "scroll_up", "back")
MAX_TEXT_ACTION = 2000
KEYS = frozenset(
    {
        "Enter",
        "Escape",
        "Tab",
        "Backspace",
        "Space",
        "ArrowUp",
        "ArrowDown",
        "ArrowLeft",
        "ArrowRight",
        "PageUp",
        "PageDown",
        "Home",
        "End",
    }
)
# A site's access keys (the `shortcuts` variation axis), pressed like any other key.
SHORTCUT = re.compile(r"^Alt\+Shift\+[A-Z]$")


class InvalidActionError(ConfigError):
    """An action that is not even of the action space's shape or type."""


@dataclass(frozen=True)
class ActionConfig:
    max_elements: int = 128
    max_values: int = 16
    mode: str = "multidiscrete"
    max_actions: int = 512  # `discrete` mode: size of the action space
    done_actions: str = "auto"  # `auto`: done verbs only for answer/infeasible tasks
    # Coordinate modes: the point grid of the numeric space (width, height: the observed
    # screenshot's pixels) and the viewport (width, height) the points map onto.
    grid: tuple[int, int] = (128, 128)
    viewport: tuple[int, int] = (1280, 800)

    def offers_done(self, expects_answer: bool) -> bool:
        """Whether done_success/done_fail are offered to a task (always to text actions)."""
        return self.done_actions == "always" or self.mode in TEXT_MODES or expects_answer

    def check_value_slots(self, task: str, slots: int) -> None:
        """A task whose value table is larger than the action space's slots cannot be played."""
        if slots > self.max_values:
            raise ConfigError(
                f"task {task!r} needs {slots} value slots; make the env with max_values >= {slots}"
            )


@dataclass(frozen=True)
class Decoded:
    """An action in the env's own terms. `value` is the text to type or the option to
    select (from the value table, or written out in text mode); `text` is a done message,
    `confidence` the probability a text-mode `done` gives that its ending is right."""

    verb: str
    index: int = 0
    value: str | None = None
    text: str = ""
    key: str = "Enter"
    confidence: float | None = None  # a done action's P(this ending is right), text mode
    # A coordinate action's numbers in viewport pixels, as written (`click(x, y)`: x, y;
    # drag: x1, y1, x2, y2; scroll: x, y, dx, dy); None for an action on an element.
    coords: tuple[float, ...] | None = None
