"""Page parts the travel pages share: airport and city pickers, calendars, menus bound to
form drafts, sorted lists, secondary forms, notices, and how money and times read."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from webfactory_env.core.seeding import SeedStream
from webfactory_env.sitegen import widgets as w
from webfactory_env.sitegen.binding import Binding
from webfactory_env.sitegen.families.travel.entities import Airport
from webfactory_env.sitegen.families.travel.queries import Travel
from webfactory_env.sitegen.families.travel.transitions.drafts import (
    ChoiceForm,
    pick_place,
    set_choice,
    set_field,
    type_place,
)
from webfactory_env.sitegen.html import Renderer, esc
from webfactory_env.sitegen.spec import AttrValue, Option

Page = tuple[str, str]  # title, main region


def money(dollars: int | float) -> str:
    return f"${dollars:,.0f}"


def clock(minutes: int) -> str:
    return f"{minutes // 60 % 24:02d}:{minutes % 60:02d}"


def span(minutes: int) -> str:
    return f"{minutes // 60}h {minutes % 60:02d}m"


def errors_line(travel: Travel, r: Renderer, form: str, name: str) -> str:
    """The error region of a field whose widget has none of its own (typeahead, date):
    its own sub-region, so it can change while the user types elsewhere."""
    key = form_errors(travel, form).get(name, "")
    text = (
        f'<span class="error" role="alert">{esc(travel.copy(f"errors.{key}"))}</span>'
        if key
        else ""
    )
    return r.subregion(f"err:{form}.{name}", text, class_="field-error")


def form_errors(travel: Travel, form: str) -> dict[str, str]:
    return getattr(travel.state.feedback, f"{form}_errors", {})


def banner(travel: Travel, form: str) -> str:
    """The summary above a form that has errors: the special one, else "fix the fields"."""
    errors = form_errors(travel, form)
    if not errors:
        return ""
    special = [k for k in errors if k.startswith("_")]
    text = travel.copy(f"errors.{errors[special[0]]}") if special else travel.copy("form.fix")
    return f'<p class="error-summary" role="alert">{esc(text)}</p>'


def airport_label(travel: Travel, code: str) -> str:
    a = travel.queries.by_airport[code]
    return f"{a.code} — {a.city} ({a.name})"


def _airport_suggestions(travel: Travel, text: str) -> list[tuple[str, str]]:
    t = text.strip().lower()
    if len(t) < 2:
        return []

    def rank(a: Airport) -> tuple[int, str]:
        if a.code.lower() == t:
            return (0, a.code)
        return (1 if a.code.lower().startswith(t) else 2, a.code)

    hits = [
        a
        for a in travel.queries.airports
        if a.code.lower().startswith(t)
        or t in a.city.lower()
        or t in a.name.lower()
        or t in a.metro.lower()
    ]
    return [(a.code, airport_label(travel, a.code)) for a in sorted(hits, key=rank)[:6]]


def place_field(
    travel: Travel, r: Renderer, form: str, name: str, label: str, placeholder: str, helper: str
) -> str:
    """An airport (or, for `city`, a hotel city) picked by typing and choosing."""
    values: dict[str, str] = getattr(travel.state.forms, form)
    text = values[f"{name}_text"]
    if name == "city":
        t = text.strip().lower()
        suggestions = (
            [
                (c.name, f"{c.name}, {c.region}")
                for c in travel.queries.cities
                if t in c.name.lower()
            ]
            if len(t) >= 2 and not values["city"]
            else []
        )
    else:
        suggestions = _airport_suggestions(travel, text) if not values[name] else []
    field = w.typeahead(
        r,
        label=label,
        bind=type_place.bind(form=form, name=name),
        pick=pick_place.bind(form=form, name=name),
        suggestions=suggestions,
        placeholder=placeholder,
        helper=helper,
    )
    return f'<div class="field-group">{field}{errors_line(travel, r, form, name)}</div>'


def date_field(travel: Travel, r: Renderer, form: str, name: str, label: str) -> str:
    typed = set_field.bind(form=form, name=name)
    picker = w.date_picker(
        r,
        label=label,
        month=travel.month_of(name),
        is_open=typed.sid("date") in travel.ui.open,
        today=travel.spec.today,
        bind=typed,
    )
    return f'<div class="field-group">{picker}{errors_line(travel, r, form, name)}</div>'


def draft_choice(
    travel: Travel,
    r: Renderer,
    *,
    form: ChoiceForm,
    name: str,
    label: str,
    options: Sequence[Option],
) -> str:
    """A menu whose choice is a form draft's field (`set_choice`)."""
    chosen = set_choice.bind(form=form, name=name)
    return w.choice(
        r,
        kind="Choice",
        label=label,
        options=options,
        is_open=chosen.sid("choice") in travel.ui.open,
        attrs_={"form": form},
        bind=chosen,
    )


def guest_options(travel: Travel) -> list[Option]:
    c = travel.copy
    return [
        Option(
            str(n),
            c("hotels.guests_one") if n == 1 else c("hotels.guests_n", n=n),
            aliases=(str(n),),
        )
        for n in range(1, 5)
    ]


def sort_choice(
    travel: Travel,
    r: Renderer,
    *,
    results: str,
    label: str,
    prefix: str,
    sorts: Sequence[str],
    attrs_of: Mapping[str, Mapping[str, AttrValue]],
    aliases: Mapping[str, tuple[str, ...]],
    selected: str,
    bind: Binding,
) -> str:
    """The sort menu of the flight or hotel results (`results`): option `s` reads the copy
    `<prefix>.<s>`; choosing one is the transition `bind` names."""
    sid = f"sort:{results}"
    return w.choice(
        r,
        sid=sid,
        kind="Sort",
        name="sort",
        label=label,
        options=[
            Option(s, travel.copy(f"{prefix}.{s}"), tuple(sorted(attrs_of[s].items())), aliases[s])
            for s in sorts
        ],
        selected=selected,
        is_open=sid in travel.ui.open,
        bind=bind,
    )


def listing(
    travel: Travel,
    r: Renderer,
    *,
    key: str,
    items: Sequence[Any],
    page: int,
    page_size: int,
    turn: Binding,
    render_item: Callable[[Any, int], str],
) -> tuple[str, str]:
    """A long list, paginated or infinite as the `list_mode` axis says: (items, more)."""
    c = travel.copy
    if travel.v.list_mode == "infinite":
        first, shown = 0, items[: travel.ui.more.get(key, 1) * page_size]
        more = w.load_more(r, key=key, has_more=len(shown) < len(items), text=c("list.loading"))
    else:
        pages = max(1, -(-len(items) // page_size))
        page = min(page, pages)
        first = (page - 1) * page_size
        shown = items[first : first + page_size]
        more = w.pager(
            r,
            key=key,
            page=page,
            pages=pages,
            bind=turn,
            label=c("list.pages"),
            prev_text=c("list.prev"),
            next_text=c("list.next"),
        )
    return "".join(render_item(x, first + i + 1) for i, x in enumerate(shown)), more


def secondary(
    travel: Travel,
    r: Renderer,
    *,
    name: str,
    title: str,
    body: Callable[[], str],
    opener_attrs: Mapping[str, AttrValue],
) -> str:
    """A secondary form inline, or behind a button in a dialog (the `form_mode` axis).
    `body` renders the form only when it is shown, so a closed dialog has no fields."""
    if travel.v.form_mode == "modal":
        if travel.ui.modal == name:
            return w.modal(
                r, name=name, title=title, body=body(), close_text=travel.copy("form.close")
            )
        return w.modal_opener(r, name=name, text=title, attrs_=opener_attrs)
    return f'<section class="secondary-form"><h2>{esc(title)}</h2>{body()}</section>'


def notice(travel: Travel, r: Renderer, links: Sequence[tuple[str, str]] = ()) -> str:
    """The one-navigation message ("Added to your itinerary"), with follow-up links."""
    if not travel.ui.flash:
        return ""
    extra = " ".join(w.link(r, sid=f"notice:{href}", href=href, text=text) for href, text in links)
    return f'<p class="notice" role="status">{esc(travel.ui.flash)} {extra}</p>'


def field_order(travel: Travel, names: Sequence[str], key: str) -> list[str]:
    """Form fields in the page's order (shuffled by the `field_order` axis)."""
    ordered = list(names)
    if travel.v.field_order == "shuffled":
        SeedStream(travel.spec.seed).child("layout").child(f"fields:{key}").shuffle(ordered)
    return ordered


def extra_toggle(travel: Travel, r: Renderer, switch: Binding) -> str:
    """A distractor switch (price alert, insurance) bound to its own transition."""
    name = switch.field.name
    return w.toggle(
        r,
        sid=f"toggle:{name}",
        kind="Toggle",
        label=travel.copy(f"distractors.{name}"),
        attrs_={"distractor": True},
        bind=switch,
    )
