"""One policy for every task: a pointer policy cloned from oracle demonstrations of all the
library's tasks but five, then PPO on the mix; held-out success per family and zero-shot on
the five it never saw.

    nice -n 10 .venv/bin/python benchmarks/generalist.py [--out runs/generalist]

The five held-back tasks (`ZERO_SHOT`) are one per family, each of a kind the mix has
others of (a question whose answer is a row's cell, a page to open, a status to report):
what a policy that reads the goal rather than memorising tasks should carry over. The
policy has no vector per task id (`task_embedding=False`), so an unseen task is only its
goal's words and the page. Two columns on the same held-out levels (`--levels` per family
from 100000, dealt round-robin over the family's trained tasks; training draws from
0-9999): **clone** (the demonstrations alone) and **BC + PPO** (that clone, then the
learning benchmark's fine-tuning settings on the mix), beside **random** (an untrained
masked policy). Every figure has its 95 % Wilson interval. Results: `<out>/results.json`
(per task, per family, zero-shot, with the machine's load) and a Markdown table on stdout;
`--report` only prints the table again. A smoke run: `--demos-per-task 1 --bc-updates 5
--timesteps 0 --levels 5 --zero-shot-levels 1 --out /tmp/generalist`.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import gymnasium as gym

sys.path.insert(0, str(Path(__file__).resolve().parent))
from learning import HELD_OUT_START, load_avg, wilson

from webfactory_env.sitegen import generate_site
from webfactory_env.tasks import compile_for_site
from webfactory_env.tasks.library import library
from webfactory_env.training.finetune import fine_tuning
from webfactory_env.training.heldout import (
    Actor,
    evaluate,
    policy_actor,
    random_actor,
)
from webfactory_env.training.levels import SeedRange
from webfactory_env.training.sb3 import TrainConfig, record_demos, train

FAMILIES = ("shop", "travel", "kanban", "forum", "account")
ZERO_SHOT = {
    "shop": "shop_sold_out",
    "travel": "fully_booked_hotel",
    "kanban": "kanban_open_my_task",
    "forum": "forum_newest_in_category",
    "account": "account_username_taken",
}
COLUMNS = ("clone", "bc_ppo")
HEADERS = {"clone": "clone-only", "bc_ppo": "BC + PPO", "random": "random (masked)"}


def mix() -> list[tuple[str, str]]:
    """(family, task) of every library task but the zero-shot ones, in a fixed order."""
    held_back = set(ZERO_SHOT.values())
    return sorted(
        (entry.family, name) for name, entry in library().items() if name not in held_back
    )


def longest_plan(tasks: list[tuple[str, str]], seeds: range) -> int:
    """The oracle's longest plan over `tasks` on the levels `seeds`."""
    return max(
        len(compile_for_site(task, generate_site(family, seed)).plan)
        for family, task in tasks
        for seed in seeds
    )


def configs(out: Path, a: argparse.Namespace, max_steps: int) -> dict[str, TrainConfig]:
    """Both columns' runs: the clone of the demonstrations (`<out>/demos`), and PPO from
    that clone's saved model (the demonstrations still anchor it)."""
    tasks = tuple(mix())
    cloned = TrainConfig(
        algo="maskable-ppo",
        policy="pointer",
        action_mode="discrete",
        tasks=tasks,
        task_embedding=False,
        seed=a.seed,
        demos=(out / "demos",),
        bc_updates=a.bc_updates,
        timesteps=0,
        max_steps=max_steps,
        envs=2,
        n_steps=128,
        batch_size=64,
        # The training curve's own points: one held-out level per task, before and after.
        eval_seeds=SeedRange(HELD_OUT_START, len(tasks)),
        eval_every=max(a.timesteps, 1),
        eval_sampled=False,
        baselines=False,
        verbose=True,
        out=out / "clone",
    )
    return {
        "clone": cloned,
        "bc_ppo": replace(
            fine_tuning(cloned),  # the learning benchmark's BC + PPO settings
            timesteps=a.timesteps,
            target_kl=a.target_kl,
            bc_updates=0,  # `run` starts it from the clone's model
            out=out / "bc_ppo",
        ),
    }


def _row(wins: int, episodes: int, **more: Any) -> dict[str, Any]:
    lo, hi = wilson(wins, episodes)
    rate = wins / episodes if episodes else 0.0
    return {
        "success": round(rate, 4),
        "episodes": episodes,
        "ci95": [round(lo, 3), round(hi, 3)],
        **more,
    }


def measure(
    env: gym.Env[Any, Any], act: Actor, family: str, tasks: list[str], levels: int
) -> dict[str, Any]:
    """Held-out success of `act` on `levels` levels of `family`, dealt round-robin over
    `tasks`: per task and for the family."""
    per_task, wins, episodes = {}, 0, 0
    for j, task in enumerate(tasks):
        seeds = [HELD_OUT_START + i for i in range(levels) if i % len(tasks) == j]
        if not seeds:
            continue
        result = evaluate(env, act, seeds, options={"family": family, "task": task})
        won = round(result.success_rate * result.episodes)
        per_task[task] = _row(won, result.episodes, skipped=result.skipped)
        wins, episodes = wins + won, episodes + result.episodes
    return {**_row(wins, episodes), "tasks": per_task}


def score(config: TrainConfig, model: Any, a: argparse.Namespace) -> dict[str, Any]:
    """The policy `model` (and the random baseline) per family and zero-shot."""
    env = gym.make("WebTask-v0", **config.env_kwargs())
    by_family: dict[str, list[str]] = {f: [] for f in FAMILIES}
    for family, task in config.task_list:
        by_family[family].append(task)
    out: dict[str, Any] = {"families": {}, "zero_shot": {}, "load_before": load_avg()}
    actors = {"policy": policy_actor(model), "random": random_actor(env, seed=0)}
    try:
        for who, act in actors.items():
            for family in FAMILIES:
                row = measure(env, act, family, by_family[family], a.levels)
                out["families"].setdefault(family, {})[who] = row
            for family, task in ZERO_SHOT.items():
                row = measure(env, act, family, [task], a.zero_shot_levels)
                out["zero_shot"].setdefault(task, {})[who] = row
    finally:
        env.close()
    rates = [out["families"][f]["policy"]["success"] for f in FAMILIES]
    out["family_mean"] = round(sum(rates) / len(rates), 4)
    out["load_after"] = load_avg()
    return out


def run(out: Path, a: argparse.Namespace) -> None:
    max_steps = a.max_steps or longest_plan(mix(), range(5)) + 4
    runs = configs(out, a, max_steps)
    episodes = a.demos_per_task * len(runs["clone"].task_list)
    recorder = replace(runs["clone"], demos=(), demo_episodes=episodes)
    t0 = time.perf_counter()
    record_demos(recorder, out / "demos")  # once, and kept: both columns clone them
    demos_s = round(time.perf_counter() - t0, 1)
    for column, config in runs.items():
        if column not in a.columns:
            continue
        if column == "bc_ppo":
            if not (out / "clone.json").is_file():
                raise SystemExit("BC + PPO fine-tunes the clone: run the clone column first")
            config = replace(config, init_from=out / "clone" / "model.zip")
        done = out / f"{column}.json"
        if done.is_file():
            print(f"{column}: done before, kept")
            continue
        before = load_avg()
        result = train(config)
        row = {
            "wall_s": round(result.wall_s, 1),
            "timing_s": {k: round(v, 1) for k, v in result.timing.items()},
            "max_steps": max_steps,
            "tasks": len(config.task_list),
            "demonstrations": episodes,
            "demos_s": demos_s,
            "bc_updates": config.bc_updates,
            "timesteps": config.timesteps,
            "load_train": [before, load_avg()],
            **score(config, result.model, a),
        }
        done.write_text(json.dumps(row, indent=2) + "\n")


def cell(row: dict[str, Any] | None) -> str:
    if not row:
        return "—"
    lo, hi = row["ci95"]
    return f"{row['success']:.2f} [{lo:.2f}, {hi:.2f}] (n={row['episodes']})"


def table(results: dict[str, Any]) -> str:
    """Rows: each family (its trained tasks) and each zero-shot task; columns: clone-only,
    BC + PPO, random."""
    head = "| | " + " | ".join(HEADERS[c] for c in (*COLUMNS, "random")) + " |"
    lines = [head, "| --- |" + " --- |" * (len(COLUMNS) + 1)]
    first = next(iter(results.values()), None)

    def row(label: str, pick: Any) -> str:
        cells = [cell(pick(results[c], "policy")) if c in results else "—" for c in COLUMNS]
        cells.append(cell(pick(first, "random")) if first else "—")
        return f"| {label} | " + " | ".join(cells) + " |"

    trained = mix()
    for family in FAMILIES:
        label = f"{family} ({sum(f == family for f, _ in trained)} trained tasks)"
        lines.append(row(label, lambda r, who, f=family: r["families"][f][who]))
    means = [f"{results[c]['family_mean']:.2f}" if c in results else "—" for c in COLUMNS]
    lines.append("| mean over families | " + " | ".join(means) + " | |")
    for family, task in ZERO_SHOT.items():
        label = f"zero-shot: {task} ({family})"
        lines.append(row(label, lambda r, who, t=task: r["zero_shot"][t][who]))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    p.add_argument("--out", type=Path, default=Path("runs/generalist"))
    p.add_argument("--columns", nargs="*", choices=COLUMNS, default=list(COLUMNS))
    p.add_argument("--demos-per-task", type=int, default=12)
    p.add_argument("--bc-updates", type=int, default=4000)
    p.add_argument("--timesteps", type=int, default=8192, help="PPO steps on the mix")
    p.add_argument("--target-kl", type=float, default=0.2)
    p.add_argument("--seed", type=int, default=0, help="the policy's initial weights and batches")
    p.add_argument("--max-steps", type=int, default=0, help="default: longest plan + 4")
    p.add_argument("--levels", type=int, default=50, help="held-out levels per family")
    p.add_argument("--zero-shot-levels", type=int, default=20)
    p.add_argument("--report", action="store_true", help="only print the table")
    a = p.parse_args(argv)
    os.environ.setdefault("PYTHONHASHSEED", "0")
    a.out.mkdir(parents=True, exist_ok=True)
    if not a.report:
        started = time.perf_counter()
        run(a.out, a)
        print(f"ran in {time.perf_counter() - started:.0f} s (load now {load_avg()})")
    results = {
        c: json.loads((a.out / f"{c}.json").read_text())
        for c in COLUMNS
        if (a.out / f"{c}.json").is_file()
    }
    print(table(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
