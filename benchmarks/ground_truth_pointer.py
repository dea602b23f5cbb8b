"""The ground truth's mutants in coordinate mode: every library task's goal-step drops,
hedged answers, other right spellings and extra harms on the plan's pages, played with a
mouse and a keyboard in Chromium (`webfactory_env.groundtruth.pointer`).

    .venv/bin/python benchmarks/ground_truth_pointer.py [--seeds 0-4] [--task NAME ...]

Prints a row per task (episodes, drops, hedges, answer forms, extra harms played, of them
caught and harmless, extras that could not be done on the page, failures) and the totals;
exits 1 if any mutant's verdict differs from what the app-level suite requires.
"""

from __future__ import annotations

import argparse
import sys
import time

import gymnasium as gym

import webfactory_env  # noqa: F401  (registers WebTask-v0)
from webfactory_env.groundtruth.pointer import check_pointer_seed
from webfactory_env.tasks.library import library
from webfactory_env.training.levels import SeedRange


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    p.add_argument("--seeds", default="0-0", help="level seeds, first-last")
    p.add_argument("--task", action="append", default=[], help="tasks (default: all)")
    a = p.parse_args(argv)
    names = a.task or sorted(library())
    seeds = SeedRange.parse(a.seeds).seeds
    totals = dict.fromkeys(
        ("episodes", "drops", "hedges", "forms", "harms", "harms_caught", "harmless"), 0
    )
    totals["harms_not_done"] = 0
    failures: list[str] = []
    started = time.perf_counter()
    print(
        "| task | episodes | drops | hedges | answer forms | extra harms | caught | harmless "
        "| not done | failures |"
    )
    print("| --- |" + " ---: |" * 9)
    for name in names:
        family = library()[name].family
        env = gym.make(
            "WebTask-v0",
            family=family,
            task=name,
            obs_mode="tokens",
            action_mode="coordinates_text",
            max_steps=80,
        )
        row = dict.fromkeys(totals, 0)
        bad: list[str] = []
        try:
            for seed in seeds:
                report = check_pointer_seed(env, family, name, seed)
                for key in row:
                    row[key] += getattr(report, key)
                bad += report.failures
        finally:
            env.close()
        for key in totals:
            totals[key] += row[key]
        failures += bad
        cells = " | ".join(str(row[k]) for k in totals)
        print(f"| {name} | {cells} | {len(bad)} |", flush=True)
    cells = " | ".join(str(totals[k]) for k in totals)
    print(f"| all {len(names)} tasks, seeds {a.seeds} | {cells} | {len(failures)} |")
    print(f"{time.perf_counter() - started:.0f} s")
    for line in failures:
        print("FAIL", line)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
