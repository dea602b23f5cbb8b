"""A training run's learning curve: its CSV file and its plot against the random baselines."""

from __future__ import annotations

import csv
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from webfactory_env.training.sb3 import TrainResult

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


def write_curve(curve: Sequence[Mapping[str, float]], path: Path) -> None:
    with path.open("w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=CURVE_COLUMNS)
        writer.writeheader()
        writer.writerows(curve)


def read_curve(path: Path) -> list[dict[str, float]]:
    with Path(path).open(newline="") as fh:
        return [{k: float(v) for k, v in row.items()} for row in csv.DictReader(fh)]


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
