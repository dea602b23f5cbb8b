"""Finding, launching and sharing Chromium: one browser per process, reused by every env."""

from __future__ import annotations

import atexit
import contextlib
import logging
import os
import shutil
import subprocess
import threading
import weakref
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from webfactory_env.core.errors import BrowserNotFoundError

if TYPE_CHECKING:
    from playwright.sync_api import Browser, BrowserContext, Playwright

log = logging.getLogger(__name__)

SYSTEM_CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")

# Playwright's flags alone do not stop Chromium's own DNS look-ups (for Google services
# and for the fake origin); mapping every host to NOTFOUND does, while loopback stays
# reachable for `webfactory serve` and the executor service.
NO_DNS = "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE localhost , EXCLUDE 127.0.0.1"

# Chromium honours only the last `--disable-features`, and ours comes after Playwright's,
# so this list repeats the ones Playwright disables that matter here, plus our own.
DISABLED_FEATURES = (
    # Playwright's, for routes and navigations that behave like plain HTTP:
    "AvoidUnnecessaryBeforeUnloadCheckSync",
    "DestroyProfileOnBrowserClose",
    "HttpsUpgrades",
    "HttpsFirstBalancedModeAutoEnable",
    "PaintHolding",
    "ThirdPartyStoragePartitioning",
    "AvoidCorsURLLoaderRestartOnRedirect",
    "LensOverlay",
    # Services that would phone home (the host rules stop them anyway):
    "Translate",
    "MediaRouter",
    "OptimizationHints",
    "AutofillServerCommunication",
    "NetworkTimeServiceQuerying",
    "AimEnabled",
    "PreconnectToSearch",
    # Headless Chromium preloads the omnibox popup's WebUI in a renderer of its own that
    # spends 5-15% of a core while the browser is idle: a tax on every step on 2 cores.
    "WebUIOmniboxPopup",
    "WebUIOmniboxAimPopup",
    "WebUIOmniboxFullPopup",
)
BASE_ARGS = (
    "--disable-gpu",
    NO_DNS,
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-quic",
    "--disable-default-apps",
    "--disable-extensions",
    "--disable-features=" + ",".join(DISABLED_FEATURES),
    "--no-first-run",
    "--no-default-browser-check",
    "--metrics-recording-only",
    "--mute-audio",
    "--hide-scrollbars",
    "--font-render-hinting=none",
    "--force-color-profile=srgb",
    # Screenshots otherwise wait for the next 60 Hz frame.
    "--disable-frame-rate-limit",
    "--disable-gpu-vsync",
    # WebRTC sends STUN/TURN over UDP to any IP, past request interception and the host
    # rules: allow it only through a proxy (and the env's contexts get one that does not
    # exist, see `session.NO_PROXY`).
    "--webrtc-ip-handling-policy=disable_non_proxied_udp",
)


@dataclass(frozen=True)
class BrowserConfig:
    """How to get a Chromium. `executable` overrides discovery; `cdp_endpoint` connects to
    an already running one instead (a `BrowserServer`), so that envs in several processes
    share one browser."""

    executable: str | None = None
    headless: bool = True
    extra_args: tuple[str, ...] = field(default_factory=tuple)
    cdp_endpoint: str | None = None


def find_chromium(explicit: str | None = None) -> str:
    """Chromium to launch: explicit path, $WEBFACTORY_CHROMIUM, Playwright's, then PATH."""
    env = os.environ.get("WEBFACTORY_CHROMIUM")
    for label, candidate in (("executable", explicit), ("WEBFACTORY_CHROMIUM", env)):
        if candidate:
            if Path(candidate).is_file() and os.access(candidate, os.X_OK):
                return candidate
            raise BrowserNotFoundError(
                f"{label} points to {candidate!r}, which is not an executable file."
                " Fix the path or unset it to use the Chromium found on PATH."
            )
    managed = _playwright_managed_chromium()
    if managed:
        return managed
    for name in SYSTEM_CHROMIUM_NAMES:
        found = shutil.which(name)
        if found:
            return found
    raise BrowserNotFoundError(
        "no Chromium found. Run ./scripts/setup (it installs Debian's `chromium`), or"
        " `sudo apt-get install chromium fonts-liberation`, or set WEBFACTORY_CHROMIUM to"
        " the path of a Chromium or Chrome executable."
    )


def _playwright_managed_chromium() -> str | None:
    root = os.environ.get("PLAYWRIGHT_BROWSERS_PATH") or str(
        Path.home() / ".cache" / "ms-playwright"
    )
    base = Path(root)
    if not base.is_dir():
        return None
    for pattern in (
        "chromium-*/chrome-linux*/chrome",
        "chromium_headless_shell-*/*/headless_shell",
    ):
        hits = sorted(base.glob(pattern), reverse=True)
        if hits:
            return str(hits[0])
    return None


def launch_args(config: BrowserConfig) -> list[str]:
    """Our flags plus the user's. Chromium reads only the last `--disable-features`, so
    every list (ours and any in `extra_args`) is merged into one flag, placed last."""
    args = [a for a in BASE_ARGS if not a.startswith(_DISABLE)]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        args.append("--no-sandbox")  # Chromium refuses to start its sandbox as root
    features = list(DISABLED_FEATURES)
    for arg in config.extra_args:
        if arg.startswith(_DISABLE):
            features += [f for f in arg[len(_DISABLE) :].split(",") if f and f not in features]
        else:
            args.append(arg)
    args.append(_DISABLE + ",".join(features))
    return args


_DISABLE = "--disable-features="


class SharedBrowser:
    """The process-wide Playwright driver and Chromium, started on first use.

    Every env's context lives in this one browser; a browser that died is relaunched on
    the next `acquire`. Playwright's sync API is bound to the thread that started it.
    """

    def __init__(self) -> None:
        self._playwright: Playwright | None = None
        self._browser: Browser | None = None
        self._config: BrowserConfig | None = None
        self._thread: int | None = None
        self.launches = 0
        self.sandboxed = False
        self.sandbox_note = ""
        # Contexts of envs garbage-collected where Playwright cannot be called (another
        # thread, or inside Playwright's own dispatcher): closed on the next `acquire`.
        self._orphans: list[BrowserContext] = []

    def close_context(self, context: BrowserContext) -> None:
        """Close `context` now if Playwright may be called here, else at the next `acquire`."""
        import greenlet

        # A sync Playwright call from inside its dispatcher greenlet would wait on itself.
        if threading.get_ident() == self._thread and greenlet.getcurrent().parent is None:
            with contextlib.suppress(Exception):  # already gone: nothing to clean
                context.close()
        else:
            self._orphans.append(context)

    def close_orphans(self) -> None:
        """Close the contexts `close_context` had to leave for later."""
        while self._orphans:
            with contextlib.suppress(Exception):
                self._orphans.pop().close()

    def acquire(self, config: BrowserConfig | None = None) -> Browser:
        config = config or BrowserConfig()
        if self._thread is not None and self._thread != threading.get_ident():
            raise RuntimeError(
                "webfactory envs in one process must be used from one thread (Playwright's"
                " sync API is thread-bound); use a vector env with subprocesses instead."
            )
        self.close_orphans()
        if self._browser is not None and self._browser.is_connected() and config == self._config:
            return self._browser
        if self._browser is not None:
            self._close_browser()
        if self._playwright is None:
            from playwright.sync_api import sync_playwright

            self._playwright = sync_playwright().start()
            self._thread = threading.get_ident()
        if config.cdp_endpoint:
            self._browser = self._playwright.chromium.connect_over_cdp(config.cdp_endpoint)
            self._config = config
            self.launches += 1
            return self._browser
        executable = find_chromium(config.executable)
        args = launch_args(config)
        self.sandboxed = "--no-sandbox" not in args
        try:
            self._browser = self._launch(executable, config, args)
        except Exception as exc:
            if not self.sandboxed:
                raise
            # No usable sandbox here (no user namespaces, say): run without, and say so.
            self.sandbox_note = f"unavailable ({type(exc).__name__}); running with --no-sandbox"
            self.sandboxed = False
            self._browser = self._launch(executable, config, [*args, "--no-sandbox"])
        self._config = config
        self.launches += 1
        log.debug("launched %s (%s)", executable, self._browser.version)
        return self._browser

    @property
    def browser(self) -> Browser | None:
        return self._browser

    def _close_browser(self) -> None:
        self._orphans.clear()  # closed with their browser
        browser, self._browser = self._browser, None
        if browser is not None:
            with contextlib.suppress(Exception):  # already gone: nothing to clean
                browser.close()

    def close(self) -> None:
        self._close_browser()
        if self._playwright is not None:
            with contextlib.suppress(Exception):  # already gone: nothing to clean
                self._playwright.stop()
            self._playwright = None
            self._thread = None

    def _launch(self, executable: str, config: BrowserConfig, args: list[str]) -> Browser:
        assert self._playwright is not None
        return self._playwright.chromium.launch(
            executable_path=executable,
            headless=config.headless,
            args=args,
            chromium_sandbox=False,
            handle_sigint=False,
            handle_sigterm=False,
            handle_sighup=False,
        )

    def forget(self) -> None:
        """In a forked child: drop the parent's driver without touching it (it is the
        parent's); the child starts its own on first use."""
        self._playwright = None
        self._browser = None
        self._config = None
        self._thread = None
        self._orphans = []


_shared = SharedBrowser()
atexit.register(_shared.close)
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_shared.forget)


def shared_browser() -> SharedBrowser:
    return _shared


class BrowserServer:
    """One Chromium that envs in other processes connect to (over CDP on 127.0.0.1).

        with BrowserServer() as server:
            envs = gymnasium.make_vec("WebTask-v0", num_envs=4, vectorization_mode="async",
                                      browser=server.config)

    Each env still gets its own browser context (cookies, storage and routes are per
    context); only the browser process is shared. Closing the server kills it.
    """

    def __init__(self, config: BrowserConfig | None = None, timeout_s: float = 20.0) -> None:
        import tempfile

        config = config or BrowserConfig()
        self._profile = tempfile.mkdtemp(prefix="webfactory-chromium-")
        args = [
            find_chromium(config.executable),
            "--headless=new" if config.headless else "--no-startup-window",
            "--remote-debugging-address=127.0.0.1",
            "--remote-debugging-port=0",
            f"--user-data-dir={self._profile}",
            *launch_args(config),
            "about:blank",
        ]
        self.process = subprocess.Popen(
            args,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
        # Its own session outlives us: kill it when this object is collected or at exit,
        # even if nobody calls `close()`.
        self._finalizer = weakref.finalize(self, _kill_server, self.process, self._profile)
        self.endpoint = self._read_endpoint(timeout_s)
        self.config = BrowserConfig(cdp_endpoint=self.endpoint, headless=config.headless)

    def _read_endpoint(self, timeout_s: float) -> str:
        import re
        import select
        import time

        assert self.process.stderr is not None
        deadline = time.monotonic() + timeout_s
        seen = b""
        while time.monotonic() < deadline:
            ready, _, _ = select.select([self.process.stderr], [], [], 0.2)
            if ready:
                chunk = os.read(self.process.stderr.fileno(), 4096)
                if not chunk:
                    break
                seen += chunk
                m = re.search(rb"DevTools listening on (ws://\S+)", seen)
                if m:
                    return m.group(1).decode()
        self.close()
        raise BrowserNotFoundError(
            "the shared Chromium did not start (no DevTools endpoint): "
            + seen.decode(errors="replace")[-500:]
        )

    def close(self) -> None:
        self._finalizer()

    def __enter__(self) -> BrowserServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _kill_server(process: subprocess.Popen[bytes], profile: str) -> None:
    """Stop a `BrowserServer`'s Chromium (its whole process group) and remove its profile."""
    import signal

    if process.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=5)
        except Exception:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=5)
    if process.stderr is not None:
        process.stderr.close()
    shutil.rmtree(profile, ignore_errors=True)
