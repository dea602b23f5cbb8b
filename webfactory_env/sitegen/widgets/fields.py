"""Fields: text, password and one-time-code inputs, rich text, a search typeahead, file upload."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from webfactory_env.core.predicates import Eq, Predicate
from webfactory_env.sitegen.html import Renderer, attrs, esc
from webfactory_env.sitegen.spec import AttrValue, Element, Option, Ui
from webfactory_env.sitegen.widgets.choices import ChoiceGroup, instrument_group, instrument_option
from webfactory_env.sitegen.widgets.common import UI_TOGGLE, hint, tip


@dataclass(frozen=True)
class FieldTarget:
    """Where a field's text goes: its semantic id, its form field, the handler that takes it."""

    sid: str
    name: str
    form: str
    label: str
    handler: str
    arg: str
    effect: Predicate | None


def instrument_fill(
    r: Renderer,
    f: FieldTarget,
    *,
    kind: str,
    element: Element,
    ui: Ui | None = None,
    value: str | None = None,
    redact: bool = False,
    opens: str | None = None,
    attrs_: Mapping[str, AttrValue] | None = None,
) -> str:
    """The field's `fill` affordance. A control that opens a picker sends the UI handler
    that opens it (`opens`); the others send the typed text to the field's handler."""
    handler, arg, opener = (opens, f.sid, f.sid) if opens else (f.handler, f.arg, None)
    return r.instrument(
        f.sid,
        kind,
        "fill",
        {"name": f.name, "form": f.form, "label": f.label, **(attrs_ or {})},
        label=f.label,
        handler=handler,
        arg=arg,
        effect=f.effect,
        element=element,
        ui=ui,
        value=value,
        opener=opener,
        redact=redact,
    )


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
    inst = instrument_fill(
        r,
        FieldTarget(sid, name, form, label, handler, arg, effect),
        kind=kind,
        element="textarea" if multiline else "input",
        value=value,
        redact=redact,
        attrs_=attrs_,
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
    err = f'<span class="error" role="alert">{esc(error)}</span>' if error else ""
    return (
        f'<div class="field{" invalid" if error else ""}"><label for="{fid}">{esc(label)}'
        f"</label>{control}{hint(r, helper)}{r.subregion(f'err:{sid}', err, tag='div')}</div>"
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
    target = FieldTarget(sid, name, form, label, handler, arg, effect)
    inst = instrument_fill(r, target, kind="Editor", element="editable", value=value)
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
                title=tip(r, style.title()),
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
    target = FieldTarget(sid, name, form, label, handler, arg, effect)
    inst = instrument_fill(r, target, kind="Field", element="input", ui="typeahead", value=text)
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
        f"{hint(r, helper)}{r.subregion(f'ta:{name}', listbox)}</div>"
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
    """Attach a file from a synthetic picker (no OS dialog: the files are site data): a
    choice among the files drawn as a custom menu, each listed with its size and kind."""
    files_of = ChoiceGroup(
        sid=sid,
        kind="FileUpload",
        name=name,
        label=label,
        options=[Option(f.name, f.name) for f in files],
        selected=chosen,
        handler=handler,
        arg=arg,
        effect=effect,
        attrs={"name": name, "label": label},
    )
    listed = files_of.listed()
    inst = instrument_group(
        r, files_of, listed, element="button", ui="menu", opens=UI_TOGGLE, opener=sid
    )
    picker = ""
    if is_open:
        rows = []
        for f, o in zip(files, listed, strict=True):
            fi = instrument_option(
                r, files_of, replace(o, attrs=(("kind", f.kind),)), element="option"
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
