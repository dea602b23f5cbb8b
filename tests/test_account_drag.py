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
from webfactory_env.sitegen.families.account.transitions.drafts import (
    drop_file,
    set_field,
    set_secret,
)
from webfactory_env.sitegen.families.account.transitions.member import move_channel
from webfactory_env.sitegen.variation import Variation
from webfactory_env.testing import page_affordances


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


# ------------------------------------------------------------------- the file drop
def test_a_file_dropped_on_the_zone_is_chosen_as_the_button_chooses_it():
    site, _, by_button = _signed_in(route="/profile")
    _, _, by_drop = _signed_in(route="/profile")
    good = next(f for f in site.spec.entities["files"] if f.accepted)
    by_button.fire(set_field, form="profile", name="avatar", value=good.name)
    dropped = {"field": "avatar", "place": "last"}
    by_drop.fire(drop_file, form="profile", name="avatar", file=good.name, values=dropped)
    assert by_drop.state_view()["forms"]["profile"]["avatar"] == good.name
    assert by_drop.state_view() == by_button.state_view()
    assert _html(by_drop) == _html(by_button), "the page says the same file is chosen"


def test_a_drop_elsewhere_or_of_a_file_the_site_does_not_offer_chooses_nothing():
    _, _, app = _signed_in(route="/profile")
    before = app.state_view()
    name = next(iter(app.queries.files))
    app.fire(drop_file, form="profile", name="avatar", file=name, values={"field": "resume"})
    app.fire(drop_file, form="profile", name="avatar", file="../etc/passwd", values={})
    assert app.state_view() == before


def test_the_profile_offers_every_file_as_a_chip_to_drop_beside_the_upload_button():
    site, _, app = _signed_in(route="/profile")
    html = _html(app)
    chips = re.findall(r'<li data-wf-drag="drop_file" data-wf-da="[^"]*file=([^"]+)"', html)
    assert chips == [f.name for f in site.spec.entities["files"]]
    upload, zone = html.index("Choose file"), html.index('data-wf-drop="avatar"')
    assert upload < zone < html.index("data-wf-drag"), "button, then zone, then tray"
    sids = {a.sid for a in page_affordances(app, "/profile")}
    assert "upload:profile.avatar" in sids, "the button stays the keyboard's way"
    assert not any(sid.startswith("file:") for sid in sids), "chips are no affordance"


# ------------------------------------------------------------------------ in Chromium
def _box(env: Any, text: str) -> tuple[float, float, float, float]:
    """The box of the element whose text is `text` (x, y, width, height)."""
    dom = env.unwrapped.dom
    i = next(i for i in range(len(dom)) if dom.texts[i] == text)
    return tuple(dom.boxes[i])


def _center(env: Any, text: str) -> tuple[int, int]:
    x, y, w, h = _box(env, text)
    return round(x + w / 2), round(y + h / 2)


def _env_on(make_env: Any, task: str, route: str) -> Any:
    """A coordinate env on account seed 0 where the coordinate oracle, playing `task`'s
    plan, has just opened the page at `route`."""
    from webfactory_env.agents.coordinate_oracle import CoordinateOracle

    env = make_env(
        family="account",
        task=task,
        obs_mode="tokens",
        action_mode="coordinates_text",
        variation=Variation.plain().to_json(),
    )
    obs, info = env.reset(seed=0)
    oracle = CoordinateOracle(env.unwrapped)
    for _ in range(40):
        if env.unwrapped.app.route == route:
            return env
        obs, _, _, _, info = env.step(oracle.act(obs, info))
    raise AssertionError(f"the oracle never reached {route}")


@pytest.fixture
def settings_env(make_env):
    """Signed in on the settings page, where `account_contact_first` ends."""
    return _env_on(make_env, "account_contact_first", "/settings")


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


@pytest.mark.browser
def test_a_mouse_drag_onto_the_zone_and_the_button_s_picker_choose_the_same_file(make_env):
    dragged = _env_on(make_env, "account_update_profile", "/profile")
    picked = _env_on(make_env, "account_update_profile", "/profile")
    file = next(f for f in dragged.unwrapped.site.spec.entities["files"] if f.accepted).name
    x1, y1 = _center(dragged, file)
    x2, y2 = _center(dragged, "…or drop a file here")
    _, _, _, _, info = dragged.step(f"drag({x1}, {y1}, {x2}, {y2})")
    assert info["action_error"] is None
    (event,) = info["record"]["events"]
    assert event["handler"] == "drop_file" and event["sid"] == f"file:avatar:{file}"
    picked.step("click({}, {})".format(*_center(picked, "Choose file…")))
    picked.step("click({}, {})".format(*_center(picked, file)))
    state = dragged.unwrapped.app.state_view()
    assert state["forms"]["profile"]["avatar"] == file
    assert state == picked.unwrapped.app.state_view()
