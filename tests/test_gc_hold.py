"""A reset holds Python's cyclic collector back and always gives it back as it found it."""

from __future__ import annotations

import gc
import threading

import pytest

from webfactory_env.core.gc_hold import gc_held
from webfactory_env.tasks.levels import reset_level


@pytest.fixture(autouse=True)
def _collector_on():
    was = gc.isenabled()
    gc.enable()
    yield
    (gc.enable if was else gc.disable)()


def test_a_reset_runs_without_the_collector_and_turns_it_back_on():
    seen = reset_level(lambda choice: (gc.isenabled(), {}), {"level_seed": 3}, drawn=False)
    assert seen == (False, {})
    assert gc.isenabled()


def test_a_failing_reset_turns_it_back_on_too():
    def start(choice):
        raise RuntimeError("the browser died")

    with pytest.raises(RuntimeError):
        reset_level(start, {"level_seed": 3}, drawn=False)
    assert gc.isenabled()


def test_a_collector_the_user_turned_off_stays_off():
    gc.disable()
    with gc_held():
        assert not gc.isenabled()
    assert not gc.isenabled()


def test_overlapping_holds_in_threads_leave_it_on_once_all_end():
    entered, release = threading.Barrier(2), threading.Event()
    inside: list[bool] = []

    def hold():
        with gc_held():
            entered.wait()
            release.wait()
            inside.append(gc.isenabled())

    threads = [threading.Thread(target=hold) for _ in range(2)]
    for t in threads:
        t.start()
    release.set()
    for t in threads:
        t.join()
    assert inside == [False, False]
    assert gc.isenabled()
