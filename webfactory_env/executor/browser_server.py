"""One Chromium shared by envs in several processes, reachable by them only, and gone with
the process that started it.

`BrowserServer` runs Playwright's browser server (`browser_server.js`, on Playwright's own
Node.js): Chromium is launched by Playwright with DevTools over a pipe, so it listens on no
port at all, and the server that multiplexes the envs' connections listens on a Unix socket
in a directory only this user can open (mode 0700), under a random path (a token). No other
user can reach it, and nothing on 127.0.0.1 answers for it.

However its owner dies — `close()`, garbage collection, exit, SIGTERM, SIGKILL — the browser
goes too: the server's stdin is a pipe from the owner (end of file when the owner is gone)
and it watches its parent process (a forked child of the owner may hold the pipe open);
either way it closes Chromium and exits within a second. `close()` also kills what is
left by pid, Chromium's process group included.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shutil
import signal
import stat
import subprocess
import tempfile
import threading
import time
import weakref
from pathlib import Path

from webfactory_env.core.errors import BrowserNotFoundError
from webfactory_env.executor.browser import BrowserConfig, find_chromium, launch_args
from webfactory_env.executor.watchdog import alive, cmdline

SERVER_SCRIPT = Path(__file__).with_name("browser_server.js")


class BrowserServer:
    """One Chromium that envs in other processes connect to (see the module docstring).

        with BrowserServer() as server:
            envs = gymnasium.make_vec("WebTask-v0", num_envs=4, vectorization_mode="async",
                                      browser=server.config)

    Each env still gets its own browser context (cookies, storage and routes are per
    context); only the browser process is shared. `config` names the server by its socket
    and token, which stay the same across `restart()`: a server that died is started again
    where the envs will look for it. Closing the server kills it.
    """

    def __init__(self, config: BrowserConfig | None = None, timeout_s: float = 20.0) -> None:
        self._base = config or BrowserConfig()
        self._timeout_s = timeout_s
        self.restarts = 0
        self.browser_pid: int | None = None
        self._dir = tempfile.mkdtemp(prefix="wf-browser-")  # mode 0700: ours alone
        self._socket = os.path.join(self._dir, "s")
        self._token = secrets.token_hex(16)
        self.config = BrowserConfig(
            server_endpoint=f"ws+unix://{self._socket}:/{self._token}",
            headless=self._base.headless,
            pixels=self._base.pixels,
        )
        # Nobody calls close(): at collection or exit, the browser goes and the directory too.
        self._finalizer = weakref.finalize(self, _remove_dir, self._dir)
        self._start()

    def _start(self) -> None:
        from playwright._impl._driver import compute_driver_executable, get_driver_env

        node, cli = compute_driver_executable()
        _private_dir(self._dir)  # the last server removed it on its way out
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self._socket)  # left by a server that was killed
        self.process = subprocess.Popen(
            [node, str(SERVER_SCRIPT)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=get_driver_env(),
            # Its own session: a Ctrl-C meant for the program does not stop the browser
            # under it; the program's own exit does (see the module docstring).
            start_new_session=True,
        )
        self._stopper = weakref.finalize(self, _stop, self.process, None)
        settings = {
            "package": str(Path(cli).parent),
            "executable": find_chromium(self._base.executable),
            "headless": self._base.headless,
            "args": launch_args(self._base),
            "dir": self._dir,
            "socket": self._socket,
            "token": f"/{self._token}",
        }
        assert self.process.stdin is not None
        self.process.stdin.write((json.dumps(settings) + "\n").encode())
        self.process.stdin.flush()
        self.browser_pid = self._wait_ready()
        self._stopper.detach()
        self._stopper = weakref.finalize(self, _stop, self.process, self.browser_pid)
        # Playwright logs to stderr now and then: a pipe nobody reads fills up (64 KiB) and
        # then blocks the server in the middle of a long run. Read it to the end, and drop it.
        threading.Thread(target=_drain, args=(self.process,), daemon=True).start()

    def _wait_ready(self) -> int:
        """The browser's pid, once the server says it listens."""
        import select

        assert self.process.stdout is not None and self.process.stderr is not None
        deadline = time.monotonic() + self._timeout_s
        seen = b""
        while time.monotonic() < deadline and self.process.poll() is None:
            ready, _, _ = select.select([self.process.stdout], [], [], 0.2)
            if ready:
                seen += os.read(self.process.stdout.fileno(), 4096)
                if seen.startswith(b"ready ") and seen.endswith(b"\n"):
                    return int(seen.split()[1])
        _stop(self.process, None)
        problem = self.process.stderr.read().decode(errors="replace").strip()[-500:]
        raise BrowserNotFoundError(
            f"the shared Chromium did not start: {problem or 'no answer from its server'}"
        )

    @property
    def alive(self) -> bool:
        return self.process.poll() is None

    def restart(self) -> None:
        """Start Chromium again at the same socket and token (it died, or was killed): envs
        connected to the old one fail their next step and reconnect at their next reset."""
        self._stopper()
        self.restarts += 1
        self._start()

    def close(self) -> None:
        self._stopper()
        self._finalizer()

    def __enter__(self) -> BrowserServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _stop(process: subprocess.Popen[bytes], browser: int | None) -> None:
    """Stop a server and its Chromium: end its stdin (it closes the browser and exits),
    then kill by pid whatever is left, the browser's process group included."""
    with contextlib.suppress(OSError, ValueError):
        if process.stdin is not None:
            process.stdin.close()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=10)
    # Chromium exits with the server (its DevTools pipe closes), unless it hung: then its
    # process group goes, if that pid is still a Chromium (and not a newcomer's pid).
    if browser is not None and alive(browser) and "chrom" in " ".join(cmdline(browser)[:1]):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(browser, signal.SIGKILL)


def _private_dir(path: str) -> None:
    """`path` as a directory only this user can open: made afresh (a name nobody else
    can have taken meanwhile, or it is refused), or ours already."""
    try:
        os.mkdir(path, 0o700)
        return
    except FileExistsError:
        pass
    info = os.lstat(path)
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.geteuid() or info.st_mode & 0o077:
        raise BrowserNotFoundError(
            f"{path} is not a private directory of this user any more; the shared Chromium"
            " is not started there"
        )


def _remove_dir(path: str) -> None:
    shutil.rmtree(path, ignore_errors=True)


def _drain(process: subprocess.Popen[bytes]) -> None:
    """Read a server's stderr until it exits (then close it)."""
    stream = process.stderr
    if stream is None:
        return
    with contextlib.suppress(OSError, ValueError), stream:
        while os.read(stream.fileno(), 65536):
            pass
