"""Fields: text, password and one-time-code inputs, rich text, a search typeahead, file upload."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from webfactory_env.core.predicates import Predicate
from webfactory_env.sitegen.binding import Binding, Transition
from webfactory_env.sitegen.html import Renderer, attrs, esc
from webfactory_env.sitegen.spec import AttrValue, Element, Option, Ui
from webfactory_env.sitegen.widgets.choices import ChoiceGroup, instrument_group, instrument_option
from webfactory_env.sitegen.widgets.common import UI_TOGGLE, hint, sends, tip


@dataclass(frozen=True)
class FieldTarget:
    """Where a field's text goes: its semantic id, its form field, the transition that
    takes it (its handler and argument) and the effect that has."""

    sid: str
    name: str
    form: str
    label: str
    handler: str
    arg: str | None
    effect: Predicate | None

    @classmethod
    def of(
        cls,
        bind: Binding,
        prefix: str,
        label: str,
        sid: str | None = None,
        name: str | None = None,
        form: str | None = None,
    ) -> FieldTarget:
        """The field `bind` edits; `sid`, `name` and `form` default to what the bound
        transition's field declares (the sid is `<prefix>:<form>.<name>`)."""
        return cls(
            sid or bind.sid(prefix),
            name or bind.field.name,
            bind.field.form if form is None else form,
            label,
            **sends(bind),
        )


def instrument_fill(
    r: Renderer,
    f: FieldTarget,
    *,
    kind: str,
    element: Element,
    ui: Ui | None = None,
    value: str | None = None,
    redact: bool = False,
    opens: Transition | None = None,
    attrs_: Mapping[str, AttrValue] | None = None,
) -> str:
    """The field's `fill` affordance. A control that opens a picker sends the UI transition
    that opens it (`opens`); the others send the typed text to the field's transition."""
    if opens is not None:
        handler, arg, opener = opens.name, opens.encode({"key": f.sid}), f.sid
    else:
        handler, arg, opener = f.handler, f.arg, None
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
    label: str,
    bind: Binding,
    sid: str | None = None,
    name: str | None = None,
    form: str | None = None,
    value: str | None = None,
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
    """A labelled text input (or textarea) bound to the transition that takes what is typed
    (`bind`): its semantic id, name, form and value are those of the field the transition
    edits, unless given. Its error message is a region of its own, so it can change while
    the user types without the input being replaced."""
    target = FieldTarget.of(bind, "field", label, sid, name, form)
    sid, name = target.sid, target.name
    value = bind.value_in(r.state) if value is None else value
    fid = r.dom_id(f"fld:{sid}")
    inst = instrument_fill(
        r,
        target,
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
    label: str,
    bind: Binding,
    format: Binding,
    bold: bool,
    italic: bool,
    sid: str | None = None,
    name: str | None = None,
    form: str | None = None,
    value: str | None = None,
) -> str:
    """A content-editable editor with a small formatting toolbar (formatting is app state).
    `format` is bound to the transition that sets a style: each button fills in its
    `style` ("bold", "italic") and `on` (what pressing it makes the style)."""
    target = FieldTarget.of(bind, "editor", label, sid, name, form)
    sid, name = target.sid, target.name
    value = bind.value_in(r.state) if value is None else value
    eid = r.dom_id(f"rte:{sid}")
    inst = instrument_fill(r, target, kind="Editor", element="editable", value=value)
    tools = []
    for style, on, glyph in (("bold", bold, "B"), ("italic", italic, "I")):
        ti = r.instrument(
            f"{sid}:{style}",
            "Button",
            "click",
            {"role": f"format-{style}", "editor": name, "pressed": on},
            label=style.title(),
            **sends(format.with_args(style=style, on=not on)),
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
    label: str,
    bind: Binding,
    pick: Binding,
    suggestions: Sequence[tuple[str, str]],
    sid: str | None = None,
    name: str | None = None,
    form: str | None = None,
    text: str | None = None,
    placeholder: str | None = None,
    helper: str = "",
) -> str:
    """Type to search (`bind` takes the text); pick one of the suggestions (value, label)
    the app offers (`pick` takes the value picked)."""
    target = FieldTarget.of(bind, "field", label, sid, name, form)
    sid, name = target.sid, target.name
    text = bind.value_in(r.state) if text is None else text
    fid = r.dom_id(f"ta:{sid}")
    inst = instrument_fill(r, target, kind="Field", element="input", ui="typeahead", value=text)
    items = []
    for value, text_ in suggestions:
        si = r.instrument(
            f"suggest:{name}={value}",
            "Suggestion",
            "click",
            {"field": name, "value": value, "label": text_},
            label=text_,
            handler=pick.handler,
            arg=pick.arg,
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
    label: str,
    files: Sequence[SyntheticFile],
    bind: Binding,
    is_open: bool,
    sid: str | None = None,
    name: str | None = None,
    chosen: str | None = None,
) -> str:
    """Attach a file from a synthetic picker (no OS dialog: the files are site data): a
    choice among the files drawn as a custom menu, each listed with its size and kind.
    `bind` takes the file chosen."""
    sid = sid or bind.sid("upload")
    name = name or bind.field.name
    chosen = bind.value_in(r.state) if chosen is None else chosen
    files_of = ChoiceGroup(
        sid=sid,
        kind="FileUpload",
        name=name,
        label=label,
        options=[Option(f.name, f.name) for f in files],
        selected=chosen,
        attrs={"name": name, "label": label},
        **sends(bind),
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
