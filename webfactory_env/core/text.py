"""Strings from outside made safe to encode: code points UTF-8 cannot hold are replaced.

An agent's text action, or a JSON decoder's reading of a broken `\\ud800` escape, may hold a
lone surrogate: a Python `str` can, UTF-8 cannot, so it would stop the page, the observation
encoder or the trace writer. `clean_text` is applied where such strings come in.
"""

from __future__ import annotations

REPLACEMENT = "\ufffd"


def clean_text(text: str) -> str:
    """`text` with every code point UTF-8 cannot encode replaced by U+FFFD; a surrogate pair
    written as two code points becomes the character it encodes."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        # Through UTF-16 with surrogates passed: pairs join up, lone halves are replaced.
        return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    return text
