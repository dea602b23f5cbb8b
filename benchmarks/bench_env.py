"""Speed of WebTask-v0 against the raw browser floor, measured side by side in one run.

    .venv/bin/python benchmarks/bench_env.py [--quick] [--repeats N] [--json] [--peers]

The floor is what a step driven through Playwright's page API pays on this machine: one
`mouse.click` plus one `page.evaluate` on the same page (the runtime's own calls take the
page's CDP session, the row `reference: CDP round trip`). Every figure is a median over
`--repeats` runs, taken in the same process, on the shop listing page (seed 0), after a
warm-up.

`--peers` also runs, in the same invocation and after our own figures, the peer benchmarks
in `benchmarks/peers/` — MiniWoB++ (`miniwob`, Selenium) and BrowserGym (`browsergym-miniwob`,
Playwright) on `click-button`, each with its own virtualenv's python (create them with
`benchmarks/setup_peers`; a peer whose venv is missing is skipped with a note) — and prints one
side-by-side table. The machine's load average is recorded with the figures.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

from webfactory_env.bench import FLOOR, SIZES, run, table

BENCH_DIR = Path(__file__).resolve().parent
# peer name -> (its virtualenv under benchmarks/, its script under benchmarks/peers/)
PEERS = {
    "miniwob": (".venv-miniwob", "miniwob_bench.py"),
    "browsergym": (".venv-browsergym", "browsergym_bench.py"),
}
PEER_TIMEOUT_S = 1800


def note(msg: str) -> None:
    print(f"bench_env: {msg}", file=sys.stderr, flush=True)


def run_peer(name: str, repeats: int) -> dict | None:
    """Run one peer's benchmark in its own venv; None (with a note) if it can't run."""
    venv, script = PEERS[name]
    python = BENCH_DIR / venv / "bin" / "python"
    if not python.exists():
        note(f"skipping {name}: {python} is missing (run benchmarks/setup_peers {name})")
        return None
    cmd = [str(python), str(BENCH_DIR / "peers" / script), "--repeats", str(repeats)]
    note(f"running peer {name}: {' '.join(cmd)}")
    try:
        proc = subprocess.run(
            cmd, capture_output=True, text=True, timeout=PEER_TIMEOUT_S, check=False
        )
    except subprocess.TimeoutExpired:
        note(f"skipping {name}: no result within {PEER_TIMEOUT_S} s")
        return None
    lines = proc.stdout.strip().splitlines()
    if proc.returncode != 0 or not lines:
        tail = "\n  ".join(proc.stderr.strip().splitlines()[-5:])
        note(f"skipping {name}: exit status {proc.returncode}\n  {tail}")
        return None
    return json.loads(lines[-1])


def run_peers(repeats: int) -> dict[str, dict]:
    peers = {}
    for name in PEERS:
        result = run_peer(name, repeats)
        if result is not None:
            peers[name] = result
    return peers


def _ours(results: dict[str, float], op: str, mode: str, prefer: str) -> float | None:
    """Our figure for `op` ("step"/"reset") in `mode`, preferring the `prefer` variant."""
    keys = [k for k in results if k.startswith(f"{op} {mode}:")]
    preferred = [k for k in keys if k.startswith(f"{op} {mode}: {prefer}")]
    key = (preferred or keys or [None])[0]
    return results[key] if key else None


def peer_table(results: dict[str, float], peers: dict[str, dict], load: dict) -> str:
    """One table: our step/reset figures and the floor beside each peer's, with ratios."""
    columns: list[tuple[str, dict]] = []
    for name, peer in peers.items():
        if "median_ms_defaults" in peer:  # BrowserGym: its fastest settings, then as shipped
            columns.append((f"{name} fast", peer["median_ms"]))
            columns.append((f"{name} shipped", peer["median_ms_defaults"]))
        else:
            columns.append((name, peer["median_ms"]))
    floor = results[FLOOR]
    rows = [
        ("step (ours: tokens, select)", _ours(results, "step", "tokens", "select"), "step"),
        (
            "step+pixels (ours: tokens+pixels, select)",
            _ours(results, "step", "tokens+pixels", "select"),
            "step_pixels",
        ),
        ("reset (ours: tokens, new seed)", _ours(results, "reset", "tokens", "new seed"), "reset"),
        (
            "reset+pixels (ours: tokens+pixels, new seed)",
            _ours(results, "reset", "tokens+pixels", "new seed"),
            "reset_pixels",
        ),
        (FLOOR, floor, None),
    ]

    def cell(ms: float | None, ratio: float | None) -> str:
        if ms is None:
            return f"{'-':>9}  {'':>6}"
        return f"{ms:9.1f}  {ratio:5.2f}x" if ratio is not None else f"{ms:9.1f}  {'':>6}"

    width = max(len(r[0]) for r in rows)
    colw = max([17, *(len(label) for label, _ in columns)])
    head = f"{'median ms':<{width}}  {'ours':>9}  {'':>6}"
    head += "".join(f"  {label:>{colw}}" for label, _ in columns)
    sub = f"{'':<{width}}  {'ms':>9}  {'×floor':>6}"
    peer_sub = f"{'ms':>9}  {'×ours':>6}"
    sub += f"  {peer_sub:>{colw}}" * len(columns)
    lines = [head, sub]
    for label, ours, key in rows:
        line = f"{label:<{width}}  " + cell(ours, ours / floor if ours else None)
        for _, medians in columns:
            ms = medians.get(key) if key else None
            ratio = ms / ours if ms is not None and ours else None
            line += "  " + cell(ms, ratio).rjust(colw)
        lines.append(line)
    lines.append("")
    lines.append("×ours = peer ms / our ms for the same row (above 1: the peer is slower).")
    for name, peer in peers.items():
        lines.append(
            f"{name} {peer.get('version')} ({peer.get('task')}; {peer.get('driver')}; "
            f"{peer.get('browser')})"
        )
        lines.append(f"  step: {peer.get('step_includes')}")
        lines.append(f"  reset: {peer.get('reset_includes')}")
        if peer.get("pixels_always_on"):
            lines.append(
                "  always returns a screenshot + AXTree + DOM: its no-pixel rows repeat the "
                "pixel figures"
            )
        for cfg, desc in peer.get("configs", {}).items():
            lines.append(f"  {cfg}: {desc}")
    lines.append(
        f"load average (1 min) before / after: {load['before'][0]:.2f} / {load['after'][0]:.2f}"
        f" on {os.cpu_count()} CPUs"
    )
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="every table in a few minutes")
    ap.add_argument("--repeats", type=int, help="timed runs per median (default 50; quick 7)")
    ap.add_argument("--json", action="store_true")
    ap.add_argument(
        "--peers",
        action="store_true",
        help="also run the MiniWoB++ and BrowserGym benchmarks (benchmarks/peers/) in their "
        "own venvs, after ours, and print one side-by-side table",
    )
    args = ap.parse_args()
    repeats, steps, resets = SIZES["quick" if args.quick else "full"]
    repeats = args.repeats or repeats
    load = os.getloadavg()
    note(f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} on {os.cpu_count()} CPUs")
    ours = run(repeats, trainer_steps=steps, resets=resets)
    results: dict[str, float] = ours["median_ms"]
    peers = run_peers(repeats) if args.peers else {}
    load = {"before": ours["loadavg"]["before"], "after": list(os.getloadavg())}
    if args.json:
        out: dict[str, object] = dict(ours)
        if args.peers:
            out |= {"peers": peers, "loadavg": load}
        print(json.dumps(out, indent=2))
        return
    print(table(ours))
    if args.peers:
        print()
        print(peer_table(results, peers, load))


if __name__ == "__main__":
    main()
