"""Every recipe followed to the letter, over many seeds: each must do its task.

    .venv/bin/python benchmarks/recipe_follow.py [--seeds 0-99] [--difficulty easy,medium,hard]
        [--family F] [--task T] [--json]

`webfactory_env.recipes.follow_recipe` reads each task's recipe (the `recipe` instruction
style; `goal+hints` shows the same steps) sentence by sentence and does what it says on the
site's app without a browser, taking the oracle's element only where the words fit several.
A row per task: recipes followed with success / run, and the first failure. The exit
status is 1 when any recipe falls short, so the script can gate a change.
"""

from __future__ import annotations

import argparse
import json
import sys

from oracle_solve_rate import parse_seeds  # the same --seeds syntax

from webfactory_env.recipes import follow_recipe
from webfactory_env.tasks import library_tasks


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seeds", default="0-99")
    p.add_argument("--difficulty", default="easy,medium,hard")
    p.add_argument("--family")
    p.add_argument("--task")
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    seeds, difficulties = parse_seeds(args.seeds), args.difficulty.split(",")
    rows = []
    for t in library_tasks(args.family):
        if args.task and t.name != args.task:
            continue
        ok, runs, first = 0, 0, None
        for difficulty in difficulties:
            for seed in seeds:
                followed = follow_recipe(t.family, t.name, seed, "recipe", difficulty)
                runs += 1
                ok += followed.success
                if not followed.success and first is None:
                    first = f"seed {seed} {difficulty}: {followed.problem}"
        rows.append({"family": t.family, "task": t.name, "ok": ok, "runs": runs, "first": first})
    if args.json:
        print(json.dumps(rows, indent=2))
    else:
        for r in rows:
            print(
                f"{r['family']:<8} {r['task']:<34} {r['ok']:>5}/{r['runs']:<5} {r['first'] or ''}"
            )
        total = sum(r["runs"] for r in rows)
        print(f"{sum(r['ok'] for r in rows)}/{total} recipes followed with success")
    return 0 if all(r["ok"] == r["runs"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
