"""Drag and drop: items a person drags with the mouse, and the zones they drop them on.

An item carries the transition a drop sends (its `bind`), the semantic id the trace names
it by and a key for the other items to refer to it; a zone carries the value a drop on it
sends and that value's name. The page runtime does the rest (`sites/runtime/runtime.js`,
"drag and drop"): pressed on an item, moved a few pixels, released over a zone, it sends
the item's transition a `submit` with `{name: value, "place": ...}`, where the place is
`"top"`, `"before:<key>"` (the item the pointer was above) or `"last"` — the same event
the keyboard alternative (a form with a choice and a button) sends, so the app sees one
change however it was made. None of this is an affordance: the element an agent acts on
is the item's own link or button, and the keyboard alternative stays on the page.
"""

from __future__ import annotations

from webfactory_env.sitegen.binding import Binding
from webfactory_env.sitegen.html import attrs


def draggable(*, sid: str, key: str, bind: Binding) -> str:
    """Instrumentation of a draggable item (for its outermost element)."""
    return attrs(data_wf_drag=bind.handler, data_wf_da=bind.arg, data_wf_ds=sid, data_wf_dk=key)


def drop_zone(*, name: str, value: str) -> str:
    """Instrumentation of a drop zone: a drop on it sends `name=value` (and the place)."""
    return attrs(data_wf_drop=value, data_wf_dn=name)
