"""What each of the five fine-tuning settings buys: the learning benchmark's BC + PPO run on
one task, with all of them, then with each one taken back to what it was before.

    nice -n 10 .venv/bin/python benchmarks/finetune_ablation.py [--task TASK] [--out DIR]

The five (`benchmarks/learning.py`'s BC + PPO column, `training.finetune`): two PPO updates
that fit only the value head first (`value_warmup=2`, was 0), learning rate 3e-4 (was
1e-4), four epochs per update (was 2), four cloning minibatches on the demonstrations
after each update (`demo_anchor=4`, was 0) and advantages as they are
(`normalize_advantage=False`, was SB3's rescale of each minibatch to unit spread). Every
run clones the same demonstrations (the benchmark's own, `<out>/<task>/demos`, recorded
once and kept), trains the same PPO timesteps and is measured on the same held-out
levels, with its 95 % Wilson interval.
`--out` defaults to the learning benchmark's directory, so the "all five" run is its BC +
PPO column when that ran before (kept, not run again). Results: `<out>/<task>/ablation/
<variant>.json` and a Markdown table on stdout. A smoke run: `--timesteps 16
--demo-episodes 2 --levels 2 --out /tmp/ablation`.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from learning import BUDGET, TASKS, configs, load_avg, measured

from webfactory_env.training.sb3 import TrainConfig, record_demos

# variant -> what it changes in the BC + PPO run (all five: nothing).
VARIANTS: dict[str, dict[str, Any]] = {
    "all five": {},
    "no value warm-up": {"value_warmup": 0},
    "learning rate 1e-4": {"learning_rate": 1e-4},
    "2 epochs": {"n_epochs": 2},
    "no demonstration anchor": {"demo_anchor": 0},
    "advantages rescaled": {"normalize_advantage": True},
}


def run(task: str, out: Path, budget: dict[str, Any]) -> dict[str, dict[str, Any]]:
    runs = configs(task, out, budget)
    recorder = replace(runs["clone"], demos=(), demo_episodes=budget["demo_episodes"])
    record_demos(recorder, out / task / "demos")
    results = {}
    for variant, change in VARIANTS.items():
        done = out / task / "ablation" / f"{_slug(variant)}.json"
        # All five settings is the learning benchmark's own BC + PPO column, when it ran.
        earlier = [done] if change else [done, out / task / "bc_ppo.json"]
        found = next((path for path in earlier if path.is_file()), None)
        if found is not None:
            results[variant] = json.loads(found.read_text())
            print(f"{variant}: done before ({found}), kept")
            continue
        config: TrainConfig = replace(runs["bc_ppo"], **change, out=done.with_suffix(""))
        _, row = measured(config, change=change)
        done.parent.mkdir(parents=True, exist_ok=True)
        done.write_text(json.dumps(row, indent=2) + "\n")
        results[variant] = row
    return results


def _slug(variant: str) -> str:
    return "".join(c if c.isalnum() else "_" for c in variant)


def table(task: str, results: dict[str, dict[str, Any]], clone: dict[str, Any] | None) -> str:
    lines = [
        f"| {task}: BC + PPO with | held-out success | vs all five | wall time | load |",
        "| --- | --- | --- | --- | --- |",
    ]
    best = results["all five"]["success"]
    for variant, row in results.items():
        lo, hi = row["ci95"]
        delta = "" if variant == "all five" else f"{row['success'] - best:+.2f}"
        wall = f"{row['wall_s'] / 60:.1f} min" if row.get("wall_s") else ""
        lines.append(
            f"| {variant} | {row['success']:.2f} [{lo:.2f}, {hi:.2f}] | {delta} | {wall} "
            f"| {row.get('load_before', '')} |"
        )
    if clone:
        lo, hi = clone["ci95"]
        lines.append(f"| (clone-only) | {clone['success']:.2f} [{lo:.2f}, {hi:.2f}] | | | |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    p.add_argument("--task", default="trip_reference_after_2fa", choices=list(TASKS))
    p.add_argument("--out", type=Path, default=Path("runs/learning"))
    for key in BUDGET:
        flag = "--" + key.replace("_", "-")
        p.add_argument(flag, type=int, default=BUDGET[key], help=f"default {BUDGET[key]}")
    a = p.parse_args(argv)
    budget = {key: getattr(a, key) for key in BUDGET}
    started = time.perf_counter()
    results = run(a.task, a.out, budget)
    clone_file = a.out / a.task / "clone.json"  # the learning benchmark's clone-only column
    clone = json.loads(clone_file.read_text()) if clone_file.is_file() else None
    print(f"ran in {time.perf_counter() - started:.0f} s (load now {load_avg()})")
    print(table(a.task, results, clone))
    return 0


if __name__ == "__main__":
    sys.exit(main())
