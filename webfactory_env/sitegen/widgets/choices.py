"""Choices: one choice in four styles (select, radio, menu, typeahead), toggles, checkbox groups."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from webfactory_env.core.predicates import Predicate
from webfactory_env.sitegen.binding import Binding, Transition
from webfactory_env.sitegen.html import Renderer, attrs, esc
from webfactory_env.sitegen.spec import AttrValue, Element, Option, Ui
from webfactory_env.sitegen.widgets.common import UI_QUERY, UI_TOGGLE, aria_label, hint, sends


@dataclass(frozen=True)
class ChoiceGroup:
    """One choice as every style draws it: the group's affordance and its options."""

    sid: str
    kind: str
    name: str
    label: str
    options: Sequence[Option]
    selected: str
    handler: str
    arg: str | None
    effect: Predicate | None
    attrs: Mapping[str, AttrValue]
    is_open: bool = False
    hint: str = ""

    def listed(self) -> list[Option]:
        """The options as elements of their own, each with the sid `<sid>=<value>`."""
        return [
            Option(o.value, o.label, o.attrs, o.aliases, sid=f"{self.sid}={o.value}")
            for o in self.options
        ]

    def current_label(self, default: str) -> str:
        return next((o.label for o in self.options if o.value == self.selected), default)


def instrument_group(
    r: Renderer,
    c: ChoiceGroup,
    options: Sequence[Option],
    *,
    element: Element,
    ui: Ui,
    opens: Transition | None = None,
    opener: str | None = None,
) -> str:
    """The choice's own affordance. A control that opens a list sends the UI transition
    that opens it (`opens`); the others report the change to the choice's own."""
    if opens is not None:
        handler, arg = opens.name, opens.encode({"key": c.sid})
    else:
        handler, arg = c.handler, c.arg
    return r.instrument(
        c.sid,
        c.kind,
        "select",
        c.attrs,
        label=c.label,
        handler=handler,
        arg=arg,
        options=options,
        effect=c.effect,
        element=element,
        ui=ui,
        opener=opener,
    )


def instrument_option(r: Renderer, c: ChoiceGroup, o: Option, *, element: Element) -> str:
    """One option as an element of its own. A radio input reports its change itself; a
    listed option is a button whose click reports `change(handler, arg, value)`."""
    assert o.sid is not None
    return r.instrument(
        o.sid,
        "Option",
        "click",
        {"for": c.sid, "value": o.value, "label": o.label, **dict(o.attrs)},
        label=o.label,
        handler=c.handler,
        arg=c.arg,
        element=element,
        value=o.value,
        event="change" if element == "option" else None,
        structural=True,
    )


def _listed_option(r: Renderer, c: ChoiceGroup, o: Option, *, tick: bool) -> str:
    """An option of an open list, ticked (`tick`) when it is the current choice."""
    inst = instrument_option(r, c, o, element="option")
    chosen = o.value == c.selected
    mark = " ✓" if tick and chosen else ""
    return (
        f'<li><button type="button" role="option"'
        f"{attrs(aria_selected='true' if chosen else 'false')}{inst}>"
        f"{esc(o.label)}{mark}</button></li>"
    )


def _native_select(r: Renderer, c: ChoiceGroup) -> str:
    field_id = r.dom_id(f"sel:{c.sid}")
    # a native select's options are entries of one element, not elements of their own
    inst = instrument_group(r, c, c.options, element="select", ui="native")
    opts = "".join(
        f"<option{attrs(value=o.value, selected=o.value == c.selected)}>{esc(o.label)}</option>"
        for o in c.options
    )
    return (
        f'<div class="field"><label for="{field_id}">{esc(c.label)}</label>'
        f"<select{attrs(id=field_id, name=c.name)}{inst}>{opts}</select>{c.hint}</div>"
    )


def _radio_group(r: Renderer, c: ChoiceGroup) -> str:
    listed = c.listed()
    group = instrument_group(r, c, listed, element="group", ui="choice")
    radio_name = r.dom_id(f"radio:{c.sid}")
    items = []
    for o in listed:
        rid = r.dom_id(f"radio:{o.sid}")
        inst = instrument_option(r, c, o, element="radio")
        checked = o.value == c.selected
        items.append(
            f'<label class="radio" for="{rid}"><input type="radio"'
            f"{attrs(id=rid, name=radio_name, value=o.value, checked=checked)}"
            f"{inst}> {esc(o.label)}</label>"
        )
    return (
        f'<fieldset class="field radio-group"{group}><legend>{esc(c.label)}</legend>'
        f"{''.join(items)}{c.hint}</fieldset>"
    )


def _custom_menu(r: Renderer, c: ChoiceGroup) -> str:
    """A button showing the current choice; open, it lists the options."""
    listed = c.listed()
    inst = instrument_group(
        r, c, listed, element="button", ui="menu", opens=UI_TOGGLE, opener=c.sid
    )
    listbox = ""
    if c.is_open:
        entries = "".join(_listed_option(r, c, o, tick=True) for o in listed)
        listbox = f'<ul class="listbox" role="listbox">{entries}</ul>'
    return (
        f'<div class="field menu-field"><span class="label">{esc(c.label)}</span>'
        f'<button type="button" class="menu-button" aria-haspopup="listbox"'
        f"{attrs(aria_expanded='true' if c.is_open else 'false')}{inst}>"
        f"{esc(c.current_label(c.label))} ▾</button>{listbox}{c.hint}</div>"
    )


def _typeahead_choice(r: Renderer, c: ChoiceGroup) -> str:
    """A combobox: typing filters the options (`ui.query`), the ▾ button lists them all
    (`ui.toggle`); picking one reports `change(handler, arg, value)` like the other styles.

    The input has no form `name`: the choice reaches the app through the change event,
    never through the typed text in a submitted form."""
    sid, label = c.sid, c.label
    query = r.queries.get(sid, "") if c.is_open else ""
    listed = c.listed()
    toggle_sid = f"{sid}:list"
    inst = instrument_group(
        r, c, listed, element="input", ui="typeahead", opens=UI_QUERY, opener=toggle_sid
    )
    lists = UI_TOGGLE.bind(key=sid)
    opener = r.instrument(
        toggle_sid,
        "Button",
        "click",
        {"role": "show-options", "for": sid},
        label=label,
        handler=lists.handler,
        arg=lists.arg,  # how the choice is operated, not a goal: no effect of its own
        structural=True,
    )
    fid = r.dom_id(f"cb:{sid}")
    entries = []
    if c.is_open:
        want = query.strip().lower()
        entries = [
            _listed_option(r, c, o, tick=False)
            for o in listed
            if not want or want in o.label.lower() or want == o.value.lower()
        ]
    listbox = f'<ul class="listbox suggestions" role="listbox">{"".join(entries)}</ul>'
    # the input and its list button side by side (inline style: the base CSS has no rule)
    return (
        f'<div class="field typeahead"><label for="{fid}">{esc(label)}</label>'
        '<div style="display:flex;gap:4px;align-items:stretch">'
        "<input"
        + attrs(
            id=fid,
            type="text",
            value=query or c.current_label(""),
            autocomplete="off",
            placeholder=label,
            role="combobox",
            aria_expanded="true" if c.is_open else "false",
            style="flex:1 1 auto;min-width:0",
        )
        + f"{inst}>"
        f'<button type="button" class="secondary" aria-haspopup="listbox"'
        f' style="flex:0 0 auto;width:auto;margin:0"'
        f"{aria_label(r, label)}{opener}>▾</button>"
        f"</div>{c.hint}{r.subregion(f'tc:{sid}', listbox if entries else '')}</div>"
    )


# How each style of the `choice_widget` axis draws a choice.
_STYLES: Mapping[str, Callable[[Renderer, ChoiceGroup], str]] = {
    "select": _native_select,
    "radio": _radio_group,
    "menu": _custom_menu,
    "typeahead": _typeahead_choice,
}


def choice(
    r: Renderer,
    *,
    kind: str,
    label: str,
    options: Sequence[Option],
    bind: Binding,
    sid: str | None = None,
    name: str | None = None,
    selected: str | None = None,
    attrs_: Mapping[str, AttrValue] | None = None,
    style: str | None = None,
    is_open: bool = False,
    helper: str = "",
) -> str:
    """One choice among `options`: a native select, a radio group, a custom menu, or a
    typeahead combobox, bound to the transition that takes the value chosen (`bind`).

    Its semantic id (`choice:<form>.<name>`), name and current value are those of the
    field the transition edits, unless given. `style` defaults to the site's
    `choice_widget` axis. Every style sends the app the same `change` event.
    """
    sid = sid or bind.sid("choice")
    name = name or bind.field.name
    group = ChoiceGroup(
        sid=sid,
        kind=kind,
        name=name,
        label=label,
        options=options,
        selected=bind.value_in(r.state) if selected is None else selected,
        attrs={"name": name, **(attrs_ or {})},
        is_open=is_open,
        hint=hint(r, helper),
        **sends(bind),
    )
    return _STYLES[style or r.variation.choice_widget](r, group)


def toggle(
    r: Renderer,
    *,
    kind: str,
    label: str,
    bind: Binding,
    sid: str | None = None,
    name: str | None = None,
    checked: bool | None = None,
    attrs_: Mapping[str, AttrValue] | None = None,
    switch: bool = False,
) -> str:
    """A checkbox (or a switch) bound to the transition that takes "true" or "false":
    `select Toggle(...) option true|false` flips it if needed."""
    sid = sid or bind.sid("toggle")
    name = name or bind.field.name
    checked = bind.value_in(r.state) == "true" if checked is None else checked
    full = {"name": name, "checked": checked, **(attrs_ or {})}
    options = (
        Option("true", "true", aliases=("on", "yes")),
        Option("false", "false", aliases=("off", "no")),
    )
    cid = r.dom_id(f"chk:{sid}")
    inst = r.instrument(
        sid,
        kind,
        "select",
        full,
        label=label,
        options=options,
        element="checkbox",
        **sends(bind),
        ui="choice",
    )
    role = ' role="switch"' if switch else ""
    return (
        f'<label class="check" for="{cid}"><input type="checkbox"{role}'
        f"{attrs(id=cid, name=name, checked=checked)}{inst}> {esc(label)}</label>"
    )


def checkbox_group(
    r: Renderer,
    *,
    sid: str,
    name: str,
    label: str,
    options: Sequence[Option],
    checked: Sequence[str],
    bind: Binding,
    kind: str = "Toggle",
) -> str:
    """Several independent checkboxes under one legend (labels of a card, say). Each box
    is its own `Toggle(name=..., value=...)` with sid `<sid>=<value>`, bound to `bind`
    with its `option` filled in: the app receives "true" or "false" for that option."""
    boxes = "".join(
        toggle(
            r,
            sid=f"{sid}={o.value}",
            kind=kind,
            name=name,
            label=o.label,
            checked=o.value in checked,
            bind=bind.with_args(option=o.value),
            attrs_={"value": o.value, "group": sid, **dict(o.attrs)},
        )
        for o in options
    )
    return f'<fieldset class="field check-group"><legend>{esc(label)}</legend>{boxes}</fieldset>'
