"""Strings from outside made safe to encode (code points UTF-8 cannot hold are replaced),
and the Gymnasium space of any Unicode text.

An agent's text action, or a JSON decoder's reading of a broken `\\ud800` escape, may hold a
lone surrogate: a Python `str` can, UTF-8 cannot, so it would stop the page, the observation
encoder or the trace writer. `clean_text` is applied where such strings come in.
"""

from __future__ import annotations

import re
from typing import Any

from gymnasium import spaces

REPLACEMENT = "\ufffd"
# C0 and C1 control characters but the newline and tab, and lone surrogate halves.
CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff]")
# What `UnicodeText.sample` draws from.
SAMPLE_CHARSET = frozenset(chr(c) for c in range(32, 127)) | frozenset("\n\u00e9\u2192\u20ac\u6771")


class UnicodeText(spaces.Text):
    """A `Text` space holding any Unicode text without control characters (newlines and
    tabs allowed): what a page shows (arrows, accents, currency, CJK, emoji) and what an
    agent types. Samples are drawn from printable ASCII and a few other characters."""

    def __init__(self, max_length: int, *, min_length: int = 0, seed: Any = None) -> None:
        super().__init__(max_length, min_length=min_length, charset=SAMPLE_CHARSET, seed=seed)

    def contains(self, x: Any) -> bool:
        return (
            isinstance(x, str)
            and self.min_length <= len(x) <= self.max_length
            and not CONTROL.search(x)
        )

    def __eq__(self, other: Any) -> bool:
        return (
            isinstance(other, UnicodeText)
            and self.min_length == other.min_length
            and self.max_length == other.max_length
        )

    def __repr__(self) -> str:
        return f"UnicodeText({self.min_length}, {self.max_length})"


def clean_text(text: str) -> str:
    """`text` with every code point UTF-8 cannot encode replaced by U+FFFD; a surrogate pair
    written as two code points becomes the character it encodes."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        # Through UTF-16 with surrogates passed: pairs join up, lone halves are replaced.
        return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    return text
