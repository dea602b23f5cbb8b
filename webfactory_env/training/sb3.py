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
"""

from __future__ import annotations

import argparse
import csv
import json
import logging
import sys
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

import webfactory_env  # noqa: F401  (registers WebTask-v0)
from webfactory_env.agents import RandomAgent
from webfactory_env.core.errors import ConfigError, UnknownNameError
from webfactory_env.env import WebTaskEnv
from webfactory_env.tasks.levels import UncompilableLevelError
from webfactory_env.training.levels import EVAL_SEEDS, TRAIN_SEEDS, LevelSeeds, SeedRange

log = logging.getLogger(__name__)

ALGOS = ("ppo", "maskable-ppo")
POLICIES = ("mlp", "pointer")
VEC_ENVS = ("subproc", "dummy")
CURVE_COLUMNS = (
    "timesteps",
    "success_rate",
    "success_rate_sampled",
    "mean_return",
    "mean_steps",
    "episodes",
    "train_s",
    "wall_s",
)


@dataclass(frozen=True)
class TrainConfig:
    """One training run. The defaults are the README's few-minute CPU run."""

    algo: str = "maskable-ppo"
    # `mlp`: SB3's MultiInputPolicy; `pointer`: the goal-conditioned pointer policy
    # (webfactory_env.policies.sb3.PointerPolicy, MaskablePPO only).
    policy: str = "mlp"
    family: str = "shop"
    task: str = "shop_open_cart"
    # A multi-task mix: (family, task) pairs drawn per episode (overrides family/task).
    tasks: tuple[tuple[str, str], ...] = ()
    obs_mode: str = "tokens"
    action_mode: str = "multidiscrete"
    done_actions: str = "auto"
    # Behaviour cloning before PPO (pointer policy): oracle datasets to clone, or how many
    # oracle episodes on train seeds to record into `out/demos` first (0: none).
    demos: tuple[Path, ...] = ()
    demo_episodes: int = 0
    bc_updates: int = 600
    difficulty: str = "easy"
    variation: Mapping[str, str] | None = None
    timesteps: int = 6000
    envs: int = 2
    out: Path = Path("runs/sb3")
    seed: int = 0
    max_steps: int = 8
    max_elements: int = 128
    # Generous: on a busy machine a slow step should not cut an episode short.
    step_timeout_ms: int = 20_000
    train_seeds: SeedRange = TRAIN_SEEDS
    eval_seeds: SeedRange = EVAL_SEEDS
    eval_every: int = 1000
    vec_env: str = "subproc"
    # PPO's knobs, tuned for short episodes and few updates.
    n_steps: int = 64
    batch_size: int = 64
    n_epochs: int = 4
    learning_rate: float = 1e-3
    ent_coef: float = 0.01
    gamma: float = 0.95
    baselines: bool = True
    # Also measure the sampled (stochastic) policy at each point of the curve.
    eval_sampled: bool = True
    torch_threads: int | None = 1  # the browser needs the other core
    verbose: bool = True

    def __post_init__(self) -> None:
        if self.algo not in ALGOS:
            raise UnknownNameError("algorithm", self.algo, ALGOS)
        if self.policy not in POLICIES:
            raise UnknownNameError("policy", self.policy, POLICIES)
        if self.policy == "pointer" and self.algo != "maskable-ppo":
            raise ConfigError("the pointer policy trains with --algo maskable-ppo")
        if (self.demos or self.demo_episodes) and self.policy != "pointer":
            raise ConfigError("behaviour cloning (--demos, --demo-episodes) needs --policy pointer")
        if self.action_mode == "text" or self.obs_mode not in ("tokens", "tokens+pixels"):
            raise ConfigError(
                "SB3 training takes --obs-mode tokens or tokens+pixels and --action-mode "
                f"multidiscrete or discrete (got {self.obs_mode}, {self.action_mode})"
            )
        if self.vec_env not in VEC_ENVS:
            raise UnknownNameError("vector env", self.vec_env, VEC_ENVS)
        if self.timesteps < 0 or self.envs < 1 or self.eval_every < 1:
            raise ConfigError("timesteps must be >= 0; envs and eval_every at least 1")
        if self.timesteps == 0 and not (self.demos or self.demo_episodes):
            raise ConfigError("--timesteps 0 trains nothing; give demonstrations to clone")
        if self.train_seeds.overlaps(self.eval_seeds):
            raise ConfigError(
                f"the held-out seeds {self.eval_seeds} overlap the train seeds "
                f"{self.train_seeds}; choose disjoint ranges"
            )

    def env_kwargs(self) -> dict[str, Any]:
        """Keyword arguments of `gymnasium.make("WebTask-v0", ...)` for this run."""
        family, task = self.tasks[0] if self.tasks else (self.family, self.task)
        return {
            "family": family,
            "task": task,
            "difficulty": self.difficulty,
            "variation": dict(self.variation) if self.variation else None,
            "obs_mode": self.obs_mode,
            "action_mode": self.action_mode,
            "done_actions": self.done_actions,
            "max_steps": self.max_steps,
            "max_elements": self.max_elements,
            "step_timeout_ms": self.step_timeout_ms,
        }

    @property
    def task_list(self) -> tuple[tuple[str, str], ...]:
        """The (family, task) pairs trained on."""
        return self.tasks or ((self.family, self.task),)

    def eval_plan(self) -> list[tuple[int, dict[str, Any]]]:
        """Held-out episodes: (level seed, reset options); a mix deals its tasks round-robin."""
        tasks = self.task_list
        return [
            (seed, {"family": tasks[i % len(tasks)][0], "task": tasks[i % len(tasks)][1]})
            for i, seed in enumerate(self.eval_seeds.seeds)
        ]

    @property
    def rollout(self) -> int:
        """Timesteps per PPO update: SB3 trains in whole rollouts of this many steps."""
        return self.n_steps * self.envs

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        out.update(
            out=str(self.out),
            demos=[str(p) for p in self.demos],
            tasks=[list(t) for t in self.tasks],
            train_seeds=str(self.train_seeds),
            eval_seeds=str(self.eval_seeds),
            variation=dict(self.variation) if self.variation else None,
        )
        return out


@dataclass(frozen=True)
class Evaluation:
    """How an agent did on a list of held-out levels."""

    episodes: int
    success_rate: float
    mean_return: float
    mean_steps: float
    skipped: int = 0  # levels the task cannot be compiled on: not played, not counted

    def to_json(self) -> dict[str, float]:
        return asdict(self)


@dataclass
class TrainResult:
    config: TrainConfig
    model: Any
    curve: list[dict[str, float]]
    baselines: dict[str, Evaluation]
    final: Evaluation
    wall_s: float
    files: dict[str, Path] = field(default_factory=dict)

    @property
    def random_success(self) -> float:
        """The best random baseline's success rate (0 when baselines were skipped)."""
        return max((b.success_rate for b in self.baselines.values()), default=0.0)


# An actor maps (observation, env) to an action; the env is there for masks and agents.
Actor = Callable[[Any, WebTaskEnv], Any]


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
        "seed": config.seed,
        "device": "cpu",
        "verbose": 0,
    }
    if config.algo == "maskable-ppo":
        from sb3_contrib import MaskablePPO

        if config.policy == "pointer":
            from webfactory_env.policies.sb3 import PointerPolicy

            return MaskablePPO(PointerPolicy, venv, **kwargs)
        return MaskablePPO("MultiInputPolicy", venv, **kwargs)
    from stable_baselines3 import PPO

    return PPO("MultiInputPolicy", venv, **kwargs)


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


# ------------------------------------------------------------------------ evaluation
def evaluate(
    env: gym.Env[Any, Any],
    act: Actor,
    seeds: Iterable[int | tuple[int, Mapping[str, Any]]],
    options: Mapping[str, Any] | None = None,
) -> Evaluation:
    """Play one episode on each level seed (or (seed, reset options)) and count the
    successes."""
    unwrapped = env.unwrapped
    if not isinstance(unwrapped, WebTaskEnv):
        raise TypeError("evaluate() needs a WebTask-v0 environment")
    successes, returns, steps = [], [], []
    skipped = 0
    for entry in seeds:
        seed, extra = entry if isinstance(entry, tuple) else (entry, {})
        try:
            obs, info = env.reset(seed=int(seed), options={**dict(options or {}), **extra})
        except UncompilableLevelError as exc:  # one level cannot end a training run
            log.warning("held-out level skipped: %s cannot be compiled", exc.level)
            skipped += 1
            continue
        total, n, success = 0.0, 0, False
        while True:
            obs, reward, terminated, truncated, info = env.step(act(obs, unwrapped))
            total += float(reward)
            n += 1
            if terminated or truncated:
                success = bool(info["success"])
                break
        successes.append(success)
        returns.append(total)
        steps.append(n)
    if not successes:
        raise ConfigError(
            "evaluate() needs at least one seed whose level compiles"
            + (f" ({skipped} could not be compiled)" if skipped else "")
        )
    return Evaluation(
        episodes=len(successes),
        success_rate=float(np.mean(successes)),
        mean_return=float(np.mean(returns)),
        mean_steps=float(np.mean(steps)),
        skipped=skipped,
    )


def policy_actor(model: Any, deterministic: bool = True) -> Actor:
    """The trained policy as an actor (MaskablePPO gets the env's action masks)."""
    masked = type(model).__name__ == "MaskablePPO"

    def act(obs: Any, env: WebTaskEnv) -> Any:
        if masked:
            action, _ = model.predict(
                obs, deterministic=deterministic, action_masks=env.action_masks()
            )
        else:
            action, _ = model.predict(obs, deterministic=deterministic)
        return action

    return act


def random_actor(env: gym.Env[Any, Any], seed: int = 0) -> Actor:
    """What an untrained masked policy samples: uniformly among the allowed choices of
    each dimension of the masks (done included where the env offers it)."""
    agent = RandomAgent(env, seed=seed, allow_done=True)
    return lambda obs, _env: agent.act(obs)


def uniform_actor(space: gym.Space[Any], seed: int = 0) -> Actor:
    """Uniform samples of the whole action space (what an untrained PPO policy does)."""
    space = _copy_space(space)
    space.seed(seed)
    return lambda obs, _env: space.sample()


def _copy_space(space: gym.Space[Any]) -> gym.Space[Any]:
    import copy

    return copy.deepcopy(space)


def random_baselines(
    env: gym.Env[Any, Any], seeds: Sequence[Any], seed: int = 0
) -> dict[str, Evaluation]:
    """Both random baselines on the held-out seeds."""
    return {
        "random": evaluate(env, random_actor(env, seed), seeds),
        "uniform": evaluate(env, uniform_actor(env.action_space, seed), seeds),
    }


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
        demos.append(record_demos(config, out / "demos"))
    eval_env = gym.make("WebTask-v0", **config.env_kwargs())
    venv = None
    try:
        baselines: dict[str, Evaluation] = {}
        if config.baselines:
            baselines = random_baselines(eval_env, seeds, seed=config.seed)
            for name, ev in baselines.items():
                say(
                    f"{name:>8} agent: success {ev.success_rate:.2f} "
                    f"on {ev.episodes} held-out levels"
                )
        venv = make_vec_env(config)
        model = make_model(config, venv)
        bc_s = 0.0
        if demos:
            from webfactory_env.policies.bc import Demonstrations, clone

            t0 = time.perf_counter()
            data = Demonstrations.load(demos, gamma=config.gamma)
            stats = clone(model.policy, data, updates=config.bc_updates, seed=config.seed)
            bc_s = time.perf_counter() - t0
            say(
                f"behaviour cloning: {data.episodes} demonstrations, {len(data)} steps, "
                f"{stats.accuracy:.2f} of their actions picked ({bc_s:.0f} s)"
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

        if config.timesteps:
            model.learn(
                total_timesteps=config.timesteps,
                callback=_callback_class()(record, config.eval_every),
            )
        else:
            record(0)  # behaviour cloning alone: one point
        wall = time.perf_counter() - started + bc_s
        files = {"model": out / "model.zip", "curve": csv_path, "summary": out / "summary.json"}
        # The zip carries its env settings: `webfactory eval` makes the same env from them.
        model.webfactory_env = {
            "env_kwargs": config.env_kwargs(),
            "tasks": [list(t) for t in config.task_list],
        }
        model.save(files["model"])
        final = greedy_runs[-1]
        result = TrainResult(config, model, curve, baselines, final, wall, files)
        png = plot_curve(result, out / "learning_curve.png")
        if png is not None:
            files["plot"] = png
        files["summary"].write_text(json.dumps(summary(result), indent=2) + "\n")
        say(f"saved {', '.join(str(p) for p in files.values())}")
        return result
    finally:
        if venv is not None:
            venv.close()
        eval_env.close()


def write_curve(curve: Sequence[Mapping[str, float]], path: Path) -> None:
    with path.open("w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=CURVE_COLUMNS)
        writer.writeheader()
        writer.writerows(curve)


def read_curve(path: Path) -> list[dict[str, float]]:
    with Path(path).open(newline="") as fh:
        return [{k: float(v) for k, v in row.items()} for row in csv.DictReader(fh)]


def summary(result: TrainResult) -> dict[str, Any]:
    return {
        "config": result.config.to_json(),
        "baselines": {k: v.to_json() for k, v in result.baselines.items()},
        "final": result.final.to_json(),
        "timesteps": int(result.curve[-1]["timesteps"]),
        "wall_s": round(result.wall_s, 1),
        # JSON has no NaN: a figure that was not measured is null.
        "curve": [{k: None if v != v else v for k, v in row.items()} for row in result.curve],
    }


def plot_curve(result: TrainResult, path: Path) -> Path | None:
    """Success rate on held-out levels against timesteps, with the random baselines; None
    when matplotlib is not installed."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    c = result.config
    steps = [r["timesteps"] for r in result.curve]
    fig, (ax, ax_ret) = plt.subplots(1, 2, figsize=(10.0, 4.0), dpi=100)
    ax_ret.plot(steps, [r["mean_return"] for r in result.curve], "o-", label="policy (greedy)")
    ax_ret.set_xlabel("training timesteps")
    ax_ret.set_ylabel("mean return, held-out levels")
    ax_ret.grid(alpha=0.3)
    ax.plot(steps, [r["success_rate"] for r in result.curve], "o-", label="policy (greedy)")
    if result.config.eval_sampled:
        ax.plot(
            steps,
            [r["success_rate_sampled"] for r in result.curve],
            "s--",
            alpha=0.7,
            label="policy (sampled)",
        )
    styles = {
        "random": ("random agent (valid actions)", "tab:red"),
        "uniform": ("uniform actions", "gray"),
    }
    for name, ev in result.baselines.items():
        label, colour = styles.get(name, (name, "black"))
        ax.axhline(
            ev.success_rate, color=colour, linestyle=":", label=f"{label}: {ev.success_rate:.2f}"
        )
        ax_ret.axhline(ev.mean_return, color=colour, linestyle=":", label=label)
    ax_ret.legend(loc="lower right", fontsize=8)
    ax.set_xlabel("training timesteps")
    ax.set_ylabel(f"success rate, {len(c.eval_seeds.seeds)} held-out levels")
    ax.set_ylim(-0.03, 1.03)
    what = c.task if not c.tasks else f"a mix of {len(c.tasks)} tasks"
    ax.set_title(f"{c.algo} ({c.policy}) on {what} ({c.difficulty})")
    ax.grid(alpha=0.3)
    ax.legend(loc="center right", fontsize=8)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return path


# --------------------------------------------------------------------------------- CLI
def parse_args(argv: Sequence[str] | None = None) -> TrainConfig:
    d = TrainConfig()
    p = argparse.ArgumentParser(
        prog="python -m webfactory_env.training.sb3",
        description="Train PPO or MaskablePPO on WebTask-v0 and record a learning curve "
        "on held-out level seeds.",
    )
    p.add_argument("--algo", choices=ALGOS, default=d.algo)
    p.add_argument(
        "--policy",
        choices=POLICIES,
        default=d.policy,
        help="mlp: SB3's MultiInputPolicy; pointer: the goal-conditioned pointer policy",
    )
    p.add_argument("--obs-mode", default=d.obs_mode, choices=("tokens", "tokens+pixels"))
    p.add_argument(
        "--action-mode",
        default=d.action_mode,
        choices=("multidiscrete", "discrete"),
        help="discrete: one index per valid action (joint masks)",
    )
    p.add_argument("--done-actions", default=d.done_actions, choices=("auto", "always"))
    p.add_argument(
        "--tasks",
        default="",
        metavar="FAMILY/TASK,...",
        help="a multi-task mix, drawn per episode (instead of --family/--task)",
    )
    p.add_argument(
        "--demos", action="append", default=[], type=Path, help="oracle dataset to clone"
    )
    p.add_argument(
        "--demo-episodes",
        type=int,
        default=d.demo_episodes,
        help="record this many oracle episodes on train seeds and clone them first",
    )
    p.add_argument(
        "--bc-updates", type=int, default=d.bc_updates, help="behaviour cloning minibatch steps"
    )
    p.add_argument("--family", default=d.family)
    p.add_argument("--task", default=d.task)
    p.add_argument("--difficulty", default=d.difficulty)
    p.add_argument(
        "--variation",
        action="append",
        default=[],
        metavar="AXIS=VALUE",
        help="fix a variation axis (repeatable), e.g. --variation theme=dark",
    )
    p.add_argument("--timesteps", type=int, default=d.timesteps)
    p.add_argument("--envs", type=int, default=d.envs, help="parallel envs")
    p.add_argument("--vec-env", choices=VEC_ENVS, default=d.vec_env)
    p.add_argument("--out", type=Path, default=d.out)
    p.add_argument("--seed", type=int, default=d.seed)
    p.add_argument("--max-steps", type=int, default=d.max_steps)
    p.add_argument("--train-seeds", default=str(d.train_seeds), help="first-last or start:count")
    p.add_argument("--eval-seeds", default=str(d.eval_seeds), help="held-out level seeds")
    p.add_argument("--eval-every", type=int, default=d.eval_every)
    p.add_argument("--n-steps", type=int, default=d.n_steps, help="rollout length per env")
    p.add_argument("--batch-size", type=int, default=d.batch_size)
    p.add_argument("--n-epochs", type=int, default=d.n_epochs)
    p.add_argument("--learning-rate", type=float, default=d.learning_rate)
    p.add_argument("--ent-coef", type=float, default=d.ent_coef)
    p.add_argument("--no-baselines", action="store_true", help="skip the random baselines")
    p.add_argument("--quiet", action="store_true")
    a = p.parse_args(argv)
    tasks = []
    for item in filter(None, a.tasks.split(",")):
        family, sep, task = item.strip().partition("/")
        if not sep:
            p.error(f"--tasks takes FAMILY/TASK entries, got {item!r}")
        tasks.append((family, task))
    variation = {}
    for item in a.variation:
        axis, sep, value = item.partition("=")
        if not sep:
            p.error(f"--variation takes AXIS=VALUE, got {item!r}")
        variation[axis] = value
    return replace(
        d,
        algo=a.algo,
        policy=a.policy,
        obs_mode=a.obs_mode,
        action_mode=a.action_mode,
        done_actions=a.done_actions,
        tasks=tuple(tasks),
        demos=tuple(a.demos),
        demo_episodes=a.demo_episodes,
        bc_updates=a.bc_updates,
        family=a.family,
        task=a.task,
        difficulty=a.difficulty,
        variation=variation or None,
        timesteps=a.timesteps,
        envs=a.envs,
        vec_env=a.vec_env,
        out=a.out,
        seed=a.seed,
        max_steps=a.max_steps,
        train_seeds=SeedRange.parse(a.train_seeds),
        eval_seeds=SeedRange.parse(a.eval_seeds),
        eval_every=a.eval_every,
        n_steps=a.n_steps,
        batch_size=a.batch_size,
        n_epochs=a.n_epochs,
        learning_rate=a.learning_rate,
        ent_coef=a.ent_coef,
        baselines=not a.no_baselines,
        verbose=not a.quiet,
    )


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
