"""A bounded load test of the web-executor service on loopback, with a stalled client.

    .venv/bin/python benchmarks/load_executor.py [--clients 50] [--health 20] [--workers 4]
                                                 [--payloads 40] [--json OUT]

Starts `webfactory executor serve` on a free loopback port, opens two stalled connections
(one sent half a request head, one nothing), then runs `--clients` concurrent clients that
each send `--health` GET /healthz while `--workers` clients send `--payloads` POST /execute
in all (navigate, fill one field, submit, snapshot). It prints how many health checks were
answered, their p50/p99/max latency, the same for the payloads, what became of the stalled
connections, and the machine's load average before and after. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

PAYLOAD = {
    "url": "https://site.webfactory.test/track",
    "fields": [{"selector": "[name=number]", "value": "TRK000000000"}],
    "submit": {"selector": "button[type=submit]"},
    "snapshot_selector": "main",
}


def start() -> tuple[subprocess.Popen[str], str]:
    from webfactory_env.service import _needed_after_drop, closed_to

    user: list[str] = []
    if os.geteuid() == 0:
        import pwd

        nobody = pwd.getpwnam("nobody")
        if any(closed_to(nobody, p, mode) for p, mode in _needed_after_drop()):
            user = ["--user", "root"]  # this checkout is closed to nobody: keep root
    env = {**os.environ, "WEB_EXECUTOR_BIND_ADDR": "127.0.0.1:0"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "webfactory_env.cli", "executor", "serve", *user],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=env,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    return proc, line.strip().rsplit(" ", 1)[-1].rstrip("/")


def request(url: str, body: dict[str, Any] | None = None) -> tuple[float, int]:
    data = json.dumps(body).encode() if body is not None else None
    t0 = time.perf_counter()
    try:
        with urllib.request.urlopen(urllib.request.Request(url, data=data), timeout=60) as r:
            r.read()
            status = r.status
    except urllib.error.HTTPError as err:
        status = err.code
    except OSError:
        status = 0
    return (time.perf_counter() - t0) * 1000, status


def percentiles(ms: list[float]) -> dict[str, float]:
    if not ms:
        return {"p50": 0.0, "p99": 0.0, "max": 0.0}
    ordered = sorted(ms)
    p99 = ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]
    return {
        "p50": round(statistics.median(ordered), 1),
        "p99": round(p99, 1),
        "max": round(ordered[-1], 1),
    }


def stalled_connections(url: str) -> list[socket.socket]:
    host, port = url.removeprefix("http://").split(":")
    half = socket.create_connection((host, int(port)))
    half.sendall(b"POST /execute HTTP/1.1\r\nHost: x\r\nContent-Le")
    silent = socket.create_connection((host, int(port)))
    return [half, silent]


def fate(sock: socket.socket) -> str:
    """What the server did with a stalled connection (read until it closes, 60 s at most)."""
    sock.settimeout(60)
    try:
        data = b"".join(iter(lambda: sock.recv(65536), b""))
    except OSError as exc:
        return f"still open ({type(exc).__name__})"
    finally:
        sock.close()
    return data.split(b"\r\n", 1)[0].decode(errors="replace") + ", then closed"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--clients", type=int, default=50, help="concurrent health-check clients")
    ap.add_argument("--health", type=int, default=20, help="health checks per client")
    ap.add_argument("--workers", type=int, default=4, help="concurrent /execute clients")
    ap.add_argument("--payloads", type=int, default=40, help="POST /execute in all")
    ap.add_argument("--json", type=Path, help="also write the figures here")
    args = ap.parse_args(argv)
    load_before = os.getloadavg()
    proc, url = start()
    try:
        request(f"{url}/execute", PAYLOAD)  # warm-up: the page and the site's first render
        stalled = stalled_connections(url)
        health: list[tuple[float, int]] = []
        payloads: list[tuple[float, int]] = []
        lock = threading.Lock()

        def health_client(_: int) -> None:
            for _ in range(args.health):
                result = request(f"{url}/healthz")
                with lock:
                    health.append(result)

        def payload_client(n: int) -> None:
            for _ in range(n):
                result = request(f"{url}/execute", PAYLOAD)
                with lock:
                    payloads.append(result)

        share = [
            args.payloads // args.workers + (i < args.payloads % args.workers)
            for i in range(args.workers)
        ]
        t0 = time.perf_counter()
        with ThreadPoolExecutor(args.clients + args.workers) as pool:
            jobs = [pool.submit(payload_client, n) for n in share]
            jobs += [pool.submit(health_client, i) for i in range(args.clients)]
            for job in jobs:
                job.result()
        elapsed = time.perf_counter() - t0
        fates = [fate(sock) for sock in stalled]
    finally:
        proc.terminate()
        proc.wait(timeout=60)
    load_after = os.getloadavg()
    answered = sum(1 for _, status in health if status == 200)
    ok = sum(1 for _, status in payloads if status == 200)
    result = {
        "clients": args.clients,
        "health_checks": len(health),
        "health_answered": answered,
        "health_ms": percentiles([ms for ms, _ in health]),
        "payloads": len(payloads),
        "payloads_ok": ok,
        "payload_statuses": {
            str(code): sum(1 for _, status in payloads if status == code)
            for code in sorted({status for _, status in payloads})
        },
        "payload_ms": percentiles([ms for ms, _ in payloads]),
        "payloads_per_s": round(len(payloads) / elapsed, 2),
        "stalled_connections": fates,
        "seconds": round(elapsed, 1),
        "load_average_before": load_before,
        "load_average_after": load_after,
        "cores": os.cpu_count(),
    }
    h, p = result["health_ms"], result["payload_ms"]
    print(
        f"{args.clients} health clients + {args.workers} payload clients + 2 stalled sockets,"
        f" {elapsed:.1f} s; load average {load_before[0]:.1f} before, {load_after[0]:.1f} after,"
        f" {os.cpu_count()} cores"
    )
    print(
        f"GET /healthz:  {answered} of {len(health)} answered 200;"
        f" p50 {h['p50']} ms, p99 {h['p99']} ms, max {h['max']} ms"
    )
    print(
        f"POST /execute: {ok} of {len(payloads)} answered 200 ({result['payloads_per_s']}/s,"
        f" statuses {result['payload_statuses']});"
        f" p50 {p['p50']} ms, p99 {p['p99']} ms, max {p['max']} ms"
    )
    print(f"stalled connections: {'; '.join(fates)}")
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
