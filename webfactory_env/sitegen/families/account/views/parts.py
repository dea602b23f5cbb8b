"""Page parts the account portal's pages share: error texts and password rules, the country
menu and the birthday calendar bound to a form's draft, secondary forms, lookalike offers,
and the order of a form's fields."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from webfactory_env.core.seeding import SeedStream
from webfactory_env.sitegen import widgets as w
from webfactory_env.sitegen.families.account.content import TODAY
from webfactory_env.sitegen.families.account.queries import Portal
from webfactory_env.sitegen.families.account.state import Account
from webfactory_env.sitegen.families.account.transitions.drafts import set_field
from webfactory_env.sitegen.families.account.transitions.member import try_promo
from webfactory_env.sitegen.html import Renderer, esc
from webfactory_env.sitegen.spec import AttrValue, Option

Page = tuple[str, str]  # title, main region


def heading(text: str) -> str:
    return f"<h1>{esc(text)}</h1>"


def errors_text(portal: Portal, key: str) -> str:
    """The visible text of an error key (`rules:a,b` lists the unmet password rules)."""
    if not key:
        return ""
    if key.startswith("rules:"):
        needed = [rule_text(portal, k) for k in key[6:].split(",") if k]
        return portal.copy("rules.still", rules="; ".join(needed))
    return portal.copy(f"errors.{key}")


def error_line(portal: Portal, key: str) -> str:
    """A form-level error under a widget that shows none of its own."""
    return f'<p class="error" role="alert">{esc(errors_text(portal, key))}</p>' if key else ""


def rule_text(portal: Portal, key: str) -> str:
    if key == "length":
        return portal.copy("rules.length", n=portal.queries.policy.min_length)
    return portal.copy(f"rules.{key}")


def rules_list(portal: Portal) -> str:
    items = "".join(f"<li>{esc(rule_text(portal, k))}</li>" for k in portal.queries.policy.rules())
    title = esc(portal.copy("rules.title"))
    return f'<div class="rules"><strong>{title}</strong><ul>{items}</ul></div>'


def promo(portal: Portal, r: Renderer, name: str, level: str = "some") -> str:
    """A lookalike offer that does nothing a task asks for (flagged for checks)."""
    if portal.v.distractors == "none" or (level == "many" and portal.v.distractors != "many"):
        return ""
    return w.button(
        r,
        sid=f"distractor:{name}",
        text=portal.copy(f"distractors.{name}"),
        variant="secondary",
        attrs_={"role": name, "distractor": True},
        bind=try_promo.bind(name=name),
    )


def secondary(
    portal: Portal,
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
        open_modal=portal.ui.modal,
        close_text=portal.copy("settings.close"),
        opener_attrs=opener,
        opener_text=opener_text,
    )


def field_order(portal: Portal, names: Sequence[str], key: str) -> list[str]:
    """Form fields in the page's order (shuffled by the `field_order` axis)."""
    ordered = list(names)
    if portal.v.field_order == "shuffled":
        SeedStream(portal.spec.seed).child("layout").child(f"fields:{key}").shuffle(ordered)
    return ordered


def country_choice(portal: Portal, r: Renderer, *, form: str, label: str, sid: str = "") -> str:
    """The country menu of a form's draft (`choice:<form>.country` unless `sid` says)."""
    chosen = set_field.bind(form=form, name="country")
    sid = sid or chosen.sid("choice")
    options = [Option(name, name) for name in portal.queries.country_names]
    if not chosen.value_in(r.state):
        options.insert(0, Option("", portal.copy("profile.choose_country"), aliases=("none",)))
    return w.choice(
        r,
        sid=sid,
        kind="Choice",
        label=label,
        options=options,
        attrs_={"form": form},
        is_open=sid in portal.ui.open,
        bind=chosen,
    )


def birthday_picker(portal: Portal, r: Renderer, *, form: str, sid: str = "") -> str:
    """The birthday calendar of a form's draft (`date:<form>.birthday` unless `sid` says)."""
    picked = set_field.bind(form=form, name="birthday")
    sid = sid or picked.sid("date")
    return w.date_picker(
        r,
        sid=sid,
        label=portal.copy("profile.birthday"),
        month=portal.month_of("birthday"),
        is_open=sid in portal.ui.open,
        today=TODAY,
        bind=picked,
    )


def signed_in(portal: Portal) -> Account:
    """The member whose pages these are (the login wall keeps everyone else out)."""
    me = portal.queries.me
    assert me is not None, "the login wall keeps signed-out visitors out"
    return me
