"""The catalog's pages: home, the listing with its filters, sort and pages, a product."""

from __future__ import annotations

from webfactory_env.core.predicates import Eq
from webfactory_env.sitegen import widgets as w
from webfactory_env.sitegen.families.shop.content import Product
from webfactory_env.sitegen.families.shop.queries import PAGE_SIZE, SORTS, Shop
from webfactory_env.sitegen.families.shop.transitions import (
    add_to_cart,
    add_to_wishlist,
    join_newsletter,
    set_field,
    set_filter,
    set_sort,
    turn_page,
)
from webfactory_env.sitegen.families.shop.views.common import Page, money
from webfactory_env.sitegen.html import Renderer, esc
from webfactory_env.sitegen.spec import Option

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


def product_card(shop: Shop, r: Renderer, p: Product, rank: int) -> str:
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
    if shop.v.distractors == "many":
        extra = w.button(
            r,
            sid=f"compare:{p.sku}",
            text=shop.copy("distractors.compare"),
            variant="secondary",
            attrs_={"role": "compare", "sku": p.sku, "distractor": True},
            bind=add_to_wishlist.bind(sku=p.sku),
        )
    return (
        '<article class="card">'
        f'<div class="swatch swatch-{p.color.lower()}"></div>{link}'
        f'<span class="price">{money(p.price_cents)}</span>'
        f'<span class="muted">Color: {esc(p.color)} · {esc(p.category)}</span>'
        f"<span>★ {p.rating:.1f} ({p.reviews} reviews)</span>"
        f"{stock_note(shop, p)}{extra}</article>"
    )


def stock_note(shop: Shop, p: Product) -> str:
    if p.stock == 0:
        return f'<span class="stock-out">{esc(shop.copy("product.out"))}</span>'
    if p.stock <= 5:
        return f'<span class="stock-low">{esc(shop.copy("product.low", n=p.stock))}</span>'
    return f'<span class="muted">{esc(shop.copy("product.in"))}</span>'


def home(shop: Shop, r: Renderer, route: str) -> Page:
    c = shop.copy
    cta = w.link(r, sid="home:cta", href="/shop", text=c("home.cta"), class_="button")
    featured = shop.queries.products[:4]
    cards = "".join(product_card(shop, r, p, i + 1) for i, p in enumerate(featured))
    title = c("home.title", brand=shop.spec.brand)
    live = next(x for x in shop.queries.coupons.values() if not x.expired)
    promo = f'<p class="promo">{esc(c("home.promo", code=live.code, pct=live.percent))}</p>'
    newsletter = w.newsletter_promo(
        r,
        c,
        field=set_field.bind(form="newsletter", name="email"),
        submit=join_newsletter.bind(),
    )
    staff = w.link(r, sid="home:/staff", href="/staff", text="Staff tools")
    return title, (
        f'<section class="hero"><h1>{esc(title)}</h1><p>{esc(c("home.tagline"))}</p>{cta}'
        f'</section>{promo}<h2>{esc(c("home.featured"))}</h2><div class="grid">{cards}</div>'
        f'{newsletter}<p class="fineprint muted">{staff}</p>'
    )


def listing(shop: Shop, r: Renderer, route: str) -> Page:
    c = shop.copy
    state = shop.state.listing
    filters = "".join(
        w.choice(
            r,
            sid=f"filter:{name}",
            kind="Filter",
            name=name,
            label=c(f"listing.{name_key}"),
            options=[
                Option("", c(f"listing.all_{all_key}"), aliases=("all", "any")),
                *(Option(x, x) for x in sorted({getattr(p, name) for p in shop.queries.products})),
            ],
            selected=state.filters[name],
            is_open=f"filter:{name}" in shop.ui.open,
            bind=set_filter.bind(name=name),
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
        is_open="sort" in shop.ui.open,
        bind=set_sort.bind(),
    )
    items = shop.queries.listing()
    count = c("listing.count_one") if len(items) == 1 else c("listing.count_many", n=len(items))
    if shop.v.list_mode == "infinite":
        first, shown = 0, items[: shop.ui.more.get("listing", 1) * PAGE_SIZE]
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
            pages=shop.queries.pages(items),
            bind=turn_page.bind(),
            label=c("listing.pages"),
            prev_text=c("listing.prev"),
            next_text=c("listing.next"),
        )
    cards = "".join(product_card(shop, r, p, first + i + 1) for i, p in enumerate(shown))
    body = f'<div class="grid">{cards}</div>' if items else f"<p>{esc(c('listing.empty'))}</p>"
    help_ = ""
    if shop.v.helper_text == "on":
        help_ = f'<p class="hint">{esc(c("listing.filters_help"))}</p>'
    return c("listing.title"), (
        f"<h1>{esc(c('listing.title'))}</h1>{help_}"
        f'<div class="toolbar">{filters}{sort}'
        f'<p class="muted" role="status">{esc(count)}</p></div>{body}{more}'
    )


def product(shop: Shop, r: Renderer, route: str) -> Page:
    c = shop.copy
    p = shop.queries.product_at(route)
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
        bind=add_to_cart.bind(sku=p.sku),
    )
    wish = ""
    if shop.v.distractors != "none":
        wish = w.button(
            r,
            sid=f"wishlist:{p.sku}",
            text=c("product.wishlist"),
            variant="secondary",
            attrs_={"role": "wishlist", "sku": p.sku, "title": p.title, "distractor": True},
            bind=add_to_wishlist.bind(sku=p.sku),
        )
    notice = ""
    if shop.ui.flash:
        view_cart = w.link(r, sid="notice:/cart", href="/cart", text=c("product.view_cart"))
        notice = f'<p class="notice" role="status">{esc(shop.ui.flash)} {view_cart}</p>'
    tab = shop.ui.tabs.get("product", "description")
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
        f"<p>{stock_note(shop, p)}</p>"
        f'<div class="actions">{add}{wish}</div>{notice}{tabs}</div></div>'
    )
