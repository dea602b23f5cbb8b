"""Throughput of the episode host: concurrent text-mode sessions on one Chromium.

    .venv/bin/python benchmarks/bench_rl_host.py [--sessions 1,4,16] [--steps 40] [--json]

Each of N sessions replays the oracle's actions for its level seed (navigations, typing,
choices: the steps a solving agent takes) through `EpisodeHost.astep`, all N at once from one
event loop, resetting when an episode ends, until every session took `--steps` steps. The
figures per N: steps per second (all sessions together, wall time), the median and 99th
percentile latency of one step as its caller sees it (queueing on the browser thread
included), and the CPU seconds per step of this process and its Chromium. Resets are not
steps and are left out of the latencies. The machine's load average is recorded with them.
"""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import json
import os
import statistics
import time

import psutil

from webfactory_env.rl import EpisodeHost, EpisodeSettings, EpisodeSpec, HostConfig, oracle_run

SEEDS = range(4)


def cpu_seconds() -> float:
    """CPU time of this process and every process under it (Chromium, the driver)."""
    me = psutil.Process()
    total = 0.0
    for proc in [me, *me.children(recursive=True)]:
        try:
            times = proc.cpu_times()
        except psutil.Error:  # exited meanwhile
            continue
        total += times.user + times.system
    return total


async def measure(host: EpisodeHost, sessions: int, steps: int, plans: list) -> dict:
    latencies: list[float] = []

    async def rollout(index: int) -> None:
        spec, actions = plans[index % len(plans)]
        async with host.session() as sid:
            await host.areset(sid, spec)
            taken, cursor = 0, 0
            while taken < steps:
                if cursor == len(actions):
                    await host.areset(sid, spec)
                    cursor = 0
                started = time.perf_counter()
                await host.astep(sid, actions[cursor])
                latencies.append(time.perf_counter() - started)
                taken, cursor = taken + 1, cursor + 1

    cpu_before, started = cpu_seconds(), time.perf_counter()
    await asyncio.gather(*(rollout(i) for i in range(sessions)))
    wall, cpu = time.perf_counter() - started, cpu_seconds() - cpu_before
    ordered = sorted(latencies)
    return {
        "sessions": sessions,
        "steps": len(latencies),
        "steps_per_s": round(len(latencies) / wall, 2),
        "p50_ms": round(1000 * statistics.median(ordered), 1),
        "p99_ms": round(1000 * ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))], 1),
        "cpu_ms_per_step": round(1000 * cpu / len(latencies), 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", default="1,4,16", help="comma-separated session counts")
    parser.add_argument("--steps", type=int, default=40, help="steps each session takes")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    counts = [int(n) for n in args.sessions.split(",")]

    settings = EpisodeSettings()
    specs = [EpisodeSpec("shop", "buy_red_mug", level_seed=seed) for seed in SEEDS]
    plans = [(spec, oracle_run(spec, settings).actions) for spec in specs]
    load_before = os.getloadavg()
    config = HostConfig(max_sessions=max(counts), idle_timeout_s=None, episode=settings)
    with EpisodeHost(config) as host:

        async def sweep() -> list[dict]:
            await measure(host, 1, 5, plans)  # warm-up: the host's Chromium starts here
            return [await measure(host, n, args.steps, plans) for n in counts]

        # The oracle's Playwright (sync API) holds this thread's event loop: run ours apart.
        with concurrent.futures.ThreadPoolExecutor(1) as pool:
            rows = pool.submit(asyncio.run, sweep()).result()
    result = {
        "rows": rows,
        "loadavg": {"before": list(load_before), "after": list(os.getloadavg())},
        "cores": os.cpu_count(),
    }
    if args.json:
        print(json.dumps(result))
        return
    print("| sessions | steps/s | p50 step | p99 step | CPU per step |")
    print("|---:|---:|---:|---:|---:|")
    for r in rows:
        print(
            f"| {r['sessions']} | {r['steps_per_s']} | {r['p50_ms']} ms | {r['p99_ms']} ms"
            f" | {r['cpu_ms_per_step']} ms |"
        )
    load = result["loadavg"]
    print(
        f"load average {load['before'][0]:.2f} before, {load['after'][0]:.2f} after,"
        f" {result['cores']} cores"
    )


if __name__ == "__main__":
    main()
