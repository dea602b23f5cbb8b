"""The `text` observation: the page as an indexed tree, with the goal and the last step.

What a language model needs each step, cut to a size budget (`max_chars`):

    Goal: Buy the cheapest red mug and ship it to Alice Nguyen, 123 Market St.
    Values: "Alice Nguyen", "123 Market St"
    Step 2 of 64. Last action: click [3] link 'Shop' -> done
    Page: Catalog · Maple Goods  (/shop, scrolled 0 of 1800 px)
    banner
      [0] link "Home"
      navigation "Main"
        [1] link "Shop"
    main
      heading "Catalog"
      form "Filters"
        [5] combobox "Colour" value="Any colour" options=["Any colour", "Black", ...]
      [9] button "Add to cart" (disabled)
      text "Only 3 left"
    (more below: scroll(down))

Interactive elements carry the index that actions use (`click(9)`); text and containers have
none. Like the token view, it shows only what is visible and never an instrumentation id.
When the page does not fit `max_chars`, long text is shortened first, then plain text
lines are elided, then option lists and names are shortened; interactive elements go last.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

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
INDENT = "  "


@dataclass(frozen=True)
class StepContext:
    """What the text observation says besides the page: the goal and its values, and how the
    last action went. `last_action` is the action as the env described it (secret values
    already `REDACTED`); `last_error` says why it was refused, None when it was carried out."""

    goal: str = ""
    values: tuple[str, ...] = ()
    step: int = 0
    max_steps: int = 0
    last_action: str | None = None
    last_error: str | None = None


@dataclass(frozen=True)
class _Budget:
    """How much of the page to show: one rung of the ladder `render_text` climbs down."""

    text_chars: int | None  # plain text lines cut to this (None: whole)
    drop_text: bool  # elide plain text lines altogether
    name_chars: int | None  # names of interactive elements cut to this
    options: int | None  # options listed per dropdown


LADDER = (
    _Budget(None, False, None, None),
    _Budget(80, False, None, 12),
    _Budget(32, False, 80, 6),
    _Budget(None, True, 60, 6),
    _Budget(None, True, 32, 3),
    _Budget(None, True, 20, 0),
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


def _cut(text: str, limit: int | None) -> str:
    return text if limit is None or len(text) <= limit else text[: max(limit - 1, 1)] + "…"


def page_header(dom: DomSnapshot) -> str:
    return (
        f"Page: {dom.title}  ({dom.route}, scrolled {dom.scroll_y} of "
        f"{max(dom.scroll_height - dom.viewport[1], 0)} px)"
    )


def element_line(dom: DomSnapshot, i: int, budget: _Budget = LADDER[0]) -> str | None:
    """Element `i` as one line (no indent); None for a plain text line the budget elides."""
    flags = dom.flags[i]
    if flags & f.TEXT:
        if budget.drop_text:
            return None
        role = dom.roles[i] if dom.roles[i] not in ("", "text", "generic") else "text"
        return f"{role} {_quote(_cut(dom.texts[i], budget.text_chars))}"
    parts = [f"[{i}] {dom.roles[i]} {_quote(_cut(dom.texts[i], budget.name_chars))}"]
    if dom.values[i]:
        parts.append(f"value={_quote(_cut(dom.values[i], budget.name_chars))}")
    options = dom.options[i]
    if options and budget.options != 0:
        shown = list(options if budget.options is None else options[: budget.options])
        more = len(options) - len(shown)
        listed = ", ".join(_quote(_cut(o, budget.name_chars)) for o in shown)
        parts.append(f"options=[{listed}{f', … +{more} more' if more else ''}]")
    elif options:
        parts.append(f"({len(options)} options)")
    states = [word for bit, word in STATE_WORDS if flags & bit]
    if states:
        parts.append("(" + ", ".join(states) + ")")
    return " ".join(parts)


def _chain(dom: DomSnapshot, group: int) -> list[int]:
    """Container indices from the outermost down to `group`."""
    out: list[int] = []
    seen: set[int] = set()
    while 0 <= group < len(dom.groups) and group not in seen:
        seen.add(group)
        out.append(group)
        group = dom.groups[group][2]
    return out[::-1]


def _group_line(dom: DomSnapshot, g: int) -> str:
    role, name, _ = dom.groups[g]
    return f"{role} {_quote(name)}" if name else role


def page_lines(dom: DomSnapshot, budget: _Budget = LADDER[0]) -> list[str]:
    """The visible page as indented lines: containers, then the elements inside them."""
    lines: list[str] = []
    open_groups: list[int] = []
    elided = 0
    for i in range(len(dom)):
        line = element_line(dom, i, budget)
        if line is None:
            elided += 1
            continue
        chain = _chain(dom, dom.group_of[i]) if i < len(dom.group_of) else []
        keep = 0
        while keep < min(len(open_groups), len(chain)) and open_groups[keep] == chain[keep]:
            keep += 1
        open_groups = open_groups[:keep]
        for g in chain[keep:]:
            lines.append(INDENT * len(open_groups) + _group_line(dom, g))
            open_groups.append(g)
        lines.append(INDENT * len(open_groups) + line)
    if elided:
        lines.append(f"({elided} line{'s' if elided > 1 else ''} of text left out to fit)")
    if dom.can_scroll_down:
        lines.append("(more below: scroll(down))")
    return lines


def render_text(dom: DomSnapshot, max_chars: int = 8000) -> str:
    """The page as a tree of lines, fitted to `max_chars` (see the module docstring)."""
    head = _clean(page_header(dom))
    for budget in LADDER:
        out = _clean("\n".join([head, *page_lines(dom, budget)]))
        if len(out) <= max_chars:
            return out
    note = "\n(cut: the page is longer; scroll to see the rest)"
    return out[: max(max_chars - len(note), 0)].rsplit("\n", 1)[0] + note


def context_lines(context: StepContext, max_chars: int) -> list[str]:
    """The goal, its values and how the last action went, within `max_chars` together."""
    values = ", ".join(_quote(_cut(v, 120)) for v in context.values)
    if context.step == 0 or (context.last_action is None and context.last_error is None):
        last = "none yet"
    else:
        action = context.last_action or "(not an action)"
        result = f"refused: {context.last_error}" if context.last_error else "done"
        last = f"{_cut(action, 200)} -> {_cut(result, 300)}"
    budget = f" of {context.max_steps}" if context.max_steps else ""
    tail = [f"Values: {values or '(none)'}", f"Step {context.step}{budget}. Last action: {last}"]
    room = max(max_chars - sum(len(t) + 1 for t in tail) - len("Goal: "), 40)
    return [f"Goal: {_cut(' '.join(context.goal.split()), room)}", *tail]


def render_observation(dom: DomSnapshot, context: StepContext | None, max_chars: int = 8000) -> str:
    """The text observation: `context` (goal, values, last action) above the page tree, all
    within `max_chars`; the page gets what the context leaves (at least half)."""
    if context is None:
        return render_text(dom, max_chars)
    head = _clean("\n".join(context_lines(context, max_chars // 2)))
    page = render_text(dom, max(max_chars - len(head) - 1, 0))
    return (head + "\n" + page)[:max_chars]


def group_path(dom: DomSnapshot, i: int) -> Sequence[tuple[str, str]]:
    """(role, name) of the containers element `i` sits in, outermost first."""
    group = dom.group_of[i] if i < len(dom.group_of) else -1
    return [(dom.groups[g][0], dom.groups[g][1]) for g in _chain(dom, group)]
