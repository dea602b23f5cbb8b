"""The DOM snapshot the browser runtime returns each step (executor → observation, actions)."""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

# Flag bits, mirrored in sites/runtime/observe.js. The states are what a screen reader
# announces: CHECKABLE marks a widget with an on/off state (checkbox, radio, switch, toggle
# button) whose CHECKED bit then means checked, on or pressed; EXPANDABLE one that opens and
# closes (EXPANDED: open); SELECTED a chosen tab, option or calendar day; CURRENT the current
# page of a pager or a navigation.
CLICKABLE = 1
EDITABLE = 2
SELECTABLE = 4
DISABLED = 8
CHECKED = 16
FOCUSED = 32
OCCLUDED = 64
IN_FORM = 128
READONLY = 256
LINK = 512
TEXT = 1024
SELECTED = 2048
CHECKABLE = 4096
EXPANDABLE = 8192
EXPANDED = 16384
CURRENT = 32768
FLAG_NAMES = (
    "clickable",
    "editable",
    "selectable",
    "disabled",
    "checked",
    "focused",
    "occluded",
    "in_form",
    "readonly",
    "link",
    "text",
    "selected",
    "checkable",
    "expandable",
    "expanded",
    "current",
)
# Containers that are one entry of a list or table: a list item, a table row, a card.
ITEM_ROLES = frozenset({"listitem", "row", "article"})


Box = tuple[int, int, int, int]  # left, top, width, height in viewport pixels


@dataclass(frozen=True, slots=True)
class DragItem:
    """A draggable item on the page (`sitegen.widgets.dragging`): the transition a drop of
    it sends (handler and argument), its semantic id, its key among the items, its box."""

    handler: str
    arg: str | None
    sid: str | None
    key: str | None
    box: Box


@dataclass(frozen=True, slots=True)
class DropZone:
    """A drop zone on the page: a drop on it sends `name=value` (and the place), its box."""

    name: str
    value: str
    box: Box


@dataclass(frozen=True, slots=True)
class DomSnapshot:
    """Visible elements of the page in document order (struct of arrays), plus page facts.

    `sids`, `secrets`, `offscreen`, `drag_items` and `drop_zones` are the side table:
    semantic ids of the observed elements, whether each is a secret field (its values are
    redacted from traces), the direction (-1 above, +1 below) of instrumented elements out
    of view, and where the page's draggable items and drop zones are, in view or not. They
    are for the reward, the oracle and traces only and never enter an agent's observation.
    """

    tags: tuple[str, ...]
    roles: tuple[str, ...]
    texts: tuple[str, ...]
    values: tuple[str, ...]
    boxes: tuple[tuple[int, int, int, int], ...]
    flags: tuple[int, ...]
    options: tuple[tuple[str, ...] | None, ...]
    sids: tuple[str | None, ...]
    secrets: tuple[bool, ...]
    offscreen: Mapping[str, int]
    scroll_y: int
    scroll_height: int
    viewport: tuple[int, int]
    route: str
    title: str
    can_back: bool
    # The page's structure, as an accessibility tree shows it: containers (landmarks, forms,
    # dialogs, lists and their items, tables and their rows, cards) as (role, name, parent
    # index or -1), each element's innermost container (-1: none), the name of the table
    # column it is in ("" outside tables) and, outside tables, what labels its value (a
    # definition's term, a term's definition, its aria-labelledby text).
    groups: tuple[tuple[str, str, int], ...] = ()
    group_of: tuple[int, ...] = ()
    columns: tuple[str, ...] = ()
    labels: tuple[str, ...] = ()
    drag_items: tuple[DragItem, ...] = ()
    drop_zones: tuple[DropZone, ...] = ()

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> DomSnapshot:
        el = data["elements"]
        return cls(
            tags=tuple(el["tag"]),
            roles=tuple(el["role"]),
            texts=tuple(el["text"]),
            values=tuple(el["value"]),
            boxes=tuple(tuple(b) for b in el["box"]),
            flags=tuple(el["flags"]),
            options=tuple(tuple(o) if o is not None else None for o in el["options"]),
            sids=tuple(el["sid"]),
            secrets=tuple(bool(x) for x in el.get("secret", [False] * len(el["sid"]))),
            offscreen=dict(data["offscreen"]),
            scroll_y=int(data["scroll_y"]),
            scroll_height=int(data["scroll_height"]),
            viewport=(int(data["viewport"][0]), int(data["viewport"][1])),
            route=str(data["route"]),
            title=str(data["title"]),
            can_back=bool(data["can_back"]),
            groups=_groups(data.get("groups")),
            group_of=tuple(int(g) for g in el.get("group", ())),
            columns=tuple(str(c) for c in el.get("column", ())),
            labels=tuple(str(c) for c in el.get("label", ())),
            **_drags(data.get("drags")),
        )

    def __len__(self) -> int:
        return len(self.tags)

    def has(self, index: int, flag: int) -> bool:
        return 0 <= index < len(self.flags) and bool(self.flags[index] & flag)

    def index_of(self, sid: str) -> int | None:
        try:
            return self.sids.index(sid)
        except ValueError:
            return None

    def center(self, index: int) -> tuple[float, float]:
        """Where a click on element `index` lands: the middle of its part inside the viewport.

        An element whose middle sits on the viewport's last row is listed, but Chromium
        rounds a click there to a point outside the page, where it hits nothing."""
        x, y, w, h = self.boxes[index]
        vw, vh = self.viewport
        left, right = max(x, 0.0), min(x + w, float(vw))
        top, bottom = max(y, 0.0), min(y + h, float(vh))
        cx = (left + right) / 2 if right > left else x + w / 2
        cy = (top + bottom) / 2 if bottom > top else y + h / 2
        return min(max(cx, 0.0), vw - 1.0), min(max(cy, 0.0), vh - 1.0)

    def item_of(self, index: int) -> int:
        """The list item, table row or card element `index` belongs to (its container
        index), or -1: what ties a "Log out" button to its device, a count to its thread."""
        return self._item_of_group(self._group(index))

    def items(self, count: int) -> list[int]:
        """`item_of` of the first `count` elements, each container's chain walked once."""
        memo: dict[int, int] = {}
        out = []
        for group in self._groups(count):
            if group not in memo:
                memo[group] = self._item_of_group(group)
            out.append(memo[group])
        return out

    def _group(self, index: int) -> int:
        return self.group_of[index] if 0 <= index < len(self.group_of) else -1

    def _groups(self, count: int) -> list[int]:
        """`_group` of the first `count` elements."""
        known = list(self.group_of[: max(count, 0)])
        return known + [-1] * (count - len(known))

    def _item_of_group(self, group: int) -> int:
        seen: set[int] = set()
        while 0 <= group < len(self.groups) and group not in seen:
            if self.groups[group][0] in ITEM_ROLES:
                return group
            seen.add(group)
            group = self.groups[group][2]
        return -1

    def item_label(self, index: int) -> str:
        """What names the entry element `index` belongs to: the first other text of its item
        (a row's first cell, a card's title), or "" outside items."""
        item = self.item_of(index)
        if item < 0:
            return ""
        for i in range(len(self)):
            if i != index and self.texts[i] and self.item_of(i) == item:
                return self.texts[i]
        return ""

    def heading_of(self, index: int) -> int:
        """The last heading before element `index` in document order, or -1."""
        for i in range(min(index, len(self)) - 1, -1, -1):
            if self.roles[i] == "heading":
                return i
        return -1

    def column(self, index: int) -> str:
        return self.columns[index] if 0 <= index < len(self.columns) else ""

    def label(self, index: int) -> str:
        """What names the value element `index` shows: its table column, or the label the
        page gives it elsewhere ("Reputation" for the "5243" beside it); "" when none."""
        column = self.column(index)
        if column:
            return column
        return self.labels[index] if 0 <= index < len(self.labels) else ""

    def value_labels(self, count: int) -> list[str]:
        """`label` of the first `count` elements."""
        columns, labels = self.columns[:count], self.labels[:count]
        out = [c or lab for c, lab in itertools.zip_longest(columns, labels, fillvalue="")]
        return out + [""] * (count - len(out))

    def container_heading(self, index: int) -> str:
        """The title of the part of the page element `index` is in: its innermost named
        container that is not an entry (a table's caption, a form's legend, a region's
        label), else the text of the last heading before it; "" when none."""
        named = self._named_container(self._group(index))
        if named is not None:
            return named
        heading = self.heading_of(index)
        return self.texts[heading] if heading >= 0 else ""

    def container_headings(self, count: int) -> list[str]:
        """`container_heading` of the first `count` elements, in one pass: each container's
        chain walked once, the last heading carried along."""
        memo: dict[int, str | None] = {}
        out, heading = [], ""
        count = min(count, len(self))
        groups = self._groups(count)
        for group, role, text in zip(groups, self.roles[:count], self.texts[:count], strict=True):
            if group not in memo:
                memo[group] = self._named_container(group)
            named = memo[group]
            out.append(heading if named is None else named)
            if role == "heading":
                heading = text
        return out

    def _named_container(self, group: int) -> str | None:
        seen: set[int] = set()
        while 0 <= group < len(self.groups) and group not in seen:
            role, name, parent = self.groups[group]
            if name and role not in ITEM_ROLES:
                return name
            seen.add(group)
            group = parent
        return None

    def same_page(self, other: DomSnapshot) -> bool:
        """Whether `other` shows what this snapshot shows: the same page, scrolled alike,
        with the same elements, words, values, boxes and states."""
        return (
            self.route == other.route
            and self.scroll_y == other.scroll_y
            and self.title == other.title
            and self.texts == other.texts
            and self.values == other.values
            and self.flags == other.flags
            and self.boxes == other.boxes
            and self.options == other.options
        )

    @property
    def can_scroll_down(self) -> bool:
        return self.scroll_y + self.viewport[1] < self.scroll_height - 1

    @property
    def can_scroll_up(self) -> bool:
        return self.scroll_y > 0

    def to_json(self) -> dict[str, Any]:
        """Compact agent-visible form for traces (no semantic ids)."""
        return {
            "route": self.route,
            "title": self.title,
            "scroll_y": self.scroll_y,
            "elements": [
                [t, r, x, v, list(b), f]
                for t, r, x, v, b, f in zip(
                    self.tags,
                    self.roles,
                    self.texts,
                    self.values,
                    self.boxes,
                    self.flags,
                    strict=True,
                )
            ],
        }


def _groups(data: Mapping[str, Any] | None) -> tuple[tuple[str, str, int], ...]:
    if not data:
        return ()
    return tuple(
        (str(r), str(n), int(p))
        for r, n, p in zip(data["role"], data["name"], data["parent"], strict=True)
    )


def _drags(data: Mapping[str, Any] | None) -> dict[str, Any]:
    if not data:
        return {}
    return {
        "drag_items": tuple(
            DragItem(d["handler"], d["arg"], d["sid"], d["key"], _box(d["box"]))
            for d in data["items"]
        ),
        "drop_zones": tuple(
            DropZone(str(z["name"]), str(z["value"]), _box(z["box"])) for z in data["zones"]
        ),
    }


def _box(b: Any) -> Box:
    return (int(b[0]), int(b[1]), int(b[2]), int(b[3]))
