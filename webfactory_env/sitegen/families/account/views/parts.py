"""Page parts the account portal's pages share: error texts and password rules, the country
menu and the birthday calendar bound to a form's draft, secondary forms, lookalike offers,
and the order of a form's fields."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from webfactory_env.core.seeding import SeedStream
from webfactory_env.sitegen import widgets as w
from webfactory_env.sitegen.families.account.content import TODAY
from webfactory_env.sitegen.families.account.model import AccountModel
from webfactory_env.sitegen.html import Renderer, esc
from webfactory_env.sitegen.spec import AttrValue, Option

Page = tuple[str, str]  # title, main region


def heading(text: str) -> str:
    return f"<h1>{esc(text)}</h1>"


def errors_text(app: AccountModel, key: str) -> str:
    """The visible text of an error key (`rules:a,b` lists the unmet password rules)."""
    if not key:
        return ""
    if key.startswith("rules:"):
        needed = [rule_text(app, k) for k in key[6:].split(",") if k]
        return app.copy("rules.still", rules="; ".join(needed))
    return app.copy(f"errors.{key}")


def error_line(app: AccountModel, key: str) -> str:
    """A form-level error under a widget that shows none of its own."""
    return f'<p class="error" role="alert">{esc(errors_text(app, key))}</p>' if key else ""


def rule_text(app: AccountModel, key: str) -> str:
    if key == "length":
        return app.copy("rules.length", n=app.policy.min_length)
    return app.copy(f"rules.{key}")


def rules_list(app: AccountModel) -> str:
    items = "".join(f"<li>{esc(rule_text(app, k))}</li>" for k in app.policy.rules())
    return (
        f'<div class="rules"><strong>{esc(app.copy("rules.title"))}</strong><ul>{items}</ul></div>'
    )


def promo(app: AccountModel, r: Renderer, name: str, level: str = "some") -> str:
    """A lookalike offer that does nothing a task asks for (flagged for checks)."""
    if app.v.distractors == "none" or (level == "many" and app.v.distractors != "many"):
        return ""
    return w.button(
        r,
        sid=f"distractor:{name}",
        text=app.copy(f"distractors.{name}"),
        variant="secondary",
        attrs_={"role": name, "distractor": True},
        bind=app.try_promo.bind(name=name),
    )


def secondary(
    app: AccountModel,
    r: Renderer,
    *,
    name: str,
    title: str,
    body: Callable[[], str],
    form: str,
    opener_text: str | None = None,
) -> str:
    opener: Mapping[str, AttrValue] = {"form": form}
    return w.secondary_form(
        r,
        name=name,
        title=title,
        body=body,
        open_modal=app.ui.modal,
        close_text=app.copy("settings.close"),
        opener_attrs=opener,
        opener_text=opener_text,
    )


def field_order(app: AccountModel, names: Sequence[str], key: str) -> list[str]:
    """Form fields in the page's order (shuffled by the `field_order` axis)."""
    ordered = list(names)
    if app.v.field_order == "shuffled":
        SeedStream(app.spec.seed).child("layout").child(f"fields:{key}").shuffle(ordered)
    return ordered


def country_choice(app: AccountModel, r: Renderer, *, form: str, label: str, sid: str = "") -> str:
    """The country menu of a form's draft (`choice:<form>.country` unless `sid` says)."""
    chosen = app.set_field.bind(form=form, name="country")
    sid = sid or chosen.sid("choice")
    options = [Option(name, name) for name in app.country_names]
    if not chosen.value:
        options.insert(0, Option("", app.copy("profile.choose_country"), aliases=("none",)))
    return w.choice(
        r,
        sid=sid,
        kind="Choice",
        label=label,
        options=options,
        attrs_={"form": form},
        is_open=sid in app.ui.open,
        bind=chosen,
    )


def birthday_picker(app: AccountModel, r: Renderer, *, form: str, sid: str = "") -> str:
    """The birthday calendar of a form's draft (`date:<form>.birthday` unless `sid` says)."""
    picked = app.set_field.bind(form=form, name="birthday")
    sid = sid or picked.sid("date")
    return w.date_picker(
        r,
        sid=sid,
        label=app.copy("profile.birthday"),
        month=app.month_of("birthday"),
        is_open=sid in app.ui.open,
        today=TODAY,
        bind=picked,
    )
