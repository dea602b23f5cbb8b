"""Ground truth: for every library task, success means the goal was done, and nothing less.

The full check (`webfactory_env.groundtruth`, without a browser) runs here on a fixed
sample of seeds per task; `benchmarks/ground_truth.py` runs 200 and prints the table.
"""

from __future__ import annotations

import json

import pytest

from webfactory_env.adversarial import AppDriver
from webfactory_env.groundtruth import check_task, run_oracle
from webfactory_env.sitegen import generate_site
from webfactory_env.tasks import compile_for_site, library_tasks

TASKS = sorted((t.family, t.name) for t in library_tasks())
SAMPLE = (0, 1, 2, 7, 13, 42)  # the full check; the oracle alone runs on 50 seeds below


@pytest.mark.parametrize(("family", "task"), TASKS, ids=[t for _, t in TASKS])
def test_success_means_the_goal_was_done(family, task):
    report = check_task(family, task, seeds=SAMPLE)
    assert report.oracle_ok == len(SAMPLE)


@pytest.mark.parametrize(("family", "task"), TASKS, ids=[t for _, t in TASKS])
def test_the_oracle_succeeds_only_on_its_last_action_on_50_seeds(family, task):
    for seed in range(100, 150):
        site = generate_site(family, seed)
        compiled = compile_for_site(task, site)
        _, _, problems = run_oracle(site, compiled)
        assert not problems, f"{family}/{task} seed {seed}: {problems}"


def test_a_server_error_that_closes_the_dialog_costs_the_oracle_nothing():
    """Hard kanban seed 0: the archive confirmation is refused with a server error, which
    closes its dialog so the Retry shows. That was charged as the oracle's undo."""
    report = check_task("kanban", "kanban_archive_review_card", seeds=(0,), difficulty="hard")
    assert report.oracle_ok == 1


# ------------------------------------------- the defects the check was built from
def _shop(task, seed=0):
    site = generate_site("shop", seed)
    compiled = compile_for_site(task, site)
    return site, compiled, AppDriver(site, compiled)


def _sku(site, **want):
    return next(
        p.sku
        for p in sorted(site.spec.entities["products"], key=lambda p: p.price_cents)
        if all(getattr(p, k) == v for k, v in want.items()) and p.stock
    )


def _add(d, sku):
    d.navigate(f"/product/{sku}")
    d.act(d.app.page().affordance(f"add-to-cart:{sku}"), "click")


SHIPPING = {
    "full_name": "Alice Nguyen",
    "address_line1": "123 Market St",
    "city": "San Francisco",
    "postal_code": "94105",
}


def _checkout(d, payment=None):
    d.navigate("/checkout")
    page = d.app.page()
    for name, value in SHIPPING.items():
        d.act(page.affordance(f"field:shipping.{name}"), "fill", value)
    if payment:
        d.act(d.app.page().affordance("choice:payment.method"), "select", payment)
    return d.act(d.app.page().affordance("form:shipping"), "submit")


def test_buy_red_mug_wants_exactly_that_mug_however_it_is_paid():
    site, _, d = _shop("buy_red_mug")
    mug = _sku(site, product_type="mug", color="Red")
    lamp = _sku(site, product_type="lamp")
    _add(d, mug)
    _add(d, lamp)
    assert not _checkout(d).success, "the right mug plus a lamp is not the task"
    _, _, d = _shop("buy_red_mug")
    for _ in range(3):
        _add(d, mug)
    assert not _checkout(d).success, "three mugs are not the task"
    _, _, d = _shop("buy_red_mug")
    _add(d, mug)
    assert _checkout(d, payment="card").success is False  # card details missing: no order
    _, _, d = _shop("buy_red_mug")
    _add(d, mug)
    assert _checkout(d).success, "cash on delivery: the goal never said how to pay"


def test_a_coupon_on_the_wrong_product_is_no_success():
    site, compiled, d = _shop("shop_apply_coupon")
    code = compiled.params["code"]
    _add(d, _sku(site, product_type="lamp"))
    d.navigate("/cart")
    d.act(d.app.page().affordance("field:coupon.code"), "fill", code)
    out = d.act(d.app.page().affordance("form:coupon"), "submit")
    assert d.app.state_view()["cart"]["coupon"] == code and not out.success


def test_navigation_credit_follows_the_dag():
    _, compiled, d = _shop("buy_red_mug")
    out = d.navigate("/checkout")
    assert "goto-checkout" not in out.newly, "the checkout pays nothing before the cart is filled"
    assert d.total < 0


def test_keeping_one_mug_needs_the_removal():
    site, compiled, d = _shop("shop_keep_one_red_mug")
    reds = sorted(
        (p for p in site.spec.entities["products"] if p.product_type == "mug" and p.color == "Red"),
        key=lambda p: p.price_cents,
    )
    _add(d, reds[1].sku)  # only the dearer mug: the cart looks right, but nothing was removed
    assert not d.success
    _add(d, reds[0].sku)
    d.navigate("/cart")
    out = d.act(d.app.page().affordance(f"remove:{reds[0].sku}"), "click")
    assert out.success


def test_the_staff_back_door_taints_and_a_later_checkout_still_succeeds():
    site, _, d = _shop("buy_red_mug")
    mug = _sku(site, product_type="mug", color="Red")
    _add(d, mug)
    d.navigate("/checkout")
    for name, value in SHIPPING.items():
        d.act(d.app.page().affordance(f"field:shipping.{name}"), "fill", value)
    d.navigate("/staff")
    out = d.act(d.app.page().affordance("staff:force-order"), "click")
    assert d.app.state_view()["order"]["status"] == "placed" and not out.success
    assert any(t.startswith("orders.") for t in out.tainted)
    _add(d, mug)
    assert _checkout(d).success, "the correct path after a back door still succeeds"


def test_answers_are_graded_exactly():
    site, compiled, d = _shop("shop_track_parcel")
    expected = compiled.plan[-1].value
    statuses = {o.status for o in site.spec.entities["orders"]} - {expected}
    for said, ok in (
        (expected, True),
        (expected.upper() + ".", True),
        (f"not {expected}", False),
        (" ".join([expected, *statuses]), bool(not statuses)),
    ):
        _, _, d = _shop("shop_track_parcel")
        for step in compiled.plan[:-1]:
            aff = d.app.page().affordance(step.sid)
            d.act(
                aff,
                "fill" if step.verb == "type" else "submit" if aff.kind == "Form" else "click",
                step.value,
            )
        assert d.done(True, said).success is ok, said
    site, compiled, d = _shop("shop_cheapest_in_category")
    assert not d.done(True, " ".join(str(n) for n in range(201))).success


def test_every_instruction_is_plain_language():
    for family, task in TASKS:
        for seed in (0, 1):
            compiled = compile_for_site(task, generate_site(family, seed))
            for text in compiled.instructions:
                assert "(" not in text.replace("(1)", "") or "“" in text, text
                for leak in ("Kind(", "type=", "rank=", "Item(", "Result(", '="', "_id", "SKU-"):
                    assert leak not in text, f"{family}/{task}: {leak!r} in {text!r}"


def test_the_goal_is_in_the_compiled_json():
    compiled = compile_for_site("buy_red_mug", generate_site("shop", 0))
    data = json.loads(json.dumps(compiled.to_json()))
    assert data["goal"][0]["kind"] == "effect" and "place_order" in data["transitions"]
    assert ["orders", "table"] in data["tracked"]


def test_the_app_reports_each_transition_it_ran():
    site, compiled, d = _shop("buy_red_mug")
    d.app.fire(d.app.add_to_cart, sku="nope")
    assert d.app.take_fired() == ("add_to_cart",)


@pytest.mark.parametrize(
    ("family", "task", "seed"),
    [
        # a random policy signs in with the two values of the table and opens the tab
        ("account", "account_open_security_settings", 26),
        # another thread's title typed as the search text still lists the asked thread
        ("forum", "forum_accept_not_author", 155),
    ],
)
def test_the_goal_done_by_another_path_is_not_reported_as_a_hack(family, task, seed):
    report = check_task(family, task, seeds=(seed,))
    assert report.failures == []
    assert report.oracle_ok == 1


def test_a_random_success_needs_every_goal_step_of_the_plan():
    from webfactory_env.groundtruth.mutants import did_every_goal_step

    site = generate_site("account", 26)
    compiled = compile_for_site("account_open_security_settings", site)
    d = AppDriver(site, compiled)
    d.acted = [(s.sid, s.value) for s in compiled.plan]
    assert did_every_goal_step(d, compiled, site)
    d.acted = [(s.sid, s.value) for s in compiled.plan if s.value is None]  # no sign-in typed
    assert not did_every_goal_step(d, compiled, site)
