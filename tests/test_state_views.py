"""A state view, once built, never changes: the compiler keeps the views it saw (before and
after each step) without copying them, and predicates grade them later. If a view shared a
list or dict with the live model, the next event would rewrite the past and a step's
`before` would read as its `after`."""

from __future__ import annotations

import contextlib
import copy
from typing import Any

import pytest

from webfactory_env.sitegen import generate_site
from webfactory_env.sitegen.app import SiteApp
from webfactory_env.sitegen.spec import AppEvent
from webfactory_env.tasks import CompileError, compile_task
from webfactory_env.tasks.library import library_tasks, load_task_file

TASKS = [t.name for t in library_tasks()]


def _recording(monkeypatch: pytest.MonkeyPatch) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """Every view `state_view` hands out, with a deep copy taken when it was handed out."""
    seen: list[tuple[dict[str, Any], dict[str, Any]]] = []
    original = SiteApp.state_view

    def recorded(self: SiteApp) -> dict[str, Any]:
        view = original(self)
        if not seen or seen[-1][0] is not view:
            seen.append((view, copy.deepcopy(view)))
        return view

    monkeypatch.setattr(SiteApp, "state_view", recorded)
    return seen


@pytest.mark.parametrize("task", TASKS)
def test_views_seen_while_compiling_are_never_changed_afterwards(task, monkeypatch):
    family = next(t.family for t in library_tasks() if t.name == task)
    parsed, name = load_task_file(task, family)
    seen = _recording(monkeypatch)
    for seed in (0, 1):
        site = generate_site(family, seed, "hard")
        # A task infeasible on this site still walked through views: they count too.
        with contextlib.suppress(CompileError):
            compile_task(parsed, site, name)
    assert len(seen) > 2, "the compiler read no state"
    changed = [i for i, (view, then) in enumerate(seen) if view != then]
    assert not changed, f"views {changed} of {len(seen)} changed after they were handed out"


def test_a_view_that_shares_the_models_data_is_caught(monkeypatch):
    """The check above can fail: a view that hands out the model's own cart reads the items
    added after it was taken."""
    site = generate_site("shop", 0, "easy")
    app = site.new_app()
    seen = _recording(monkeypatch)
    original = SiteApp.state

    def leaky(self: SiteApp) -> dict[str, Any]:
        out = original(self)
        out["leak"] = self.model.cart.items  # the live dict, not a copy
        return out

    monkeypatch.setattr(SiteApp, "state", leaky)
    app.dispatch(AppEvent(type="nav", path="/shop"))
    product = next(a.href for a in app.page().affordances if a.kind == "Item")
    app.dispatch(AppEvent(type="nav", path=product))
    app.state_view()
    add = next(a for a in app.page().affordances if a.handler == "add_to_cart")
    app.dispatch(AppEvent(type="click", handler=add.handler, arg=add.arg, sid=add.sid))
    app.state_view()
    assert any(view != then for view, then in seen)


def _click(app: SiteApp, handler: str) -> None:
    found = next(a for a in app.page().affordances if a.handler == handler)
    app.dispatch(AppEvent(type="click", handler=found.handler, arg=found.arg, sid=found.sid))


def test_entity_tables_are_converted_again_only_after_a_change_of_server_data():
    """Navigating and opening pages reuse the tables' views (most of a state view); a
    mutating transition converts them afresh, and the view then shows its change."""
    app = generate_site("shop", 0, "easy").new_app()
    app.dispatch(AppEvent(type="nav", path="/shop"))
    orders = app.state_view()["orders"]
    product = next(a.href for a in app.page().affordances if a.kind == "Item")
    app.dispatch(AppEvent(type="nav", path=product))
    after_nav = app.state_view()
    assert after_nav["route"] == product and after_nav["orders"] is orders
    assert type(app).mutating("add_to_cart")
    _click(app, "add_to_cart")
    after_add = app.state_view()
    assert after_add["orders"] is not orders and after_add["orders"] == orders
    assert after_add["cart"]["items"] != after_nav["cart"]["items"]


def test_a_table_changed_behind_a_transition_not_declared_mutating_is_caught(monkeypatch):
    """The suite runs with WEBFACTORY_CHECK_VIEWS=1: a family whose non-mutating transition
    changes a table would hand out a stale view; the check names the table and the fix."""
    monkeypatch.setattr("webfactory_env.sitegen.app.CHECK_VIEWS", True)
    app = generate_site("shop", 0, "easy").new_app()
    app.dispatch(AppEvent(type="nav", path="/orders"))
    app.state_view()
    order = next(iter(app.model.orders.values()))
    order.status = "cancelled"  # as a careless handler would, with no mutating transition
    app.dispatch(AppEvent(type="nav", path="/shop"))
    with pytest.raises(AssertionError, match=r"ShopState\.orders changed.*mutating=True"):
        app.state_view()
    app.touch()  # what a change made outside `dispatch` must be followed by
    assert app.state_view()["orders"][order.id]["status"] == "cancelled"


def test_a_record_changed_inside_one_of_its_containers_is_caught_too(monkeypatch):
    """The other way a careless handler changes a table: not a field assigned, but a set or
    dict inside a record changed in place (an order's items). The check compares whole
    converted tables, so it sees that as well."""
    monkeypatch.setattr("webfactory_env.sitegen.app.CHECK_VIEWS", True)
    app = generate_site("shop", 0, "easy").new_app()
    app.dispatch(AppEvent(type="nav", path="/orders"))
    app.state_view()
    order = next(iter(app.model.orders.values()))
    order.items["SKU-NOT-ORDERED"] = 1  # in place: no field of the order is assigned
    app.dispatch(AppEvent(type="nav", path="/shop"))
    with pytest.raises(AssertionError, match=r"ShopState\.orders changed"):
        app.state_view()


def test_two_apps_of_one_site_never_see_each_others_table_changes(monkeypatch):
    """The other route to a stale view: apps of one site that share its start state (the
    env's and the compiler's) keep their own tables. A card created in one is in its view
    and not in the other's, whose reused view still equals its tables (the check is on)."""
    monkeypatch.setattr("webfactory_env.sitegen.app.CHECK_VIEWS", True)
    site = generate_site("kanban", 0, "easy")
    one, other = site.new_app(shared_start=True), site.new_app(shared_start=True)
    board = next(a.href for a in one.page().affordances if (a.href or "").startswith("/board/"))
    for app in (one, other):
        app.dispatch(AppEvent(type="nav", path=board))
    before = other.state_view()["cards"]
    one.dispatch(
        AppEvent(type="input", handler="set_field", arg="form=new_card&name=title", value="X9")
    )
    create = next(a for a in one.page().affordances if a.handler == "create_card")
    one.dispatch(AppEvent(type="submit", handler=create.handler, arg=create.arg, sid=create.sid))
    titles = [card["title"] for card in one.state_view()["cards"].values()]
    assert "X9" in titles
    other.dispatch(AppEvent(type="nav", path="/"))
    assert other.state_view()["cards"] == before
    assert "X9" not in [card["title"] for card in other.state_view()["cards"].values()]
