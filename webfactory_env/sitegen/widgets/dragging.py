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

from collections.abc import Callable, Sequence

from webfactory_env.sitegen.binding import Binding
from webfactory_env.sitegen.html import attrs, esc
from webfactory_env.sitegen.widgets.fields import SyntheticFile


def draggable(*, sid: str, key: str, bind: Binding) -> str:
    """Instrumentation of a draggable item (for its outermost element)."""
    return attrs(data_wf_drag=bind.handler, data_wf_da=bind.arg, data_wf_ds=sid, data_wf_dk=key)


def drop_zone(*, name: str, value: str) -> str:
    """Instrumentation of a drop zone: a drop on it sends `name=value` (and the place)."""
    return attrs(data_wf_drop=value, data_wf_dn=name)


def file_drop(
    *,
    field: str,
    label: str,
    tray_label: str,
    files: Sequence[SyntheticFile],
    drop: Callable[[SyntheticFile], Binding],
) -> str:
    """A zone to drop a file on, beside a file field's upload button, and the tray of files
    that can be dropped there; a drop does what choosing the file with the button does
    (`drop(file)` binds the transition that does it).

    What a drop is here: the files are site data (`SyntheticFile`), not the visitor's, and
    an agent acting through a mouse cannot carry a file from outside the browser (nor
    Playwright's mouse an OS drag). So the page offers the files as chips in a "recent
    files" tray, as a desktop's file manager or an upload dialog's recent list would, and a
    chip dragged onto the zone drops that file; the button's picker stays the keyboard's
    way. The zone and the chips are instrumentation only: no affordance is added."""
    chips = "".join(
        f"<li{draggable(sid=f'file:{field}:{f.name}', key=f.name, bind=drop(f))}"
        f' class="file-chip">{esc(f.name)} <small class="muted">{f.size_kb} KB</small></li>'
        for f in files
    )
    return (
        f'<div{drop_zone(name="field", value=field)} class="file-drop">{esc(label)}</div>'
        f'<div class="file-tray"><span class="muted">{esc(tray_label)}</span>'
        f'<ul class="file-chips">{chips}</ul></div>'
    )
