"""Bounding every browser call: timers on Playwright's event loop, and killing by pid.

Playwright's sync API has no timeout for `evaluate`, mouse input, CDP calls, opening or
closing a context: a page stuck in a script, a Chromium frozen by SIGSTOP or a driver that
stopped answering would block the caller for ever. While a sync call waits, Playwright runs
its asyncio loop in the calling thread, so a timer on that loop still fires; `Guard` arms
two:

1. after the call's limit, `on_hang` — close the page from the browser side, which fails
   the call when only a renderer is stuck (the browser and other envs live on);
2. `KILL_AFTER_S` later, if the call still has not returned, `on_frozen` — kill Chromium
   (its whole process group) and the Playwright driver by pid: the driver's pipe closes,
   Playwright fails every call in flight, and the next reset starts both afresh.

Process facts come from /proc (Linux); elsewhere nothing is killed and stage 1 is all.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

log = logging.getLogger(__name__)

# How long a call may go on after its page was asked to close before the browser and the
# driver are killed: closing a page whose renderer spins takes well under a second.
KILL_AFTER_S = 1.0


class Guard:
    """The timers of one bounded call (see the module docstring). `fired`: the call ran
    past its limit; `killed`: the browser and driver were killed for it."""

    def __init__(
        self,
        loop: asyncio.AbstractEventLoop,
        timeout_s: float,
        on_hang: Callable[[], None],
        on_frozen: Callable[[], None],
    ) -> None:
        self.fired = False
        self.killed = False
        self._loop = loop
        self._on_hang = on_hang
        self._on_frozen = on_frozen
        self._timers = [loop.call_later(timeout_s, self._hang)]

    def _hang(self) -> None:
        self.fired = True
        self._timers.append(self._loop.call_later(KILL_AFTER_S, self._kill))
        try:
            self._on_hang()
        except Exception:  # Playwright internals moved: stage 2 still comes
            log.exception("closing a hung page failed")

    def _kill(self) -> None:
        self.killed = True
        log.warning("a browser call did not return; killing Chromium and the driver")
        self._on_frozen()

    def cancel(self) -> None:
        for timer in self._timers:
            timer.cancel()


# ---------------------------------------------------------------------- processes
def children_of(pid: int) -> list[int]:
    """Direct children of `pid` (from /proc; empty where there is none)."""
    found = []
    try:
        entries = os.listdir("/proc")
    except OSError:
        return []
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
            found.append(int(entry))
    return found


def cmdline(pid: int) -> list[str]:
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return []
    return [part.decode(errors="replace") for part in raw.split(b"\0") if part]


def alive(pid: int) -> bool:
    """`pid` exists and is not a zombie.

    Asked once per reset about the driver, so it must be cheap: reading /proc/<pid>/stat
    of a busy Node.js process was seen to take 12 ms (the kernel walks its threads and
    memory map). For a child of ours (the driver is one), `waitid` with WNOWAIT says
    whether it exited without reaping it; for anyone else, /proc says."""
    try:
        exited = os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
    except ChildProcessError:
        pass  # not our child (or already reaped): ask /proc
    except OSError:
        return False
    else:
        return exited is None
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


@dataclass
class Processes:
    """The pids of the shared Playwright driver and the Chromium it launched."""

    driver: int | None = None
    browser: int | None = None

    def find_browser(self) -> None:
        """The Chromium browser process: the driver's child that is no helper (`--type=`)."""
        if self.driver is None:
            return
        for pid in children_of(self.driver):
            args = cmdline(pid)
            if args and not any(a.startswith("--type=") for a in args):
                self.browser = pid

    def kill(self) -> None:
        """SIGKILL Chromium's process group (Playwright starts it as a group leader, so
        renderers and helpers go too, stopped or not) and the driver."""
        if self.browser is not None and alive(self.browser):
            try:
                same_group = os.getpgid(self.browser) == self.browser
            except OSError:
                same_group = False
            with contextlib.suppress(OSError):  # gone meanwhile
                if same_group and self.browser != os.getpgid(0):
                    os.killpg(self.browser, signal.SIGKILL)
                else:
                    os.kill(self.browser, signal.SIGKILL)
        if self.driver is not None and alive(self.driver):
            with contextlib.suppress(OSError):
                os.kill(self.driver, signal.SIGKILL)

    def driver_alive(self) -> bool:
        return self.driver is None or alive(self.driver)
