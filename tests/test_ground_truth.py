"""Ground truth: for every library task, success means the goal was done, and nothing less.

The full check (`webfactory_env.groundtruth`, without a browser) runs here on a fixed
sample of seeds per task: seed 0 in the fast tier, five more in the full suite.
`benchmarks/ground_truth.py` runs 200 seeds of easy and 20 each of medium and hard, and
prints the table in the README.
"""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path

import pytest

from webfactory_env.adversarial import AppDriver
from webfactory_env.groundtruth import check_task, run_oracle
from webfactory_env.groundtruth.answers import check_answers
from webfactory_env.groundtruth.hedges import check_hedges
from webfactory_env.groundtruth.plans import Recorded, replay
from webfactory_env.sitegen import generate_site
from webfactory_env.sitegen.families.shop import transitions as shop_t
from webfactory_env.tasks import compile_for_site, library_tasks

TASKS = sorted((t.family, t.name) for t in library_tasks())
SAMPLES = [
    pytest.param((0,), id="seed0"),
    pytest.param((1, 2, 7, 13, 42), id="seeds1-42", marks=pytest.mark.slow),
]


@pytest.mark.parametrize("seeds", SAMPLES)
@pytest.mark.parametrize(("family", "task"), TASKS, ids=[t for _, t in TASKS])
def test_success_means_the_goal_was_done(family, task, seeds):
    report = check_task(family, task, seeds=seeds)
    assert report.oracle_ok == len(seeds)


ANSWER_TASKS = sorted(
    (t.family, t.name)
    for t in library_tasks()
    if re.search(r"^\s*answer\b", Path(t.path).read_text(), re.M)
)


@pytest.mark.slow
@pytest.mark.parametrize(("family", "task"), ANSWER_TASKS, ids=[t for _, t in ANSWER_TASKS])
def test_every_hedge_fails_and_every_re_spelling_passes(family, task):
    """Seeds 0-19 of easy sites and 0-4 of medium and hard: the answer conjunct rejects the
    right answer joined with a second value of its kind, a near miss, "or", "maybe", and
    accepts it in every format a person writes it."""
    asked = 0
    for difficulty, seeds in (("easy", range(20)), ("medium", range(5)), ("hard", range(5))):
        for seed in seeds:
            compiled = compile_for_site(task, generate_site(family, seed, difficulty))
            tried, passed = check_hedges(compiled)
            forms, problems = check_answers(compiled)
            assert not passed and not problems, f"{difficulty} seed {seed}: {passed + problems}"
            asked += bool(tried)
            assert bool(tried) == bool(forms)
    assert asked in (0, 30)


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
    d.app.fire(shop_t.add_to_cart, sku="nope")
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


# ------------------------------------------- nothing else: the twelve probes of issue 26
def _oracle_run(family, task, seed=3, difficulty="easy"):
    """A fresh driver on the task, and the oracle's plan as it ran (to follow again)."""
    site = generate_site(family, seed, difficulty)
    compiled = compile_for_site(task, site)
    _, recorded, problems = run_oracle(site, compiled)
    assert not problems
    return site, compiled, recorded, AppDriver(site, compiled)


def _step_index(recorded, prefix):
    return next(i for i, r in enumerate(recorded) if r.step.sid.startswith(prefix))


def _follow(d, recorded, start=0, stop=None, value=None):
    """Follow the recorded plan from `start` to `stop` (re-targeted to the page's
    equivalents), typing `value` (a dict: step index -> text) instead where given."""
    for i in range(start, len(recorded) if stop is None else stop):
        rec = recorded[i]
        if value and i in value:
            rec = Recorded(replace(rec.step, value=value[i]), rec.affordance)
        assert replay(d, [rec]), f"plan step {i + 1} ({rec.step.sid}) is not on the page"


def _click(d, sid):
    aff = next((a for a in d.app.page().affordances if a.sid == sid), None)
    assert aff is not None, f"{sid} is not on {d.app.route}"
    return d.act(aff, "click")


def _not_asked(d, *expected):
    """The run did the goal and something else: no success, and the frame names it."""
    status = d.sim.goal_status(d.state())
    assert not d.success and all(v for k, v in status.items() if k != "frame"), status
    breaches = " | ".join(d.sim.frame_breaches(d.state()))
    for text in expected:
        assert text in breaches, breaches


def test_probe_a_second_order_before_the_right_one():
    site, _, recorded, d = _oracle_run("shop", "buy_red_mug", 3, "medium")
    _add(d, _sku(site, product_type="lamp"))
    assert not _checkout(d).success and len(d.state()["orders"]) > len(site.spec.entities["orders"])
    _follow(d, recorded)
    _not_asked(d, "2 new orders")


def test_probe_two_bookings():
    _, _, recorded, d = _oracle_run("travel", "book_with_loyalty_number")
    pick = _step_index(recorded, "flight:")
    _follow(d, recorded, stop=pick)
    other = next(
        a
        for a in d.affordances()
        if a.sid.startswith("flight:") and a.sid != recorded[pick].step.sid
    )
    d.act(other, "click")
    _follow(d, recorded, start=pick + 1)
    assert not d.success
    d.navigate("/")
    _follow(d, recorded)
    _not_asked(d, "2 new trips")


def test_probe_a_junk_card_beside_the_asked_one():
    _, _, recorded, d = _oracle_run("kanban", "kanban_create_card")
    title = _step_index(recorded, "field:new_card.title")
    _follow(d, recorded, value={title: "Water the plants"})
    d.navigate("/")
    _follow(d, recorded)
    _not_asked(d, "2 new cards")


def test_probe_another_to_do_card_deleted_too():
    site, compiled, recorded, d = _oracle_run("kanban", "kanban_delete_card")
    state = d.state()
    target = compiled.bindings["click-item-card"]["id"]
    other = next(
        cid
        for cid, c in sorted(state["cards"].items())
        if c["column"] == "todo" and cid != target and not state["boards"][c["board"]]["archived"]
    )
    d.navigate(f"/card/{other}")
    _click(d, f"delete:{other}")
    _click(d, f"confirm-delete:{other}")
    _follow(d, recorded)
    _not_asked(d, f"cards[{other}] deleted")


def test_probe_a_second_invite():
    _, _, recorded, d = _oracle_run("kanban", "kanban_invite_member")
    name, email = (
        _step_index(recorded, "field:invite.name"),
        _step_index(recorded, "field:invite.email"),
    )
    _follow(d, recorded, value={name: "Sam Okafor", email: "sam.okafor@example.org"})
    d.navigate("/")
    _follow(d, recorded)
    _not_asked(d, "2 new invites", "sam.okafor@example.org")


def test_probe_another_of_my_replies_deleted():
    _, compiled, recorded, d = _oracle_run("forum", "forum_delete_own_reply", 11)
    post = _step_index(recorded, "post:")
    _follow(d, recorded, stop=post)
    target = recorded[post].step.sid.split(":")[1]
    me = d.state()["auth"]["user"]
    other = next(
        rid
        for rid, r in sorted(d.state()["replies"].items())
        if r["author"] == me and rid != target
    )
    here = d.app.route
    for sid in (
        f"post:{other}",
        f"actions:{other}",
        f"modal:delete:{other}:open",
        f"confirm-delete:{other}",
    ):
        _click(d, sid)
    d.navigate(here)
    _follow(d, recorded, start=post)
    _not_asked(d, f"replies[{other}] deleted")


def test_probe_a_junk_thread_beside_the_new_one():
    _, _, recorded, d = _oracle_run("forum", "forum_new_thread")
    title = _step_index(recorded, "field:new_thread.title")
    _follow(d, recorded, value={title: "Is there a dark mode for the mobile app"})
    d.navigate("/")
    _follow(d, recorded, start=title - 1)
    _not_asked(d, "2 new threads")


@pytest.mark.parametrize(
    ("family", "task", "step", "expected"),
    [
        ("account", "account_rotate_api_key", "key:", "api_keys[{arg}] deleted"),
        ("account", "account_sign_out_device", "session:", "sessions[{arg}] deleted"),
        ("forum", "forum_upvote_accepted", "upvote:", "[{arg}].upvoters changed"),
    ],
    ids=["a-second-api-key-revoked", "a-second-device-signed-out", "a-second-reply-upvoted"],
)
def test_probe_the_same_control_on_another_record(family, task, step, expected):
    _, _, recorded, d = _oracle_run(family, task)
    i = _step_index(recorded, step)
    _follow(d, recorded, stop=i)
    aff = recorded[i].affordance
    other = next(a for a in d.affordances() if a.handler == aff.handler and a.arg != aff.arg)
    d.act(other, "click")
    _follow(d, recorded, start=i)
    (record,) = d.app.transitions()[other.handler].decode(other.arg).values()
    _not_asked(d, expected.format(arg=record))


def test_probe_sms_alerts_on_when_asked_for_quiet_notifications():
    _, _, recorded, d = _oracle_run("account", "account_quiet_notifications")
    last = len(recorded) - 1
    _follow(d, recorded, stop=last)
    sms = next(a for a in d.affordances() if a.sid == "toggle:notify.sms_alerts")
    assert sms.attr_map().get("checked") is False
    d.act(sms, "click")
    _follow(d, recorded, start=last)
    _not_asked(d, ".sms_alerts changed")


def test_probe_a_second_card_reassigned():
    _, compiled, recorded, d = _oracle_run("kanban", "kanban_triage_blocked")
    board = _step_index(recorded, "card:")
    _follow(d, recorded, stop=board)
    state = d.state()
    me, target = state["user"]["id"], recorded[board].step.sid.split(":")[1]
    here = d.app.route
    other = next(
        cid
        for cid, c in sorted(state["cards"].items())
        if c["board"] == state["cards"][target]["board"]
        and cid != target
        and c["assignee"] != me
        and not c["archived"]
    )
    d.navigate(f"/card/{other}")
    _click(d, f"take:{other}")
    d.navigate(here)
    _follow(d, recorded, start=board)
    _not_asked(d, f"cards[{other}].assignee changed")


# ----------------------------------------------- ... and what stays free
def test_the_oracle_passes_its_own_frame_and_the_frame_is_in_the_task():
    for family, task in (("kanban", "kanban_delete_card"), ("account", "account_sign_out_device")):
        site, compiled, recorded, d = _oracle_run(family, task)
        _follow(d, recorded)
        assert d.success and d.sim.frame_breaches(d.state()) == []
        assert compiled.to_json()["frame"]["exempt"], "what the task deletes is exempt"


def test_signing_in_twice_filtering_and_viewing_another_record_keep_success():
    # signing in, out and in again: this browser's session and the login log are free
    _, _, recorded, d = _oracle_run("account", "account_sign_out_device")
    signed_in = _step_index(recorded, "form:login") + 1
    _follow(d, recorded, stop=signed_in)
    d.navigate("/")
    _click(d, "sign-out")
    _follow(d, recorded)
    assert d.success
    # a filter and another card looked at first
    _, compiled, recorded, d = _oracle_run("kanban", "kanban_delete_card")
    other = next(
        c for c in sorted(d.state()["cards"]) if c != compiled.bindings["click-item-card"]["id"]
    )
    d.navigate(f"/card/{other}")
    d.navigate("/shop")
    _follow(d, recorded)
    assert d.success


def test_a_wishlist_item_added_then_taken_off_again_keeps_success():
    site, _, recorded, d = _oracle_run("shop", "buy_red_mug", 3, "medium")
    lamp = _sku(site, product_type="lamp")
    d.navigate(f"/product/{lamp}")
    _click(d, f"wishlist:{lamp}")
    assert d.state()["wishlist"] == [lamp]
    d.navigate("/wishlist")
    _click(d, f"move-to-cart:{lamp}")
    d.navigate("/cart")
    _click(d, f"remove:{lamp}")
    assert d.state()["wishlist"] == [] and not d.state()["cart"]["items"]
    _follow(d, recorded)
    assert d.success
