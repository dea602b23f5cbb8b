"""A bounded load test of the web-executor service on loopback: requests/s and errors.

    .venv/bin/python benchmarks/load_executor.py [--requests 60] [--clients 4]

Starts `webfactory executor serve` on a free port, sends `--requests` POST /execute
(navigate, fill one field, submit, snapshot) from `--clients` concurrent clients, and
prints the throughput, latency percentiles and error count.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor

PAYLOAD = {
    "url": "https://site.webfactory.test/track",
    "fields": [{"selector": "[name=number]", "value": "TRK000000000"}],
    "submit": {"selector": "button[type=submit]"},
    "snapshot_selector": "main",
}


def start() -> tuple[subprocess.Popen[str], str]:
    env = {**os.environ, "WEB_EXECUTOR_BIND_ADDR": "127.0.0.1:0"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "webfactory_env.cli", "executor", "serve"],
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    return proc, line.strip().rsplit(" ", 1)[-1].rstrip("/")


def one(url: str) -> tuple[float, int]:
    body = json.dumps(PAYLOAD).encode()
    t0 = time.perf_counter()
    try:
        with urllib.request.urlopen(
            urllib.request.Request(f"{url}/execute", data=body), timeout=120
        ) as r:
            status = r.status
    except urllib.error.HTTPError as err:
        status = err.code
    except OSError:
        status = 0
    return (time.perf_counter() - t0) * 1000, status


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--requests", type=int, default=60)
    ap.add_argument("--clients", type=int, default=4)
    args = ap.parse_args()
    proc, url = start()
    try:
        one(url)  # warm-up
        t0 = time.perf_counter()
        with ThreadPoolExecutor(args.clients) as pool:
            results = list(pool.map(lambda _: one(url), range(args.requests)))
        elapsed = time.perf_counter() - t0
    finally:
        proc.terminate()
        proc.wait(timeout=20)
    latencies = sorted(ms for ms, _ in results)
    errors = sum(1 for _, status in results if status != 200)
    load = os.getloadavg()[0]
    print(
        f"requests: {args.requests}  clients: {args.clients}  errors: {errors}"
        f"  (load average {load:.1f} on {os.cpu_count()} cores)"
    )
    print(f"throughput: {args.requests / elapsed:.1f} requests/s")
    print(
        f"latency ms: median {statistics.median(latencies):.0f}  "
        f"p90 {latencies[int(0.9 * (len(latencies) - 1))]:.0f}  max {latencies[-1]:.0f}"
    )


if __name__ == "__main__":
    main()
