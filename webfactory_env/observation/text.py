"""The `text` observation: the visible page as numbered lines, for LLM agents.

    Page: Catalog · Maple Goods  (/shop, scrolled 0 of 1800 px)
    [0] link "Home"
    [5] combobox "Colour" value="Any colour" options=["Any colour", "Black", ...]
    [9] button "Add to cart" (disabled)
        text "Only 3 left"

Interactive elements carry the index that actions use (`click(9)`); plain text has none.
Like the token view, it shows only what is visible and never an instrumentation id.
"""

from __future__ import annotations

import unicodedata

from gymnasium import spaces

from webfactory_env.core import dom as f
from webfactory_env.core.dom import DomSnapshot

# Printable ASCII and the typographic characters the sites use; anything else is folded
# to ASCII where Unicode allows it, or shown as "?", so the observation fits its space.
TEXT_CHARSET = frozenset(chr(c) for c in range(32, 127)) | frozenset("\n’‘“”–—…€£×·★✓▾▲▼‹›−•é")
STATE_WORDS = (
    (f.DISABLED, "disabled"),
    (f.CHECKED, "checked"),
    (f.FOCUSED, "focused"),
    (f.OCCLUDED, "covered"),
    (f.READONLY, "read-only"),
)


def text_space(max_chars: int) -> spaces.Text:
    return spaces.Text(max_length=max_chars, min_length=0, charset=TEXT_CHARSET)


def _clean(text: str) -> str:
    out = []
    for ch in text:
        if ch in TEXT_CHARSET:
            out.append(ch)
            continue
        folded = unicodedata.normalize("NFKD", ch).encode("ascii", "ignore").decode()
        out.append(folded if folded and all(c in TEXT_CHARSET for c in folded) else "?")
    return "".join(out)


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def render_text(dom: DomSnapshot, max_chars: int = 8000) -> str:
    """The page as lines, cut to `max_chars` (a final line says how much was left out)."""
    head = (
        f"Page: {dom.title}  ({dom.route}, scrolled {dom.scroll_y} of "
        f"{max(dom.scroll_height - dom.viewport[1], 0)} px)"
    )
    lines = [head]
    for i in range(len(dom)):
        flags = dom.flags[i]
        text = dom.texts[i]
        if flags & f.TEXT:
            lines.append(f"    text {_quote(text)}")
            continue
        parts = [f"[{i}] {dom.roles[i]} {_quote(text)}"]
        if dom.values[i]:
            parts.append(f"value={_quote(dom.values[i])}")
        options = dom.options[i]
        if options:
            parts.append("options=[" + ", ".join(_quote(o) for o in options) + "]")
        states = [word for bit, word in STATE_WORDS if flags & bit]
        if states:
            parts.append("(" + ", ".join(states) + ")")
        lines.append(" ".join(parts))
    if dom.can_scroll_down:
        lines.append("(more below: scroll(down))")
    out = _clean("\n".join(lines))
    if len(out) > max_chars:
        note = "\n(cut: the page is longer)"
        out = out[: max_chars - len(note)].rsplit("\n", 1)[0] + note
    return out
