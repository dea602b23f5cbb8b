"""Forms: a form with its submit button, the newsletter aside, and a wizard's steps."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from webfactory_env.core.predicates import Eq, Predicate, Ref
from webfactory_env.sitegen.copy import Copy
from webfactory_env.sitegen.html import Renderer, attrs, esc
from webfactory_env.sitegen.spec import AttrValue
from webfactory_env.sitegen.widgets.common import aria_label
from webfactory_env.sitegen.widgets.fields import text_field


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
    aria = aria_label(r, label)
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
