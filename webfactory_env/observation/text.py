"""The `text` observation: the page as an indexed tree, with the goal and the last step.

What a language model needs each step — what a screen-reader user would hear — within a
size budget (`max_chars`):

    Goal: Log out of the session on Firefox on Linux, then turn off marketing emails.
    Values: (none)
    Step 2 of 64. Last action: click [3] link "Security" -> done
    Page: Security · Keystone  (/security, scrolled 0 of 420 px)
    main
      heading "Signed-in devices"
      table "Devices"
        row
          columnheader "Device"
          columnheader "Last active"
        row
          cell "Firefox on Linux" column="Device"
          cell "2 days ago" column="Last active"
          [7] button "Log out"
      [9] switch "Marketing emails" (on)
      list "Threads"
        - [12] link "Ferry times in winter"
          text "12 replies"
    (more below: scroll(down))

Interactive elements carry the index that actions use (`click(9)`); text and containers
have none. Table rows are `row` containers with their cells (and each cell's column name);
list items and cards are "- " entries holding what belongs to them; widget states are in
parentheses. Like the token view it shows only what is visible and never an
instrumentation id. Every character a page shows is kept (only control characters go).

When the page does not fit `max_chars`, the budget ladder shortens it, always visibly:
first the longest text lines are shortened (to the longest length that fits, never below
40 characters; each cut ends in "…" and says how much was left out) and option lists to
12 options; then text lines are left out (counted in a note) and names and options are
shortened by steps; interactive elements go last, and only by cutting lines from the
bottom, with a note saying how many.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from webfactory_env.core import dom as f
from webfactory_env.core.dom import ITEM_ROLES, DomSnapshot
from webfactory_env.core.text import CONTROL, UnicodeText

INDENT = "  "
BULLET = "- "
# Role words a text line does not repeat (a list item's text is inside its "- " entry).
PLAIN_ROLES = frozenset({"", "text", "generic", "listitem"})
STATE_WORDS = (
    (f.SELECTED, "selected"),
    (f.CURRENT, "current"),
    (f.FOCUSED, "focused"),
    (f.OCCLUDED, "covered"),
    (f.READONLY, "read-only"),
)
# The on/off state as a screen reader says it, by role: (on, off).
TOGGLE_WORDS = {"switch": ("on", "off"), "button": ("pressed", "not pressed")}


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
    name_chars: int | None  # names and values of interactive elements cut to this
    options: int | None  # options listed per dropdown


WHOLE = _Budget(None, False, None, None)
SHORTEST_TEXT = 40  # the shortest a text line is cut to before text lines are left out
# After the first two rungs (everything whole; text lines shortened as little as fits).
LADDER = (
    _Budget(None, True, None, 12),
    _Budget(None, True, 60, 6),
    _Budget(None, True, 32, 3),
    _Budget(None, True, 20, 0),
)


def text_space(max_chars: int) -> UnicodeText:
    return UnicodeText(max_chars)


def clean(text: str) -> str:
    """`text` as the model gets it: every character kept but control characters (a tab is
    a space; newlines stay)."""
    return CONTROL.sub("", text.replace("\t", " "))


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _head(text: str, size: int) -> str:
    """The first `size` characters of `text`, ending at a word's end when one is near."""
    head = text[: max(size, 1)]
    space = head.rfind(" ", max(len(head) - 20, 1))
    return (head[:space] if space > 0 else head).rstrip()


def cut(text: str, limit: int | None) -> str:
    """`text` quoted, whole or cut to about `limit` characters with the cut marked: "…" and
    how many characters were left out."""
    if limit is None or len(text) <= limit:
        return _quote(text)
    head = _head(text, limit - 1)
    return f"{_quote(head + '…')} (+{len(text) - len(head)} chars)"


def page_header(dom: DomSnapshot) -> str:
    return (
        f"Page: {dom.title}  ({dom.route}, scrolled {dom.scroll_y} of "
        f"{max(dom.scroll_height - dom.viewport[1], 0)} px)"
    )


def states(dom: DomSnapshot, i: int) -> list[str]:
    """Element `i`'s states in the words a screen reader uses."""
    flags, role = dom.flags[i], dom.roles[i]
    out = ["disabled"] if flags & f.DISABLED else []
    if flags & f.CHECKABLE:
        on, off = TOGGLE_WORDS.get(role, ("checked", "not checked"))
        out.append(on if flags & f.CHECKED else off)
    elif flags & f.CHECKED:
        out.append("checked")
    if flags & f.EXPANDABLE:
        out.append("expanded" if flags & f.EXPANDED else "collapsed")
    out += [word for bit, word in STATE_WORDS if flags & bit]
    return out


def element_line(dom: DomSnapshot, i: int, budget: _Budget = WHOLE) -> str | None:
    """Element `i` as one line (no indent); None for a plain text line the budget elides."""
    flags = dom.flags[i]
    if flags & f.TEXT:
        if budget.drop_text:
            return None
        role = "text" if dom.roles[i] in PLAIN_ROLES else dom.roles[i]
        parts = [f"{role} {cut(dom.texts[i], budget.text_chars)}"]
        column = dom.column(i)
        if column and column != dom.texts[i] and role != "columnheader":
            parts.append(f"column={_quote(column)}")
    else:
        parts = [f"[{i}] {dom.roles[i]} {cut(dom.texts[i], budget.name_chars)}"]
        if dom.values[i]:
            parts.append(f"value={cut(dom.values[i], budget.name_chars)}")
        options = dom.options[i]
        if options and budget.options != 0:
            shown = list(options if budget.options is None else options[: budget.options])
            more = len(options) - len(shown)
            listed = ", ".join(cut(o, budget.name_chars) for o in shown)
            parts.append(f"options=[{listed}{f', … +{more} more' if more else ''}]")
        elif options:
            parts.append(f"({len(options)} options)")
    said = states(dom, i)
    if said:
        parts.append("(" + ", ".join(said) + ")")
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


def _group_line(dom: DomSnapshot, g: int) -> str | None:
    """A container's own line; None for an unnamed list item or card (its first line
    carries the "- " instead)."""
    role, name, _ = dom.groups[g]
    if role in ITEM_ROLES and role != "row" and not name:
        return None
    return f"{role} {_quote(name)}" if name else role


def page_lines(dom: DomSnapshot, budget: _Budget = WHOLE) -> list[str]:
    """The visible page as indented lines: containers, then the elements inside them."""
    lines: list[str] = []
    open_groups: list[int] = []
    bullet = False  # the next line opens a list item or card
    elided = 0

    def emit(line: str) -> None:
        nonlocal bullet
        indent = INDENT * len(open_groups)
        if bullet and indent:
            indent = indent[: -len(BULLET)] + BULLET
            bullet = False
        lines.append(indent + line)

    for i in range(len(dom)):
        line = element_line(dom, i, budget)
        if line is None:
            elided += 1
            continue
        chain = group_chain(dom, i)
        keep = 0
        while keep < min(len(open_groups), len(chain)) and open_groups[keep] == chain[keep]:
            keep += 1
        open_groups = open_groups[:keep]
        for g in chain[keep:]:
            head = _group_line(dom, g)
            if head is not None:
                emit(head)
            open_groups.append(g)
            if dom.groups[g][0] in ITEM_ROLES and dom.groups[g][0] != "row":
                bullet = True
        emit(line)
    if elided:
        lines.append(f"({elided} line{'s' if elided > 1 else ''} of text left out to fit)")
    if dom.can_scroll_down:
        lines.append("(more below: scroll(down))")
    return lines


def _render(dom: DomSnapshot, budget: _Budget) -> str:
    return clean("\n".join([page_header(dom), *page_lines(dom, budget)]))


def _longest_text_that_fits(dom: DomSnapshot, max_chars: int) -> str | None:
    """The page with its text lines cut to the longest length that fits `max_chars` (the
    longest lines are cut first; none below `SHORTEST_TEXT`), or None if none does."""
    longest = max((len(dom.texts[i]) for i in range(len(dom)) if dom.flags[i] & f.TEXT), default=0)
    budget = _Budget(SHORTEST_TEXT, False, None, 12)
    best = _render(dom, budget)
    if len(best) > max_chars:
        return None
    lo, hi = SHORTEST_TEXT, longest  # lo fits; find the largest limit that does
    while lo < hi:
        mid = (lo + hi + 1) // 2
        out = _render(dom, replace(budget, text_chars=mid))
        if len(out) <= max_chars:
            lo, best = mid, out
        else:
            hi = mid - 1
    return best


def render_text(dom: DomSnapshot, max_chars: int = 8000) -> str:
    """The page as a tree of lines, fitted to `max_chars` (see the module docstring)."""
    out = _render(dom, WHOLE)
    if len(out) <= max_chars:
        return out
    fitted = _longest_text_that_fits(dom, max_chars)
    if fitted is not None:
        return fitted
    for budget in LADDER:
        out = _render(dom, budget)
        if len(out) <= max_chars:
            return out
    lines = out.split("\n")
    kept: list[str] = []
    size = 0
    for k, line in enumerate(lines):
        note = f"(cut: {len(lines) - k} more lines of the page; scroll(down) shows them)"
        if size + len(line) + 1 + len(note) > max_chars:
            return "\n".join([*kept, note])[:max_chars]
        kept.append(line)
        size += len(line) + 1
    return out  # pragma: no cover - the loop returns when the page does not fit


def context_lines(context: StepContext, max_chars: int) -> list[str]:
    """The goal, its values and how the last action went, within `max_chars` together (the
    values whole unless they alone would not fit; any cut is marked)."""
    if context.step == 0 or (context.last_action is None and context.last_error is None):
        last = "none yet"
    else:
        action = context.last_action or "(not an action)"
        result = f"refused: {context.last_error}" if context.last_error else "done"
        last = f"{shortened(action, 300)} -> {shortened(result, 400)}"
    steps = f" of {context.max_steps}" if context.max_steps else ""
    last_line = f"Step {context.step}{steps}. Last action: {last}"
    values = ", ".join(_quote(v) for v in context.values)
    if len(values) > max_chars // 2:
        each = max(max_chars // 2 // max(len(context.values), 1) - 16, 8)
        values = ", ".join(cut(v, each) for v in context.values)
    values_line = f"Values: {values or '(none)'}"
    room = max(max_chars - len(values_line) - len(last_line) - 2 - len("Goal: "), 40)
    return [f"Goal: {shortened(' '.join(context.goal.split()), room)}", values_line, last_line]


def shortened(text: str, limit: int) -> str:
    """`text` (unquoted), cut to about `limit` characters with the cut marked."""
    if len(text) <= limit:
        return text
    head = _head(text, limit - 20)
    return f"{head}… (+{len(text) - len(head)} chars)"


def render_observation(dom: DomSnapshot, context: StepContext | None, max_chars: int = 8000) -> str:
    """The text observation: `context` (goal, values, last action) above the page tree, all
    within `max_chars`; the page gets what the context leaves (at least half)."""
    if context is None:
        return render_text(dom, max_chars)
    head = clean("\n".join(context_lines(context, max_chars // 2)))
    page = render_text(dom, max(max_chars - len(head) - 1, 0))
    return head + "\n" + page


def group_chain(dom: DomSnapshot, i: int) -> list[int]:
    """The containers element `i` sits in (their indices), outermost first."""
    return _chain(dom, dom.group_of[i] if i < len(dom.group_of) else -1)
