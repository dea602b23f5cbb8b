"""Throughput of WebTask-v0 on Ray RLlib env runners: the figures `webfactory bench` gives
for one machine, per runner.

    .venv/bin/python benchmarks/bench_rllib.py [--runners 2] [--envs-per-runner 1,2,4]
                                               [--steps 300] [--json]

For each number of envs per runner, a PPO algorithm is built on `--runners` remote env
runners of a local Ray instance (as `python -m webfactory_env.training.rllib` builds it),
and every runner, at the same time, steps its own envs with the masked random policy of
`webfactory bench` (done verbs allowed, `buy_red_mug`, a new level seed each episode) for
`--steps` steps: steps per second per runner and in all, resets included, in `tokens` and
`tokens+pixels` (128×128). Then one PPO iteration on `tokens`: the env steps it sampled
per second of the iteration (sampling and learning both on these cores). A runner's envs
share its process's Chromium, a browser context each. Needs the `rllib` extra.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import sys
import time
from typing import Any

MODES = ("tokens", "tokens+pixels")


def measure(runners: int, per_runner: int, steps: int) -> dict[str, Any]:
    from webfactory_env.training.rllib import (
        RLlibConfig,
        build_algorithm,
        iteration_row,
        runner_steps_per_s,
        stop_algorithm,
    )

    out: dict[str, Any] = {"runners": runners, "envs_per_runner": per_runner}
    for mode in MODES:
        config = RLlibConfig(
            task="buy_red_mug",
            env_runners=runners,
            envs_per_runner=per_runner,
            iterations=1,
            train_batch_size=256,
            verbose=False,
            policy="pointer" if mode == "tokens" else "default",
            env_kwargs={"obs_mode": mode, "done_actions": "always", "max_steps": 64},
        )
        algo = build_algorithm(config)
        try:
            probe = functools.partial(runner_steps_per_s, steps=steps)
            group = algo.env_runner_group
            speeds = group.foreach_env_runner(probe, local_env_runner=False)
            row: dict[str, Any] = {
                "per_runner_steps_per_s": [s["steps_per_s"] for s in speeds],
                "total_steps_per_s": sum(s["steps_per_s"] for s in speeds),
                "browsers_per_runner": [s["browsers"] for s in speeds],
            }
            if mode == "tokens":
                start = time.perf_counter()
                result = algo.train()
                took = time.perf_counter() - start
                sampled = iteration_row(1, result)["timesteps"] or 0
                row["ppo_iteration_env_steps_per_s"] = sampled / took
        finally:
            stop_algorithm(algo)
        out[mode] = row
    return out


def table(rows: list[dict[str, Any]]) -> str:
    lines = [
        "runners  envs/runner  obs mode        steps/s per runner      all    PPO iteration",
    ]
    for r in rows:
        for mode in MODES:
            m = r[mode]
            each = " ".join(f"{v:6.1f}" for v in m["per_runner_steps_per_s"])
            ppo = m.get("ppo_iteration_env_steps_per_s")
            lines.append(
                f"{r['runners']:7d}  {r['envs_per_runner']:11d}  {mode:<14}  {each:<20}  "
                f"{m['total_steps_per_s']:7.1f}  {'' if ppo is None else f'{ppo:7.1f}'}"
            )
    load = os.getloadavg()
    lines.append(f"load average (1 min) at the end: {load[0]:.2f} on {os.cpu_count()} CPUs")
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--runners", type=int, default=2)
    ap.add_argument("--envs-per-runner", default="1,2,4")
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    try:
        import ray
    except ImportError:
        print("bench_rllib: needs the rllib extra (pip install -e '.[rllib]')", file=sys.stderr)
        return 2
    from webfactory_env.training.rllib import RLlibConfig, init_ray, register

    counts = [int(n) for n in args.envs_per_runner.split(",") if n.strip()]
    init_ray(RLlibConfig(env_runners=args.runners, verbose=False))
    register()
    try:
        rows = [measure(args.runners, k, args.steps) for k in counts]
    finally:
        ray.shutdown()
    print(json.dumps(rows, indent=2) if args.json else table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
