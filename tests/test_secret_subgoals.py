"""A subgoal pays for the state it names with the value the goal needs: a wrong password or
one-time code earns nothing, the right one earns once."""

from __future__ import annotations

import pytest

from webfactory_env.adversarial import AppDriver
from webfactory_env.groundtruth import run_oracle
from webfactory_env.groundtruth.plans import find, replay
from webfactory_env.sitegen import generate_site
from webfactory_env.tasks import compile_for_site

SIGN_INS = [
    ("account", "account_enable_two_factor", "field:login.password"),
    ("account", "account_enable_two_factor", "field:two_factor.current_password"),
    ("forum", "forum_new_thread", "field:signin.password"),
    ("travel", "cancel_refundable_trip", "field:login.password"),
    ("travel", "cancel_refundable_trip", "field:otp.code"),
]


def _up_to(family, task_name, sid, seed=0):
    """A driver that followed the plan up to the step on `sid`; the plan; that step."""
    site = generate_site(family, seed)
    task = compile_for_site(task_name, site)
    _, recorded, problems = run_oracle(site, task)
    assert not problems
    i = next(i for i, r in enumerate(recorded) if r.step.sid == sid)
    d = AppDriver(site, task)
    assert replay(d, recorded, i)
    return d, recorded, i


@pytest.mark.parametrize(("family", "task", "sid"), SIGN_INS, ids=[s for *_, s in SIGN_INS])
def test_a_wrong_secret_earns_nothing_and_the_right_one_earns_once(family, task, sid):
    d, recorded, i = _up_to(family, task, sid)
    right = recorded[i].step.value
    wrong = d.act(find(d, sid), "fill", "000000" if "code" in sid else "Not-The-Password-1")
    assert wrong.newly == () and wrong.reward == pytest.approx(-0.01)
    first = d.act(find(d, sid), "fill", right)
    assert first.newly == (recorded[i].step.subgoal,)
    again = d.act(find(d, sid), "fill", right)
    assert again.newly == ()
    replay(d, recorded[i + 1 :])
    assert d.success
