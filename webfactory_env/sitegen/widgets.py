"""The widget library: every interactive building block a family composes, with typed affordances.

Each widget writes escaped HTML and records its affordances through the `Renderer`, so
its semantic description (kind, attributes, how it is operated, what it does to app
state) can never drift from its markup. Widgets hold no state: the app passes in what to
show (the value of a field, whether a menu is open, which month a calendar shows), and UI
state such as open menus lives in the app (`SiteApp.ui`), so rewards and the compiler see
exactly what the page shows.

Choices come in four interchangeable styles (the `choice_widget` variation axis): a
native `<select>`, a radio group, a custom menu (a button that opens a list), or a
typeahead combobox (type to filter, or open the list). All of them report the same
`change` event to the app, so a family's handlers do not care which one
the page shows; the compiler plans the right clicks for each.
"""

from __future__ import annotations

import calendar as _calendar
import datetime as dt
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from webfactory_env.core.predicates import Contains, Eq, Predicate, Ref
from webfactory_env.sitegen.copy import Copy
from webfactory_env.sitegen.html import Renderer, attrs, esc
from webfactory_env.sitegen.spec import AttrValue, Option

UI_TOGGLE = "ui.toggle"
UI_TAB = "ui.tab"
UI_MONTH = "ui.month"
UI_MORE = "ui.more"
UI_MODAL = "ui.modal"
UI_QUERY = "ui.query"


def _tip(r: Renderer, text: str) -> str | None:
    return text if r.variation.tooltips == "on" else None


# ------------------------------------------------------------------ navigation
def link(
    r: Renderer,
    *,
    sid: str,
    href: str,
    text: str,
    kind: str = "Link",
    attrs_: Mapping[str, AttrValue] | None = None,
    class_: str | None = None,
    region: str = "main",
    effect: Predicate | None = None,
    sticky: bool = True,
    accesskey: str | None = None,
) -> str:
    """A same-origin link. Its default effect is being on `href`; reaching a page stays
    achieved when the agent moves on (`sticky`)."""
    inst = r.instrument(
        sid,
        kind,
        "click",
        {"route": href, "text": text, "region": region, **(attrs_ or {})},
        label=text,
        effect=effect or Eq(("route",), href),
        sticky=sticky,
        href=href,
        element="a",
    )
    key = accesskey if r.variation.shortcuts == "on" else None
    return (
        f"<a{attrs(href=href, class_=class_, title=_tip(r, text), accesskey=key)}{inst}>"
        f"{esc(text)}</a>"
    )


def site_nav(r: Renderer, entries: Sequence[tuple[str, str]], *, label: str) -> str:
    """The main navigation: links `nav:<href>`; with the `shortcuts` axis on, each gets an
    access key (Alt+Shift+letter in Chromium) and a legend lists them."""
    used: set[str] = set()
    links, legend = [], []
    for href, text in entries:
        key = next((ch for ch in text.lower() if ch.isalpha() and ch not in used), None)
        if key:
            used.add(key)
            legend.append(f"Alt+Shift+{key.upper()} {text}")
        links.append(link(r, sid=f"nav:{href}", href=href, text=text, region="nav", accesskey=key))
    aria = attrs(aria_label=label) if r.variation.aria == "on" else ""
    shortcuts = (
        f'<small class="shortcuts muted">{esc(" · ".join(legend))}</small>'
        if r.variation.shortcuts == "on"
        else ""
    )
    return f"<nav{aria}>{''.join(links)}</nav>{shortcuts}"


def breadcrumbs(r: Renderer, trail: Sequence[tuple[str, str | None]], *, label: str) -> str:
    """`trail` is (text, href) from the root; the last entry (href None) is the current page."""
    parts = []
    for text, href in trail:
        if href is None:
            parts.append(f'<span aria-current="page">{esc(text)}</span>')
        else:
            parts.append(
                link(r, sid=f"crumb:{href}", href=href, text=text, attrs_={"role": "breadcrumb"})
            )
    aria = attrs(aria_label=label) if r.variation.aria == "on" else ""
    return f'<nav class="breadcrumb"{aria}>{" › ".join(parts)}</nav>'


@dataclass(frozen=True)
class MenuItem:
    key: str
    text: str
    href: str | None = None
    children: tuple[MenuItem, ...] = ()


def nested_menu(
    r: Renderer,
    *,
    name: str,
    items: Sequence[MenuItem],
    open_keys: set[str],
    label: str,
    path: tuple[str, ...] = (),
) -> str:
    """A menu bar whose entries open sub-menus (app UI state); leaves are links."""
    lis = []
    for item in items:
        item_path = "/".join((*path, item.key))
        if item.children:
            key = f"menu:{name}:{item_path}"
            is_open = key in open_keys
            inst = r.instrument(
                key,
                "MenuItem",
                "click",
                {"menu": name, "path": item_path, "text": item.text},
                label=item.text,
                handler=UI_TOGGLE,
                arg=key,
                effect=Contains(("ui", "open"), key),
            )
            sub = (
                nested_menu(
                    r,
                    name=name,
                    items=item.children,
                    open_keys=open_keys,
                    label=item.text,
                    path=(*path, item.key),
                )
                if is_open
                else ""
            )
            lis.append(
                f'<li><button type="button" aria-haspopup="true"'
                f"{attrs(aria_expanded='true' if is_open else 'false')}{inst}>"
                f"{esc(item.text)} ▾</button>{sub}</li>"
            )
        elif item.href:
            lis.append(
                "<li>"
                + link(
                    r,
                    sid=f"menu:{name}:{item_path}",
                    href=item.href,
                    text=item.text,
                    kind="MenuItem",
                    attrs_={"menu": name, "path": item_path},
                )
                + "</li>"
            )
    role = ' role="menubar"' if not path else ' role="menu"'
    aria = attrs(aria_label=label) if r.variation.aria == "on" else ""
    return f'<ul class="menu{" submenu" if path else ""}"{role}{aria}>{"".join(lis)}</ul>'


def tabs(
    r: Renderer,
    *,
    group: str,
    items: Sequence[tuple[str, str]],
    active: str,
    panel: str,
    label: str,
) -> str:
    """A tab list (`items` are (name, text)) and the active panel's HTML."""
    buttons = []
    for name, text in items:
        selected = name == active
        inst = r.instrument(
            f"tab:{group}:{name}",
            "Tab",
            "click",
            {"group": group, "name": name, "text": text},
            label=text,
            handler=UI_TAB,
            arg=f"{group}={name}",
            effect=Eq(("ui", "tabs", group), name),
        )
        tab_attrs = attrs(
            aria_selected="true" if selected else "false",
            class_="tab active" if selected else "tab",
        )
        buttons.append(f'<button type="button" role="tab"{tab_attrs}{inst}>{esc(text)}</button>')
    aria = attrs(aria_label=label) if r.variation.aria == "on" else ""
    return (
        f'<div class="tabs"><div role="tablist"{aria}>{"".join(buttons)}</div>'
        f'<div role="tabpanel" class="tabpanel">{panel}</div></div>'
    )


def accordion(
    r: Renderer, *, group: str, sections: Sequence[tuple[str, str, str]], open_keys: set[str]
) -> str:
    """Sections (name, heading, body html) that open and close independently."""
    out = []
    for name, heading, body in sections:
        key = f"acc:{group}:{name}"
        is_open = key in open_keys
        inst = r.instrument(
            key,
            "Accordion",
            "click",
            {"group": group, "name": name, "text": heading},
            label=heading,
            handler=UI_TOGGLE,
            arg=key,
            effect=Contains(("ui", "open"), key),
        )
        content = f'<div class="accordion-body">{body}</div>' if is_open else ""
        out.append(
            f'<section class="accordion"><h3><button type="button"'
            f"{attrs(aria_expanded='true' if is_open else 'false')}{inst}>{esc(heading)}"
            f"</button></h3>{content}</section>"
        )
    return "".join(out)


def modal(r: Renderer, *, name: str, title: str, body: str, close_text: str) -> str:
    """An open dialog over the page: everything behind it is covered (and so not clickable)."""
    inst = r.instrument(
        f"modal:{name}:close",
        "Button",
        "click",
        {"role": "close", "modal": name},
        label=close_text,
        handler=UI_MODAL,
        arg="",
        structural=True,
    )
    return (
        f'<div class="overlay"><div class="dialog" role="dialog" aria-modal="true"'
        f"{attrs(aria_label=title)}><header><h2>{esc(title)}</h2>"
        f'<button type="button" class="secondary"{inst}>{esc(close_text)}</button></header>'
        f"{body}</div></div>"
    )


def modal_opener(r: Renderer, *, name: str, text: str, attrs_: Mapping[str, AttrValue]) -> str:
    inst = r.instrument(
        f"modal:{name}:open",
        "Button",
        "click",
        {"role": "open-dialog", "modal": name, **attrs_},
        label=text,
        handler=UI_MODAL,
        arg=name,
        effect=Eq(("ui", "modal"), name),
        structural=True,
    )
    return f'<button type="button" class="secondary"{inst}>{esc(text)}</button>'


def secondary_form(
    r: Renderer,
    *,
    name: str,
    title: str,
    body: Callable[[], str],
    open_modal: str | None,
    close_text: str,
    opener_attrs: Mapping[str, AttrValue],
    opener_text: str | None = None,
) -> str:
    """A secondary form shown inline, or (the `form_mode` axis set to "modal") in a dialog
    that a button opens. `body` renders the form only when it is shown, so a closed dialog
    records no fields; `open_modal` is the dialog the app has open."""
    if r.variation.form_mode == "modal":
        if open_modal == name:
            return modal(r, name=name, title=title, body=body(), close_text=close_text)
        return modal_opener(r, name=name, text=opener_text or title, attrs_=opener_attrs)
    return f'<section class="secondary-form"><h2>{esc(title)}</h2>{body()}</section>'


def toast(message: str, *, error: bool = False) -> str:
    """A status message; the app shows it until the next navigation."""
    if not message:
        return ""
    role, cls = ("alert", "error-summary") if error else ("status", "notice")
    return f'<p class="{cls}" role="{role}">{esc(message)}</p>'


# -------------------------------------------------------------------- buttons
def button(
    r: Renderer,
    *,
    sid: str,
    text: str,
    handler: str | None,
    attrs_: Mapping[str, AttrValue],
    kind: str = "Button",
    arg: str | None = None,
    effect: Predicate | None = None,
    disabled: bool = False,
    variant: str = "primary",
    submit: bool = False,
    icon: str | None = None,
) -> str:
    """A button. With `icon`, the visible text is the icon and the name is in aria-label
    (when the `aria` axis is on) and in a tooltip (when `tooltips` is on)."""
    full = {**attrs_, "disabled": disabled}
    inst = r.instrument(
        sid,
        kind,
        "submit" if submit else "click",
        full,
        label=text,
        handler=handler,
        arg=arg,
        effect=effect,
    )
    shown = esc(icon) if icon else esc(text)
    aria = text if icon and r.variation.aria == "on" else None
    button_attrs = attrs(
        type="submit" if submit else "button",
        disabled=disabled,
        class_=None if variant == "primary" else variant,
        aria_label=aria,
        title=_tip(r, text),
    )
    return f"<button{button_attrs}{inst}>{shown}</button>"


# --------------------------------------------------------------------- choices
def choice(
    r: Renderer,
    *,
    sid: str,
    kind: str,
    name: str,
    label: str,
    options: Sequence[Option],
    selected: str,
    handler: str,
    arg: str | None,
    effect: Predicate | None,
    attrs_: Mapping[str, AttrValue] | None = None,
    style: str | None = None,
    is_open: bool = False,
    helper: str = "",
) -> str:
    """One choice among `options`: a native select, a radio group, a custom menu, or a
    typeahead combobox.

    `style` defaults to the site's `choice_widget` axis. Every style sends the app
    `change(handler, arg, value)`.
    """
    style = style or r.variation.choice_widget
    base_attrs = {"name": name, **(attrs_ or {})}
    hint = (
        f'<small class="hint">{esc(helper)}</small>'
        if helper and r.variation.helper_text == "on"
        else ""
    )
    if style == "select":
        field_id = r.dom_id(f"sel:{sid}")
        inst = r.instrument(
            sid,
            kind,
            "select",
            base_attrs,
            label=label,
            handler=handler,
            arg=arg,
            options=options,
            effect=effect,
            element="select",
            ui="native",
        )
        opts = "".join(
            f"<option{attrs(value=o.value, selected=o.value == selected)}>{esc(o.label)}</option>"
            for o in options
        )
        return (
            f'<div class="field"><label for="{field_id}">{esc(label)}</label>'
            f"<select{attrs(id=field_id, name=name)}{inst}>{opts}</select>{hint}</div>"
        )
    if style == "radio":
        with_sids = [
            Option(o.value, o.label, o.attrs, o.aliases, sid=f"{sid}={o.value}") for o in options
        ]
        group = r.instrument(
            sid,
            kind,
            "select",
            base_attrs,
            label=label,
            handler=handler,
            arg=arg,
            options=with_sids,
            effect=effect,
            element="group",
            ui="choice",
        )
        radio_name = r.dom_id(f"radio:{sid}")
        items = []
        for o in with_sids:
            assert o.sid is not None
            rid = r.dom_id(f"radio:{o.sid}")
            inst = r.instrument(
                o.sid,
                "Option",
                "click",
                {"for": sid, "value": o.value, "label": o.label, **dict(o.attrs)},
                label=o.label,
                handler=handler,
                arg=arg,
                element="radio",
                value=o.value,
                structural=True,
            )
            items.append(
                f'<label class="radio" for="{rid}"><input type="radio"'
                f"{attrs(id=rid, name=radio_name, value=o.value, checked=o.value == selected)}"
                f"{inst}> {esc(o.label)}</label>"
            )
        return (
            f'<fieldset class="field radio-group"{group}><legend>{esc(label)}</legend>'
            f"{''.join(items)}{hint}</fieldset>"
        )
    if style == "typeahead":
        return _typeahead_choice(
            r,
            sid=sid,
            kind=kind,
            label=label,
            options=options,
            selected=selected,
            handler=handler,
            arg=arg,
            effect=effect,
            base_attrs=base_attrs,
            is_open=is_open,
            hint=hint,
        )
    # custom menu: a button showing the current choice; open, it lists the options
    current = next((o.label for o in options if o.value == selected), label)
    with_sids = [
        Option(o.value, o.label, o.attrs, o.aliases, sid=f"{sid}={o.value}") for o in options
    ]
    inst = r.instrument(
        sid,
        kind,
        "select",
        base_attrs,
        label=label,
        handler=UI_TOGGLE,
        arg=sid,
        options=with_sids,
        effect=effect,
        element="button",
        ui="menu",
        opener=sid,
    )
    listbox = ""
    if is_open:
        entries = []
        for o in with_sids:
            assert o.sid is not None
            oi = r.instrument(
                o.sid,
                "Option",
                "click",
                {"for": sid, "value": o.value, "label": o.label, **dict(o.attrs)},
                label=o.label,
                handler=handler,
                arg=arg,
                element="option",
                value=o.value,
                event="change",
                structural=True,
            )
            mark = " ✓" if o.value == selected else ""
            entries.append(
                f'<li><button type="button" role="option"'
                f"{attrs(aria_selected='true' if mark else 'false')}{oi}>"
                f"{esc(o.label)}{mark}</button></li>"
            )
        listbox = f'<ul class="listbox" role="listbox">{"".join(entries)}</ul>'
    return (
        f'<div class="field menu-field"><span class="label">{esc(label)}</span>'
        f'<button type="button" class="menu-button" aria-haspopup="listbox"'
        f"{attrs(aria_expanded='true' if is_open else 'false')}{inst}>{esc(current)} ▾</button>"
        f"{listbox}{hint}</div>"
    )


def _typeahead_choice(
    r: Renderer,
    *,
    sid: str,
    kind: str,
    label: str,
    options: Sequence[Option],
    selected: str,
    handler: str,
    arg: str | None,
    effect: Predicate | None,
    base_attrs: Mapping[str, AttrValue],
    is_open: bool,
    hint: str,
) -> str:
    """A combobox: typing filters the options (`ui.query`), the ▾ button lists them all
    (`ui.toggle`); picking one reports `change(handler, arg, value)` like the other styles.

    The input has no form `name`: the choice reaches the app through the change event,
    never through the typed text in a submitted form."""
    query = r.queries.get(sid, "") if is_open else ""
    current = next((o.label for o in options if o.value == selected), "")
    with_sids = [
        Option(o.value, o.label, o.attrs, o.aliases, sid=f"{sid}={o.value}") for o in options
    ]
    toggle_sid = f"{sid}:list"
    inst = r.instrument(
        sid,
        kind,
        "select",
        base_attrs,
        label=label,
        handler=UI_QUERY,
        arg=sid,
        options=with_sids,
        effect=effect,
        element="input",
        ui="typeahead",
        opener=toggle_sid,
    )
    opener = r.instrument(
        toggle_sid,
        "Button",
        "click",
        {"role": "show-options", "for": sid},
        label=label,
        handler=UI_TOGGLE,
        arg=sid,
        structural=True,
    )
    fid = r.dom_id(f"cb:{sid}")
    entries = []
    if is_open:
        want = query.strip().lower()
        for o in with_sids:
            assert o.sid is not None
            if want and want not in o.label.lower() and want != o.value.lower():
                continue
            oi = r.instrument(
                o.sid,
                "Option",
                "click",
                {"for": sid, "value": o.value, "label": o.label, **dict(o.attrs)},
                label=o.label,
                handler=handler,
                arg=arg,
                element="option",
                value=o.value,
                event="change",
                structural=True,
            )
            entries.append(
                f'<li><button type="button" role="option"'
                f"{attrs(aria_selected='true' if o.value == selected else 'false')}{oi}>"
                f"{esc(o.label)}</button></li>"
            )
    listbox = f'<ul class="listbox suggestions" role="listbox">{"".join(entries)}</ul>'
    # the input and its list button side by side (inline style: the base CSS has no rule)
    return (
        f'<div class="field typeahead"><label for="{fid}">{esc(label)}</label>'
        '<div style="display:flex;gap:4px;align-items:stretch">'
        "<input"
        + attrs(
            id=fid,
            type="text",
            value=query or current,
            autocomplete="off",
            placeholder=label,
            role="combobox",
            aria_expanded="true" if is_open else "false",
            style="flex:1 1 auto;min-width:0",
        )
        + f"{inst}>"
        f'<button type="button" class="secondary" aria-haspopup="listbox"'
        f' style="flex:0 0 auto;width:auto;margin:0"'
        f"{attrs(aria_label=label if r.variation.aria == 'on' else None)}{opener}>▾</button>"
        f"</div>{hint}{r.subregion(f'tc:{sid}', listbox if entries else '')}</div>"
    )


def toggle(
    r: Renderer,
    *,
    sid: str,
    kind: str,
    name: str,
    label: str,
    checked: bool,
    handler: str,
    arg: str | None,
    effect: Predicate | None,
    attrs_: Mapping[str, AttrValue] | None = None,
    switch: bool = False,
) -> str:
    """A checkbox (or a switch): `select Toggle(...) option true|false` flips it if needed."""
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
        handler=handler,
        arg=arg,
        options=options,
        effect=effect,
        element="checkbox",
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
    handler: str,
    arg: str,
    state_path: tuple[str, ...],
    kind: str = "Toggle",
) -> str:
    """Several independent checkboxes under one legend (labels of a card, say). Each box
    is its own `Toggle(name=..., value=...)` with sid `<sid>=<value>`; the app receives
    `change(handler, "<arg>:<value>", "true"|"false")` and keeps `state_path + (value,)`."""
    boxes = "".join(
        toggle(
            r,
            sid=f"{sid}={o.value}",
            kind=kind,
            name=name,
            label=o.label,
            checked=o.value in checked,
            handler=handler,
            arg=f"{arg}:{o.value}",
            effect=Eq((*state_path, o.value), Ref("value")),
            attrs_={"value": o.value, "group": sid, **dict(o.attrs)},
        )
        for o in options
    )
    return f'<fieldset class="field check-group"><legend>{esc(label)}</legend>{boxes}</fieldset>'


# ---------------------------------------------------------------------- fields
def text_field(
    r: Renderer,
    *,
    sid: str,
    name: str,
    label: str,
    value: str,
    handler: str,
    arg: str,
    effect: Predicate | None,
    form: str,
    kind: str = "Field",
    input_type: str = "text",
    error: str = "",
    helper: str = "",
    placeholder: str | None = None,
    redact: bool = False,
    autocomplete: str | None = None,
    attrs_: Mapping[str, AttrValue] | None = None,
    multiline: bool = False,
    inputmode: str | None = None,
    maxlength: int | None = None,
) -> str:
    """A labelled text input (or textarea). Its error message is a region of its own, so it
    can change while the user types without the input being replaced."""
    fid = r.dom_id(f"fld:{sid}")
    inst = r.instrument(
        sid,
        kind,
        "fill",
        {"name": name, "form": form, "label": label, **(attrs_ or {})},
        label=label,
        handler=handler,
        arg=arg,
        effect=effect,
        element="textarea" if multiline else "input",
        redact=redact,
        value=value,
    )
    common = attrs(
        id=fid,
        name=name,
        placeholder=placeholder,
        autocomplete=autocomplete,
        aria_invalid="true" if error else None,
        inputmode=inputmode,
        maxlength=maxlength,
    )
    if multiline:
        control = f"<textarea{common}{inst}>{esc(value)}</textarea>"
    else:
        shown = "" if redact else value
        control = f"<input{attrs(type=input_type, value=shown)}{common}{inst}>"
    hint = (
        f'<small class="hint">{esc(helper)}</small>'
        if helper and r.variation.helper_text == "on"
        else ""
    )
    err = f'<span class="error" role="alert">{esc(error)}</span>' if error else ""
    return (
        f'<div class="field{" invalid" if error else ""}"><label for="{fid}">{esc(label)}'
        f"</label>{control}{hint}{r.subregion(f'err:{sid}', err, tag='div')}</div>"
    )


def password_field(r: Renderer, **kw: Any) -> str:
    """A password input: its value is redacted in traces and never echoed into the page."""
    return text_field(r, input_type="password", redact=True, **kw)


def otp_field(r: Renderer, **kw: Any) -> str:
    """A one-time code: six digits, redacted like a password."""
    return text_field(
        r,
        input_type="text",
        redact=True,
        inputmode="numeric",
        maxlength=6,
        autocomplete="one-time-code",
        **kw,
    )


def rich_text(
    r: Renderer,
    *,
    sid: str,
    name: str,
    label: str,
    value: str,
    handler: str,
    arg: str,
    effect: Predicate | None,
    form: str,
    format_handler: str,
    bold: bool,
    italic: bool,
) -> str:
    """A content-editable editor with a small formatting toolbar (formatting is app state)."""
    eid = r.dom_id(f"rte:{sid}")
    inst = r.instrument(
        sid,
        "Editor",
        "fill",
        {"name": name, "form": form, "label": label},
        label=label,
        handler=handler,
        arg=arg,
        effect=effect,
        element="editable",
        value=value,
    )
    tools = []
    for style, on, glyph in (("bold", bold, "B"), ("italic", italic, "I")):
        ti = r.instrument(
            f"{sid}:{style}",
            "Button",
            "click",
            {"role": f"format-{style}", "editor": name, "pressed": on},
            label=style.title(),
            handler=format_handler,
            arg=f"{name}={style}",
            effect=Eq(("editors", name, style), not on),
        )
        tools.append(
            '<button type="button" class="secondary"'
            + attrs(
                aria_pressed="true" if on else "false",
                aria_label=style.title(),
                title=_tip(r, style.title()),
            )
            + f"{ti}>{glyph}</button>"
        )
    styles = ";".join(
        x for x, on in (("font-weight:700", bold), ("font-style:italic", italic)) if on
    )
    return (
        f'<div class="field editor"><span class="label" id="{eid}-l">{esc(label)}</span>'
        f'<div class="toolbar" role="toolbar">{"".join(tools)}</div>'
        f'<div class="rte" contenteditable="true" role="textbox" aria-multiline="true"'
        f"{attrs(aria_labelledby=f'{eid}-l', style=styles or None)}{inst}>{esc(value)}</div></div>"
    )


def typeahead(
    r: Renderer,
    *,
    sid: str,
    name: str,
    label: str,
    text: str,
    handler: str,
    arg: str,
    effect: Predicate | None,
    form: str,
    pick_handler: str,
    suggestions: Sequence[tuple[str, str]],
    placeholder: str | None = None,
    helper: str = "",
) -> str:
    """Type to search; pick one of the suggestions (value, label) the app offers."""
    fid = r.dom_id(f"ta:{sid}")
    inst = r.instrument(
        sid,
        "Field",
        "fill",
        {"name": name, "form": form, "label": label},
        label=label,
        handler=handler,
        arg=arg,
        effect=effect,
        element="input",
        ui="typeahead",
        value=text,
    )
    items = []
    for value, text_ in suggestions:
        si = r.instrument(
            f"suggest:{name}={value}",
            "Suggestion",
            "click",
            {"field": name, "value": value, "label": text_},
            label=text_,
            handler=pick_handler,
            arg=arg,
            element="option",
            value=value,
            event="change",
            structural=True,
        )
        items.append(f'<li><button type="button" role="option"{si}>{esc(text_)}</button></li>')
    listbox = (
        f'<ul class="listbox suggestions" role="listbox">{"".join(items)}</ul>' if items else ""
    )
    hint = (
        f'<small class="hint">{esc(helper)}</small>'
        if helper and r.variation.helper_text == "on"
        else ""
    )
    return (
        f'<div class="field typeahead"><label for="{fid}">{esc(label)}</label>'
        "<input"
        + attrs(
            id=fid,
            name=name,
            type="text",
            value=text,
            autocomplete="off",
            placeholder=placeholder,
            role="combobox",
        )
        + f"{inst}>"
        f"{hint}{r.subregion(f'ta:{name}', listbox)}</div>"
    )


def date_picker(
    r: Renderer,
    *,
    sid: str,
    name: str,
    label: str,
    value: str,
    handler: str,
    arg: str,
    effect: Predicate | None,
    form: str,
    month: str,
    is_open: bool,
    today: str,
    style: str | None = None,
    placeholder: str = "YYYY-MM-DD",
) -> str:
    """A date: typed (`text`), picked from an always-visible calendar (`inline`), or from a
    calendar that a button opens (`popover`). Days report `change(handler, arg, ISO date)`."""
    style = style or r.variation.date_widget
    attrs_ = {"name": name, "form": form, "label": label}
    if style == "text":
        return text_field(
            r,
            sid=sid,
            name=name,
            label=label,
            value=value,
            handler=handler,
            arg=arg,
            effect=effect,
            form=form,
            kind="DatePicker",
            placeholder=placeholder,
        )

    def grid() -> str:
        return _month_grid(
            r, picker=name, month=month, value=value, today=today, handler=handler, arg=arg
        )

    if style == "inline":
        inst = r.instrument(
            sid,
            "DatePicker",
            "fill",
            attrs_,
            label=label,
            handler=handler,
            arg=arg,
            effect=effect,
            element="group",
            ui="calendar",
        )
        return (
            f'<div class="field date-inline"{inst}><span class="label">{esc(label)}</span>'
            f'<span class="date-value">{esc(value or "—")}</span>{grid()}</div>'
        )
    inst = r.instrument(
        sid,
        "DatePicker",
        "fill",
        attrs_,
        label=label,
        handler=UI_TOGGLE,
        arg=sid,
        effect=effect,
        element="button",
        ui="calendar",
        opener=sid,
    )
    return (
        f'<div class="field date-popover"><span class="label">{esc(label)}</span>'
        f'<button type="button" class="menu-button"'
        f"{attrs(aria_expanded='true' if is_open else 'false', aria_haspopup='dialog')}{inst}>"
        f"{esc(value or placeholder)}</button>{grid() if is_open else ''}</div>"
    )


def _month_grid(
    r: Renderer, *, picker: str, month: str, value: str, today: str, handler: str, arg: str
) -> str:
    year, mon = (int(x) for x in month.split("-")[:2])
    first = dt.date(year, mon, 1)
    title = first.strftime("%B %Y")
    nav = []
    for delta, text in ((-1, "‹"), (1, "›")):
        role = "prev-month" if delta < 0 else "next-month"
        ni = r.instrument(
            f"cal:{picker}:{role}",
            "Button",
            "click",
            {"role": role, "picker": picker},
            label="Previous month" if delta < 0 else "Next month",
            handler=UI_MONTH,
            arg=f"{picker}={delta:+d}",
            structural=True,
        )
        nav.append(
            '<button type="button" class="secondary"'
            + attrs(aria_label="Previous month" if delta < 0 else "Next month")
            + f"{ni}>{text}</button>"
        )
    cells = []
    for week in _calendar.Calendar(firstweekday=0).monthdatescalendar(year, mon):
        row = []
        for day in week:
            if day.month != mon:
                row.append("<td></td>")
                continue
            iso = day.isoformat()
            di = r.instrument(
                f"day:{picker}={iso}",
                "Day",
                "click",
                {"picker": picker, "date": iso, "weekday": day.strftime("%A").lower()},
                label=str(day.day),
                handler=handler,
                arg=arg,
                element="option",
                value=iso,
                event="change",
                structural=True,
            )
            cls = " ".join(
                x for x, on in (("selected", iso == value), ("today", iso == today)) if on
            )
            row.append(
                '<td><button type="button"'
                + attrs(class_=cls or None, aria_label=day.strftime("%A %d %B %Y"))
                + f"{di}>{day.day}</button></td>"
            )
        cells.append(f"<tr>{''.join(row)}</tr>")
    head = "".join(f"<th>{d}</th>" for d in ("Mo", "Tu", "We", "Th", "Fr", "Sa", "Su"))
    return (
        f'<div class="calendar" role="group"><div class="cal-head">{nav[0]}'
        f"<strong>{esc(title)}</strong>{nav[1]}</div>"
        f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(cells)}</tbody></table></div>"
    )


@dataclass(frozen=True)
class SyntheticFile:
    name: str
    size_kb: int
    kind: str


def file_upload(
    r: Renderer,
    *,
    sid: str,
    name: str,
    label: str,
    files: Sequence[SyntheticFile],
    chosen: str,
    handler: str,
    arg: str,
    effect: Predicate | None,
    is_open: bool,
) -> str:
    """Attach a file from a synthetic picker (no OS dialog: the files are site data)."""
    options = [Option(f.name, f.name, sid=f"{sid}={f.name}") for f in files]
    inst = r.instrument(
        sid,
        "FileUpload",
        "select",
        {"name": name, "label": label},
        label=label,
        handler=UI_TOGGLE,
        arg=sid,
        options=options,
        effect=effect,
        element="button",
        ui="menu",
        opener=sid,
    )
    picker = ""
    if is_open:
        rows = []
        for f, o in zip(files, options, strict=True):
            assert o.sid is not None
            fi = r.instrument(
                o.sid,
                "Option",
                "click",
                {"for": sid, "value": f.name, "label": f.name, "kind": f.kind},
                label=f.name,
                handler=handler,
                arg=arg,
                element="option",
                value=f.name,
                event="change",
                structural=True,
            )
            rows.append(
                f'<li><button type="button" role="option"{fi}>{esc(f.name)}</button>'
                f' <small class="muted">{f.size_kb} KB · {esc(f.kind)}</small></li>'
            )
        picker = f'<ul class="listbox files" role="listbox">{"".join(rows)}</ul>'
    shown = esc(chosen) if chosen else "No file chosen"
    return (
        f'<div class="field upload"><span class="label">{esc(label)}</span>'
        f'<button type="button" class="secondary"{inst}>Choose file…</button>'
        f' <span class="muted">{shown}</span>{picker}</div>'
    )


# ---------------------------------------------------------------------- forms
def form(
    r: Renderer,
    *,
    name: str,
    handler: str,
    body: str,
    submit_sid: str,
    submit_text: str,
    label: str,
    effect: Predicate | None,
    attrs_: Mapping[str, AttrValue] | None = None,
    banner: str = "",
    extra_buttons: str = "",
) -> str:
    """A form whose submit button is the `Form(name=...)` affordance."""
    inst = r.instrument(
        submit_sid,
        "Form",
        "submit",
        {"name": name, **(attrs_ or {})},
        label=submit_text,
        handler=handler,
        effect=effect,
    )
    aria = attrs(aria_label=label) if r.variation.aria == "on" else ""
    return (
        f"<form novalidate{aria}{r.meta(handler=handler)}>{banner}{body}"
        f'<div class="actions"><button type="submit"{inst}>{esc(submit_text)}</button>'
        f"{extra_buttons}</div></form>"
    )


def newsletter_promo(
    r: Renderer,
    copy: Copy,
    value: str,
    *,
    field_action: Mapping[str, Any] | None = None,
    submit_action: Mapping[str, Any] | None = None,
) -> str:
    """A newsletter sign-up aside (a distractor: no task needs it) unless the
    `distractors` axis is "none". `value` is the e-mail typed so far, kept in app state
    at `forms.newsletter.email`. `field_action` and `submit_action` bind the field and the
    form to the app's transitions (`SiteApp.on`); by default the `field` and `newsletter`
    handlers."""
    if r.variation.distractors == "none":
        return ""
    typing = field_action or {
        "handler": "field",
        "arg": "newsletter.email",
        "effect": Eq(("forms", "newsletter", "email"), Ref("value")),
    }
    submitting = submit_action or {
        "handler": "newsletter",
        "effect": Eq(("forms", "newsletter", "email"), Ref("state:forms.newsletter.email")),
    }
    field = text_field(
        r,
        sid="field:newsletter.email",
        name="email",
        label=copy("distractors.email"),
        value=value,
        form="newsletter",
        input_type="email",
        attrs_={"distractor": True},
        **typing,
    )
    return (
        '<aside class="promo distractor">'
        f"<strong>{esc(copy('distractors.newsletter'))}</strong>"
        + form(
            r,
            name="newsletter",
            body=field,
            submit_sid="form:newsletter",
            submit_text=copy("distractors.subscribe"),
            label=copy("distractors.newsletter"),
            attrs_={"distractor": True},
            **{k: v for k, v in submitting.items() if k != "arg"},
        )
        + "</aside>"
    )


def wizard_steps(steps: Sequence[str], current: int) -> str:
    """The step indicator of a multi-step form."""
    items = "".join(
        "<li"
        + attrs(
            aria_current="step" if i == current else None, class_="done" if i < current else None
        )
        + f">{esc(s)}</li>"
        for i, s in enumerate(steps)
    )
    return f'<ol class="wizard-steps">{items}</ol>'


# --------------------------------------------------------------------- listings
def pager(
    r: Renderer,
    *,
    key: str,
    page: int,
    pages: int,
    handler: str,
    label: str,
    prev_text: str,
    next_text: str,
    state_path: tuple[str, ...],
) -> str:
    """Previous / numbered / Next page buttons. Buttons are `Button(role="page", page=N)`."""
    if pages <= 1:
        return ""
    targets = [("prev", page - 1, prev_text)]
    targets += [(str(n), n, str(n)) for n in range(1, pages + 1)]
    targets += [("next", page + 1, next_text)]
    buttons = []
    for k, n, text in targets:
        usable = 1 <= n <= pages and n != page
        inst = r.instrument(
            f"pager:{key}:{k}",
            "Button",
            "click",
            {
                "role": "page",
                "page": n,
                "list": key,
                "text": text,
                "disabled": not usable,
                "step": k if k in ("prev", "next") else "number",
            },
            label=text,
            handler=handler,
            arg=str(n),
            effect=Eq(state_path, n),
            structural=True,
        )
        current = ' aria-current="page"' if n == page and k.isdigit() else ""
        buttons.append(
            f'<button type="button" class="secondary"{attrs(disabled=not usable)}'
            f"{current}{inst}>{esc(text)}</button>"
        )
    aria = attrs(aria_label=label) if r.variation.aria == "on" else ""
    return f'<nav class="pager"{aria}>{"".join(buttons)}</nav>'


def load_more(r: Renderer, *, key: str, has_more: bool, text: str) -> str:
    """The end of an infinite list: scrolling it into view loads the next batch."""
    if not has_more:
        return ""
    inst = r.instrument(
        f"more:{key}",
        "More",
        "click",
        {"list": key},
        label=text,
        handler=UI_MORE,
        arg=key,
        on="visible",
        structural=True,
    )
    return f'<div class="load-more" role="status"{inst}>{esc(text)}</div>'


def data_table(
    r: Renderer,
    *,
    key: str,
    columns: Sequence[tuple[str, str, bool]],
    rows: Sequence[Sequence[str]],
    sort: tuple[str, str],
    sort_handler: str,
    caption: str,
    sort_path: tuple[str, ...],
) -> str:
    """A table; sortable columns (key, heading, sortable) have header buttons that cycle
    ascending/descending (`Sort(key=..., order=...)`). Cells are trusted HTML from widgets."""
    heads = []
    for col, heading, sortable in columns:
        if not sortable:
            heads.append(f'<th scope="col">{esc(heading)}</th>')
            continue
        active, order = sort
        next_order = "desc" if active == col and order == "asc" else "asc"
        aria_sort = {"asc": "ascending", "desc": "descending"}[order] if active == col else "none"
        inst = r.instrument(
            f"sort:{key}:{col}",
            "Sort",
            "click",
            {"key": col, "order": next_order, "table": key, "text": heading},
            label=heading,
            handler=sort_handler,
            arg=f"{col}={next_order}",
            effect=Eq(sort_path, f"{col}-{next_order}"),
        )
        arrow = {"ascending": " ▲", "descending": " ▼"}.get(aria_sort, "")
        heads.append(
            f'<th scope="col"{attrs(aria_sort=aria_sort)}><button type="button" '
            f'class="link-button"{inst}>{esc(heading)}{arrow}</button></th>'
        )
    body = "".join("<tr>" + "".join(f"<td>{cell}</td>" for cell in row) + "</tr>" for row in rows)
    return (
        f'<table class="data"><caption>{esc(caption)}</caption><thead><tr>{"".join(heads)}'
        f"</tr></thead><tbody>{body}</tbody></table>"
    )


def detail_view(items: Sequence[tuple[str, str]]) -> str:
    """A definition list of (label, value) pairs (values escaped)."""
    rows = "".join(f"<dt>{esc(k)}</dt><dd>{esc(v)}</dd>" for k, v in items)
    return f'<dl class="details">{rows}</dl>'


def month_calendar(*, month: str, events: Mapping[str, Sequence[str]], title: str) -> str:
    """A read-only month view listing events (ISO date → titles)."""
    year, mon = (int(x) for x in month.split("-")[:2])
    rows = []
    for week in _calendar.Calendar(firstweekday=0).monthdatescalendar(year, mon):
        cells = []
        for day in week:
            if day.month != mon:
                cells.append('<td class="out"></td>')
                continue
            items = "".join(f"<li>{esc(t)}</li>" for t in events.get(day.isoformat(), ()))
            cells.append(
                f'<td><span class="daynum">{day.day}</span>'
                f"{f'<ul>{items}</ul>' if items else ''}</td>"
            )
        rows.append(f"<tr>{''.join(cells)}</tr>")
    head = "".join(f"<th>{d}</th>" for d in ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"))
    return (
        f'<table class="month"><caption>{esc(title)}</caption><thead><tr>{head}</tr>'
        f"</thead><tbody>{''.join(rows)}</tbody></table>"
    )


def retry_banner(r: Renderer, *, message: str, retry_text: str) -> str:
    """Shown after an injected server error: the failed change can be retried."""
    inst = r.instrument(
        "retry",
        "Button",
        "click",
        {"role": "retry"},
        label=retry_text,
        handler="retry",
        structural=True,
    )
    return (
        f'<div class="error-summary" role="alert">{esc(message)} '
        f'<button type="button" class="secondary"{inst}>{esc(retry_text)}</button></div>'
    )
