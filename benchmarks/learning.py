"""Learning benchmark: held-out success against training steps for the shipped recipe,
plain PPO and the random baseline, on medium tasks and a multi-task mix.

    nice -n 10 .venv/bin/python benchmarks/learning.py [--only TASK ...] [--out runs/learning]

Each medium task (4-12 oracle steps, values drawn per level seed) and the mix get three
entries, on the same held-out level seeds (100000-100019; training draws from 0-9999):

- **recipe**: the goal-conditioned pointer policy (`webfactory_env.policies.sb3`) with
  joint masks (`action_mode="discrete"`), behaviour-cloned from oracle demonstrations
  recorded on train seeds, then fine-tuned with MaskablePPO;
- **plain PPO**: SB3's PPO with `MultiInputPolicy` on the same env, same timesteps;
- **random**: what an untrained masked policy samples (`random_actor`).

Every run's budget is fixed (`BUDGET`) and stays under 30 minutes of wall time on a
2-core machine. Results: `<out>/<name>/<entry>/` (curves, summaries, models),
`<out>/<name>/<entry>.json` (with the machine's load before and after), `<out>/results.json`,
a Markdown table on stdout, and the README's figure `docs/img/learning_curves.png`
(held-out success per task against timesteps). `--only NAME` runs part of it (several may
run side by side); `--report` only redraws the table and figure.
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

from webfactory_env.training.levels import SeedRange
from webfactory_env.training.sb3 import TrainConfig, read_curve, train

ROOT = Path(__file__).resolve().parent.parent
# name -> (family, task) pairs; the mix trains one policy on one task of each family.
TASKS: dict[str, tuple[tuple[str, str], ...]] = {
    "shop_apply_coupon": (("shop", "shop_apply_coupon"),),  # 7 steps, a coupon per level
    "trip_reference_after_2fa": (("travel", "trip_reference_after_2fa"),),  # 7, login+city
    "shop_track_parcel": (("shop", "shop_track_parcel"),),  # 4, a tracking number
    "kanban_move_and_comment": (("kanban", "kanban_move_and_comment"),),  # 7, card + comment
    "cancel_refundable_trip": (("travel", "cancel_refundable_trip"),),  # 9, login+code+reason
    "nonstop_not_offered": (("travel", "nonstop_not_offered"),),  # 9-12, search, infeasible
    "cheapest_oneway_fare": (("travel", "cheapest_oneway_fare"),),  # 9-12, search, sort, answer
}
TASKS["mix"] = (
    ("shop", "shop_apply_coupon"),
    ("travel", "nonstop_not_offered"),
    ("kanban", "kanban_move_and_comment"),
)

# The fixed budget of every run (timesteps are PPO environment steps after cloning).
BUDGET = {
    "timesteps": 1024,
    "demo_episodes": 80,
    "demo_episodes_mix": 160,
    "bc_updates": 600,
    "eval_every": 512,
    "max_steps": 16,
    "eval_seeds": SeedRange(100_000, 20),
}


def configs(name: str, out: Path, budget: dict[str, Any]) -> dict[str, TrainConfig]:
    pairs = TASKS[name]
    mix = len(pairs) > 1
    base = TrainConfig(
        tasks=pairs if mix else (),
        family=pairs[0][0],
        task=pairs[0][1],
        timesteps=budget["timesteps"],
        eval_every=budget["eval_every"],
        max_steps=budget["max_steps"],
        eval_seeds=budget["eval_seeds"],
        envs=2,
        n_steps=128,
        batch_size=64,
        eval_sampled=False,
        verbose=True,
    )
    recipe = replace(
        base,
        algo="maskable-ppo",
        policy="pointer",
        action_mode="discrete",
        demo_episodes=budget["demo_episodes_mix" if mix else "demo_episodes"],
        bc_updates=budget["bc_updates"],
        learning_rate=1e-4,
        ent_coef=0.0,
        n_epochs=2,
        out=out / name / "recipe",
    )
    ppo = replace(base, algo="ppo", policy="mlp", out=out / name / "ppo", baselines=True)
    return {"recipe": replace(recipe, baselines=False), "ppo": ppo}


def load_avg() -> str:
    """The machine's 1/5/15-minute load averages (next to every figure)."""
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "n/a"


def run(names: list[str], out: Path, budget: dict[str, Any]) -> None:
    """Run every entry of `names` not run before; each writes `<out>/<name>/<entry>.json`
    (so several invocations with `--only` may run side by side)."""
    for name in names:
        for entry, config in configs(name, out, budget).items():
            done = out / name / f"{entry}.json"
            if done.is_file():
                print(f"{name}/{entry}: done before, kept")
                continue
            before = load_avg()
            t0 = time.perf_counter()
            result = train(config)
            row: dict[str, Any] = {
                "success": result.final.success_rate,
                "timesteps": int(result.curve[-1]["timesteps"]),
                "wall_s": round(time.perf_counter() - t0, 1),
                "load_before": before,
                "load_after": load_avg(),
                "curve": str(config.out / "learning_curve.csv"),
            }
            if result.baselines:
                rnd = result.baselines["random"]
                (out / name / "random.json").write_text(
                    json.dumps({"success": rnd.success_rate, "timesteps": 0}, indent=2) + "\n"
                )
            done.write_text(json.dumps(row, indent=2) + "\n")


def collect(out: Path) -> dict[str, Any]:
    """Every finished entry under `out`, as {"name/entry": row}."""
    results = {}
    for file in sorted(out.glob("*/*.json")):
        results[f"{file.parent.name}/{file.stem}"] = json.loads(file.read_text())
    (out / "results.json").write_text(json.dumps(results, indent=2) + "\n")
    return results


def table(results: dict[str, Any], names: list[str]) -> str:
    lines = [
        "| task | recipe (BC + MaskablePPO) | plain PPO | random | recipe wall time | load |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for name in names:
        r = results.get(f"{name}/recipe", {})
        p = results.get(f"{name}/ppo", {})
        q = results.get(f"{name}/random", {})

        def cell(x: dict[str, Any]) -> str:
            if not x:
                return "—"
            return f"{x['success']:.2f} ({x.get('timesteps', 0)} steps)"

        wall = f"{r['wall_s'] / 60:.1f} min" if r else "—"
        load = r.get("load_before", "") if r else ""
        lines.append(f"| {name} | {cell(r)} | {cell(p)} | {cell(q)} | {wall} | {load} |")
    return "\n".join(lines)


def plot(results: dict[str, Any], names: list[str], path: Path) -> Path | None:
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
        for entry, style in (("recipe", "o-"), ("ppo", "s--")):
            row = results.get(f"{name}/{entry}")
            if not row or not Path(row["curve"]).is_file():
                continue
            curve = read_curve(Path(row["curve"]))
            label = "recipe: BC + MaskablePPO" if entry == "recipe" else "plain PPO"
            ax.plot(
                [c["timesteps"] for c in curve],
                [c["success_rate"] for c in curve],
                style,
                label=label,
            )
        rnd = results.get(f"{name}/random")
        if rnd:
            ax.axhline(rnd["success"], color="tab:red", linestyle=":", label="random (masked)")
        ax.set_title(name, fontsize=9)
        ax.set_ylim(-0.03, 1.03)
        ax.set_xlabel("PPO timesteps (recipe: after cloning)")
        ax.grid(alpha=0.3)
    axes[0].set_ylabel(f"held-out success ({BUDGET['eval_seeds'].count} levels)")
    axes[0].legend(fontsize=7, loc="center right")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    plt.close(fig)
    return path


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--only", nargs="*", choices=list(TASKS), help="tasks to run (default all)")
    p.add_argument("--out", type=Path, default=Path("runs/learning"))
    p.add_argument("--plot", type=Path, default=ROOT / "docs" / "img" / "learning_curves.png")
    p.add_argument("--report", action="store_true", help="only print the table and plot")
    a = p.parse_args(argv)
    os.environ.setdefault("PYTHONHASHSEED", "0")
    names = a.only or list(TASKS)
    if not a.report:
        run(names, a.out, BUDGET)
    results = collect(a.out)
    every = [n for n in TASKS if f"{n}/recipe" in results or f"{n}/ppo" in results]
    print(table(results, every))
    png = plot(results, every, a.plot)
    if png:
        print(f"wrote {png}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
