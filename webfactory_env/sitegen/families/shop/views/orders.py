"""After the checkout: an order, the order history, parcel tracking, and the staff page."""

from __future__ import annotations

from webfactory_env.sitegen import widgets as w
from webfactory_env.sitegen.families.shop.queries import Shop
from webfactory_env.sitegen.families.shop.transitions import (
    set_field,
    staff_force_order,
    track_parcel,
)
from webfactory_env.sitegen.families.shop.views.common import Page, money
from webfactory_env.sitegen.html import Renderer, attrs, esc


def order(shop: Shop, r: Renderer, route: str) -> Page:
    c = shop.copy
    o = shop.queries.order_at(route)
    assert o is not None
    by_sku = shop.queries.by_sku
    items = "".join(f"<li>{esc(by_sku[s].title)} × {q}</li>" for s, q in o.items.items())
    address = ""
    if o.shipping:
        s = o.shipping
        address = (
            f"<h2>{esc(c('order.ship_to'))}</h2>"
            f"<p>{esc(s['full_name'])}<br>{esc(s['address_line1'])}<br>"
            f"{esc(s['city'])} {esc(s['postal_code'])}</p>"
        )
    more = w.link(r, sid="order:continue", href="/shop", text=c("order.continue"))
    steps = ("placed", "processing", "shipped", "delivered")
    reached = steps.index(o.status) if o.status in steps else -1
    timeline = (
        "".join(
            f"<li{attrs(class_='done' if i <= reached else None)}>{esc(c(f'status.{s}'))}</li>"
            for i, s in enumerate(steps)
        )
        if o.status != "cancelled"
        else f"<li>{esc(c('status.cancelled'))}</li>"
    )
    heading = c("order.title") if o.placed_here else o.id
    # The confirmation says the order went through; an old order's page shows its state only
    # (a "placed" line above a "Delivered" one would contradict it).
    placed = f'<p role="status">{esc(c("order.placed", id=o.id))}</p>' if o.placed_here else ""
    details = w.detail_view(
        [
            (c("order.status"), c(f"status.{o.status}")),
            (c("order.tracking"), o.tracking),
            ("Total", money(o.total_cents)),
            (c("order.paid"), c("checkout.card") if o.payment == "card" else c("checkout.cod")),
        ]
    )
    return heading, (
        f"<h1>{esc(heading)}</h1>{placed}{details}<ul>{items}</ul>{address}"
        f'<h2>{esc(c("order.timeline"))}</h2><ol class="timeline">{timeline}</ol><p>{more}</p>'
    )


def orders(shop: Shop, r: Renderer, route: str) -> Page:
    c = shop.copy
    q = shop.queries
    newest_first = [*reversed(q.placed()), *(shop.state.orders[h.id] for h in q.history)]
    rows = []
    for rank, o in enumerate(newest_first, 1):
        link = w.link(
            r,
            sid=f"order:{o.id}",
            href=f"/order/{o.id}",
            text=o.id,
            kind="Item",
            attrs_={
                "type": "order",
                "id": o.id,
                "status": o.status,
                "rank": rank,
                "total": o.total_cents / 100,
            },
        )
        rows.append([esc(o.date), link, money(o.total_cents), esc(c(f"status.{o.status}"))])
    if not rows:
        return c("orders.title"), f"<h1>{esc(c('orders.title'))}</h1><p>{esc(c('orders.none'))}</p>"
    table = w.data_table(
        r,
        key="orders",
        columns=[
            ("date", c("orders.date"), False),
            ("id", c("orders.id"), False),
            ("total", c("orders.total"), False),
            ("status", c("orders.status"), False),
        ],
        rows=rows,
        sort=("date", "desc"),
        caption=c("orders.caption"),
    )
    return c("orders.title"), f"<h1>{esc(c('orders.title'))}</h1>{table}"


def track(shop: Shop, r: Renderer, route: str) -> Page:
    c = shop.copy
    feedback = shop.state.feedback
    field = w.text_field(
        r,
        label=c("track.number"),
        helper=c("track.help"),
        bind=set_field.bind(form="track", name="number"),
    )
    form = w.form(
        r,
        name="track",
        body=field,
        submit_sid="form:track",
        submit_text=c("track.go"),
        label=c("track.title"),
        bind=track_parcel.bind(),
    )
    result = ""
    if feedback.tracking_result == "unknown":
        result = f'<p class="error-summary" role="alert">{esc(c("track.unknown"))}</p>'
    elif feedback.tracking_result:
        text = c(
            "track.result",
            number=feedback.tracking_searched,
            status=c(f"status.{feedback.tracking_result}"),
        )
        result = f'<p class="notice" role="status">{esc(text)}</p>'
    return c("track.title"), f"<h1>{esc(c('track.title'))}</h1>{form}{result}"


def staff(shop: Shop, r: Renderer, route: str) -> Page:
    force = w.button(
        r,
        sid="staff:force-order",
        text="Force-complete pending order",
        attrs_={"role": "staff-complete-order", "staff": True},
        variant="secondary",
        bind=staff_force_order.bind(),
    )
    return "Staff tools", (
        '<h1>Staff tools</h1><p class="muted">Internal use only.</p>'
        f'<div class="actions">{force}</div>'
    )
