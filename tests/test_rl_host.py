"""The episode host: hosted episodes replay the oracle, end once, never score a broken
rollout, and leave no session or browser context behind however they end."""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
import time

import pytest

from webfactory_env.core.errors import ConfigError
from webfactory_env.rl import (
    ENDED,
    EpisodeHost,
    EpisodeSettings,
    EpisodeSpec,
    HostCapacityError,
    HostConfig,
    HostTimeoutError,
    UnknownSessionError,
    oracle_run,
)

pytestmark = pytest.mark.browser

SPEC = EpisodeSpec("shop", "buy_red_mug", level_seed=3)


def run_async(main):
    """`asyncio.run(main())` on a thread of its own: the oracle's Playwright (sync API)
    keeps an event loop marked running on this one, as a trainer's thread would not."""
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, main()).result()


@pytest.fixture(scope="module")
def oracle():
    return oracle_run(SPEC)


@pytest.fixture
def host():
    made = EpisodeHost(HostConfig(max_sessions=3, idle_timeout_s=None, call_timeout_s=30))
    yield made
    made.close()


def test_a_hosted_episode_replays_the_oracle_and_ends_once(host, oracle):
    sid = host.open()
    first = host.reset(sid, SPEC)
    assert first.text == oracle.texts[0] and first.step == 0 and not first.done
    rewards = []
    for action, text in zip(oracle.actions, oracle.texts[1:], strict=True):
        reply = host.step(sid, action)
        assert reply.text == text
        rewards.append(reply.reward)
    # success mode: nothing until the end, then 1
    assert rewards == [0.0] * (len(rewards) - 1) + [1.0]
    out = host.outcome(sid)
    assert out is not None and out.success and out.scorable and out.reward == 1.0
    assert out.episode_return == pytest.approx(sum(oracle.rewards))
    assert out.components["success"] == 1.0 and out.steps == len(oracle.actions)
    # After the end: nothing is done, nothing is paid, and the reply says so.
    steps_before = host.stats().steps
    after = host.step(sid, "click(1)")
    assert after.text == ENDED and after.done and after.reward == 0.0 and after.step == out.steps
    assert host.outcome(sid) == out
    assert host.stats().steps == steps_before + 1 and host.stats().contexts == 1


def test_the_return_mode_pays_the_shaped_rewards(oracle):
    settings = EpisodeSettings(reward_mode="return")
    with EpisodeHost(HostConfig(max_sessions=1, idle_timeout_s=None, episode=settings)) as host:
        sid = host.open()
        host.reset(sid, SPEC)
        rewards = [host.step(sid, a).reward for a in oracle.actions]
        assert rewards == pytest.approx(oracle.rewards)
        assert host.outcome(sid).reward == pytest.approx(sum(oracle.rewards))


def test_a_repeated_operation_id_does_not_step_twice(host, oracle):
    sid = host.open()
    host.reset(sid, SPEC, op_id="r")
    once = host.step(sid, oracle.actions[0], op_id="a1")
    again = host.step(sid, oracle.actions[0], op_id="a1")
    assert again == once and again.step == 1
    nxt = host.step(sid, oracle.actions[1], op_id="a2")
    assert nxt.step == 2 and nxt.text == oracle.texts[2]
    assert host.stats().replayed == 1


def test_capacity_is_a_clear_error_and_closing_frees_a_seat(host):
    ids = [host.open() for _ in range(3)]
    with pytest.raises(HostCapacityError, match="all 3 sessions"):
        host.open()
    host.close_session(ids[0])
    host.open()
    with pytest.raises(UnknownSessionError, match="no open session"):
        host.step(ids[0], "click(1)")


def test_a_user_mistake_raises_and_leaves_the_session_usable(host, oracle):
    sid = host.open()
    host.reset(sid, SPEC)
    host.step(sid, oracle.actions[0])
    with pytest.raises(ConfigError, match="unknown task"):
        host.reset(sid, EpisodeSpec("shop", "buy_blue_teapot"))
    # The episode before the mistake is gone: a step now asks for a reset, not acts on it.
    with pytest.raises(ConfigError, match="reset the session"):
        host.step(sid, oracle.actions[1])
    assert host.reset(sid, SPEC).text == oracle.texts[0]


def test_a_call_queued_past_its_deadline_is_withdrawn(host, oracle):
    sid = host.open()
    host.reset(sid, SPEC)
    release = threading.Event()
    host._worker.submit(release.wait)  # the browser thread is busy with something else
    with pytest.raises(HostTimeoutError, match="withdrawn") as late:
        host.step(sid, oracle.actions[0], timeout_s=0.2)
    assert late.value.withdrawn
    release.set()
    reply = host.step(sid, oracle.actions[0])
    assert reply.step == 1 and reply.scorable  # the withdrawn call did nothing


def test_a_call_running_past_its_deadline_leaves_the_episode_unscorable(host, oracle):
    sid = host.open()
    host.reset(sid, SPEC)
    episode = host._sessions[sid].episode
    real_step = episode.step

    def slow_step(action: str):
        time.sleep(0.6)
        return real_step(action)

    episode.step = slow_step  # type: ignore[method-assign]
    with pytest.raises(HostTimeoutError, match="unscorable") as late:
        host.step(sid, oracle.actions[0], timeout_s=0.2)
    assert not late.value.withdrawn
    episode.step = real_step  # type: ignore[method-assign]
    reply = host.step(sid, oracle.actions[1])
    assert reply.done and reply.reward is None and not reply.scorable
    out = host.outcome(sid)
    assert out is not None and not out.scorable and out.reward is None
    assert out.outcome == "unscorable"


def test_a_killed_browser_is_unscorable_never_zero_and_the_next_reset_recovers(host, oracle):
    sid = host.open()
    host.reset(sid, SPEC)
    host.step(sid, oracle.actions[0])
    host._browser.kill()  # Chromium and the driver die mid-episode
    reply = host.step(sid, oracle.actions[1])
    assert reply.done and reply.reward is None and not reply.scorable
    out = host.outcome(sid)
    assert out is not None and out.reward is None and out.outcome == "unscorable"
    assert host.step(sid, oracle.actions[2]).reward is None  # stays unscorable
    fresh = host.reset(sid, SPEC)
    assert fresh.scorable and fresh.text == oracle.texts[0]


def test_idle_sessions_are_reaped_with_their_contexts():
    with EpisodeHost(HostConfig(max_sessions=2, idle_timeout_s=0.3)) as host:
        sid = host.open()
        host.reset(sid, SPEC)
        assert host.stats().contexts == 1
        deadline = time.monotonic() + 5
        while host.session_ids() and time.monotonic() < deadline:
            time.sleep(0.05)
        stats = host.stats()
        assert (stats.sessions, stats.contexts, stats.reaped) == (0, 0, 1)


def test_a_cancelled_rollout_closes_its_session(host, oracle):
    started = asyncio.Event()

    async def rollout() -> None:
        async with host.session() as sid:
            await host.areset(sid, SPEC)
            await host.astep(sid, oracle.actions[0])
            started.set()
            await asyncio.sleep(30)  # a trainer that is cancelled here

    async def main() -> None:
        task = asyncio.create_task(rollout())
        await started.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    run_async(main)
    stats = host.stats()
    assert (stats.sessions, stats.contexts) == (0, 0)


def test_concurrent_async_rollouts_all_succeed(host, oracle):
    async def rollout() -> bool:
        async with host.session() as sid:
            await host.areset(sid, SPEC)
            for action in oracle.actions:
                reply = await host.astep(sid, action)
            return reply.success

    async def main() -> list[bool]:
        return await asyncio.gather(*(rollout() for _ in range(3)))

    assert run_async(main) == [True, True, True]
    assert (host.stats().sessions, host.stats().contexts) == (0, 0)
