"""Encode a `DomSnapshot` (and a screenshot) into the fixed-shape arrays agents see.

Per observed element: a tag id, a role id, hashed word ids of its visible text and value,
its box normalised by the viewport, and state flags (one column per bit of `FLAG_COLUMNS`,
in `core.dom.FLAG_NAMES` order: what the element affords, and the states a screen reader
announces: disabled, checked or not, selected, expanded or collapsed, current); a padding
mask marks real rows. Its context (`CONTEXT_PARTS`, one row of word ids each) says where it
stands, as the text view's nesting does: the words of its entry (the list item, table row
or card it is in), its label (a cell's column, a definition's term, a term's definition)
and the title of its part of the page (a named container, else the heading above it). Word
ids come from BLAKE2b, so they are identical in every process whatever PYTHONHASHSEED is.
No semantic id or instrumentation reaches these arrays.
"""

from __future__ import annotations

import hashlib
import re
import struct
from dataclasses import dataclass
from typing import Literal

import numpy as np
from gymnasium import spaces

from webfactory_env.core import dom as domflags
from webfactory_env.core.dom import DomSnapshot
from webfactory_env.core.errors import ConfigError, UnknownNameError

ObsMode = Literal["tokens", "pixels", "tokens+pixels", "text"]
OBS_MODES: tuple[str, ...] = ("tokens", "pixels", "tokens+pixels", "text")

# id 0 is padding, id 1 "other"
TAGS = (
    "<pad>",
    "<other>",
    "a",
    "button",
    "input",
    "select",
    "textarea",
    "summary",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "p",
    "span",
    "li",
    "td",
    "th",
    "label",
    "div",
    "strong",
    "em",
    "small",
    "dt",
    "dd",
    "figcaption",
    "legend",
    "caption",
    "b",
)
ROLES = (
    "<pad>",
    "<other>",
    "link",
    "button",
    "textbox",
    "combobox",
    "checkbox",
    "radio",
    "heading",
    "listitem",
    "cell",
    "columnheader",
    "label",
    "img",
    "text",
    "status",
    "alert",
    "tab",
    "menuitem",
    "option",
    "switch",
    "dialog",
    "navigation",
)
FLAG_COLUMNS = (
    domflags.CLICKABLE,
    domflags.EDITABLE,
    domflags.SELECTABLE,
    domflags.DISABLED,
    domflags.CHECKED,
    domflags.FOCUSED,
    domflags.OCCLUDED,
    domflags.IN_FORM,
    domflags.READONLY,
    domflags.LINK,
    domflags.TEXT,
    domflags.SELECTED,
    domflags.CHECKABLE,
    domflags.EXPANDABLE,
    domflags.EXPANDED,
    domflags.CURRENT,
)
# The rows of the `context` array, per element.
CONTEXT_PARTS = ("row", "label", "heading")
_TAG_ID = {t: i for i, t in enumerate(TAGS)}
_ROLE_ID = {r: i for i, r in enumerate(ROLES)}
_WORD = re.compile(r"[0-9a-z\u00c0-\uffff]+")


@dataclass(frozen=True)
class ObservationConfig:
    """Shapes of the observation. All of them are fixed for the life of an env."""

    mode: str = "tokens+pixels"
    max_elements: int = 128
    max_tokens: int = 12
    vocab_size: int = 4096
    screenshot_size: tuple[int, int] = (128, 128)  # (height, width)
    max_chars: int = 8000  # the `text` mode's length cap
    # The goal arrays (`observation.goal`): words of the goal text, 0 for none; value slots.
    goal_tokens: int = 0
    max_values: int = 16
    # The `discrete` action mode's menu rows (0: no menu in the observation).
    menu_size: int = 0
    # Numbered boxes of the actionable elements drawn onto the screenshot (`marks`).
    set_of_marks: bool = False

    def __post_init__(self) -> None:
        if self.mode not in OBS_MODES:
            raise UnknownNameError("observation mode", self.mode, OBS_MODES)
        if not 1 <= self.max_elements <= 4096:
            raise ConfigError("max_elements must be between 1 and 4096")
        if not 1 <= self.max_tokens <= 256:
            raise ConfigError("max_tokens must be between 1 and 256")
        if not 0 <= self.goal_tokens <= 1024:
            raise ConfigError("goal_tokens must be between 0 and 1024")
        if not 16 <= self.vocab_size <= 2**24:
            raise ConfigError("vocab_size must be between 16 and 16777216")
        h, w = self.screenshot_size
        if not (8 <= h <= 2048 and 8 <= w <= 2048):
            raise ConfigError("screenshot_size must be (height, width) between 8 and 2048")
        if self.set_of_marks and not self.pixels:
            raise ConfigError(
                f"set_of_marks draws on the screenshot, but obs_mode {self.mode!r} has none;"
                " use obs_mode 'pixels' or 'tokens+pixels'"
            )

    @property
    def tokens(self) -> bool:
        return "tokens" in self.mode

    @property
    def pixels(self) -> bool:
        return "pixels" in self.mode


def dom_space(config: ObservationConfig) -> dict[str, spaces.Space]:
    """The spaces of `encode_dom`'s arrays."""
    n, k = config.max_elements, config.max_tokens
    return {
        "tag": spaces.Box(0, len(TAGS) - 1, (n,), np.int64),
        "role": spaces.Box(0, len(ROLES) - 1, (n,), np.int64),
        "text": spaces.Box(0, config.vocab_size - 1, (n, k), np.int64),
        "bbox": spaces.Box(0.0, 1.0, (n, 4), np.float32),
        "flags": spaces.Box(0, 1, (n, len(FLAG_COLUMNS)), np.uint8),
        "mask": spaces.Box(0, 1, (n,), np.uint8),
        "context": spaces.Box(0, config.vocab_size - 1, (n, len(CONTEXT_PARTS), k), np.int64),
    }


_WORD_IDS: dict[tuple[str, int], int] = {}
_WORD_IDS_MAX = 20_000  # a few MB: the words of the sites seen lately


def _word_id(word: str, vocab_size: int) -> int:
    key = (word, vocab_size)
    wid = _WORD_IDS.get(key)
    if wid is None:
        # surrogatepass: the same bytes as plain UTF-8 for any text that has them at all.
        raw = word.encode("utf-8", "surrogatepass")
        h = int.from_bytes(hashlib.blake2b(raw, digest_size=8).digest(), "little")
        wid = 1 + h % (vocab_size - 1)  # 0 is padding
        if len(_WORD_IDS) >= _WORD_IDS_MAX:
            # Every new site brings new words: start over rather than grow for ever (a
            # long run meets millions). Refilling costs one hash per word, once.
            _WORD_IDS.clear()
        _WORD_IDS[key] = wid
    return wid


def text_token_ids(text: str, max_tokens: int, vocab_size: int) -> list[int]:
    """Stable ids of the first `max_tokens` words of `text` (lower-cased)."""
    words = _WORD.findall(text.lower())[:max_tokens]
    return [_word_id(w, vocab_size) for w in words]


_FLAG_BITS = np.array(FLAG_COLUMNS, np.int64)
_ROWS: dict[tuple[str, int, int], bytes] = {}


def _token_row(text: str, max_tokens: int, vocab_size: int) -> bytes:
    """`text_token_ids` padded with 0 to `max_tokens`, as the bytes of an int64 array (rows
    joined are an array's buffer: no Python int converted one by one), remembered: most
    texts of a page (its header, its menus, the rows that did not change) were on the page
    a step before."""
    key = (text, max_tokens, vocab_size)
    row = _ROWS.get(key)
    if row is None:
        ids = text_token_ids(text, max_tokens, vocab_size)
        row = struct.pack(f"={max_tokens}q", *ids, *(0,) * (max_tokens - len(ids)))
        if len(_ROWS) >= _WORD_IDS_MAX:  # as `_word_id`'s: start over rather than grow
            _ROWS.clear()
        _ROWS[key] = row
    return row


def _int64_rows(rows: list[bytes], *shape: int) -> np.ndarray:
    """The int64 array of `shape` whose buffer is `rows` joined (`_token_row`)."""
    return np.frombuffer(b"".join(rows), np.int64).reshape(shape)


def encode_dom(dom: DomSnapshot, config: ObservationConfig) -> dict[str, np.ndarray]:
    """The token part of an observation (the screenshot is added by the caller)."""
    n, k, vocab = config.max_elements, config.max_tokens, config.vocab_size
    tag = np.zeros(n, np.int64)
    role = np.zeros(n, np.int64)
    text = np.zeros((n, k), np.int64)
    bbox = np.zeros((n, 4), np.float32)
    flags = np.zeros((n, len(FLAG_COLUMNS)), np.uint8)
    mask = np.zeros(n, np.uint8)
    context = np.zeros((n, len(CONTEXT_PARTS), k), np.int64)
    m = min(len(dom), n)
    if m:  # rows built as tuples, then each array filled in one assignment
        tag[:m] = [_TAG_ID.get(t, 1) for t in dom.tags[:m]]
        role[:m] = [_ROLE_ID.get(r, 1) for r in dom.roles[:m]]
        items, headings = dom.items(m), dom.container_headings(m)
        rows = _entry_words(dom, items, k, vocab)
        empty = bytes(8 * k)
        texts: list[bytes] = []
        contexts: list[bytes] = []
        known = _ROWS  # `_token_row`'s memo, looked up here first: one call fewer per row
        columns = (dom.texts[:m], dom.values[:m], items, dom.value_labels(m), headings)
        elements = zip(*columns, strict=True)
        for words, value, item, label, heading in elements:
            if value:
                words = f"{words} {value}"
            texts.append(known.get((words, k, vocab)) or _token_row(words, k, vocab))
            contexts += (  # the rows of CONTEXT_PARTS, in its order
                rows.get(item, empty),
                known.get((label, k, vocab)) or _token_row(label, k, vocab),
                known.get((heading, k, vocab)) or _token_row(heading, k, vocab),
            )
        text[:m] = _int64_rows(texts, m, k)
        context[:m] = _int64_rows(contexts, m, len(CONTEXT_PARTS), k)
        # Boxes and flags as whole columns: the same float32 arithmetic, element by element.
        vw, vh = dom.viewport
        scale = np.array([vw, vh, vw, vh], np.float32)
        boxes = np.asarray(dom.boxes[:m], np.float32).reshape(m, 4)
        bbox[:m] = np.clip(boxes / scale, 0.0, 1.0)
        bits = np.asarray(dom.flags[:m], np.int64)[:, None] & _FLAG_BITS
        flags[:m] = bits != 0
        mask[:m] = 1
    return {
        "tag": tag,
        "role": role,
        "text": text,
        "bbox": bbox,
        "flags": flags,
        "mask": mask,
        "context": context,
    }


def _entry_words(dom: DomSnapshot, items: list[int], k: int, vocab_size: int) -> dict[int, bytes]:
    """Per entry (list item, table row, card) of the elements `items` covers (each one's
    `item_of`): the ids of its first `k` words, its elements' texts and values in page
    order (padded to `k`)."""
    texts: dict[int, list[str]] = {}
    for i, item in enumerate(items):
        if item >= 0:
            texts.setdefault(item, []).extend(t for t in (dom.texts[i], dom.values[i]) if t)
    return {item: _token_row(" ".join(words), k, vocab_size) for item, words in texts.items()}
