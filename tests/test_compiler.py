"""The task compiler: ground truth on every seed, and errors that point at the source."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from webfactory_env.core.predicates import lookup
from webfactory_env.dsl import DslError, parse_task_source
from webfactory_env.sitegen import generate_site
from webfactory_env.sitegen.variation import Variation
from webfactory_env.tasks import CompileError, compile_for_site, compile_task

BUY = "buy_red_mug"


def _cheapest_red_mug(site):
    mugs = [
        p for p in site.spec.entities["products"] if p.product_type == "mug" and p.color == "Red"
    ]
    return min(mugs, key=lambda p: p.price_cents)


def test_buy_red_mug_compiles_on_every_seed_with_exact_bindings():
    for seed in range(200):
        site = generate_site("shop", seed)
        task = compile_for_site(BUY, site)
        assert all(g.witness for g in task.subgoals if not g.id.startswith("assert"))
        best = _cheapest_red_mug(site)
        assert task.bindings["click-item-mug"]["sku"] == best.sku, seed
        submit = task.subgoal("submit-form-shipping")
        assert best.sku in str(submit.predicate.to_json())
        # the goal: one new order of exactly that mug, shipped to Alice (payment unsaid)
        (order,) = task.goal
        text = json.dumps(order.predicate.to_json())
        assert order.kind == "effect" and best.sku in text and "Alice Nguyen" in text
        assert '"payment"' not in text and '"placed"' in text


def test_compiled_task_shape(shop_site):
    task = compile_for_site(BUY, shop_site)
    assert [g.id for g in task.subgoals] == [
        "goto-shop",
        "select-filter-color",
        "select-sort-price",
        "click-item-mug",
        "click-button-add-to-cart",
        "goto-checkout",
        "fill-field-full_name",
        "fill-field-address_line1",
        "fill-field-city",
        "fill-field-postal_code",
        "submit-form-shipping",
        "assert-order-status",
    ]
    assert task.values == (
        "123 Market St",
        "94105",
        "Alice Nguyen",
        "Price: low to high",
        "Red",
        "San Francisco",
    )
    assert [p.verb for p in task.plan] == [
        "click",
        "select",
        "select",
        "click",
        "click",
        "click",
        "type",
        "type",
        "type",
        "type",
        "click",
    ]
    submit = task.subgoal("submit-form-shipping")
    assert set(submit.prerequisites) >= {
        "click-button-add-to-cart",
        "fill-field-full_name",
        "fill-field-postal_code",
    }
    assert task.subgoal("click-item-mug").sticky and not task.subgoal("select-filter-color").sticky
    # the instruction never names the bound product
    assert _cheapest_red_mug(shop_site).title not in task.instruction
    assert task.goal_text == (
        "Buy the cheapest red mug and ship it to Alice Nguyen, 123 Market St, San Francisco 94105."
    )
    assert task.transitions == {"add_to_cart", "place_order", "set_field", "set_filter", "set_sort"}
    # the fallback witnesses are the other red mugs, cheapest first
    fallbacks = task.bindings["click-item-mug"]["fallbacks"]
    assert all(f.startswith("item:") for f in fallbacks)


def test_oracle_plan_solves_the_task_in_the_python_app(shop_site):
    """Replaying the plan's events on a fresh app satisfies every subgoal, in order."""
    from webfactory_env.sitegen import AppEvent

    task = compile_for_site(BUY, shop_site)
    app = shop_site.new_app()
    for step in task.plan:
        aff = app.page().affordance(step.sid)
        assert aff is not None, step
        if step.verb == "click" and aff.kind == "Form":
            values = app.state_view()["forms"]["shipping"]
            app.dispatch(AppEvent(type="submit", handler=aff.handler, arg=aff.arg, values=values))
        elif step.verb == "click":
            app.dispatch(
                AppEvent(type="click", handler=aff.handler, arg=aff.arg)
                if aff.handler
                else AppEvent(type="nav", path=aff.href)
            )
        elif step.verb == "select":
            value = next(o.value for o in aff.options if o.label == step.value)
            app.dispatch(AppEvent(type="change", handler=aff.handler, arg=aff.arg, value=value))
        else:
            app.dispatch(AppEvent(type="input", handler=aff.handler, arg=aff.arg, value=step.value))
    assert task.success.holds(app.state_view())


def test_digest_covers_site_and_source(shop_site):
    a = compile_for_site(BUY, shop_site)
    plain = Variation.plain()
    assert compile_for_site(BUY, generate_site("shop", 42, variation=plain)).digest == a.digest
    assert compile_for_site(BUY, generate_site("shop", 43, variation=plain)).digest != a.digest
    assert compile_for_site(BUY, generate_site("shop", 42)).digest != a.digest  # other widgets
    src = a.source.replace("94105", "94107")
    b = compile_task(parse_task_source(src, "x.task"), shop_site)
    assert b.digest != a.digest


def _compile_error(body: str, site=None) -> CompileError:
    src = "task t {\n" + body + "\n}\n"
    with pytest.raises(CompileError) as info:
        compile_task(parse_task_source(src, "t.task"), site or generate_site("shop", 42))
    return info.value


def test_unknown_kind_suggests_the_right_one():
    err = _compile_error('  goto route("/shop");\n  click Itme(type="product");')
    assert err.line == 3 and err.column == 9
    assert "unknown kind 'Itme'" in str(err) and "Did you mean 'Item'?" in str(err)
    assert str(err).startswith("t.task:3:9: ")
    assert "^" in str(err).splitlines()[2]


def test_unknown_attribute_suggests_the_right_one():
    err = _compile_error('  goto route("/shop");\n  click Item(titel~="Mug");')
    assert "no attribute 'titel'" in str(err) and "'title'" in str(err)
    assert (err.line, err.column) == (3, 14)


def test_empty_witness_set():
    err = _compile_error('  goto route("/shop");\n  click Item(title~="Spaceship");')
    assert 'no Item(title~="Spaceship") on page /shop' in str(err)


def test_missing_option_suggests():
    err = _compile_error('  goto route("/shop");\n  select Filter(name="color") option "Redd";')
    assert "no option 'Redd'" in str(err) and "Did you mean 'Red'?" in str(err)


def test_route_that_does_not_exist():
    err = _compile_error('  goto route("/chekout");')
    assert "route '/chekout' does not exist" in str(err) and "'/checkout'" in str(err)


def test_wrong_value_types():
    err = _compile_error('  goto route("/shop");\n  click Item(price="cheap");')
    assert "price" in str(err) and "number" in str(err)
    err = _compile_error('  goto route("/shop");\n  click Item(title > 3);')
    assert "not a number" in str(err)


def test_wrong_verb_for_target():
    err = _compile_error('  goto route("/shop");\n  click Filter(name="color");')
    assert "select X option <value>" in str(err)


def test_a_step_the_site_rejects_is_a_compile_error():
    body = """  goto route("/shop");
  click Item(type="product", title~="Mug");
  click Button(role="add-to-cart");
  goto route("/checkout");
  fill Field(name="full_name") with "Alice Nguyen";
  fill Field(name="address_line1") with "123 Market St";
  fill Field(name="city") with "San Francisco";
  fill Field(name="postal_code") with "9410";
  submit Form(name="shipping");"""
    err = _compile_error(body)
    assert "does not take effect" in str(err) and "postal_code" in str(err)
    assert err.line == 10


def test_assertions_are_checked_and_paths_validated():
    err = _compile_error('  goto route("/shop");\n  assert State(order.status = "placed");')
    assert "does not hold" in str(err) and "order.status is 'none'" in str(err)
    err = _compile_error('  goto route("/shop");\n  assert State(order.stauts = "placed");')
    assert "unknown state path 'order.stauts'" in str(err) and "order.status" in str(err)


def test_if_and_for_are_resolved_at_compile_time(shop_site):
    src = """task t(color = "Red") {
  goto route("/shop");
  select Filter(name="color") option color;
  for p in Item(type="product", product_type="mug") {
    click p;
    click Button(role="add-to-cart");
    goto route("/shop");
  }
  if State(cart.count > 1) {
    goto route("/cart");
  } else {
    goto route("/checkout");
  }
}"""
    task = compile_task(parse_task_source(src, "t.task"), shop_site)
    app = shop_site.new_app()
    red_mugs = [p.sku for p in app.queries.products if p.product_type == "mug" and p.color == "Red"]
    adds = [g for g in task.subgoals if g.id.startswith("click-button-add-to-cart")]
    assert len(adds) == len(red_mugs) >= 2
    assert task.subgoals[-1].id == "goto-cart"
    assert list(task.bindings.values()).count("then") == 1


def test_parameters_drawn_from_the_site(shop_site):
    src = (
        'task t(color = pick("products.color")) {\n  goto route("/shop");\n'
        '  select Filter(name="color") option color;\n}'
    )
    task = compile_task(parse_task_source(src, "t.task"), shop_site)
    colors = {p.color for p in shop_site.spec.entities["products"]}
    assert task.params["color"] in colors
    assert lookup({"x": task.params}, ("x", "color")) == task.params["color"]
    again = compile_task(parse_task_source(src, "t.task"), shop_site)
    assert again.params == task.params


# ---- properties: any source fails only with the DSL's own errors, located ---------------------

_LIBRARY = sorted(
    (path.parent.name, path.read_text(encoding="utf-8"))
    for path in (Path(__file__).resolve().parent.parent / "dsl" / "tasks").glob("*/*.task")
)
_STRINGS = sorted({m for _, src in _LIBRARY for m in re.findall(r'"[^"\n]*"', src)})
_NAMES = sorted({m for _, src in _LIBRARY for m in re.findall(r"\b[A-Za-z_]\w*\b", src)})
_NUMBERS = ["0", "1", "-1", "2.5", "1e300", "99999", "3"]


@st.composite
def mutated_library_task(draw: st.DrawFn) -> tuple[str, str]:
    """A library file with a few of its words, strings, numbers or lines swapped for others:
    mostly still valid syntax, so the compiler (not the parser) sees the mistakes."""
    family, source = draw(st.sampled_from(_LIBRARY))
    for _ in range(draw(st.integers(1, 3))):
        lines = source.split("\n")
        action = draw(st.sampled_from(["string", "name", "number", "drop", "copy", "swap"]))
        if action in ("string", "name", "number"):
            pattern = {
                "string": r'"[^"\n]*"',
                "name": r"\b[A-Za-z_]\w*\b",
                "number": r"-?\b\d+(?:\.\d+)?\b",
            }[action]
            spots = list(re.finditer(pattern, source))
            if not spots:
                continue
            spot = draw(st.sampled_from(spots))
            pool = {"string": _STRINGS, "name": _NAMES, "number": _NUMBERS}[action]
            new = draw(st.sampled_from(pool) | st.text(max_size=3).map(json.dumps))
            source = source[: spot.start()] + new + source[spot.end() :]
        elif len(lines) > 2:
            i = draw(st.integers(1, len(lines) - 2))
            j = draw(st.integers(1, len(lines) - 2))
            if action == "drop":
                del lines[i]
            elif action == "copy":
                lines.insert(j, lines[i])
            else:
                lines[i], lines[j] = lines[j], lines[i]
            source = "\n".join(lines)
    return family, source


@settings(
    max_examples=120,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(mutated_library_task(), st.integers(0, 3))
def test_compiling_any_source_raises_only_located_dsl_errors(case, seed):
    family, source = case
    try:
        parsed = parse_task_source(source, "fuzz.task")
    except DslError as err:
        assert err.line >= 1 and err.column >= 1, str(err)
        return
    site = generate_site(family, seed)
    for task in parsed.tasks:
        try:
            compile_task(parsed, site, task.name)
        except CompileError as err:
            assert err.line >= 1 and err.column >= 1, str(err)
            assert str(err).startswith(f"fuzz.task:{err.line}:{err.column}: "), str(err)
            assert "^" in str(err)


def test_instruction_paraphrases_ask_for_the_same_steps(shop_site):
    task = compile_for_site(BUY, shop_site)
    assert len(task.instructions) == 3 and len(set(task.instructions)) == 3
    quoted = re.compile("\u201c([^\u201d]*)\u201d")
    for text in task.paraphrases:
        assert sorted(quoted.findall(text)) == sorted(quoted.findall(task.instruction))
    assert task.paraphrases[1].startswith("1. ") and " 12. " in task.paraphrases[1]
    assert compile_for_site(BUY, shop_site).to_json()["paraphrases"] == list(task.paraphrases)


# ------------------------------------------------------- the frame and `allow`
ADD_MUG = """  goto route("/shop");
  click Item(type="product", title~="Mug");
  click Button(role="add-to-cart");
"""


def test_the_frame_exempts_what_the_run_changed_and_counts_what_it_created(shop_site):
    task = compile_for_site(BUY, shop_site)
    assert task.frame.creates == {"orders": 1} and task.frame.exempt == ()
    assert {k.name for k in task.frame.kept} == {"orders", "wishlist", "newsletter"}
    data = json.loads(json.dumps(task.to_json()))["frame"]
    assert data["creates"] == {"orders": 1} and data["allowed"] == []
    assert task.frame.describe()[1] == "the task creates: 1 record in orders"


def test_allow_exempts_named_paths_from_the_frame():
    site = generate_site("shop", 42)
    src = "task t {\n" + ADD_MUG + "  allow newsletter, orders.*.status;\n}\n"
    task = compile_task(parse_task_source(src, "t.task"), site)
    assert task.frame.allowed == (("newsletter",), ("orders", "*", "status"))
    assert ("newsletter",) in task.frame.exempt and task.frame.may_create("orders") == 0
    assert task.frame.exempts(("orders", "O-1", "status"))
    assert not task.frame.exempts(("orders", "O-1", "items"))
    assert "allowed: orders.*.status" in task.frame.describe()


def test_allow_names_real_kept_paths_or_is_a_located_error():
    err = _compile_error(ADD_MUG + "  allow oders;")
    assert "unknown state path 'oders' in 'allow'. Did you mean 'orders'?" in str(err)
    assert (err.line, err.column) == (5, 9) and str(err).startswith("t.task:5:9: ")
    err = _compile_error(ADD_MUG + "  allow newsletter, orders.*.stauts;")
    assert "Did you mean 'orders.*.status'?" in str(err) and (err.line, err.column) == (5, 21)
    err = _compile_error(ADD_MUG + "  allow cart;")
    assert "'cart' is not something the site keeps (transient (this visit))" in str(err)
    err = _compile_error(ADD_MUG + "  allow orders.*.total_cents;")
    assert "is not something the site keeps (derived)" in str(err)
    err = _compile_error(ADD_MUG + '  allow orders["nope"];')
    assert "no single entity 'nope' in orders" in str(err)
