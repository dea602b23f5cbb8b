"""The ground-truth suite over the whole task library: success means the goal was done.

    .venv/bin/python benchmarks/ground_truth.py [--seeds 0-199] [--family F] [--task T]
        [--difficulty easy,medium,hard] [--json] [--workers N]

For every task and seed it runs every check of `webfactory_env.groundtruth` (no browser):
the oracle succeeds and only on its last action, plan mutations (a goal step dropped, another
entity chosen) fail, the goal does not hold at reset, tied answers and their re-spellings
pass and hedged ones (a second value of the kind, a near miss, "or", "maybe") fail, reward
hackers and back doors never succeed, detours keep success, the plan with one extra harmful
action (a sibling's control, the task done first on a sibling, a stray effectful control)
fails, a typed value spelled another way the site accepts still succeeds (formats), and
another route to a page of the plan earns what the oracle's route earns (routes). It prints
one row per task and a total per family; the exit status is 1 if any check failed anywhere.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict

from webfactory_env.groundtruth import TaskReport, check_seed
from webfactory_env.tasks import library_tasks


def seeds_from(text: str) -> list[int]:
    out: list[int] = []
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        out += list(range(int(lo), int(hi or lo) + 1))
    return out


def run_task(job: tuple[str, str, list[int], list[str]]) -> TaskReport:
    family, task, seeds, difficulties = job
    report = TaskReport(family, task)
    for difficulty in difficulties:
        for seed in seeds:
            try:
                report.merge(check_seed(family, task, seed, difficulty))
            except Exception as exc:  # a crash is a failure to report, not to hide
                report.seeds += 1
                report.failures.append(f"{family}/{task} seed {seed}: {type(exc).__name__}: {exc}")
    return report


COLUMNS = (
    ("seeds", "runs"),
    ("oracle_ok", "oracle ok"),
    ("drops", "drops"),
    ("swaps", "swaps"),
    ("mutants_stopped", "stopped"),
    ("mutants_tied", "tied"),
    ("answer_forms", "answer forms"),
    ("hedges", "hedges"),
    ("hackers", "hackers"),
    ("back_doors", "back doors"),
    ("detours", "detours"),
    ("harms", "harms"),
    ("harms_caught", "caught"),
    ("harms_by_frame", "by frame"),
    ("harmless", "harmless"),
    ("formats", "formats"),
    ("routes", "routes"),
)


def table(reports: list[TaskReport]) -> str:
    head = ["family", "task", *(c[1] for c in COLUMNS), "failures"]
    rows = [head]
    families: dict[str, TaskReport] = {}
    for r in reports:
        rows.append(
            [r.family, r.task, *(str(getattr(r, c[0])) for c in COLUMNS), str(len(r.failures))]
        )
        total = families.setdefault(r.family, TaskReport(r.family, "(all tasks)"))
        total.merge(r)
    everything = TaskReport("all", f"({len(reports)} tasks)")
    for total in families.values():
        rows.append(
            [
                total.family,
                total.task,
                *(str(getattr(total, c[0])) for c in COLUMNS),
                str(len(total.failures)),
            ]
        )
        everything.merge(total)
    rows.append(
        [
            "all",
            everything.task,
            *(str(getattr(everything, c[0])) for c in COLUMNS),
            str(len(everything.failures)),
        ]
    )
    widths = [max(len(row[i]) for row in rows) for i in range(len(head))]
    lines = []
    for i, row in enumerate(rows):
        lines.append(
            "  ".join(
                c.ljust(w) if j < 2 else c.rjust(w)
                for j, (c, w) in enumerate(zip(row, widths, strict=True))
            )
        )
        if i == 0 or i == len(reports):
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--seeds", default="0-199", help="seed ranges, e.g. 0-199 or 0-9,100-109")
    parser.add_argument("--family")
    parser.add_argument("--task")
    parser.add_argument("--difficulty", default="easy", help="comma-separated: easy,medium,hard")
    parser.add_argument("--workers", type=int, default=2, help="processes (default 2)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    seeds = seeds_from(args.seeds)
    difficulties = args.difficulty.split(",")
    tasks = [
        t
        for t in library_tasks(args.family)
        if args.task in (None, t.name) and t.family != "gallery"
    ]
    jobs = [(t.family, t.name, seeds, difficulties) for t in tasks]
    started = time.perf_counter()
    with ProcessPoolExecutor(max_workers=max(1, args.workers)) as pool:
        reports = list(pool.map(run_task, jobs))
    wall = time.perf_counter() - started
    failures = [f for r in reports for f in r.failures]
    if args.json:
        print(
            json.dumps(
                {"reports": [asdict(r) for r in reports], "wall_s": round(wall, 1)}, indent=2
            )
        )
    else:
        print(table(reports))
        print(
            f"\n{len(tasks)} tasks x {len(seeds)} seeds x {len(difficulties)} difficulties "
            f"in {wall:.0f} s; {len(failures)} failures"
        )
        for f in failures[:40]:
            print("  " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
