"""Vector envs: Gymnasium's sync and async vector envs, SB3's SubprocVecEnv, and several
processes sharing one Chromium; none leaves a browser process behind."""

from __future__ import annotations

import os
import time
import uuid
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

import webfactory_env  # noqa: F401
from webfactory_env.executor.browser import NO_FRAMES
from webfactory_env.executor.browser_server import BrowserServer
from webfactory_env.executor.watchdog import cmdline

pytestmark = [pytest.mark.browser, pytest.mark.slow]


# Every process this test session starts inherits this tag, so that Chromium processes of
# other programs on the machine are never mistaken for ours.
TAG = f"WEBFACTORY_TEST_TAG={uuid.uuid4().hex}"
os.environ[TAG.split("=")[0]] = TAG.split("=")[1]


def chromium_pids() -> set[int]:
    """Our Chromium browser processes (not their renderer/GPU/utility children)."""
    pids = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmd = (entry / "cmdline").read_bytes().split(b"\0")
            if not (cmd and b"chrom" in cmd[0]) or any(a.startswith(b"--type=") for a in cmd):
                continue
            if TAG.encode() not in (entry / "environ").read_bytes().split(b"\0"):
                continue
        except OSError:
            continue
        pids.add(int(entry.name))
    return pids


def _settled_pids(before: set[int], timeout: float = 10.0) -> set[int]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        left = chromium_pids() - before
        if not left:
            return left
        time.sleep(0.2)
    return chromium_pids() - before


def _trees(pids: set[int]) -> set[int]:
    """The roots among `pids`: one per Chromium (its zygotes and helpers are its children)."""

    def parent(pid: int) -> int:
        try:
            return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
        except OSError:
            return 0

    def crashpad(pid: int) -> bool:  # Chromium's crash reporter, a child of init
        try:
            return b"crashpad" in Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[0]
        except OSError:
            return True

    return {pid for pid in pids if parent(pid) not in pids and not crashpad(pid)}


def test_sync_vector_env_batches_observations():
    envs = gym.make_vec("WebTask-v0", num_envs=2, vectorization_mode="sync", obs_mode="tokens")
    try:
        obs, info = envs.reset(seed=[1, 2])
        assert obs["tag"].shape == (2, 128) and list(info["level_seed"]) == [1, 2]
        obs, reward, terminated, truncated, info = envs.step(envs.action_space.sample())
        assert reward.shape == (2,) and "record" in info
    finally:
        envs.close()


def test_async_vector_env_runs_200_steps_and_leaves_no_browser():
    before = chromium_pids()
    envs = gym.make_vec(
        "WebTask-v0", num_envs=4, vectorization_mode="async", obs_mode="tokens", max_steps=50
    )
    try:
        envs.reset(seed=0)
        envs.action_space.seed(0)
        for _ in range(200):
            _, reward, _, _, _ = envs.step(envs.action_space.sample())
            assert np.all(np.isfinite(reward))
    finally:
        envs.close()
    assert _settled_pids(before) == set(), "a Chromium process outlived the vector env"


def test_processes_can_share_one_browser():
    before = chromium_pids()
    with BrowserServer() as server:
        shared = chromium_pids() - before
        envs = gym.make_vec(
            "WebTask-v0",
            num_envs=3,
            vectorization_mode="async",
            obs_mode="tokens",
            browser=server.config,
        )
        try:
            envs.reset(seed=[5, 6, 7])
            for _ in range(10):
                envs.step(envs.action_space.sample())
            # No browser of their own: the only browser is the server's. (Its roots, not its
            # processes: one caught between fork and exec still reads as a browser, and
            # was gone at the next look, once, in CI.)
            assert _trees(chromium_pids() - before) == _trees(shared)
        finally:
            envs.close()
    assert _settled_pids(before) == set()


def test_stable_baselines3_subproc_vec_env():
    vec_env = pytest.importorskip("stable_baselines3.common.vec_env")
    before = chromium_pids()

    def make(i):
        # "module:id" imports webfactory_env in the worker, which SB3 starts fresh
        return lambda: gym.make("webfactory_env:WebTask-v0", obs_mode="tokens", max_steps=20)

    envs = vec_env.SubprocVecEnv([make(i) for i in range(2)])
    try:
        obs = envs.reset()
        assert obs["mask"].shape == (2, 128)
        for _ in range(5):
            obs, rewards, dones, infos = envs.step(
                np.array([envs.action_space.sample() for _ in range(2)])
            )
        masks = envs.env_method("action_masks")
        assert len(masks) == 2 and masks[0].dtype == bool
    finally:
        envs.close()
    assert _settled_pids(before) == set()


def test_make_vec_gives_workers_that_share_one_chromium_and_see_what_one_env_sees():
    from webfactory_env.vector import WebTaskVectorEnv

    before = chromium_pids()
    envs = gym.make_vec("WebTask-v0", num_envs=3, obs_mode="tokens", done_actions="always")
    try:
        assert isinstance(envs, WebTaskVectorEnv)
        obs, info = envs.reset(seed=5)
        assert list(info["level_seed"]) == [5, 6, 7]
        assert len(_trees(chromium_pids() - before)) == 1  # one browser for three envs
        # `tokens` envs never read a pixel: their shared Chromium draws no frames.
        assert envs.server is not None and envs.server.browser_pid is not None
        assert NO_FRAMES in cmdline(envs.server.browser_pid)
        masks = envs.action_masks()
        assert masks.shape == (3, 10 + 128 + 16) and masks.dtype == bool
        assert masks[:, 8:10].all()  # done verbs offered, as asked
        _, _, terminated, _, info = envs.step(np.array([[8, 0, 0]] * 3))  # done_success
        assert terminated.all() and list(info["outcome"]) == ["soft_fail"] * 3
    finally:
        envs.close()
    assert envs.server is None
    assert _settled_pids(before) == set(), "the shared Chromium outlived the vector env"
    single = gym.make("WebTask-v0", obs_mode="tokens", done_actions="always")
    try:
        alone, _ = single.reset(seed=6)
        for key, value in alone.items():  # the second worker's first observation
            assert np.array_equal(obs[key][1], value), key
    finally:
        single.close()


def test_a_vector_env_of_text_observations_passes_every_character_the_page_shows():
    """A text observation holds what the page shows (a `·` in a title, accents, arrows),
    beyond the characters Gymnasium's shared memory keeps for a `Text` space."""
    from webfactory_env.vector import WebTaskVectorEnv

    envs = WebTaskVectorEnv(2, obs_mode="text")
    single = gym.make("WebTask-v0", obs_mode="text")
    try:
        obs, _ = envs.reset(seed=5)
        alone, _ = single.reset(seed=6)
        assert obs[1] == alone and "·" in alone
        _, _, terminated, truncated, _ = envs.step(np.array([[0, 0, 0]] * 2))
        assert not (terminated | truncated).any()
    finally:
        envs.close()
        single.close()


def test_a_vector_env_with_a_bad_argument_fails_at_once_and_starts_nothing():
    from webfactory_env.core.errors import ConfigError
    from webfactory_env.vector import WebTaskVectorEnv

    before = chromium_pids()
    with pytest.raises(ConfigError, match="observation mode 'pixel'"):
        WebTaskVectorEnv(2, obs_mode="pixel")
    with pytest.raises(ConfigError, match="num_envs"):
        WebTaskVectorEnv(0)
    assert chromium_pids() - before == set()


def test_share_browser_false_gives_each_worker_its_own_chromium():
    from webfactory_env.vector import WebTaskVectorEnv

    before = chromium_pids()
    envs = WebTaskVectorEnv(2, share_browser=False, obs_mode="tokens")
    try:
        envs.reset(seed=0)
        assert envs.server is None and len(_trees(chromium_pids() - before)) == 2
    finally:
        envs.close()
    assert _settled_pids(before) == set()


def test_a_shared_chromium_that_dies_ends_episodes_with_a_reason_and_comes_back():
    import signal

    from webfactory_env.vector import WebTaskVectorEnv

    before = chromium_pids()
    envs = WebTaskVectorEnv(2, obs_mode="tokens", step_timeout_ms=5_000)
    try:
        envs.reset(seed=0)
        assert envs.server is not None
        dead = envs.server.process.pid
        os.killpg(dead, signal.SIGKILL)
        envs.server.process.wait(timeout=10)

        def to_the_shop():
            return np.array([[0, dom.index_of("nav:/shop"), 0] for dom in envs.call("dom")])

        _, _, terminated, truncated, info = envs.step(to_the_shop())
        assert truncated.all() and not terminated.any()
        assert all(r.startswith("the browser failed") for r in info["reason"]), info["reason"]
        assert envs.server.restarts == 1 and envs.server.process.pid != dead
        envs.step(to_the_shop())  # the autoreset: each env connects to the new Chromium
        _, _, _, truncated, info = envs.step(to_the_shop())
        assert not truncated.any() and [d.route for d in envs.call("dom")] == ["/shop"] * 2
    finally:
        envs.close()
    assert _settled_pids(before) == set()


@pytest.mark.parametrize(
    ("autoreset", "action_mode"), [("SameStep", "multidiscrete"), ("NextStep", "discrete")]
)
def test_action_masks_are_read_from_what_the_workers_published(monkeypatch, autoreset, action_mode):
    """`action_masks()` answers without a round trip through the workers' pipes, and gives
    what asking every env gives: after resets, steps and episode ends, in both numeric
    action modes."""
    from webfactory_env.agents.random_agent import sample_masked
    from webfactory_env.vector import WebTaskVectorEnv

    envs = WebTaskVectorEnv(
        2, obs_mode="tokens", max_steps=4, autoreset_mode=autoreset, action_mode=action_mode
    )
    try:
        envs.reset(seed=0)
        rng = np.random.default_rng(0)
        for _ in range(10):
            asked = np.stack(envs.call("action_masks"))
            with monkeypatch.context() as patch:
                patch.setattr(envs, "call", lambda *a, **k: pytest.fail("asked the workers"))
                published = envs.action_masks()
            assert published.dtype == asked.dtype and np.array_equal(published, asked)
            if action_mode == "discrete":
                actions = np.array([rng.choice(np.flatnonzero(m)) for m in published])
            else:
                nvec = np.asarray(envs.single_action_space.nvec)
                actions = sample_masked(published, nvec, rng)
            envs.step(actions)
    finally:
        envs.close()


def test_action_masks_before_reset_say_so_and_leave_the_vector_env_usable():
    """Asked before any reset, `action_masks()` raises the env's own error in this process:
    no worker is shut down for it, so the next reset and masks work."""
    from webfactory_env.core.errors import ConfigError
    from webfactory_env.vector import WebTaskVectorEnv

    envs = WebTaskVectorEnv(2, obs_mode="tokens", action_mode="discrete")
    try:
        with pytest.raises(ConfigError, match=r"call reset\(\) before action_masks\(\)"):
            envs.action_masks()
        envs.reset(seed=0)
        masks = envs.action_masks()
        assert masks.shape == (2, envs.single_action_space.n) and masks.any(axis=1).all()
    finally:
        envs.close()
