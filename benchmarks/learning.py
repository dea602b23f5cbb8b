"""Learning benchmark: held-out success of cloning, cloning + PPO, PPO alone and chance, on
tasks of every family.

    nice -n 10 .venv/bin/python benchmarks/learning.py [--only TASK ...] [--out runs/learning]

Each task of `TASKS` (13 tasks over the five families: changes to the site, label/value
questions whose answer stands beside its label, row-context questions and changes whose
target another cell of its row picks out, among them the three travel tasks the README's
first table failed) gets four columns, all with the goal-conditioned pointer policy
(`webfactory_env.policies.sb3`, joint masks: `action_mode="discrete"`) on the same
held-out level seeds (`--levels`, default 50 from 100000; training draws from 0-9999):

- **clone-only**: cloned from oracle demonstrations recorded on train seeds, no PPO;
- **BC + PPO**: the same clone (the same demonstrations), then MaskablePPO;
- **plain PPO**: MaskablePPO from an untrained policy, no demonstrations, same timesteps;
- **random**: what an untrained masked policy samples (`random_actor`).

Every figure comes with its 95 % Wilson interval over the held-out levels. A task's
difficulty is the task list's (`webfactory tasks list`: the length of its script), shown
beside the oracle's plan length on the first held-out levels; nothing here has a
difficulty of its own. Every run's budget is fixed (`BUDGET`, or the flags) and is meant
to stay under 30 minutes of wall time on a 2-core machine. Results:
`<out>/<task>/<column>/` (curves, summaries, models), `<out>/<task>/<column>.json` (with the
machine's load before and after), `<out>/results.json`, a Markdown table on stdout and the
README's figure `docs/img/learning_curves.png`. `--only TASK` runs part of it (several may
run side by side), `--columns clone bc_ppo ppo` some of its columns; `--report` only
redraws the table and figure. A smoke run:
`--only shop_track_parcel --levels 2 --timesteps 16 --demo-episodes 2 --out /tmp/smoke`.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from webfactory_env.sitegen import generate_site
from webfactory_env.tasks import compile_for_site
from webfactory_env.tasks.library import library
from webfactory_env.training.finetune import fine_tuning
from webfactory_env.training.levels import SeedRange
from webfactory_env.training.sb3 import TrainConfig, read_curve, record_demos, train

ROOT = Path(__file__).resolve().parent.parent
# What a task asks of the policy: a change to the site (its target named by the goal, or
# picked out by another cell of its row), or an answer (a sentence's value, a value beside
# its label, a cell of the row that other cells or the order pick out).
ACTION, ROW_ACTION = "change", "row-context change"
QUESTION, LABEL_VALUE, ROW_QUESTION = "question", "label/value question", "row-context question"
KINDS = (ACTION, ROW_ACTION, QUESTION, LABEL_VALUE, ROW_QUESTION)
# name -> (family, kind)
TASKS: dict[str, tuple[str, str]] = {
    "shop_apply_coupon": ("shop", ACTION),
    "shop_track_parcel": ("shop", QUESTION),
    "shop_order_status": ("shop", LABEL_VALUE),
    "trip_reference_after_2fa": ("travel", ROW_QUESTION),
    "cancel_refundable_trip": ("travel", ROW_ACTION),
    "cheapest_oneway_fare": ("travel", ROW_QUESTION),
    "kanban_move_and_comment": ("kanban", ACTION),
    "kanban_calendar_next_due": ("kanban", ROW_QUESTION),
    "forum_author_reputation": ("forum", LABEL_VALUE),
    "forum_longest_member": ("forum", ROW_QUESTION),
    "account_enable_two_factor": ("account", ACTION),
    "account_sign_out_device": ("account", ROW_ACTION),
    "account_oldest_failed_sign_in": ("account", ROW_QUESTION),
}
COLUMNS = ("clone", "bc_ppo", "ppo", "random")
HEADERS = {"clone": "clone-only", "bc_ppo": "BC + PPO", "ppo": "plain PPO", "random": "random"}

# The fixed budget of every run (timesteps are PPO environment steps, after cloning).
BUDGET: dict[str, Any] = {
    "timesteps": 8192,
    "demo_episodes": 80,
    "bc_updates": 600,
    "max_steps": 16,
    "levels": 50,
    "seed": 0,  # the policy's initial weights and minibatches, and the PPO rollouts' draws
}
HELD_OUT_START = 100_000


def wilson(successes: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95 % Wilson score interval of a success rate (sound at 0 and 1, unlike p ± 2σ)."""
    if n <= 0:
        return 0.0, 1.0
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def describe(name: str, levels: int = 5) -> str:
    """`family, difficulty (task list), oracle steps` on the first held-out levels."""
    family, _ = TASKS[name]
    seeds = range(HELD_OUT_START, HELD_OUT_START + levels)
    steps = [len(compile_for_site(name, generate_site(family, s)).plan) for s in seeds]
    span = f"{min(steps)}" if min(steps) == max(steps) else f"{min(steps)}-{max(steps)}"
    return f"{family}, {library()[name].difficulty}, {span} oracle steps"


def configs(name: str, out: Path, budget: dict[str, Any]) -> dict[str, TrainConfig]:
    """The runs of one task: clone-only (which also measures the random baseline),
    BC + PPO and plain PPO, all with the pointer policy and joint masks."""
    family, _ = TASKS[name]
    n_steps = min(128, max(budget["timesteps"] // 2, 8))  # per env, two envs
    base = TrainConfig(
        algo="maskable-ppo",
        policy="pointer",
        action_mode="discrete",
        family=family,
        task=name,
        timesteps=budget["timesteps"],
        eval_every=max(budget["timesteps"], 1),  # before and after PPO only
        max_steps=budget["max_steps"],
        eval_seeds=SeedRange(HELD_OUT_START, budget["levels"]),
        envs=2,
        seed=budget["seed"],
        n_steps=n_steps,
        batch_size=min(64, 2 * n_steps),
        eval_sampled=False,
        baselines=False,
        verbose=True,
    )
    demos = (out / name / "demos",)
    cloned = replace(base, demos=demos, bc_updates=budget["bc_updates"])
    return {
        "clone": replace(cloned, timesteps=0, baselines=True, out=out / name / "clone"),
        # Fine-tuning a clone (`training.finetune.FINE_TUNING`): two updates fit the critic
        # alone, then PPO moves the policy with the demonstrations kept in its objective,
        # on the advantages as they are.
        "bc_ppo": replace(fine_tuning(cloned), out=out / name / "bc_ppo"),
        "ppo": replace(base, learning_rate=3e-4, ent_coef=0.01, out=out / name / "ppo"),
    }


def load_avg() -> str:
    """The machine's 1/5/15-minute load averages (next to every figure)."""
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "n/a"


def _row(success: float, episodes: int, **more: Any) -> dict[str, Any]:
    wins = round(success * episodes)
    lo, hi = wilson(wins, episodes)
    return {"success": success, "episodes": episodes, "ci95": [round(lo, 3), round(hi, 3)], **more}


def measured(config: TrainConfig, **more: Any) -> tuple[Any, dict[str, Any]]:
    """Train `config`; its result and the row its column's JSON holds: held-out success
    with its interval, timesteps, wall time and where it went, the load before and after."""
    before = load_avg()
    result = train(config)
    row = _row(
        result.final.success_rate,
        result.final.episodes,
        timesteps=int(result.curve[-1]["timesteps"]),
        wall_s=round(result.wall_s, 1),
        timing_s={k: round(v, 1) for k, v in result.timing.items()},
        load_before=before,
        load_after=load_avg(),
        curve=str(config.out / "learning_curve.csv"),
        **more,
    )
    return result, row


def run(
    names: list[str], out: Path, budget: dict[str, Any], columns: tuple[str, ...] = COLUMNS
) -> None:
    """Run every column of `names` (of `columns`) not run before; each writes
    `<out>/<task>/<column>.json`."""
    for name in names:
        runs = configs(name, out, budget)
        demo_config = replace(runs["clone"], demos=(), demo_episodes=budget["demo_episodes"])
        t0 = time.perf_counter()
        record_demos(demo_config, out / name / "demos")  # once: both cloned columns use it
        demos_s = round(time.perf_counter() - t0, 1)  # 0 when an earlier run recorded them
        for column, config in runs.items():
            if column not in columns:
                continue
            done = out / name / f"{column}.json"
            if done.is_file():
                print(f"{name}/{column}: done before, kept")
                continue
            result, row = measured(config, demos_s=demos_s if config.demos else 0.0)
            if "random" in result.baselines:
                rnd = result.baselines["random"]
                random_row = _row(rnd.success_rate, rnd.episodes, timesteps=0)
                (out / name / "random.json").write_text(json.dumps(random_row, indent=2) + "\n")
            done.write_text(json.dumps(row, indent=2) + "\n")


def collect(out: Path) -> dict[str, Any]:
    """Every finished column under `out`, as {"task/column": row}."""
    results = {}
    for file in sorted(out.glob("*/*.json")):
        results[f"{file.parent.name}/{file.stem}"] = json.loads(file.read_text())
    (out / "results.json").write_text(json.dumps(results, indent=2) + "\n")
    return results


def cell(row: dict[str, Any] | None) -> str:
    if not row:
        return "—"
    lo, hi = row["ci95"]
    return f"{row['success']:.2f} [{lo:.2f}, {hi:.2f}]"


def table(results: dict[str, Any], names: list[str]) -> str:
    """The Markdown table: per task its kind and difficulty, each column's held-out
    success with its 95 % interval, and the BC + PPO run's wall time and load."""
    head = " | ".join(HEADERS[c] for c in COLUMNS)
    lines = [
        f"| task | kind | family, difficulty, length | {head} | BC + PPO wall time | load |",
        "| --- | --- | --- |" + " --- |" * len(COLUMNS) + " --- | --- |",
    ]
    for name in names:
        cells = " | ".join(cell(results.get(f"{name}/{c}")) for c in COLUMNS)
        tuned = results.get(f"{name}/bc_ppo") or {}
        wall = f"{tuned['wall_s'] / 60:.1f} min" if tuned else "—"
        load = tuned.get("load_before", "")
        kind = TASKS[name][1]
        lines.append(f"| {name} | {kind} | {describe(name)} | {cells} | {wall} | {load} |")
    return "\n".join(lines)


def plot(results: dict[str, Any], names: list[str], path: Path) -> Path | None:
    """Held-out success against PPO timesteps per task, each point with its 95 % interval:
    BC + PPO (starting where cloning left it), plain PPO, and the random baseline as a line."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    cols = min(4, len(names))
    rows = -(-len(names) // cols)
    fig, grid = plt.subplots(rows, cols, figsize=(3.6 * cols, 3.2 * rows), dpi=100, squeeze=False)
    axes = [ax for row in grid for ax in row]
    for ax in axes[len(names) :]:
        ax.set_visible(False)
    for ax, name in zip(axes, names, strict=False):
        for column, style in (("bc_ppo", "o-"), ("ppo", "s--")):
            row = results.get(f"{name}/{column}")
            if row and Path(row["curve"]).is_file():
                curve = read_curve(Path(row["curve"]))
                xs, ys = [c["timesteps"] for c in curve], [c["success_rate"] for c in curve]
                # Each point's 95 % Wilson interval over its held-out episodes.
                spans = [
                    wilson(round(c["success_rate"] * c["episodes"]), c["episodes"]) for c in curve
                ]
                below = [y - lo for y, (lo, _) in zip(ys, spans, strict=True)]
                above = [hi - y for y, (_, hi) in zip(ys, spans, strict=True)]
                ax.errorbar(
                    xs, ys, yerr=[below, above], fmt=style, capsize=3, label=HEADERS[column]
                )
        rnd = results.get(f"{name}/random")
        if rnd:
            ax.axhline(rnd["success"], color="tab:red", linestyle=":", label="random (masked)")
        ax.set_title(name, fontsize=9)
        ax.set_ylim(-0.03, 1.03)
        ax.set_xlabel("PPO timesteps (BC + PPO: after cloning)")
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("held-out success")
    axes[0].legend(fontsize=7, loc="center right")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    plt.close(fig)
    return path


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    p.add_argument("--only", nargs="*", choices=list(TASKS), help="tasks to run (default all)")
    p.add_argument("--out", type=Path, default=Path("runs/learning"))
    p.add_argument("--plot", type=Path, default=ROOT / "docs" / "img" / "learning_curves.png")
    p.add_argument("--report", action="store_true", help="only print the table and plot")
    p.add_argument(
        "--columns",
        nargs="*",
        choices=[c for c in COLUMNS if c != "random"],
        help="runs to make (default all; the clone-only run also measures random)",
    )
    for key in BUDGET:
        flag = "--" + key.replace("_", "-")
        p.add_argument(flag, type=int, default=BUDGET[key], help=f"default {BUDGET[key]}")
    a = p.parse_args(argv)
    os.environ.setdefault("PYTHONHASHSEED", "0")
    budget = {key: getattr(a, key) for key in BUDGET}
    names = a.only or list(TASKS)
    if not a.report:
        started = time.perf_counter()
        run(names, a.out, budget, tuple(a.columns or COLUMNS))
        print(f"ran in {time.perf_counter() - started:.0f} s (load now {load_avg()})")
    results = collect(a.out)
    done = [n for n in TASKS if any(f"{n}/{c}" in results for c in COLUMNS)]
    print(table(results, done))
    png = plot(results, done, a.plot)
    if png:
        print(f"wrote {png}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
