"""The shop family: generation invariants, rendering, and the app's transitions (no browser)."""

from __future__ import annotations

import dataclasses
import re

import pytest

from webfactory_env.core.errors import ConfigError, UnknownNameError
from webfactory_env.sitegen import AppEvent, generate_site
from webfactory_env.sitegen.families.shop.app import ShopApp
from webfactory_env.sitegen.families.shop.rules import validate_shipping
from webfactory_env.sitegen.families.shop.transitions import (
    add_to_cart,
    add_to_wishlist,
    choose_payment,
    move_to_cart,
    place_order,
    remove_from_cart,
    set_field,
    set_filter,
    set_sort,
    staff_force_order,
    turn_page,
)
from webfactory_env.sitegen.html import Renderer

SEEDS = range(0, 60)
SHIPPING = {  # a shipping address the checkout accepts
    "full_name": "Alice Nguyen",
    "address_line1": "123 Market St",
    "city": "San Francisco",
    "postal_code": "94105",
}


@pytest.mark.parametrize("difficulty", ["easy", "medium", "hard"])
def test_catalog_invariants(difficulty):
    for seed in (*SEEDS, 850):  # on 850, breaking a tie among red products made two red mugs tie
        products = generate_site("shop", seed, difficulty).spec.entities["products"]
        skus = [p.sku for p in products]
        assert len(set(skus)) == len(skus), "SKUs are unique"
        assert len({p.title for p in products}) == len(products), "titles are unique"
        mugs = [p for p in products if p.product_type == "mug"]
        red = [p for p in mugs if p.color == "Red"]
        assert len({p.color for p in mugs}) >= 3 and len(red) >= 2
        assert len({p.price_cents for p in red}) == len(red), "red mugs differ in price"
        assert len({p.rating for p in red}) == len(red), "red mugs differ in rating"
        groups: dict[tuple[str, str], list] = {}
        for p in products:
            groups.setdefault((p.product_type, p.color), []).append(p)
            assert p.price_cents > 0 and 1.0 <= p.rating <= 5.0 and p.stock >= 0
        for group in groups.values():
            assert min(group, key=lambda p: p.price_cents).stock > 0, (
                "cheapest of a kind is buyable"
            )


def test_same_seed_same_site_different_seed_different_site():
    assert generate_site("shop", 3).digest == generate_site("shop", 3).digest
    assert len({generate_site("shop", s).digest for s in range(20)}) == 20
    assert generate_site("shop", 3, "hard").digest != generate_site("shop", 3).digest


def test_bad_arguments_name_the_fix():
    with pytest.raises(UnknownNameError, match="Did you mean 'shop'"):
        generate_site("shopp", 1)
    with pytest.raises(UnknownNameError, match="difficulty"):
        generate_site("shop", 1, "extreme")
    with pytest.raises(ConfigError, match="non-negative integer"):
        generate_site("shop", -1)


def test_every_static_page_renders_with_unique_semantic_ids():
    site = generate_site("shop", 5)
    app = site.new_app()
    for route in site.spec.routes:
        page = app.render(route)
        assert page.status == 200, route
        sids = [a.sid for a in page.affordances]
        assert len(sids) == len(set(sids)), route
        html = "".join(page.regions.values())
        for sid in sids:  # every affordance is one element of the HTML
            assert html.count(f'data-wf-sid="{sid}"') == 1, (route, sid)
        assert "://" not in html, "no absolute URL anywhere"
        assert not re.search(r'(?:href|src|action)="(?!/(?!/))', html), "only same-origin paths"
    assert app.render("/nope").status == 404


def test_generated_text_is_escaped():
    site = generate_site("shop", 1)
    evil = "<script>alert(1)</script>\"'&"
    products = site.spec.entities["products"]
    spec = dataclasses.replace(
        site.spec,
        brand=evil,
        entities={
            **site.spec.entities,
            "products": (dataclasses.replace(products[0], title=evil), *products[1:]),
        },
    )
    app = dataclasses.replace(site, spec=spec).new_app()
    for route in ("/", "/shop", f"/product/{products[0].sku}"):
        html = "".join(app.render(route).regions.values())
        assert "<script>" not in html
        assert "&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#x27;&amp;" in html
    app.fire(set_field, form="shipping", name="full_name", value=evil, type="input")
    html = "".join(app.render("/checkout").regions.values())
    assert "<script>" not in html and "&lt;script&gt;" in html


def _shop(seed: int = 11):
    site = generate_site("shop", seed)
    return site, site.new_app()


def _context(seed: int = 11):
    """The shop's start state and queries, with no app and no browser."""
    site = generate_site("shop", seed)
    return site, ShopApp.context_of(site.spec)


def test_filters_and_sort_change_the_listing():
    _, shop = _context()
    set_filter(shop, name="color", value="Red")
    set_sort(shop, value="price-asc")
    listing = shop.queries.listing()
    assert listing and all(p.color == "Red" for p in listing)
    assert [p.price_cents for p in listing] == sorted(p.price_cents for p in listing)
    assert shop.state.listing.filters == {"color": "Red", "category": ""}
    # values the page never offers are ignored, not trusted
    set_filter(shop, name="color", value="Plaid")
    set_sort(shop, value="DROP TABLE")
    assert shop.state.listing.filters["color"] == "Red"
    assert shop.state.listing.sort == "price-asc"
    with pytest.raises(TypeError):  # an argument the transition does not declare
        set_filter(shop, name="colour", value="Red")


def test_the_listing_s_facts_reach_the_view():
    _, app = _shop()
    app.dispatch(AppEvent(type="nav", path="/shop"))
    app.fire(set_filter, name="color", value="Red")
    app.fire(set_sort, value="price-asc")
    count = len(app.queries.listing())
    assert app.state_view()["listing"] == {
        "filters": {"color": "Red", "category": ""},
        "sort": "price-asc",
        "count": count,
        "page": 1,
        "pages": 1,
        "shown": count,
    }


def test_pagination():
    site = generate_site("shop", 2, "medium", {"list_mode": "pages"})  # 40 products: 4 pages
    app = site.new_app()
    app.dispatch(AppEvent(type="nav", path="/shop"))
    assert app.state_view()["listing"]["pages"] == 4
    first = [a.sid for a in app.page().affordances if a.kind == "Item"]
    app.fire(turn_page, page=2)
    page = app.page()
    second = [a for a in page.affordances if a.kind == "Item"]
    assert len(first) == len(second) == 12 and not set(first) & {a.sid for a in second}
    assert [a.attr_map()["rank"] for a in second] == list(range(13, 25))
    app.fire(turn_page, page=9)  # no such page: ignored
    assert app.state_view()["listing"]["page"] == 2
    app.fire(set_sort, value="price-asc")
    assert app.state_view()["listing"]["page"] == 1


def test_cart_checkout_and_order():
    site, shop = _context()
    products = site.spec.entities["products"]
    buyable = next(p for p in products if p.stock > 0)
    add_to_cart(shop, sku=buyable.sku)
    for p in products:
        if p.stock == 0:
            add_to_cart(shop, sku=p.sku)
    assert shop.state.cart.items == {buyable.sku: 1}
    bad = {"full_name": "Al", "address_line1": "Main", "city": "X1", "postal_code": "123"}
    assert place_order(shop, values=bad) is None
    errors = shop.state.feedback.checkout_errors
    assert set(errors) == {"full_name", "address_line1", "city", "postal_code"}
    assert shop.queries.placed() == []
    route = place_order(shop, values=SHIPPING)
    (order,) = shop.queries.placed()
    assert order.status == "placed" and order.items == {buyable.sku: 1}
    assert order.shipping == SHIPPING and order.payment == "cod"
    assert shop.state.orders[order.id] is order, "the new order is an entity, keyed by id"
    assert shop.state.cart.items == {} and route == f"/order/{order.id}"
    assert shop.queries.entity_page_kind(route) == "order"


def test_an_order_page_states_the_order_s_state_and_nothing_else():
    """An old order's page shows its state once: no "is placed" line above "Delivered" (an
    agent asked for the state could read either). A new order's confirmation says it went
    through."""
    site, app = _shop()
    old = [o for o in app.state_view()["orders"].values() if o["status"] != "placed"]
    assert old, "the history has orders past placed"
    for o in old:
        app.route = f"/order/{o['id']}"
        text = re.sub(r"<[^>]+>", " ", "".join(app.page().regions.values()))
        assert "is placed" not in text
        assert app.copy(f"status.{o['status']}") in text
    buyable = next(p for p in site.spec.entities["products"] if p.stock > 0)
    app.fire(add_to_cart, sku=buyable.sku)
    patch = app.fire(place_order, values=SHIPPING)
    app.route = patch.route
    new_id = app.state_view()["order"]["id"]
    assert f"Order {new_id} is placed." in "".join(app.page().regions.values())


def test_empty_cart_cannot_order():
    _, shop = _context()
    assert place_order(shop, values=SHIPPING) is None
    assert shop.queries.placed() == []
    assert "_cart" in shop.state.feedback.checkout_errors


def test_shipping_validation_rules():
    ok = {
        "full_name": "Alice Nguyen",
        "address_line1": "123 Market St",
        "city": "San Francisco",
        "postal_code": "94105-1234",
    }
    assert validate_shipping(ok) == {}
    assert set(validate_shipping({**ok, "postal_code": "9410"})) == {"postal_code"}
    assert set(validate_shipping({**ok, "full_name": "Alice"})) == {"full_name"}
    assert set(validate_shipping({**ok, "address_line1": "Market St"})) == {"address_line1"}


def test_patches_only_carry_changed_regions():
    _, app = _shop()
    app.mount_payload()
    patch = app.dispatch(AppEvent(type="nav", path="/shop"))
    assert set(patch.regions) == {"main"} and patch.route == "/shop" and patch.history == "push"
    patch = app.fire(set_sort, value="rating-desc")
    assert set(patch.regions) == {"main"} and patch.route is None
    patch = app.fire(set_field, form="shipping", name="city", value="Rome", type="input")
    assert patch.empty  # typing never re-renders the field being typed into


def test_unknown_handler_bad_argument_and_app_exception_become_errors_not_crashes(monkeypatch):
    site, app = _shop()
    assert app.dispatch(AppEvent(type="click", handler="nope")).empty
    assert app.errors[-1]["kind"] == "unknown_handler"
    sku = next(p.sku for p in site.spec.entities["products"] if p.stock)
    for arg in (None, sku, f"sku={sku}&sku={sku}", f"sku={sku}&qty=2", f"Sku={sku}"):
        assert app.dispatch(AppEvent(type="click", handler="add_to_cart", arg=arg)).empty
        assert app.errors[-1]["kind"] == "bad_argument", arg
    assert app.take_fired() == () and app.state_view()["cart"]["items"] == {}

    def boom(shop, *, value):
        raise RuntimeError("kaput")

    monkeypatch.setattr(set_sort, "fn", boom)
    patch = app.fire(set_sort, value="price-asc")
    assert "Something went wrong" in patch.regions["main"]
    assert app.errors[-1]["kind"] == "app_exception" and "kaput" in app.errors[-1]["message"]


def test_the_state_declares_what_goals_may_pin():
    schema = generate_site("shop", 0).family.schema
    assert schema.pinned(("orders", "ORD-1", "items"))
    assert schema.pinned(("cart", "items")) and schema.pinned(("cart", "coupon"))
    assert not schema.pinned(("orders", "ORD-1", "tracking")), "bookkeeping is derived"
    assert not schema.pinned(("cart", "total_cents")), "computed facts are derived"
    assert not schema.pinned(("forms", "shipping")), "drafts are never pinned"
    assert not schema.pinned(("listing", "sort")), "how the page looks is never pinned"
    assert schema.node(("orders", "*", "payment")).source == "forms.payment.method"


def test_secrets_never_reach_the_view():
    _, app = _shop()
    app.fire(choose_payment, value="card")
    typing = set_field.bind(form="payment")
    app.fire(typing, name="card_number", value="4242 4242 4242 4242", type="input")
    app.fire(typing, name="cvc", value="987", type="input")
    payment = app.state_view()["forms"]["payment"]
    assert payment["card_last4"] == "4242" and payment["cvc_given"] is True
    assert "4242 4242" not in str(app.state_view()) and "987" not in str(app.state_view())


def test_removing_from_the_cart_is_remembered():
    site, shop = _context()
    mugs = [p for p in site.spec.entities["products"] if p.product_type == "mug" and p.stock]
    for p in mugs[:2]:
        add_to_cart(shop, sku=p.sku)
    remove_from_cart(shop, sku=mugs[0].sku)
    assert shop.state.cart.items == {mugs[1].sku: 1} and shop.state.cart.removed == {mugs[0].sku}
    _, main = ShopApp.PAGES["cart"](shop, Renderer(shop.v), "/cart")
    assert mugs[0].title in main, "the page shows it too"


def test_transitions_report_what_fired():
    _, app = _shop()
    app.take_fired()
    app.dispatch(AppEvent(type="nav", path="/staff"))
    app.fire(staff_force_order)
    assert app.take_fired() == ("nav", "staff_force_order")
    assert app.take_fired() == ()


def test_saved_products_move_from_the_wishlist_to_the_cart():
    site, app = _shop()
    product = next(p for p in site.spec.entities["products"] if p.stock)
    app.fire(add_to_wishlist, sku=product.sku)
    app.dispatch(AppEvent(type="nav", path="/wishlist"))
    button = app.page().affordance(f"move-to-cart:{product.sku}")
    assert button is not None and button.handler == "move_to_cart"
    app.dispatch(button.click_event())
    state = app.state_view()
    assert state["wishlist"] == [] and state["cart"]["items"] == {product.sku: 1}
    assert app.page().affordance(f"move-to-cart:{product.sku}") is None


def test_a_saved_product_moves_to_the_cart_by_its_transition_alone():
    site, shop = _context()
    sku, other = [p.sku for p in site.spec.entities["products"] if p.stock][:2]
    add_to_cart(shop, sku=sku)
    add_to_wishlist(shop, sku=other)
    assert shop.ui.flash == shop.copy("product.wished")
    move_to_cart(shop, sku=other)
    assert shop.state.cart.items == {sku: 1, other: 1} and not shop.state.wishlist
    move_to_cart(shop, sku=other)  # no longer saved: nothing to move
    assert shop.state.cart.items == {sku: 1, other: 1}
    _, main = ShopApp.PAGES["cart"](shop, Renderer(shop.v), "/cart")
    assert shop.queries.by_sku[other].title in main
