"""Forms: a form with its submit button, the newsletter aside, and a wizard's steps."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from webfactory_env.sitegen.binding import Binding
from webfactory_env.sitegen.copy import Copy
from webfactory_env.sitegen.html import Renderer, attrs, esc
from webfactory_env.sitegen.spec import AttrValue
from webfactory_env.sitegen.widgets.common import aria_label, sends
from webfactory_env.sitegen.widgets.fields import text_field


def form(
    r: Renderer,
    *,
    name: str,
    bind: Binding,
    body: str,
    submit_sid: str,
    submit_text: str,
    label: str,
    attrs_: Mapping[str, AttrValue] | None = None,
    banner: str = "",
    extra_buttons: str = "",
) -> str:
    """A form whose submit button is the `Form(name=...)` affordance: submitting it sends
    what its fields hold to the transition `bind` names."""
    inst = r.instrument(
        submit_sid,
        "Form",
        "submit",
        {"name": name, **(attrs_ or {})},
        label=submit_text,
        **sends(bind),
    )
    aria = aria_label(r, label)
    return (
        f"<form novalidate{aria}{r.meta(handler=bind.handler, arg=bind.arg)}>{banner}{body}"
        f'<div class="actions"><button type="submit"{inst}>{esc(submit_text)}</button>'
        f"{extra_buttons}</div></form>"
    )


def newsletter_promo(r: Renderer, copy: Copy, *, field: Binding, submit: Binding) -> str:
    """A newsletter sign-up aside (a distractor: no task needs it) unless the
    `distractors` axis is "none": an e-mail field bound to `field` (the newsletter form's
    `email`), in a form that `submit` sends."""
    if r.variation.distractors == "none":
        return ""
    email = text_field(
        r,
        label=copy("distractors.email"),
        input_type="email",
        attrs_={"distractor": True},
        bind=field,
    )
    return (
        '<aside class="promo distractor">'
        f"<strong>{esc(copy('distractors.newsletter'))}</strong>"
        + form(
            r,
            name="newsletter",
            body=email,
            submit_sid="form:newsletter",
            submit_text=copy("distractors.subscribe"),
            label=copy("distractors.newsletter"),
            attrs_={"distractor": True},
            bind=submit,
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
