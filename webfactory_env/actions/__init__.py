"""The action spaces, parsing, validation against the page, and masks.

Two modes. `multidiscrete` (for RL): `[verb, element, value_slot]`, where the element
indexes the rows of the current observation and the slot the task's value table
(`info["values"]`). `text` (for LLM agents): one call such as `click(12)`,
`type(3, "Alice Nguyen")`, `select(5, "Red")`, `press("Enter")`, `scroll(down)`, `back()`
or `done(true, "answer", confidence=0.8)`, read by a small tokenizer — never `eval`. Each
text action is documented where its arguments are read (`TEXT_ACTIONS`).

An action that does not fit the page (a hidden, disabled, covered or read-only element, a
verb the element does not take, an unknown option) is *invalid*: the env reports it in
`info["action_error"]`, charges the invalid penalty and leaves the page untouched. Only an
action of the wrong type or shape (not an array of three ints, not a string) raises.

Text actions accept any Python string: code points UTF-8 cannot encode (lone surrogates, as
a JSON decoder makes of a broken `\\ud800` escape) become U+FFFD before anything reads them
(`core.text.clean_text`), so no page, observation or trace ever holds one; a surrogate pair
written as two code points becomes the character it encodes.

Two more modes act at viewport points instead of elements (`coordinates`): `coordinates`
(for RL, a grid over the screenshot's pixels) and `coordinates_text` (`click(312, 88)`).

One module per part: `verbs` (the verbs, keys, options and `Decoded`), `decoding` (the
spaces, and an action decoded), `text` (the text grammar), `validity` (an action checked
against the page, masks, the discrete menu) and `coordinates` (the coordinate modes).
"""

from webfactory_env.actions.coordinates import (
    COORDINATE_ACTIONS,
    COORDINATE_KEYS,
    COORDINATE_VERB_INDEX,
    COORDINATE_VERBS,
    SCROLL_FRACTION,
    coordinate_call,
    element_at,
    focused_element,
    grid_to_viewport,
    screenshot_to_viewport,
    viewport_to_grid,
)
from webfactory_env.actions.decoding import action_space, decode, done_refusal, value_slot
from webfactory_env.actions.text import (
    TEXT_ACTIONS,
    CallArgs,
    TextAction,
    Token,
    parse_call,
    parse_text_action,
    quote_text,
    text_action,
    unquote,
    usage,
)
from webfactory_env.actions.validity import (
    ActionMenu,
    action_masks,
    answer_text,
    check,
    describe,
    discrete_masks,
    enumerate_actions,
    menu_array,
    menu_rows,
)
from webfactory_env.actions.verbs import (
    ACTION_MODES,
    COORDINATE_MODES,
    DONE_VERBS,
    ELEMENT_VERBS,
    KEYS,
    MAX_TEXT_ACTION,
    PAGE_ACTIONS,
    TEXT_MODES,
    VERB_INDEX,
    VERBS,
    ActionConfig,
    Decoded,
    InvalidActionError,
)

__all__ = [
    "ACTION_MODES",
    "COORDINATE_ACTIONS",
    "COORDINATE_KEYS",
    "COORDINATE_MODES",
    "COORDINATE_VERBS",
    "COORDINATE_VERB_INDEX",
    "DONE_VERBS",
    "ELEMENT_VERBS",
    "KEYS",
    "MAX_TEXT_ACTION",
    "PAGE_ACTIONS",
    "SCROLL_FRACTION",
    "TEXT_ACTIONS",
    "TEXT_MODES",
    "VERBS",
    "VERB_INDEX",
    "ActionConfig",
    "ActionMenu",
    "CallArgs",
    "Decoded",
    "InvalidActionError",
    "TextAction",
    "Token",
    "action_masks",
    "action_space",
    "answer_text",
    "check",
    "coordinate_call",
    "decode",
    "describe",
    "discrete_masks",
    "done_refusal",
    "element_at",
    "enumerate_actions",
    "focused_element",
    "grid_to_viewport",
    "menu_array",
    "menu_rows",
    "parse_call",
    "parse_text_action",
    "quote_text",
    "screenshot_to_viewport",
    "text_action",
    "unquote",
    "usage",
    "value_slot",
    "viewport_to_grid",
]
