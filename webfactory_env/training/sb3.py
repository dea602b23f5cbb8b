"""Stable-Baselines3 on `WebTask-v0`: PPO and MaskablePPO, with a learning curve on held-out seeds.

    python -m webfactory_env.training.sb3 --algo maskable-ppo --family shop \\
        --task shop_open_cart --timesteps 6000 --envs 2 --out runs/sb3

Training draws level seeds from a train range (default 0-9999); the learning curve is the
success rate on a disjoint range of held-out level seeds (default 100000-100029), measured
every `--eval-every` timesteps, with the greedy policy and with the sampled one. Before
training, the same held-out seeds are played by two random baselines: the package's random
agent (uniform over valid actions, never `done`) and uniform samples of the action space.

The env goes to SB3 as it is: `MultiInputPolicy` reads the observation dict, MaskablePPO
calls `action_masks()`. The only wrapper, `LevelSeeds`, picks level seeds for resets.

Writes to `--out`: `model.zip`, `learning_curve.csv`, `summary.json` and, when matplotlib
is installed, `learning_curve.png`.

The run's settings are `sb3_config.TrainConfig`; held-out evaluation and the random
baselines are in `heldout`, the learning curve's file and plot in `curve`.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import gymnasium as gym

import webfactory_env  # noqa: F401  (registers WebTask-v0)
from webfactory_env.core.errors import ConfigError
from webfactory_env.training.curve import CURVE_COLUMNS, plot_curve, read_curve, write_curve
from webfactory_env.training.heldout import (
    Actor,
    Evaluation,
    evaluate,
    policy_actor,
    random_actor,
    random_baselines,
    uniform_actor,
)
from webfactory_env.training.levels import LevelSeeds
from webfactory_env.training.sb3_config import ALGOS, POLICIES, VEC_ENVS, TrainConfig, parse_args

__all__ = [
    "ALGOS",
    "CURVE_COLUMNS",
    "POLICIES",
    "VEC_ENVS",
    "Actor",
    "Evaluation",
    "TrainConfig",
    "TrainResult",
    "config_warnings",
    "evaluate",
    "main",
    "make_env",
    "make_model",
    "make_vec_env",
    "parse_args",
    "plot_curve",
    "policy_actor",
    "random_actor",
    "random_baselines",
    "read_curve",
    "record_demos",
    "summary",
    "train",
    "uniform_actor",
    "write_curve",
]


@dataclass
class TrainResult:
    config: TrainConfig
    model: Any
    curve: list[dict[str, float]]
    baselines: dict[str, Evaluation]
    final: Evaluation
    wall_s: float  # the whole run: demonstrations, baselines, cloning, PPO, evaluations
    files: dict[str, Path] = field(default_factory=dict)
    # Where the wall time went, in seconds: `demos` (recording), `baselines`, `cloning`,
    # `ppo` (training) and `evaluation` (the learning curve's points).
    timing: dict[str, float] = field(default_factory=dict)
    # One row per PPO update: what its rollout saw and what it did (`ppo_log`).
    ppo_updates: list[dict[str, float]] = field(default_factory=list)

    @property
    def random_success(self) -> float:
        """The best random baseline's success rate (0 when baselines were skipped)."""
        return max((b.success_rate for b in self.baselines.values()), default=0.0)


# ------------------------------------------------------------------------------ envs
def make_env(config: TrainConfig, rank: int = 0) -> Callable[[], gym.Env[Any, Any]]:
    """A picklable factory for worker `rank`: `WebTask-v0` on train levels, monitored."""
    kwargs = config.env_kwargs()
    seeds = config.train_seeds
    level_seed = config.seed * 1_000 + rank
    tasks = config.tasks

    def factory() -> gym.Env[Any, Any]:
        from stable_baselines3.common.monitor import Monitor

        # "module:id" imports webfactory_env in workers started fresh (forkserver/spawn).
        env = gym.make("webfactory_env:WebTask-v0", **kwargs)
        return Monitor(LevelSeeds(env, seeds, seed=level_seed, tasks=tasks))

    return factory


def make_vec_env(config: TrainConfig) -> Any:
    """`SubprocVecEnv` (one process, and one Chromium, per env) or `DummyVecEnv`."""
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    factories = [make_env(config, rank) for rank in range(config.envs)]
    if config.vec_env == "subproc" and config.envs > 1:
        return SubprocVecEnv(factories)
    return DummyVecEnv(factories)


def make_model(config: TrainConfig, venv: Any) -> Any:
    """A PPO or MaskablePPO learner on `venv`: `MultiInputPolicy`, or the pointer policy."""
    kwargs: dict[str, Any] = {
        "n_steps": config.n_steps,
        "batch_size": config.batch_size,
        "n_epochs": config.n_epochs,
        "learning_rate": config.learning_rate,
        "ent_coef": config.ent_coef,
        "gamma": config.gamma,
        "target_kl": config.target_kl,
        "normalize_advantage": config.normalize_advantage,
        "seed": config.seed,
        "device": "cpu",
        "verbose": 0,
    }
    if config.algo == "maskable-ppo":
        from sb3_contrib import MaskablePPO

        if config.policy == "pointer":
            from webfactory_env.policies.sb3 import PointerPolicy

            extractor = {"task_embedding": config.task_embedding}
            policy_kwargs = {"features_extractor_kwargs": extractor}
            return quiet(MaskablePPO(PointerPolicy, venv, policy_kwargs=policy_kwargs, **kwargs))
        return quiet(MaskablePPO("MultiInputPolicy", venv, **kwargs))
    from stable_baselines3 import PPO

    return quiet(PPO("MultiInputPolicy", venv, **kwargs))


def quiet(model: Any) -> Any:
    """`model` with a logger that keeps each update's figures (`ppo_log` reads them) and
    writes them nowhere: without a logger of its own, SB3 makes an empty directory in the
    temp dir for every model it trains (hundreds in a day of benchmarks)."""
    from stable_baselines3.common.logger import Logger

    model.set_logger(Logger(folder=None, output_formats=[]))
    return model


def start_from(model: Any, path: Path | str) -> None:
    """Load the parameters of the model saved at `path` (a `model.zip`) into `model`; a
    model of another shape (with a task embedding where this one has none, say) is a
    `ConfigError` that says which parameters differ."""
    try:
        model.set_parameters(str(path), exact_match=True, device="cpu")
    except RuntimeError as exc:
        from webfactory_env.policies.sb3 import layers_of_another_version

        first = " ".join(str(exc).strip().splitlines()[:3])
        hint = " (a generalist has no task embedding: --no-task-embedding)"
        raise layers_of_another_version(path, first, hint) from None


def config_warnings(config: TrainConfig) -> list[str]:
    """What the user should know before a run: a step budget below the oracle's plan
    length, and timesteps rounded up to whole rollouts."""
    from webfactory_env.sitegen import generate_site
    from webfactory_env.tasks import compile_for_site

    out = []
    for family, task in config.task_list:
        seed = config.train_seeds.start
        plan = compile_for_site(task, generate_site(family, seed, config.difficulty)).plan
        if config.max_steps < len(plan):
            out.append(
                f"--max-steps {config.max_steps} is below {task}'s oracle plan length "
                f"({len(plan)} steps on level {seed}): episodes end before it can succeed"
            )
    rollout = config.rollout
    if config.timesteps % rollout:
        rounded = -(-config.timesteps // rollout) * rollout
        out.append(
            f"--timesteps {config.timesteps} is rounded up to {rounded}: PPO trains in whole "
            f"rollouts of --n-steps x --envs = {rollout} steps"
        )
    return out


def record_demos(config: TrainConfig, out: Path) -> Path:
    """Record `demo_episodes` oracle episodes on train seeds (a `webfactory dataset`
    directory), in a subprocess so that its browser is its own; reuse a finished one."""
    import subprocess

    from webfactory_env.replay.dataset import read_index

    if (out / "index.jsonl").is_file() and len(read_index(out)) >= config.demo_episodes:
        return out
    code = (
        "import sys, json; from pathlib import Path; "
        "from webfactory_env.replay import write_dataset; "
        "from webfactory_env.suites import Suite; a = json.loads(sys.argv[1]); "
        "fams, tasks = zip(*a['tasks']); "
        "s = Suite(name='demos', description='oracle demonstrations on train seeds', "
        "family=fams[0] if len(set(fams)) == 1 else 'mixed', tasks=tasks, "
        "families=fams if len(set(fams)) > 1 else (), seed_start=a['start'], "
        "seed_count=a['count'], difficulty=a['difficulty'], split='train'); "
        "write_dataset(s, 'oracle', a['episodes'], Path(a['out']), obs_mode=a['obs_mode'], "
        "max_steps=a['max_steps'])"
    )
    args = {
        "tasks": [list(t) for t in config.task_list],
        "start": config.train_seeds.start,
        "count": config.train_seeds.count,
        "difficulty": config.difficulty,
        "episodes": config.demo_episodes,
        "out": str(out),
        "obs_mode": "tokens",
        "max_steps": max(config.max_steps, 32),
    }
    if out.exists():
        import shutil

        shutil.rmtree(out)
    subprocess.run([sys.executable, "-c", code, json.dumps(args)], check=True)
    return out


# ---------------------------------------------------------------------------- training
def _callback_class() -> type:
    from stable_baselines3.common.callbacks import BaseCallback

    class LearningCurve(BaseCallback):
        """Evaluates on the held-out seeds at the start, every `every` timesteps, and at
        the end; `record(timesteps)` does the measuring and writing."""

        def __init__(self, record: Callable[[int], None], every: int) -> None:
            super().__init__(verbose=0)
            self._record = record
            self._every = every
            self._next = every
            self._last = -1

        def _measure(self) -> None:
            if self.num_timesteps != self._last:
                self._last = self.num_timesteps
                self._record(self.num_timesteps)

        def _on_training_start(self) -> None:
            self._measure()

        def _on_step(self) -> bool:
            if self.num_timesteps >= self._next:
                while self._next <= self.num_timesteps:
                    self._next += self._every
                self._measure()
            return True

        def _on_training_end(self) -> None:
            self._measure()

    return LearningCurve


def train(config: TrainConfig) -> TrainResult:
    """Train, record the learning curve, save the model and the curve; see the module doc."""
    import torch

    run_started = time.perf_counter()
    timing = dict.fromkeys(("demos", "baselines", "cloning", "ppo", "evaluation"), 0.0)
    if config.torch_threads:
        torch.set_num_threads(config.torch_threads)
    out = Path(config.out)
    out.mkdir(parents=True, exist_ok=True)
    say = print if config.verbose else (lambda *a, **k: None)
    for line in config_warnings(config):
        print(f"warning: {line}", file=sys.stderr)
    seeds: list[Any] = list(config.eval_plan())
    demos = list(config.demos)
    if config.demo_episodes:
        t0 = time.perf_counter()
        demos.append(record_demos(config, out / "demos"))
        timing["demos"] = time.perf_counter() - t0
    eval_env = gym.make("WebTask-v0", **config.env_kwargs())
    venv = None
    try:
        baselines: dict[str, Evaluation] = {}
        if config.baselines:
            t0 = time.perf_counter()
            baselines = random_baselines(eval_env, seeds, seed=config.seed)
            timing["baselines"] = time.perf_counter() - t0
            for name, ev in baselines.items():
                say(
                    f"{name:>8} agent: success {ev.success_rate:.2f} "
                    f"on {ev.episodes} held-out levels"
                )
        venv = make_vec_env(config)
        model = make_model(config, venv)
        if config.init_from is not None:
            start_from(model, config.init_from)
            say(f"started from {config.init_from}")
        data = None
        if demos:
            from webfactory_env.policies.bc import Demonstrations, clone

            t0 = time.perf_counter()
            data = Demonstrations.load(demos, gamma=config.gamma)
        if data is not None and config.bc_updates:
            stats = clone(model.policy, data, updates=config.bc_updates, seed=config.seed)
            timing["cloning"] = time.perf_counter() - t0
            say(
                f"behaviour cloning: {data.episodes} demonstrations, {len(data)} steps, "
                f"{stats.accuracy:.2f} of their actions picked ({timing['cloning']:.0f} s)"
            )
        curve: list[dict[str, float]] = []
        greedy_runs: list[Evaluation] = []  # the curve's points as evaluations
        csv_path = out / "learning_curve.csv"
        started = time.perf_counter()
        eval_time = 0.0

        def record(timesteps: int) -> None:
            nonlocal eval_time
            t0 = time.perf_counter()
            greedy = evaluate(eval_env, policy_actor(model, deterministic=True), seeds)
            greedy_runs.append(greedy)
            sampled_rate = float("nan")  # not measured
            if config.eval_sampled:
                sampled = evaluate(eval_env, policy_actor(model, deterministic=False), seeds)
                sampled_rate = sampled.success_rate
            eval_time += time.perf_counter() - t0
            wall = time.perf_counter() - started
            curve.append(
                {
                    "timesteps": timesteps,
                    "success_rate": greedy.success_rate,
                    "success_rate_sampled": sampled_rate,
                    "mean_return": greedy.mean_return,
                    "mean_steps": greedy.mean_steps,
                    "episodes": greedy.episodes,
                    "train_s": round(wall - eval_time, 1),
                    "wall_s": round(wall, 1),
                }
            )
            write_curve(curve, csv_path)
            also = f", {sampled_rate:.2f} sampled" if config.eval_sampled else ""
            rate = f"{greedy.success_rate:.2f} greedy{also}"
            say(f"{timesteps:>7} steps  success {rate}  ({wall:.0f} s)")

        ppo_updates: list[dict[str, float]] = []
        if config.timesteps:
            from stable_baselines3.common.callbacks import CallbackList

            from webfactory_env.training.finetune import demo_anchor_callback, value_warmup_callback
            from webfactory_env.training.ppo_log import describe, ppo_log_callback

            callbacks = [_callback_class()(record, config.eval_every)]
            callbacks.append(ppo_log_callback(ppo_updates, say if config.verbose else None))
            if config.value_warmup:
                callbacks.append(value_warmup_callback(config.value_warmup))
            if config.demo_anchor and data is not None:
                anchor = demo_anchor_callback(
                    data,
                    config.demo_anchor,
                    after=config.value_warmup,
                    learning_rate=config.learning_rate,
                    seed=config.seed,
                )
                callbacks.append(anchor)
            model.learn(total_timesteps=config.timesteps, callback=CallbackList(callbacks))
            say(describe(ppo_updates))
        else:
            record(0)  # behaviour cloning alone: one point
        timing["evaluation"] = eval_time
        timing["ppo"] = time.perf_counter() - started - eval_time
        files = {"model": out / "model.zip", "curve": csv_path, "summary": out / "summary.json"}
        # The zip carries its env settings: `webfactory eval` makes the same env from them.
        model.webfactory_env = {
            "env_kwargs": config.env_kwargs(),
            "tasks": [list(t) for t in config.task_list],
        }
        model.save(files["model"])
        final = greedy_runs[-1]
        result = TrainResult(
            config, model, curve, baselines, final, 0.0, files, timing, ppo_updates
        )
        png = plot_curve(result, out / "learning_curve.png")
        if png is not None:
            files["plot"] = png
        result.wall_s = time.perf_counter() - run_started
        say("time: " + ", ".join(f"{k} {v:.0f} s" for k, v in timing.items() if v))
        files["summary"].write_text(json.dumps(summary(result), indent=2) + "\n")
        say(f"saved {', '.join(str(p) for p in files.values())}")
        return result
    finally:
        if venv is not None:
            venv.close()
        eval_env.close()


def summary(result: TrainResult) -> dict[str, Any]:
    return {
        "config": result.config.to_json(),
        "baselines": {k: v.to_json() for k, v in result.baselines.items()},
        "final": result.final.to_json(),
        "timesteps": int(result.curve[-1]["timesteps"]),
        "wall_s": round(result.wall_s, 1),
        "timing_s": {k: round(v, 1) for k, v in result.timing.items()},
        # JSON has no NaN: a figure that was not measured is null.
        "curve": [_json_row(row) for row in result.curve],
        "ppo_updates": [_json_row(row) for row in result.ppo_updates],
    }


def _json_row(row: dict[str, float]) -> dict[str, float | None]:
    return {k: None if v != v else v for k, v in row.items()}


def main(argv: Sequence[str] | None = None) -> int:
    try:
        config = parse_args(argv)
        result = train(config)
    except ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    best = result.random_success
    print(
        f"held-out success: {result.final.success_rate:.2f} after "
        f"{int(result.curve[-1]['timesteps'])} timesteps in {result.wall_s:.0f} s "
        f"(best random baseline {best:.2f})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
