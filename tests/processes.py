"""Processes seen through /proc: what a test started, what listens, what is left running.
For the tests that kill the owner of a browser and look for what survived it."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


@contextlib.contextmanager
def owner(code: str) -> Iterator[tuple[subprocess.Popen[str], Any]]:
    """Python `code` run in a fresh interpreter until it prints its first line of JSON:
    (the process, what it printed). The process is killed on the way out if still running."""
    process = subprocess.Popen(
        [sys.executable, "-c", code], stdout=subprocess.PIPE, text=True, cwd=ROOT
    )
    try:
        assert process.stdout is not None
        yield process, json.loads(process.stdout.readline())
    finally:
        if process.poll() is None:
            process.kill()
        process.wait()


def kill(process: subprocess.Popen[str], signal: int, timeout: float = 60) -> None:
    """Send `signal` and wait for the process to exit."""
    os.kill(process.pid, signal)
    process.wait(timeout=timeout)


def descendants(root: int) -> set[int]:
    """Every process under `root`, children of children included."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except OSError:
                continue
            children.setdefault(ppid, []).append(int(entry.name))
    found: set[int] = set()
    todo = [root]
    while todo:
        for child in children.get(todo.pop(), []):
            found.add(child)
            todo.append(child)
    return found


def chromium(pids: set[int]) -> set[int]:
    """The Chromium processes among `pids`."""
    found = set()
    for pid in pids:
        with contextlib.suppress(OSError):
            if b"chrom" in Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[0]:
                found.add(pid)
    return found


def browser_roots(pids: set[int]) -> set[int]:
    """The browsers among Chromium processes `pids`: those whose parent is none of them
    (a browser's zygotes, renderers and helpers are its descendants)."""

    def parent(pid: int) -> int:
        try:
            return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
        except OSError:
            return 0

    return {pid for pid in pids if parent(pid) not in pids}


def listening_tcp(pids: set[int]) -> list[tuple[int, int]]:
    """(pid, port) of every TCP socket one of `pids` listens on."""
    listening: dict[str, int] = {}
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with contextlib.suppress(OSError):
            for row in Path(table).read_text().splitlines()[1:]:
                cols = row.split()
                if cols[3] == "0A":  # LISTEN
                    listening[cols[9]] = int(cols[1].rsplit(":", 1)[1], 16)
    found = []
    for pid in pids:
        with contextlib.suppress(OSError):
            for fd in Path(f"/proc/{pid}/fd").iterdir():
                with contextlib.suppress(OSError):
                    link = os.readlink(fd)
                    inode = link[len("socket:[") : -1] if link.startswith("socket:[") else ""
                    if inode in listening:
                        found.append((pid, listening[inode]))
    return found


def running(pid: int) -> bool:
    """`pid` exists and is not a zombie (a zombie has exited)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def still_running(pids: set[int], timeout: float = 20.0) -> set[int]:
    """Which of `pids` still run after waiting up to `timeout` seconds for all to exit."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not any(running(p) for p in pids):
            return set()
        time.sleep(0.2)
    return {p for p in pids if running(p)}
