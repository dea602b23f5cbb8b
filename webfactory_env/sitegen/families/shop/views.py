"""The shop's pages, drawn from its model with the widget library. Pages only read state:
every element that changes something is bound to a transition with `app.on(...)`."""

from __future__ import annotations

from typing import Any

from webfactory_env.core.predicates import Eq
from webfactory_env.core.seeding import SeedStream
from webfactory_env.sitegen import widgets as w
from webfactory_env.sitegen.families.shop.content import Product
from webfactory_env.sitegen.families.shop.model import PAGE_SIZE, SORTS, ShopModel, money
from webfactory_env.sitegen.families.shop.rules import CARD_FIELDS, SHIPPING_FIELDS
from webfactory_env.sitegen.html import Renderer, attrs, esc
from webfactory_env.sitegen.spec import Option

Page = tuple[str, str]  # title, main region
SORT_ATTRS = {
    "featured": {"key": "featured", "order": "asc"},
    "price-asc": {"key": "price", "order": "asc"},
    "price-desc": {"key": "price", "order": "desc"},
    "rating-desc": {"key": "rating", "order": "desc"},
}
SORT_ALIASES = {
    "featured": ("featured", "default"),
    "price-asc": ("asc", "ascending", "low to high", "cheapest first"),
    "price-desc": ("desc", "descending", "high to low"),
    "rating-desc": ("desc", "descending", "best rated", "top rated"),
}
AUTOCOMPLETE = {
    "full_name": "name",
    "address_line1": "address-line1",
    "city": "address-level2",
    "postal_code": "postal-code",
    "card_number": "cc-number",
    "expiry": "cc-exp",
    "cvc": "cc-csc",
    "card_name": "cc-name",
}


def header(app: ShopModel, r: Renderer) -> str:
    c = app.copy
    count = sum(app.model.cart.items.values())
    entries = [
        ("/", c("nav.home")),
        ("/shop", c("nav.shop")),
        ("/cart", f"{c('nav.cart')} ({count})" if count else c("nav.cart")),
        ("/checkout", c("nav.checkout")),
        ("/orders", c("nav.orders")),
        ("/track", c("nav.track")),
        ("/wishlist", c("nav.wishlist")),
    ]
    nav = w.site_nav(r, entries, label=c("nav.label"))
    return f'<span class="brand">{esc(app.spec.brand)}</span>{nav}'


# ------------------------------------------------------------------ products
def product_card(app: ShopModel, r: Renderer, p: Product, rank: int) -> str:
    link = w.link(
        r,
        sid=f"item:{p.sku}",
        href=f"/product/{p.sku}",
        text=p.title,
        kind="Item",
        class_="title",
        attrs_={
            "type": "product",
            "title": p.title,
            "sku": p.sku,
            "color": p.color,
            "category": p.category,
            "product_type": p.product_type,
            "price": p.price_cents / 100,
            "rating": p.rating,
            "in_stock": p.stock > 0,
            "rank": rank,
        },
        effect=Eq(("route",), f"/product/{p.sku}"),
    )
    extra = ""
    if app.v.distractors == "many":
        extra = w.button(
            r,
            sid=f"compare:{p.sku}",
            text=app.copy("distractors.compare"),
            variant="secondary",
            attrs_={"role": "compare", "sku": p.sku, "distractor": True},
            **app.on("add_to_wishlist", p.sku),
        )
    return (
        '<article class="card">'
        f'<div class="swatch swatch-{p.color.lower()}"></div>{link}'
        f'<span class="price">{money(p.price_cents)}</span>'
        f'<span class="muted">Color: {esc(p.color)} · {esc(p.category)}</span>'
        f"<span>★ {p.rating:.1f} ({p.reviews} reviews)</span>"
        f"{stock_note(app, p)}{extra}</article>"
    )


def stock_note(app: ShopModel, p: Product) -> str:
    if p.stock == 0:
        return f'<span class="stock-out">{esc(app.copy("product.out"))}</span>'
    if p.stock <= 5:
        return f'<span class="stock-low">{esc(app.copy("product.low", n=p.stock))}</span>'
    return f'<span class="muted">{esc(app.copy("product.in"))}</span>'


def home(app: ShopModel, r: Renderer, route: str) -> Page:
    c = app.copy
    cta = w.link(r, sid="home:cta", href="/shop", text=c("home.cta"), class_="button")
    cards = "".join(product_card(app, r, p, i + 1) for i, p in enumerate(app.products[:4]))
    title = c("home.title", brand=app.spec.brand)
    live = next(x for x in app.coupons.values() if not x.expired)
    promo = f'<p class="promo">{esc(c("home.promo", code=live.code, pct=live.percent))}</p>'
    newsletter = w.newsletter_promo(
        r,
        c,
        app.model.forms.newsletter["email"],
        field_action=app.on("set_field", "newsletter.email"),
        submit_action=app.on("join_newsletter"),
    )
    staff = w.link(r, sid="home:/staff", href="/staff", text="Staff tools")
    return title, (
        f'<section class="hero"><h1>{esc(title)}</h1><p>{esc(c("home.tagline"))}</p>{cta}'
        f'</section>{promo}<h2>{esc(c("home.featured"))}</h2><div class="grid">{cards}</div>'
        f'{newsletter}<p class="fineprint muted">{staff}</p>'
    )


def listing(app: ShopModel, r: Renderer, route: str) -> Page:
    c = app.copy
    state = app.model.listing
    filters = "".join(
        w.choice(
            r,
            sid=f"filter:{name}",
            kind="Filter",
            name=name,
            label=c(f"listing.{name_key}"),
            options=[
                Option("", c(f"listing.all_{all_key}"), aliases=("all", "any")),
                *(Option(x, x) for x in sorted({getattr(p, name) for p in app.products})),
            ],
            selected=state.filters[name],
            is_open=f"filter:{name}" in app.ui.open,
            **app.on("set_filter", name),
        )
        for name, name_key, all_key in (
            ("color", "color", "colors"),
            ("category", "category", "categories"),
        )
    )
    sort = w.choice(
        r,
        sid="sort",
        kind="Sort",
        name="sort",
        label=c("listing.sort"),
        options=[
            Option(s, c(f"sort.{s}"), tuple(sorted(SORT_ATTRS[s].items())), SORT_ALIASES[s])
            for s in SORTS
        ],
        selected=state.sort,
        is_open="sort" in app.ui.open,
        **app.on("set_sort"),
    )
    items = app.listing()
    count = c("listing.count_one") if len(items) == 1 else c("listing.count_many", n=len(items))
    if app.v.list_mode == "infinite":
        first, shown = 0, items[: app.ui.more.get("listing", 1) * PAGE_SIZE]
        more = w.load_more(
            r, key="listing", has_more=len(shown) < len(items), text=c("listing.loading")
        )
    else:
        first = (state.page - 1) * PAGE_SIZE
        shown = items[first : first + PAGE_SIZE]
        more = w.pager(
            r,
            key="listing",
            page=state.page,
            pages=app.pages(),
            handler="turn_page",
            label=c("listing.pages"),
            prev_text=c("listing.prev"),
            next_text=c("listing.next"),
            state_path=("listing", "page"),
        )
    cards = "".join(product_card(app, r, p, first + i + 1) for i, p in enumerate(shown))
    body = f'<div class="grid">{cards}</div>' if items else f"<p>{esc(c('listing.empty'))}</p>"
    help_ = (
        f'<p class="hint">{esc(c("listing.filters_help"))}</p>' if app.v.helper_text == "on" else ""
    )
    return c("listing.title"), (
        f"<h1>{esc(c('listing.title'))}</h1>{help_}"
        f'<div class="toolbar">{filters}{sort}'
        f'<p class="muted" role="status">{esc(count)}</p></div>{body}{more}'
    )


def product(app: ShopModel, r: Renderer, route: str) -> Page:
    c = app.copy
    p = app.product_at(route)
    assert p is not None
    crumbs = w.breadcrumbs(
        r, [(c("product.back"), "/shop"), (p.category, None)], label=c("product.crumbs")
    )
    add = w.button(
        r,
        sid=f"add-to-cart:{p.sku}",
        text=c("product.add"),
        disabled=p.stock == 0,
        attrs_={"role": "add-to-cart", "sku": p.sku, "title": p.title},
        **app.on("add_to_cart", p.sku),
    )
    wish = ""
    if app.v.distractors != "none":
        wish = w.button(
            r,
            sid=f"wishlist:{p.sku}",
            text=c("product.wishlist"),
            variant="secondary",
            attrs_={"role": "wishlist", "sku": p.sku, "title": p.title, "distractor": True},
            **app.on("add_to_wishlist", p.sku),
        )
    notice = ""
    if app.flash:
        view_cart = w.link(r, sid="notice:/cart", href="/cart", text=c("product.view_cart"))
        notice = f'<p class="notice" role="status">{esc(app.flash)} {view_cart}</p>'
    tab = app.ui.tabs.get("product", "description")
    panels = {
        "description": f"<p>{esc(p.description)}</p>",
        "details": w.detail_view(
            [("Color", p.color), ("Material", p.material), ("Category", p.category), ("SKU", p.sku)]
        ),
        "reviews": f"<p>{esc(c('product.reviews_body', n=p.reviews, rating=p.rating))}</p>",
    }
    tabs = w.tabs(
        r,
        group="product",
        items=[(k, c(f"product.{k}")) for k in ("description", "details", "reviews")],
        active=tab,
        panel=panels[tab],
        label=p.title,
    )
    return p.title, (
        f"{crumbs}"
        f'<div class="product"><div class="swatch swatch-{p.color.lower()}"></div><div>'
        f"<h1>{esc(p.title)}</h1>"
        f'<p class="price">{money(p.price_cents)}</p>'
        f"<p>Color: {esc(p.color)}</p>"
        f"<p>★ {p.rating:.1f} · {p.reviews} reviews</p>"
        f"<p>{stock_note(app, p)}</p>"
        f'<div class="actions">{add}{wish}</div>{notice}{tabs}</div></div>'
    )


# --------------------------------------------------------------------- cart
def coupon_form(app: ShopModel, r: Renderer) -> str:
    c = app.copy
    error = app.model.feedback.coupon_error
    field = w.text_field(
        r,
        sid="field:coupon.code",
        name="code",
        label=c("cart.coupon"),
        value=app.model.forms.coupon["code"],
        form="coupon",
        error=c(f"errors.coupon_{error}") if error else "",
        helper=c("cart.coupon_help"),
        **app.on("set_field", "coupon.code"),
    )
    return w.form(
        r,
        name="coupon",
        body=field,
        submit_sid="form:coupon",
        submit_text=c("cart.apply"),
        label=c("cart.coupon"),
        **_no_arg(app.on("apply_coupon")),
    )


def cart(app: ShopModel, r: Renderer, route: str) -> Page:
    c = app.copy
    state = app.model.cart
    removed = ", ".join(app.by_sku[s].title for s in sorted(state.removed) if s in app.by_sku)
    removed_note = (
        f'<p class="muted">{esc(c("cart.removed", titles=removed))}</p>' if removed else ""
    )
    if not state.items:
        link = w.link(r, sid="cart:/shop", href="/shop", text=c("home.cta"))
        return c("cart.title"), (
            f"<h1>{esc(c('cart.title'))}</h1>"
            f"{w.toast(app.flash)}<p>{esc(c('cart.empty'))}</p>{removed_note}<p>{link}</p>"
        )
    rows = []
    for sku, qty in state.items.items():
        p = app.by_sku[sku]
        link = w.link(r, sid=f"cart-item:{sku}", href=f"/product/{sku}", text=p.title)
        remove = w.button(
            r,
            sid=f"remove:{sku}",
            text=c("cart.remove"),
            variant="secondary",
            attrs_={"role": "remove-from-cart", "sku": sku, "title": p.title},
            **app.on("remove_from_cart", sku),
        )
        rows.append([link, f"{esc(c('cart.qty'))} {qty}", money(p.price_cents * qty), remove])
    table = (
        "<table><tbody>"
        + "".join("<tr>" + "".join(f"<td>{x}</td>" for x in row) + "</tr>" for row in rows)
        + "</tbody></table>"
    )
    if app.v.form_mode == "modal":
        coupon = (
            w.modal(
                r,
                name="coupon",
                title=c("cart.have_coupon"),
                body=coupon_form(app, r),
                close_text=c("cart.close"),
            )
            if app.ui.modal == "coupon"
            else w.modal_opener(
                r, name="coupon", text=c("cart.have_coupon"), attrs_={"form": "coupon"}
            )
        )
    else:
        coupon = (
            f'<section class="coupon"><h2>{esc(c("cart.have_coupon"))}</h2>'
            f"{coupon_form(app, r)}</section>"
        )
    proceed = w.link(
        r, sid="cart:proceed", href="/checkout", text=c("cart.proceed"), class_="button"
    )
    discount = app.discount()
    totals = (
        f"<p>{esc(c('cart.subtotal'))}: {money(app.subtotal())}</p>"
        + (f"<p>{esc(c('cart.discount'))}: −{money(discount)}</p>" if discount else "")
        + f"<p><strong>{esc(c('cart.total'))}: {money(app.subtotal() - discount)}"
        "</strong></p>"
    )
    return c("cart.title"), (
        f"<h1>{esc(c('cart.title'))}</h1>{w.toast(app.flash)}{table}{totals}{removed_note}"
        f"{coupon}<p>{proceed}</p>"
    )


def wishlist(app: ShopModel, r: Renderer, route: str) -> Page:
    """What the customer saved for later, each with a button that moves it to the cart."""
    c = app.copy
    saved = [app.by_sku[s] for s in sorted(app.model.wishlist) if s in app.by_sku]
    rows = [
        f"<li>{esc(p.title)} — {money(p.price_cents)} "
        + w.button(
            r,
            sid=f"move-to-cart:{p.sku}",
            text=c("wishlist.move"),
            disabled=p.stock == 0,
            attrs_={"role": "move-to-cart", "sku": p.sku, "title": p.title},
            **app.on("move_to_cart", p.sku),
        )
        + "</li>"
        for p in saved
    ]
    body = f"<ul>{''.join(rows)}</ul>" if rows else f"<p>{esc(c('wishlist.empty'))}</p>"
    return c("wishlist.title"), f"<h1>{esc(c('wishlist.title'))}</h1>{w.toast(app.flash)}{body}"


# ----------------------------------------------------------------- checkout
def _field_order(app: ShopModel, names: tuple[str, ...], key: str) -> list[str]:
    ordered = list(names)
    if app.v.field_order == "shuffled":
        SeedStream(app.spec.seed).child("layout").child(f"fields:{key}").shuffle(ordered)
    return ordered


def _no_arg(action: dict[str, Any]) -> dict[str, Any]:
    """A form's submit binding: forms take a handler and an effect, no argument."""
    return {k: v for k, v in action.items() if k != "arg"}


def checkout(app: ShopModel, r: Renderer, route: str) -> Page:
    c = app.copy
    forms, errors = app.model.forms, app.model.feedback.checkout_errors
    helpers = {"postal_code": c("checkout.postal_help"), "full_name": c("checkout.name_help")}
    fields = []
    for name in _field_order(app, SHIPPING_FIELDS, "shipping"):
        err = errors.get(name, "")
        fields.append(
            w.text_field(
                r,
                sid=f"field:shipping.{name}",
                name=name,
                label=c(f"checkout.{name}"),
                value=forms.shipping[name],
                form="shipping",
                error=c(f"errors.{err}") if err else "",
                helper=helpers.get(name, ""),
                autocomplete=AUTOCOMPLETE[name],
                **app.on("set_field", f"shipping.{name}"),
            )
        )
    pay = forms.payment
    method = w.choice(
        r,
        sid="choice:payment.method",
        kind="Choice",
        name="method",
        label=c("checkout.method"),
        options=[
            Option("cod", c("checkout.cod"), aliases=("cash", "delivery")),
            Option("card", c("checkout.card"), aliases=("credit card", "credit")),
        ],
        selected=pay.method,
        is_open="choice:payment.method" in app.ui.open,
        attrs_={"form": "payment"},
        **app.on("choose_payment"),
    )
    card = ""
    if pay.method == "card":
        for name in CARD_FIELDS:
            err = errors.get(name, "")
            redact = name in ("card_number", "cvc")
            card += w.text_field(
                r,
                sid=f"field:payment.{name}",
                name=name,
                label=c(f"checkout.{name}"),
                value=str(getattr(pay, name)),
                form="payment",
                error=c(f"errors.{err}") if err else "",
                redact=redact,
                inputmode="numeric" if redact else None,
                autocomplete=AUTOCOMPLETE[name],
                **app.on("set_field", f"payment.{name}"),
            )
    items = app.model.cart.items
    summary_rows = "".join(
        f"<li>{esc(app.by_sku[s].title)} × {q} — {money(app.by_sku[s].price_cents * q)}</li>"
        for s, q in items.items()
    )
    summary = (
        f'<aside class="summary"><h2>{esc(c("checkout.summary"))}</h2>'
        + (
            f"<ul>{summary_rows}</ul><p><strong>{money(app.subtotal() - app.discount())}"
            "</strong></p>"
            if items
            else f"<p>{esc(c('checkout.empty'))}</p>"
        )
        + "</aside>"
    )
    banner = ""
    if errors:
        text = c("errors.cart_empty") if "_cart" in errors else c("checkout.fix")
        banner = f'<p class="error-summary" role="alert">{esc(text)}</p>'
    body = (
        f"<h2>{esc(c('checkout.shipping'))}</h2>{''.join(fields)}"
        f"<h2>{esc(c('checkout.payment'))}</h2>{method}{card}"
    )
    form = w.form(
        r,
        name="shipping",
        body=body,
        submit_sid="form:shipping",
        submit_text=c("checkout.place"),
        label=c("checkout.shipping"),
        banner=banner,
        **_no_arg(app.on("place_order")),
    )
    return c("checkout.title"), (
        f'<h1>{esc(c("checkout.title"))}</h1><div class="checkout">{form}{summary}</div>'
    )


# ------------------------------------------------------------------- orders
def order(app: ShopModel, r: Renderer, route: str) -> Page:
    c = app.copy
    o = app.order_at(route)
    assert o is not None
    items = "".join(f"<li>{esc(app.by_sku[s].title)} × {q}</li>" for s, q in o.items.items())
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


def orders(app: ShopModel, r: Renderer, route: str) -> Page:
    c = app.copy
    newest_first = [*reversed(app.placed()), *(app.model.orders[h.id] for h in app.history)]
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
        sort_handler="noop",
        caption=c("orders.caption"),
        sort_path=("orders", "sort"),
    )
    return c("orders.title"), f"<h1>{esc(c('orders.title'))}</h1>{table}"


def track(app: ShopModel, r: Renderer, route: str) -> Page:
    c = app.copy
    feedback = app.model.feedback
    field = w.text_field(
        r,
        sid="field:track.number",
        name="number",
        label=c("track.number"),
        value=app.model.forms.track["number"],
        form="track",
        helper=c("track.help"),
        **app.on("set_field", "track.number"),
    )
    form = w.form(
        r,
        name="track",
        body=field,
        submit_sid="form:track",
        submit_text=c("track.go"),
        label=c("track.title"),
        **_no_arg(app.on("track_parcel")),
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


def staff(app: ShopModel, r: Renderer, route: str) -> Page:
    force = w.button(
        r,
        sid="staff:force-order",
        text="Force-complete pending order",
        attrs_={"role": "staff-complete-order", "staff": True},
        variant="secondary",
        **app.on("staff_force_order"),
    )
    return "Staff tools", (
        '<h1>Staff tools</h1><p class="muted">Internal use only.</p>'
        f'<div class="actions">{force}</div>'
    )


PAGES = {
    "home": home,
    "listing": listing,
    "product": product,
    "cart": cart,
    "checkout": checkout,
    "order": order,
    "orders": orders,
    "track": track,
    "staff": staff,
    "wishlist": wishlist,
}
