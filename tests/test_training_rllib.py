"""Ray RLlib on WebTask-v0: the env registered with RLlib, and PPO trained on 2 env runners
of a local Ray instance, leaving no Chromium behind."""

from __future__ import annotations

import functools
import signal
import time
from collections.abc import Iterator

import pytest
from processes import kill, listening_tcp, owner, still_running

ray = pytest.importorskip("ray")
pytest.importorskip("ray.rllib")

from webfactory_env.training.rllib import (  # noqa: E402
    ENV_NAME,
    RLlibConfig,
    build_algorithm,
    chromium_pids,
    env_creator,
    init_ray,
    iteration_row,
    register,
    runner_steps_per_s,
    stop_algorithm,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow]

# Two runners and the driver on 2 cores; a small object store is plenty for this env.
CONFIG = RLlibConfig(
    task="shop_open_cart",
    env_runners=2,
    envs_per_runner=2,
    iterations=2,
    train_batch_size=128,
    minibatch_size=64,
    num_epochs=2,
    num_cpus=3,
    object_store_mb=150,
    seed=0,
    verbose=False,
)


@pytest.fixture(scope="module")
def local_ray() -> Iterator[None]:
    init_ray(CONFIG)
    register()
    yield
    ray.shutdown()


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rpartition(")")[2].split()[0] != "Z"  # zombies have exited
    except OSError:
        return False


def test_env_creator_builds_the_env_on_train_levels() -> None:
    config = {**CONFIG.env_config(), "train_seeds": [0, 10], "seed": 3}
    env = env_creator(config)
    try:
        obs, info = env.reset()
        assert 0 <= env.unwrapped.level_seed < 10
        assert env.observation_space.contains(obs)
    finally:
        env.close()


def test_ppo_trains_on_two_env_runners_and_leaves_no_chromium(local_ray: None) -> None:
    from ray.tune.registry import ENV_CREATOR, _global_registry

    assert _global_registry.contains(ENV_CREATOR, ENV_NAME)
    algo = build_algorithm(CONFIG)
    try:
        assert algo.env_runner_group.num_remote_env_runners() == 2
        rows = [iteration_row(i + 1, algo.train()) for i in range(CONFIG.iterations)]
        # Every runner has its own Chromium, which its two envs share (a context each).
        per_runner = algo.env_runner_group.foreach_env_runner(chromium_pids, local_env_runner=False)
        assert len(per_runner) == 2 and all(per_runner), per_runner
        speed = algo.env_runner_group.foreach_env_runner(
            functools.partial(runner_steps_per_s, steps=12), local_env_runner=False
        )
        assert [(s["envs"], s["browsers"]) for s in speed] == [(2, 1), (2, 1)], speed
        assert all(s["steps_per_s"] > 0 for s in speed)
    finally:
        stop_algorithm(algo)
    assert [r["iteration"] for r in rows] == [1, 2]
    assert rows[-1]["timesteps"] >= CONFIG.iterations * CONFIG.train_batch_size
    assert rows[-1]["episodes"] > 0
    # Rewards are bounded: step penalties at worst, the success reward at best.
    assert -10.0 < rows[-1]["episode_return_mean"] < 10.0

    # Wait (bounded) for the closed browsers' processes to exit; none may survive.
    pids = [pid for group in per_runner for pid in group]
    for _ in range(100):
        if not any(_alive(pid) for pid in pids):
            break
        time.sleep(0.1)
    assert not [pid for pid in pids if _alive(pid)]


def test_ppo_trains_on_coordinate_actions_with_the_default_model(local_ray: None) -> None:
    from dataclasses import replace

    from webfactory_env.core.errors import ConfigError

    config = replace(
        CONFIG, action_mode="coordinates", policy="default", env_runners=1, envs_per_runner=1,
        iterations=1, train_batch_size=64, minibatch_size=32, num_epochs=1,
    )  # fmt: skip
    env = env_creator(config.env_config())
    try:  # points on the screenshot grid: verb, two points, a value slot, a key
        assert env.action_space.nvec.tolist()[0] == 9 and len(env.action_space.nvec) == 7
    finally:
        env.close()
    algo = build_algorithm(config)
    try:
        row = iteration_row(1, algo.train())
    finally:
        stop_algorithm(algo)
    assert row["timesteps"] >= config.train_batch_size and row["episodes"] > 0
    assert -10.0 < row["episode_return_mean"] < 10.0
    with pytest.raises(ConfigError, match="--policy default"):
        replace(CONFIG, action_mode="coordinates")


TRAINER = """
import functools, json, os, time
from webfactory_env.training.rllib import (
    RLlibConfig, build_algorithm, chromium_pids, init_ray, register, runner_steps_per_s,
)
config = RLlibConfig(task="shop_open_cart", env_runners=1, iterations=1, train_batch_size=64,
                     minibatch_size=32, num_epochs=1, num_cpus=2, object_store_mb=80,
                     verbose=False)
init_ray(config)
register()
algo = build_algorithm(config)
group = algo.env_runner_group
group.foreach_env_runner(functools.partial(runner_steps_per_s, steps=4), local_env_runner=False)
(pids,) = group.foreach_env_runner(chromium_pids, local_env_runner=False)
print(json.dumps({"chromium": pids}), flush=True)
time.sleep(600)  # killed by the test
"""


@pytest.mark.parametrize("how", [signal.SIGTERM, signal.SIGKILL], ids=["SIGTERM", "SIGKILL"])
def test_no_runner_browser_outlives_a_killed_trainer(how) -> None:
    """Issue 27: a training process killed however it dies takes its env runners' Chromium
    with it, and none of them listens on a TCP port meanwhile (DevTools over a pipe)."""
    with owner(TRAINER) as (trainer, report):
        browser = set(report["chromium"])
        assert browser and listening_tcp(browser) == []
        kill(trainer, how)
    assert still_running(browser, timeout=30) == set()
