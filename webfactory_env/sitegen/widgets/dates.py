"""Dates: a date picker (typed, inline calendar or popover) and a read-only month view."""

from __future__ import annotations

import calendar as _calendar
import datetime as dt
from collections.abc import Mapping, Sequence

from webfactory_env.sitegen.binding import Binding
from webfactory_env.sitegen.html import Renderer, attrs, esc
from webfactory_env.sitegen.widgets.common import UI_MONTH, UI_TOGGLE
from webfactory_env.sitegen.widgets.fields import FieldTarget, instrument_fill, text_field


def date_picker(
    r: Renderer,
    *,
    label: str,
    bind: Binding,
    month: str,
    is_open: bool,
    today: str,
    sid: str | None = None,
    name: str | None = None,
    form: str | None = None,
    value: str | None = None,
    style: str | None = None,
    placeholder: str = "YYYY-MM-DD",
) -> str:
    """A date: typed (`text`), picked from an always-visible calendar (`inline`), or from a
    calendar that a button opens (`popover`). The field (`date:<form>.<name>`) and every
    day send the ISO date to the transition `bind` names."""
    target = FieldTarget.of(bind, "date", label, sid, name, form)
    value = bind.value_in(r.state) if value is None else value
    style = style or r.variation.date_widget
    if style == "text":
        return text_field(
            r,
            sid=target.sid,
            name=target.name,
            label=label,
            value=value,
            bind=bind,
            form=target.form,
            kind="DatePicker",
            placeholder=placeholder,
        )

    def grid() -> str:
        key = ("month", target.name, month, value, today, bind.handler, bind.arg)
        return r.fragment(
            key,
            lambda: _month_grid(
                r, picker=target.name, month=month, value=value, today=today, bind=bind
            ),
        )

    if style == "inline":
        inst = instrument_fill(r, target, kind="DatePicker", element="group", ui="calendar")
        return (
            f'<div class="field date-inline"{inst}><span class="label">{esc(label)}</span>'
            f'<span class="date-value">{esc(value or "—")}</span>{grid()}</div>'
        )
    inst = instrument_fill(
        r, target, kind="DatePicker", element="button", ui="calendar", opens=UI_TOGGLE
    )
    return (
        f'<div class="field date-popover"><span class="label">{esc(label)}</span>'
        f'<button type="button" class="menu-button"'
        f"{attrs(aria_expanded='true' if is_open else 'false', aria_haspopup='dialog')}{inst}>"
        f"{esc(value or placeholder)}</button>{grid() if is_open else ''}</div>"
    )


def _month_grid(
    r: Renderer, *, picker: str, month: str, value: str, today: str, bind: Binding
) -> str:
    year, mon = (int(x) for x in month.split("-")[:2])
    first = dt.date(year, mon, 1)
    title = first.strftime("%B %Y")
    nav = []
    for delta, text in ((-1, "‹"), (1, "›")):
        role = "prev-month" if delta < 0 else "next-month"
        paging = UI_MONTH.bind(picker=picker, delta=delta)
        ni = r.instrument(
            f"cal:{picker}:{role}",
            "Button",
            "click",
            {"role": role, "picker": picker},
            label="Previous month" if delta < 0 else "Next month",
            handler=paging.handler,
            arg=paging.arg,
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
                handler=bind.handler,
                arg=bind.arg,
                element="option",
                value=iso,
                event="change",
                structural=True,
            )
            cls = " ".join(
                x for x, on in (("selected", iso == value), ("today", iso == today)) if on
            )
            # The chosen day says so to a screen reader too, not only to the eye.
            chosen = "true" if iso == value else None
            row.append(
                '<td><button type="button"'
                + attrs(
                    class_=cls or None, aria_label=day.strftime("%A %d %B %Y"), aria_selected=chosen
                )
                + f"{di}>{day.day}</button></td>"
            )
        cells.append(f"<tr>{''.join(row)}</tr>")
    head = "".join(f"<th>{d}</th>" for d in ("Mo", "Tu", "We", "Th", "Fr", "Sa", "Su"))
    return (
        f'<div class="calendar" role="group"><div class="cal-head">{nav[0]}'
        f"<strong>{esc(title)}</strong>{nav[1]}</div>"
        f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(cells)}</tbody></table></div>"
    )


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
