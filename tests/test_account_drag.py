"""Drag and drop in the account portal: the contact order on the settings page, a sortable
list whose rows are dragged with the mouse or moved with their buttons (one transition for
both), and the file-drop zone beside the avatar's upload button, which does what choosing
the file does; in Chromium, a real mouse drag does each."""

from __future__ import annotations

import re
from typing import Any

import pytest

from webfactory_env.sitegen import generate_site
from webfactory_env.sitegen.families.account.app import AccountApp
from webfactory_env.sitegen.families.account.content import CHANNELS
from webfactory_env.sitegen.families.account.state import account_id
from webfactory_env.sitegen.families.account.transitions.auth import sign_in
from webfactory_env.sitegen.families.account.transitions.drafts import set_field, set_secret
from webfactory_env.sitegen.families.account.transitions.member import move_channel
from webfactory_env.sitegen.variation import Variation


def _signed_in(seed: int = 0, route: str = "/settings") -> tuple[Any, Any, AccountApp]:
    """A site, a password-only member of it, and an app where they are signed in on `route`."""
    site = generate_site("account", seed, "easy", Variation.plain())
    user = next(u for u in site.spec.entities["users"] if u.security == "password")
    app = site.new_app()
    assert isinstance(app, AccountApp)
    app.fire(set_field, form="login", name="username", value=user.username, type="input")
    app.fire(set_secret, form="login", name="password", value=user.password, type="input")
    app.fire(sign_in, values={"username": user.username, "password": user.password})
    app.fire(set_field, form="login", name="username", value=user.username, type="input")
    app.route = route
    assert not app.errors, app.errors
    return site, user, app


def _order(app: AccountApp, username: str) -> list[str]:
    ranks = app.state_view()["settings"][account_id(username)]["channels"]
    return sorted(ranks, key=lambda key: ranks[key])


def _html(app: AccountApp) -> str:
    return "".join(app.page().regions.values())


# ----------------------------------------------------------------- the contact order
def test_each_member_starts_with_a_contact_order_of_their_own():
    site = generate_site("account", 0, "easy", Variation.plain())
    orders = {o.username: o.channels for o in site.spec.entities["contact_orders"]}
    assert set(orders) == {u.username for u in site.spec.entities["users"]}
    assert all(sorted(o) == sorted(CHANNELS.values()) for o in orders.values())
    assert len(set(orders.values())) > 1, "not one order for everybody"
    _, user, app = _signed_in()
    names = [CHANNELS[key] for key in _order(app, user.username)]
    assert names == list(orders[user.username])
    shown = re.findall(r'<span class="name">([^<]+)</span>', _html(app))
    assert shown == names, "the settings page lists them in that order"


def test_the_buttons_and_a_drop_send_one_transition_and_renumber_the_order():
    _, user, app = _signed_in()
    me = account_id(user.username)
    first, second, third, last = _order(app, user.username)
    app.fire(move_channel, account=me, channel=last, place="top")
    assert _order(app, user.username) == [last, first, second, third]
    app.fire(move_channel, account=me, channel=last, place="down")
    assert _order(app, user.username) == [first, last, second, third]
    app.fire(move_channel, account=me, channel=second, place="up")
    assert _order(app, user.username) == [first, second, last, third]
    drop = {"list": "channels", "place": f"before:{second}"}
    app.fire(move_channel, account=me, channel=third, values=drop)
    assert _order(app, user.username) == [first, third, second, last]
    app.fire(move_channel, account=me, channel=first, values={"list": "channels", "place": "last"})
    assert _order(app, user.username) == [third, second, last, first]
    ranks = app.state_view()["settings"][me]["channels"]
    assert sorted(ranks.values()) == [1, 2, 3, 4]
    assert not app.errors, app.errors


def test_a_move_that_changes_nothing_or_another_member_s_order_is_no_move():
    site, user, app = _signed_in()
    me = account_id(user.username)
    other = next(u for u in site.spec.entities["users"] if u is not user)
    theirs = _order(app, other.username)
    first, *_ = _order(app, user.username)
    before = app.state_view()["settings"]
    app.fire(move_channel, account=me, channel=first, place="top")
    app.fire(move_channel, account=me, channel=first, place="up")
    app.fire(move_channel, account=me, channel=first, values={"list": "channels", "place": "top"})
    app.fire(move_channel, account=me, channel=first, values={"place": "before:nowhere"})
    app.fire(move_channel, account=account_id(other.username), channel=theirs[-1], place="top")
    assert app.state_view()["settings"] == before
    assert _order(app, other.username) == theirs


def test_the_rows_are_draggable_in_one_drop_zone_and_the_edges_disable_their_buttons():
    _, user, app = _signed_in()
    order = _order(app, user.username)
    html = _html(app)
    rows = re.findall(r'<li data-wf-drag="move_channel" data-wf-da="[^"]*channel=(\w+)"', html)
    assert rows == order
    assert html.count('data-wf-drop="channels" data-wf-dn="list"') == 1
    button = r'<button type="button" (disabled )?[^>]*data-wf-sid="channel:(\w+):(\w+)"'
    buttons = re.findall(button, html)
    disabled = {(key, place) for off, key, place in buttons if off}
    assert disabled == {(order[0], "top"), (order[0], "up"), (order[-1], "down")}
    assert len(buttons) == 3 * len(order)


# ------------------------------------------------------------------------ in Chromium
def _box(env: Any, text: str) -> tuple[float, float, float, float]:
    """The box of the element whose text is `text` (x, y, width, height)."""
    dom = env.unwrapped.dom
    i = next(i for i in range(len(dom)) if dom.texts[i] == text)
    return tuple(dom.boxes[i])


def _center(env: Any, text: str) -> tuple[int, int]:
    x, y, w, h = _box(env, text)
    return round(x + w / 2), round(y + h / 2)


@pytest.fixture
def settings_env(make_env):
    """A coordinate env on account seed 0, signed in by the coordinate oracle and on the
    settings page (where `account_contact_first` ends)."""
    from webfactory_env.agents.coordinate_oracle import CoordinateOracle

    env = make_env(
        family="account",
        task="account_contact_first",
        obs_mode="tokens",
        action_mode="coordinates_text",
        variation=Variation.plain().to_json(),
    )
    obs, info = env.reset(seed=0)
    oracle = CoordinateOracle(env.unwrapped)
    for _ in range(40):
        if env.unwrapped.app.route == "/settings":
            break
        obs, _, _, _, info = env.step(oracle.act(obs, info))
    assert env.unwrapped.app.route == "/settings"
    return env


@pytest.mark.browser
def test_a_mouse_drag_puts_a_channel_first_and_succeeds_at_the_task(settings_env):
    env = settings_env
    app = env.unwrapped.app
    user = app.queries.me
    *rest, last = app.queries.channel_order(app.queries.settings_of(user.username))
    x1, y1 = _center(env, CHANNELS[last])
    _, top, _, _ = _box(env, CHANNELS[rest[0]])
    _, reward, terminated, _, info = env.step(f"drag({x1}, {y1}, {x1}, {round(top) - 4})")
    assert info["action_error"] is None
    assert app.queries.channel_order(app.queries.settings_of(user.username)) == [last, *rest]
    (event,) = info["record"]["events"]
    assert event["type"] == "submit" and event["handler"] == "move_channel"
    assert event["sid"] == f"channel:{last}"
    assert terminated and info["success"], "a drop is as good as the Move to top button"


@pytest.mark.browser
def test_a_drop_between_two_rows_lands_between_them(settings_env):
    env = settings_env
    app = env.unwrapped.app
    user = app.queries.me
    first, second, third, last = app.queries.channel_order(app.queries.settings_of(user.username))
    x1, y1 = _center(env, CHANNELS[first])
    _, top, _, _ = _box(env, CHANNELS[last])
    env.step(f"drag({x1}, {y1}, {x1}, {round(top) - 2})")
    assert app.queries.channel_order(app.queries.settings_of(user.username)) == [
        second,
        third,
        first,
        last,
    ]


def test_the_library_task_pins_the_whole_resulting_order():
    from webfactory_env.tasks import compile_for_site

    site = generate_site("account", 3, "easy")
    task = compile_for_site("account_contact_first", site)
    user = task.params["user"]
    ranks = ("settings", account_id(user), "channels")
    (conjunct,) = [g for g in task.goal if g.predicate.paths() == {ranks}]
    order = next(o for o in site.spec.entities["contact_orders"] if o.username == user)
    keys = {name: key for key, name in CHANNELS.items()}
    wanted = [order.last, *order.channels[:-1]]
    assert dict(conjunct.predicate.value) == {keys[n]: i for i, n in enumerate(wanted, 1)}
    assert task.plan[-1].sid == f"channel:{keys[order.last]}:top"
