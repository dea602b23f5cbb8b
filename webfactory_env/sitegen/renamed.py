"""State paths a family renamed or replaced: what an old task's `State(...)` path means now.

A task file says which state it checks by path (`itinerary.status = "booked"`). When a
family's state model moves something (the booking became a trip of its own), the old
path must keep its meaning, never silently change it: the family lists the change once, as
a `RenamedPath`, and the compiler rewrites the old condition to the new one and warns,
naming the new spelling and the version the change came in.

    RenamedPath("itinerary.status", "booking.status", since="travel 2",
                value="booked", new_value="upcoming", why="a booking is a trip now")

`value` limits an entry to one old value (the path itself is still current for others);
`*` in a path stands for an entity key (`cards[c].list` → `cards[c].column`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

ANY_VALUE: Any = object()


@dataclass(frozen=True)
class RenamedPath:
    """An old state path (or one old value of it) and what it is written as now."""

    old: str
    new: str
    since: str  # the family and version it changed in ("travel 2")
    why: str = ""
    value: Any = ANY_VALUE  # only conditions comparing to this value (with `=`)
    new_value: Any = ANY_VALUE  # the value the new path compares to (default: the same)

    def rewrite(self, path: Sequence[Any], value: Any) -> tuple[tuple[Any, ...], Any]:
        """The new path (the old one's entity keys carried over for `*`) and the value to
        compare it to."""
        keys = iter(p for p, o in zip(path, self.old.split("."), strict=True) if o == "*")
        new_path = tuple(next(keys) if part == "*" else part for part in self.new.split("."))
        return new_path, value if self.new_value is ANY_VALUE else self.new_value

    def message(self) -> str:
        """The deprecation warning: what is old, since when, why, and what to write now."""
        if self.value is ANY_VALUE:
            old, new = f"`{self.old}`", f"`{self.new}`"
        else:
            old = f"`{self.old} = {_quoted(self.value)}`"
            shown = self.value if self.new_value is ANY_VALUE else self.new_value
            new = f"`{self.new} = {_quoted(shown)}`"
        why = f" ({self.why})" if self.why else ""
        return f"{old} is deprecated since {self.since}{why}: write {new}"


def _quoted(value: Any) -> str:
    return f'"{value}"' if isinstance(value, str) else str(value).lower()


def renamed_for(
    table: Sequence[RenamedPath], shape: Sequence[str], op: str, value: Any
) -> RenamedPath | None:
    """The entry of `table` that `path op value` is written in, if any; `shape` is the
    path with its entity keys written `*`."""
    for entry in table:
        old = entry.old.split(".")
        if len(old) != len(shape) or any(o != p for o, p in zip(old, shape, strict=True)):
            continue
        if entry.value is ANY_VALUE or (op == "=" and value == entry.value):
            return entry
    return None
