"""Does every library task compile on every level seed? Counts per family and failure class.

    .venv/bin/python benchmarks/compile_every_seed.py [--seeds 0-9999]
        [--medium-seeds 0-999] [--hard-seeds 0-999] [--family F] [--task T]
        [--workers 2] [--json]

For each family, difficulty and seed it generates the site once and compiles every library
task of the family against it (`compile_for_site`), in `--workers` processes. It prints,
per family, how many (task, seed) pairs compiled and failed, then every distinct failure
reason (the compiler's message with the names and numbers of the one site taken out) with
its task, difficulty, count and a few example seeds. An empty range skips a difficulty
(`--hard-seeds ""`); a range may take a step (`5-9999:20`, every 20th seed from 5), so that
a sweep can run in passes, each an even sample of the range. The exit status is 1 when
anything failed, so the script can gate a change.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field

from webfactory_env.sitegen import generate_site
from webfactory_env.tasks import CompileError, compile_for_site, library_tasks

CHUNK = 100  # seeds per job: big enough to amortise process hand-off, small for progress
EXAMPLES = 5


def parse_seeds(text: str) -> list[int]:
    """`0-9999`, `0-9,850`, `5-9999:20` (every 20th seed from 5) → the seeds in order without
    repeats; "" → none."""
    seeds: list[int] = []
    for part in text.split(","):
        part, _, step = part.strip().partition(":")
        if part:
            lo, _, hi = part.partition("-")
            seeds.extend(range(int(lo), int(hi or lo) + 1, int(step or 1)))
    return list(dict.fromkeys(seeds))


_QUOTED = re.compile(r"“[^”]*”|\"[^\"]*\"|'[^']*'")
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")


def failure_reason(exc: Exception) -> str:
    """The failure's class: the compiler's message without the one site's names and numbers
    (so that seeds failing for the same cause count together)."""
    if isinstance(exc, CompileError):
        text = exc.message
    else:
        text = f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
    return _NUMBER.sub("#", _QUOTED.sub("“…”", text))


Job = tuple[str, str, tuple[str, ...], list[int]]
# (family, difficulty, compiled count, (task, reason) → seeds, CPU seconds of the job)
JobResult = tuple[str, str, int, dict[tuple[str, str], list[int]], float]


def compile_chunk(job: Job) -> JobResult:
    """Compile every task of `job` on every seed of it; failures keyed by (task, reason)."""
    family, difficulty, tasks, seeds = job
    cpu_started = time.process_time()
    compiled = 0
    failed: dict[tuple[str, str], list[int]] = {}
    for seed in seeds:
        try:
            site = generate_site(family, seed, difficulty)
        except Exception as exc:  # a generator crash fails every task of the seed
            for task in tasks:
                failed.setdefault((task, "site: " + failure_reason(exc)), []).append(seed)
            continue
        for task in tasks:
            try:
                compile_for_site(task, site)
            except Exception as exc:  # a crash is a finding to count, like a CompileError
                failed.setdefault((task, failure_reason(exc)), []).append(seed)
            else:
                compiled += 1
    return family, difficulty, compiled, failed, time.process_time() - cpu_started


@dataclass
class Tally:
    compiled: Counter[tuple[str, str]] = field(default_factory=Counter)  # (family, difficulty)
    failed: dict[tuple[str, str, str, str], list[int]] = field(default_factory=dict)
    cpu_s: float = 0.0  # the workers' CPU time generating and compiling, summed

    def add(self, result: JobResult) -> None:
        family, difficulty, compiled, failed, cpu_s = result
        self.compiled[family, difficulty] += compiled
        self.cpu_s += cpu_s
        for (task, reason), seeds in failed.items():
            self.failed.setdefault((family, task, difficulty, reason), []).extend(seeds)

    def failed_count(self, family: str, difficulty: str | None = None) -> int:
        return sum(
            len(seeds)
            for (fam, _, diff, _), seeds in self.failed.items()
            if fam == family and difficulty in (None, diff)
        )

    def to_json(self, ranges: dict[str, str], wall_s: float) -> dict[str, object]:
        families = sorted({f for f, _ in self.compiled} | {k[0] for k in self.failed})
        return {
            "seeds": ranges,
            "wall_s": round(wall_s, 1),
            "cpu_s": round(self.cpu_s, 1),
            "families": {
                fam: {
                    "compiled": sum(n for (f, _), n in self.compiled.items() if f == fam),
                    "failed": self.failed_count(fam),
                    "by_difficulty": {
                        diff: {
                            "compiled": self.compiled[fam, diff],
                            "failed": self.failed_count(fam, diff),
                        }
                        for (f, diff) in sorted(self.compiled)
                        if f == fam
                    },
                }
                for fam in families
            },
            "failures": [
                {
                    "family": fam,
                    "task": task,
                    "difficulty": diff,
                    "reason": reason,
                    "count": len(seeds),
                    "seeds": sorted(seeds),
                }
                for (fam, task, diff, reason), seeds in sorted(self.failed.items())
            ],
        }


def _short(text: str) -> str:
    """A seed list as given, or its size and bounds when it is long."""
    if len(text) <= 40:
        return text
    seeds = parse_seeds(text)
    return f"{len(seeds)} seeds from {min(seeds)} to {max(seeds)}"


def print_report(tally: Tally, ranges: dict[str, str], wall_s: float) -> None:
    data = tally.to_json(ranges, wall_s)
    print("seeds: " + ", ".join(f"{d} {_short(r)}" for d, r in ranges.items() if r))
    rows = [("family", "compiled", "failed")]
    families = data["families"]
    assert isinstance(families, dict)
    for fam, counts in families.items():
        rows.append((fam, str(counts["compiled"]), str(counts["failed"])))
    widths = [max(len(r[i]) for r in rows) for i in range(3)]
    for i, row in enumerate(rows):
        print(f"{row[0].ljust(widths[0])}  {row[1].rjust(widths[1])}  {row[2].rjust(widths[2])}")
        if i == 0:
            print("  ".join("-" * w for w in widths))
    failures = data["failures"]
    assert isinstance(failures, list)
    total = sum(f["count"] for f in failures)
    compiled = sum(tally.compiled.values())
    print(
        f"\n{compiled} compiled, {total} failed compiles in {len(failures)} classes;"
        f" {tally.cpu_s:.0f} s CPU, {wall_s:.0f} s wall"
    )
    for f in failures:
        examples = ", ".join(map(str, f["seeds"][:EXAMPLES]))
        more = " …" if f["count"] > EXAMPLES else ""
        print(f"  {f['family']}/{f['task']} {f['difficulty']} x{f['count']}: {f['reason']}")
        print(f"      seeds {examples}{more}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--seeds", default="0-9999", help="easy level seeds (default 0-9999)")
    parser.add_argument("--medium-seeds", default="0-999", help="medium level seeds")
    parser.add_argument("--hard-seeds", default="0-999", help="hard level seeds")
    parser.add_argument("--family")
    parser.add_argument("--task")
    parser.add_argument("--workers", type=int, default=2, help="processes (default 2)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    ranges = {"easy": args.seeds, "medium": args.medium_seeds, "hard": args.hard_seeds}
    by_family: dict[str, list[str]] = {}
    for t in library_tasks(args.family):
        if args.task in (None, t.name):
            by_family.setdefault(t.family, []).append(t.name)
    jobs: list[Job] = []
    for difficulty, text in ranges.items():
        seeds = parse_seeds(text)
        for family, tasks in by_family.items():
            for i in range(0, len(seeds), CHUNK):
                jobs.append((family, difficulty, tuple(tasks), seeds[i : i + CHUNK]))
    tally = Tally()
    started = time.perf_counter()
    progress = sys.stderr.isatty()
    with ProcessPoolExecutor(max_workers=max(1, args.workers)) as pool:
        pending = [pool.submit(compile_chunk, job) for job in jobs]
        for done, future in enumerate(as_completed(pending), 1):
            tally.add(future.result())
            if progress:
                failed = sum(len(s) for s in tally.failed.values())
                print(f"\r{done}/{len(jobs)} jobs, {failed} failed", end="", file=sys.stderr)
    if progress:
        print(file=sys.stderr)
    wall = time.perf_counter() - started
    if args.json:
        print(json.dumps(tally.to_json(ranges, wall), indent=2))
    else:
        print_report(tally, ranges, wall)
    return 1 if tally.failed else 0


if __name__ == "__main__":
    sys.exit(main())
