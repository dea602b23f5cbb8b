"""Ray RLlib on `WebTask-v0`: the env registered with RLlib, and PPO trained on env runners.

    python -m webfactory_env.training.rllib --family shop --task shop_open_cart \\
        --env-runners 2 --iterations 5

Needs the `rllib` extra (`pip install -e '.[rllib]'`). By default it starts a local Ray
instance in this process; `--address auto` joins a running cluster instead (see the README:
every node needs this package and Chromium, which `scripts/setup` installs). Each env runner
is a Ray actor with its own env, and so its own Chromium; the driver only learns.

The default policy is the goal-conditioned pointer network as an RLModule
(`webfactory_env.policies.rllib.PointerRLModule`) with action masks: the env runners add
the env's `action_masks()` to each observation (`MaskInObservation`) and the module masks
its logits, in `discrete` (joint masks) or `multidiscrete` action mode. `--policy default`
keeps RLlib's default model on flattened observations (no masks). The env is otherwise
registered unchanged, apart from the `LevelSeeds` wrapper that keeps every runner on the
train range of level seeds. Each iteration reports the success rate of the episodes it
finished (`success_rate`, a custom metric); checkpoints go to `--out`.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import gymnasium as gym

from webfactory_env.core.errors import ConfigError
from webfactory_env.training.levels import TRAIN_SEEDS, LevelSeeds, SeedRange

ENV_NAME = "webfactory-WebTask-v0"


def env_creator(env_config: Mapping[str, Any]) -> gym.Env[Any, Any]:
    """Build `WebTask-v0` from RLlib's `env_config`: the env's own keyword arguments plus
    `train_seeds` ([start, count]) and `seed`. Each runner and vector slot (RLlib's
    `worker_index`, `vector_index`) draws its own sequence of train levels."""
    import webfactory_env  # noqa: F401  (registers WebTask-v0 inside the Ray worker)

    kwargs = dict(env_config)
    start, count = kwargs.pop("train_seeds", (0, 10_000))
    seed = int(kwargs.pop("seed", 0))
    masks = bool(kwargs.pop("masks_in_obs", False))
    worker = int(getattr(env_config, "worker_index", 0))
    vector = int(getattr(env_config, "vector_index", 0))
    env: gym.Env[Any, Any] = LevelSeeds(
        gym.make("WebTask-v0", **kwargs),
        SeedRange(int(start), int(count)),
        seed=seed * 1_000_003 + worker * 1_000 + vector,
    )
    if masks:
        from webfactory_env.policies.rllib import MaskInObservation

        env = MaskInObservation(env)
    return env


def log_success(*, episode: Any, metrics_logger: Any = None, **_: Any) -> None:
    """RLlib callback: the success rate of the last 20 finished episodes."""
    infos = episode.get_infos()
    last = infos[-1] if infos else {}
    if metrics_logger is not None:
        metrics_logger.log_value(
            "success_rate", float(bool(last.get("success"))), reduce="mean", window=20
        )


def register() -> str:
    """Register the env with RLlib's env registry under `ENV_NAME`, and return the name."""
    from ray.tune.registry import register_env

    register_env(ENV_NAME, env_creator)
    return ENV_NAME


@dataclass(frozen=True)
class RLlibConfig:
    """One PPO run. The defaults fit a 2-core machine: two runners, small batches."""

    family: str = "shop"
    task: str = "shop_open_cart"
    difficulty: str = "easy"
    max_steps: int = 8
    # "pointer": the goal-conditioned PointerRLModule with action masks; "default":
    # RLlib's default model on flattened observations, without masks.
    policy: str = "pointer"
    action_mode: str = "discrete"
    out: str | None = None  # checkpoints: <out>/checkpoint (None: none saved)
    checkpoint_every: int = 0  # also every N iterations (0: only at the end)
    train_seeds: SeedRange = TRAIN_SEEDS
    env_runners: int = 2
    # Envs per runner, stepped in turn by the runner (RLlib's `num_envs_per_env_runner`):
    # all of a runner's envs are browser contexts of the one Chromium of its process.
    envs_per_runner: int = 1
    iterations: int = 3
    train_batch_size: int = 256
    minibatch_size: int = 64
    num_epochs: int = 4
    lr: float = 5e-4
    gamma: float = 0.95
    seed: int = 0
    # How long PPO waits for a runner's batch. RLlib's default (60 s) silently drops the
    # steps of a runner that is slower (a busy machine, a browser relaunched mid-batch), so
    # an iteration trains on fewer steps than asked; every browser call is bounded by the
    # env's own watchdog, so a runner cannot hang forever.
    sample_timeout_s: float = 600.0
    address: str | None = None  # None: a local Ray instance; "auto": the running cluster
    num_cpus: int | None = None  # local instance only; default max(cores, runners + 1)
    # Local instance only: PPO on this env moves little data through the object store.
    object_store_mb: int | None = 256
    verbose: bool = True
    # More `WebTask-v0` arguments for every env (`done_actions`, `obs_mode`, ...).
    env_kwargs: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.env_runners < 1 or self.iterations < 1 or self.envs_per_runner < 1:
            raise ConfigError("env_runners, envs_per_runner and iterations must be at least 1")
        if self.policy not in ("pointer", "default"):
            raise ConfigError(f"--policy is pointer or default, not {self.policy!r}")
        if self.action_mode not in ("discrete", "multidiscrete", "coordinates"):
            raise ConfigError(
                f"--action-mode is discrete, multidiscrete or coordinates, not {self.action_mode!r}"
            )
        if self.action_mode == "coordinates" and self.policy == "pointer":
            raise ConfigError(
                "the pointer policy picks elements; coordinate actions (points on the "
                "screenshot grid) train with --policy default"
            )

    def env_config(self) -> dict[str, Any]:
        return {
            "family": self.family,
            "task": self.task,
            "difficulty": self.difficulty,
            "obs_mode": "tokens",
            "action_mode": self.action_mode,
            "max_steps": self.max_steps,
            "step_timeout_ms": 20_000,  # a busy node should not cut episodes short
            "train_seeds": [self.train_seeds.start, self.train_seeds.count],
            "seed": self.seed,
            "masks_in_obs": self.policy == "pointer",
            **self.env_kwargs,
        }


def init_ray(config: RLlibConfig) -> None:
    """Start (or join, with `address`) Ray, unless this process already did.

    A local instance gets `num_cpus` logical CPUs, no dashboard and an object store of
    `object_store_mb` MiB (Ray's default when None).
    """
    import ray

    if ray.is_initialized():
        return
    if config.address is not None:
        ray.init(address=config.address, log_to_driver=config.verbose)
        return
    # Logical CPUs: the runners mostly wait on their browsers, so they may share cores.
    cpus = config.num_cpus or max(os.cpu_count() or 1, config.env_runners + 1)
    ray.init(
        num_cpus=cpus,
        include_dashboard=False,
        log_to_driver=config.verbose,
        object_store_memory=config.object_store_mb * 1024**2 if config.object_store_mb else None,
        # Ray workers inherit this; keep torch from oversubscribing the cores.
        runtime_env={"env_vars": {"OMP_NUM_THREADS": "1"}},
    )


def chromium_pids(_runner: Any = None) -> list[int]:
    """Chromium processes started by this process (its Playwright driver's browsers).

    Takes (and ignores) an env runner so that `foreach_env_runner` can call it remotely.
    """
    return sorted(_chromium_tree())


def browsers() -> list[int]:
    """This process's Chromium browsers: of `chromium_pids`, those whose parent is not
    one of them (a browser's zygotes, renderers and helpers are its descendants)."""
    tree = _chromium_tree()
    return sorted(pid for pid, parent in tree.items() if parent not in tree)


def _chromium_tree() -> dict[int, int]:
    """Chromium processes descended from this one, each with its parent's pid."""
    me = os.getpid()
    parents: dict[int, int] = {}
    names: dict[int, str] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat") as fh:
                stat = fh.read()
        except OSError:
            continue
        # "pid (comm) state ppid ...": comm may hold spaces, so split at the last ")".
        head, _, rest = stat.rpartition(")")
        pid = int(entry.name)
        names[pid] = head.partition("(")[2]
        parents[pid] = int(rest.split()[1])
    found = {}
    for pid, name in names.items():
        if "chrom" not in name.lower():
            continue
        node, seen = parents.get(pid, 0), 0
        while node > 1 and seen < 64:
            if node == me:
                found[pid] = parents[pid]
                break
            node, seen = parents.get(node, 0), seen + 1
    return found


def close_browser(runner: Any = None) -> None:
    """Close `runner`'s envs, then this process's shared Chromium (an env closes only its
    own browser context).

    Ray may end an env runner without running its exit handlers, which would leave its
    Chromium running; `stop_algorithm` calls this on every runner first.
    """
    from webfactory_env.executor.browser import shared_browser

    env = getattr(runner, "env", None)
    if env is not None:
        env.close()  # closing again in the runner's own stop() is a no-op
    shared_browser().close()


def runner_steps_per_s(runner: Any, steps: int = 200, seed: int = 0) -> dict[str, float]:
    """On an env runner (through `foreach_env_runner`): the masked random policy
    (`RandomAgent` with done verbs where the env offers them) on the runner's own envs,
    stepped in turn as the runner steps them, for `steps` steps in all. Steps per second
    with the resets included, and the runner's Chromium processes."""
    import time

    from webfactory_env.agents.random_agent import RandomAgent

    envs = list(runner.env.unwrapped.envs)  # the runner's sync vector env
    agents = [RandomAgent(env, seed=seed + i, allow_done=True) for i, env in enumerate(envs)]
    for i, env in enumerate(envs):
        env.reset(seed=seed + i)
    start, taken = time.perf_counter(), 0
    while taken < steps:
        for env, agent in zip(envs, agents, strict=True):
            _, _, terminated, truncated, _ = env.step(agent.act())
            taken += 1
            if terminated or truncated:
                env.reset()
    elapsed = time.perf_counter() - start
    return {"steps_per_s": taken / elapsed, "envs": len(envs), "browsers": len(browsers())}


def stop_algorithm(algo: Any) -> None:
    """Close every env runner's browser, then stop the algorithm (closing the envs)."""
    try:
        group = algo.env_runner_group
        if group is not None:
            group.foreach_env_runner(close_browser, local_env_runner=False)
    finally:
        algo.stop()


def build_algorithm(config: RLlibConfig) -> Any:
    """A PPO `Algorithm` on `config.env_runners` remote env runners."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.connectors.env_to_module import FlattenObservations

    def flatten(env: Any = None, spaces: Any = None, device: Any = None) -> Any:
        return FlattenObservations()

    runners: dict[str, Any] = {}
    if config.policy == "default":
        runners["env_to_module_connector"] = flatten
    ppo = (
        PPOConfig()
        .environment(ENV_NAME, env_config=config.env_config())
        .framework("torch")
        .env_runners(
            num_env_runners=config.env_runners,
            num_envs_per_env_runner=config.envs_per_runner,
            num_cpus_per_env_runner=1,
            sample_timeout_s=config.sample_timeout_s,
            **runners,
        )
        .callbacks(on_episode_end=log_success)
        .learners(num_learners=0)
        .training(
            train_batch_size_per_learner=config.train_batch_size,
            minibatch_size=config.minibatch_size,
            num_epochs=config.num_epochs,
            lr=config.lr,
            gamma=config.gamma,
        )
        .debugging(seed=config.seed)
        .reporting(metrics_num_episodes_for_smoothing=20)
    )
    if config.policy == "pointer":
        from ray.rllib.core.rl_module.rl_module import RLModuleSpec

        from webfactory_env.policies.rllib import PointerRLModule

        ppo = ppo.rl_module(
            rl_module_spec=RLModuleSpec(module_class=PointerRLModule, model_config={"dim": 64})
        )
    return ppo.build_algo()


def _metric(result: Mapping[str, Any], *path: str) -> Any:
    node: Any = result
    for key in path:
        if not isinstance(node, Mapping) or key not in node:
            return None
        node = node[key]
    return node


def iteration_row(iteration: int, result: Mapping[str, Any]) -> dict[str, Any]:
    """The figures of one `algo.train()` result that `train` reports."""
    ret = _metric(result, "env_runners", "episode_return_mean")
    success = _metric(result, "env_runners", "success_rate")
    return {
        "success_rate": None if success is None else float(success),
        "iteration": iteration,
        "timesteps": _metric(result, "num_env_steps_sampled_lifetime")
        or _metric(result, "env_runners", "num_env_steps_sampled_lifetime"),
        "episodes": _metric(result, "env_runners", "num_episodes_lifetime"),
        "episode_return_mean": None if ret is None else float(ret),
        "episode_len_mean": _metric(result, "env_runners", "episode_len_mean"),
    }


def train(config: RLlibConfig) -> list[dict[str, Any]]:
    """Run `config.iterations` PPO iterations; one row of figures per iteration."""
    init_ray(config)
    register()
    algo = build_algorithm(config)
    rows: list[dict[str, Any]] = []
    try:
        for i in range(config.iterations):
            row = iteration_row(i + 1, algo.train())
            rows.append(row)
            last = i + 1 == config.iterations
            if config.out and (
                last or (config.checkpoint_every and (i + 1) % config.checkpoint_every == 0)
            ):
                row["checkpoint"] = str(
                    algo.save_to_path(os.path.abspath(os.path.join(config.out, "checkpoint")))
                )
            if config.verbose:
                ret, rate = row["episode_return_mean"], row["success_rate"]
                shown = "n/a" if ret is None else f"{ret:.3f}"
                success = "n/a" if rate is None else f"{rate:.2f}"
                print(
                    f"iteration {row['iteration']}: success rate {success}, episode return "
                    f"mean {shown} ({row['timesteps']} env steps, {row['episodes']} episodes)",
                    flush=True,
                )
                if "checkpoint" in row:
                    print(f"saved checkpoint {row['checkpoint']}", flush=True)
    finally:
        stop_algorithm(algo)
    return rows


def parse_args(argv: Sequence[str] | None = None) -> RLlibConfig:
    d = RLlibConfig()
    p = argparse.ArgumentParser(
        prog="python -m webfactory_env.training.rllib",
        description="Train RLlib's PPO on WebTask-v0 with remote env runners.",
    )
    p.add_argument("--family", default=d.family)
    p.add_argument("--task", default=d.task)
    p.add_argument("--difficulty", default=d.difficulty)
    p.add_argument("--max-steps", type=int, default=d.max_steps)
    p.add_argument("--policy", choices=("pointer", "default"), default=d.policy)
    p.add_argument(
        "--action-mode",
        choices=("discrete", "multidiscrete", "coordinates"),
        default=d.action_mode,
        help="coordinates: points on the screenshot grid, real mouse and keys (--policy default)",
    )
    p.add_argument("--out", default=d.out, help="directory for checkpoints")
    p.add_argument("--checkpoint-every", type=int, default=d.checkpoint_every)
    p.add_argument("--train-seeds", default=str(d.train_seeds), help="first-last or start:count")
    p.add_argument("--env-runners", type=int, default=d.env_runners)
    p.add_argument(
        "--envs-per-runner",
        type=int,
        default=d.envs_per_runner,
        help="envs per runner, sharing the runner's Chromium",
    )
    p.add_argument("--iterations", type=int, default=d.iterations)
    p.add_argument("--train-batch-size", type=int, default=d.train_batch_size)
    p.add_argument("--minibatch-size", type=int, default=d.minibatch_size)
    p.add_argument("--num-epochs", type=int, default=d.num_epochs)
    p.add_argument("--lr", type=float, default=d.lr)
    p.add_argument("--seed", type=int, default=d.seed)
    p.add_argument(
        "--address", default=None, help='join a running Ray cluster ("auto"); default: local'
    )
    p.add_argument("--num-cpus", type=int, default=None, help="local Ray instance's CPUs")
    p.add_argument(
        "--object-store-mb",
        type=int,
        default=d.object_store_mb,
        help="local Ray instance's object store (MiB)",
    )
    p.add_argument("--quiet", action="store_true")
    a = p.parse_args(argv)
    return replace(
        d,
        family=a.family,
        task=a.task,
        difficulty=a.difficulty,
        max_steps=a.max_steps,
        policy=a.policy,
        action_mode=a.action_mode,
        out=a.out,
        checkpoint_every=a.checkpoint_every,
        train_seeds=SeedRange.parse(a.train_seeds),
        env_runners=a.env_runners,
        envs_per_runner=a.envs_per_runner,
        iterations=a.iterations,
        train_batch_size=a.train_batch_size,
        minibatch_size=a.minibatch_size,
        num_epochs=a.num_epochs,
        lr=a.lr,
        seed=a.seed,
        address=a.address,
        num_cpus=a.num_cpus,
        object_store_mb=a.object_store_mb,
        verbose=not a.quiet,
    )


def main(argv: Sequence[str] | None = None) -> int:
    try:
        import ray  # noqa: F401
    except ImportError:
        print(
            "error: Ray RLlib is not installed; install the extra: pip install -e '.[rllib]'",
            file=sys.stderr,
        )
        return 2
    try:
        config = parse_args(argv)
        rows = train(config)
    except ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    last, rate = rows[-1]["episode_return_mean"], rows[-1]["success_rate"]
    print(
        f"final success rate {'n/a' if rate is None else f'{rate:.2f}'}, episode return mean "
        f"{'n/a' if last is None else f'{last:.3f}'}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
