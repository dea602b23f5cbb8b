"""Solve rate of the oracle over the task library: every task, many seeds, must be 100%.

    .venv/bin/python benchmarks/oracle_solve_rate.py [--seeds 0-19,100000-100019]
        [--family F] [--task T] [--difficulty D] [--variation AXIS=VALUE ...]
        [--browser N] [--max-steps K] [--action-mode MODE] [--json]

By default the oracle runs on `AppDriver` (the site app and the env's reward simulator,
without a browser), which is fast enough for thousands of episodes. `--browser N` also runs
the real env in Chromium on the first N seeds of each task, with the same `max_steps` the
evaluation suites use (64 unless `--max-steps` says otherwise), so that a plan that needs
more steps than an episode allows (scrolling, "load more") shows up as a failure.
`--action-mode coordinates` (or `coordinates_text`) runs the oracle there with the mouse
and the keyboard (`CoordinateOracle`): centre clicks, typing, select lists by keys, drags
where a page offers one for what the plan's next form does.

Each row is one task: episodes solved / run, and the most steps an episode took. The exit
status is 1 when any task is below 100%, so the script can gate a change.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass, field
from typing import Any

from webfactory_env.adversarial import play
from webfactory_env.core.errors import WebfactoryError
from webfactory_env.tasks import library_tasks


@dataclass
class Row:
    family: str
    task: str
    solved: int = 0
    runs: int = 0
    max_steps: int = 0
    failures: list[str] = field(default_factory=list)

    @property
    def rate(self) -> float:
        return self.solved / self.runs if self.runs else 1.0


def parse_seeds(text: str) -> list[int]:
    """`0-19,100000-100019,42` → the seeds, in order, without repeats."""
    seeds: list[int] = []
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        lo, _, hi = part.partition("-")
        seeds.extend(range(int(lo), int(hi or lo) + 1))
    return list(dict.fromkeys(seeds))


def sweep_app(
    row: Row, seeds: list[int], difficulty: str, variation: dict[str, str], budget: int
) -> None:
    from webfactory_env.adversarial import AppDriver, oracle_policy
    from webfactory_env.core.seeding import SeedStream
    from webfactory_env.sitegen.registry import generate_site
    from webfactory_env.tasks import compile_for_site

    for seed in seeds:
        if variation:
            site = generate_site(row.family, seed, difficulty, variation)
            driver = AppDriver(site, compile_for_site(row.task, site))
            oracle_policy(driver, SeedStream(seed), budget)
            success, steps = driver.success, driver.steps
        else:
            score = play(row.family, row.task, seed, "oracle", budget, difficulty)
            success, steps = score.success, score.steps
        row.runs += 1
        row.max_steps = max(row.max_steps, steps)
        if success:
            row.solved += 1
        else:
            row.failures.append(f"seed {seed} (app, {steps} steps)")


def sweep_browser(
    row: Row,
    seeds: list[int],
    difficulty: str,
    variation: dict[str, str],
    max_steps: int,
    envs: dict[str, object],
    env_kwargs: dict[str, Any],
) -> None:
    import gymnasium as gym

    import webfactory_env  # noqa: F401  (registers WebTask-v0)
    from webfactory_env.agents import OracleAgent

    env = envs.get(row.family)
    if env is None:
        env = gym.make(
            "WebTask-v0",
            family=row.family,
            task=row.task,
            difficulty=difficulty,
            max_steps=max_steps,
            **env_kwargs,
        )
        envs[row.family] = env
    assert isinstance(env, gym.Env)
    oracle = OracleAgent(env)
    for seed in seeds:
        options = {"task": row.task, "difficulty": difficulty, "variation": variation or None}
        steps = 0
        try:
            obs, info = env.reset(seed=seed, options=options)
            oracle.reset()
            while True:
                obs, _, terminated, truncated, info = env.step(oracle.act(obs, info))
                steps += 1
                if terminated or truncated:
                    break
        except WebfactoryError as exc:  # the browser died: count it, start a fresh env
            row.runs += 1
            row.failures.append(f"seed {seed} (browser, {type(exc).__name__})")
            env.close()
            del envs[row.family]
            return sweep_browser(
                row,
                seeds[seeds.index(seed) + 1 :],
                difficulty,
                variation,
                max_steps,
                envs,
                env_kwargs,
            )
        row.runs += 1
        row.max_steps = max(row.max_steps, steps)
        if info["success"]:
            row.solved += 1
        else:
            row.failures.append(f"seed {seed} (browser, {steps} steps)")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--seeds", default="0-19,100000-100019", help="ranges, e.g. 0-19,100000-100019")
    p.add_argument("--family", help="only this family's tasks")
    p.add_argument("--task", action="append", help="only these tasks (repeatable)")
    p.add_argument("--difficulty", default="easy")
    p.add_argument("--variation", action="append", default=[], help="AXIS=VALUE (repeatable)")
    p.add_argument("--browser", type=int, default=0, help="also run N seeds per task in Chromium")
    p.add_argument("--max-steps", type=int, default=64, help="episode length (default: 64)")
    p.add_argument(
        "--action-mode", help="the env's action mode in Chromium (default: the env's, as in eval)"
    )
    p.add_argument("--obs-mode", default="tokens", help="observation mode in Chromium")
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)

    seeds = parse_seeds(args.seeds)
    variation = dict(v.split("=", 1) for v in args.variation)
    tasks = [
        t
        for t in library_tasks(args.family)
        if t.family != "gallery" and (not args.task or t.name in args.task)
    ]
    rows = [Row(t.family, t.name) for t in tasks]
    envs: dict[str, object] = {}
    env_kwargs: dict[str, Any] = {"obs_mode": args.obs_mode}
    if args.action_mode:
        env_kwargs["action_mode"] = args.action_mode
    try:
        for row in rows:
            sweep_app(row, seeds, args.difficulty, variation, args.max_steps)
            if args.browser:
                sweep_browser(
                    row,
                    seeds[: args.browser],
                    args.difficulty,
                    variation,
                    args.max_steps,
                    envs,
                    env_kwargs,
                )
            if not args.json:
                mark = "" if row.rate == 1.0 else "   <-- " + ", ".join(row.failures[:4])
                print(
                    f"{row.family:8} {row.task:34} {row.solved:5}/{row.runs:<5}"
                    f" {100 * row.rate:6.1f}%  max {row.max_steps:3} steps{mark}",
                    flush=True,
                )
    finally:
        for env in envs.values():
            env.close()  # type: ignore[attr-defined]

    solved = sum(r.solved for r in rows)
    runs = sum(r.runs for r in rows)
    if args.json:
        print(
            json.dumps(
                {
                    "seeds": seeds,
                    "browser_seeds": seeds[: args.browser],
                    "max_steps": args.max_steps,
                    "solved": solved,
                    "runs": runs,
                    "tasks": [
                        {
                            "family": r.family,
                            "task": r.task,
                            "solved": r.solved,
                            "runs": r.runs,
                            "rate": r.rate,
                            "max_steps": r.max_steps,
                            "failures": r.failures,
                        }
                        for r in rows
                    ],
                },
                indent=2,
            )
        )
    else:
        rate = 100 * solved / max(runs, 1)
        print(f"total: {solved}/{runs} episodes over {len(rows)} tasks ({rate:.1f}%)")
    return 0 if solved == runs else 1


if __name__ == "__main__":
    sys.exit(main())
