"""Finding, launching and sharing Chromium: one browser per process, reused by every env."""

from __future__ import annotations

import atexit
import contextlib
import dataclasses
import logging
import os
import shutil
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from webfactory_env.core.errors import (
    BrowserCrashedError,
    BrowserNotFoundError,
    WrongThreadError,
)
from webfactory_env.executor import direct
from webfactory_env.executor.watchdog import Guard, Processes, children_of, cmdline

if TYPE_CHECKING:
    from playwright.sync_api import Browser, BrowserContext, Playwright

log = logging.getLogger(__name__)
T = TypeVar("T")

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
# The compositor runs on the renderer's main thread, only when asked to: nothing is drawn.
NO_FRAMES = "--disable-threaded-compositing"
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
    # Keys (PageDown, Space, arrows) otherwise scroll with an animation that runs on the wall
    # clock, so what a step observes would depend on how fast the machine is.
    "--disable-smooth-scrolling",
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
    """How to get a Chromium. `executable` overrides discovery; `server_endpoint` connects to
    a `BrowserServer` (`executor.browser_server`) instead, so that envs in several processes
    share one browser; `cdp_endpoint` to a Chromium of your own over DevTools.

    `pixels=False` launches Chromium without a compositor thread (`NO_FRAMES`): pages lay
    out, run scripts and take input as before, but never draw a frame, so screenshots
    are impossible. Drawing is most of Chromium's CPU per step, which a `tokens` or `text`
    env never reads (`webfactory bench` shows both). `pixels=None` (the default) leaves it
    to the user of the browser: an env draws only when it can be asked for pixels (see
    `EnvConfig.draws`); a session, server or tool opened directly draws. Envs of one
    process share a browser that draws if any of them needs it."""

    executable: str | None = None
    headless: bool = True
    extra_args: tuple[str, ...] = field(default_factory=tuple)
    cdp_endpoint: str | None = None
    pixels: bool | None = None
    server_endpoint: str | None = None

    @property
    def draws(self) -> bool:
        """Whether a browser launched with this config draws frames."""
        return self.pixels is not False

    def launch_key(self) -> BrowserConfig:
        """This config without its frame choice: the browsers it may share."""
        return dataclasses.replace(self, pixels=None)


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
    if not config.draws:
        args.append(NO_FRAMES)
    args.append(_DISABLE + ",".join(features))
    return args


_DISABLE = "--disable-features="


def _launched_for(launched: BrowserConfig, wanted: BrowserConfig) -> bool:
    """A browser launched (or connected) with `launched` does what `wanted` asks: the same
    launch, and frames if it wants them (a browser that draws serves an env that needs
    none too; another process's browser draws as it was started)."""
    if launched.launch_key() != wanted.launch_key():
        return False
    remote = bool(launched.server_endpoint or launched.cdp_endpoint)
    return launched.draws or not wanted.draws or remote


class StepTimeoutError(BrowserCrashedError):
    """A browser call did not finish within its limit (`SessionConfig.step_timeout_ms`)."""


# Closing a context or the browser is bounded too: a frozen Chromium must not hang close().
CLOSE_TIMEOUT_MS = 5_000
# Connecting to a shared Chromium (`BrowserServer`) that is frozen must not hang a reset.
CONNECT_TIMEOUT_MS = 10_000


class SharedBrowser:
    """The process-wide Playwright driver and Chromium, started on first use.

    Every env's context lives in this one browser. A browser that died is relaunched on the
    next `acquire`, and so is the driver when it died or was killed (`bounded` kills both
    by pid when a call hangs past its limit). Sessions `join` and `leave`: when the last
    one leaves, the browser and the driver are closed. Playwright's sync API is bound to
    the thread that started it.
    """

    def __init__(self) -> None:
        self._manager: Any = None  # playwright's PlaywrightContextManager
        self._playwright: Playwright | None = None
        self._browser: Browser | None = None
        self._config: BrowserConfig | None = None
        self._thread: int | None = None
        self._claim_lock = threading.Lock()
        self.processes = Processes()
        self.dead = False  # killed by the watchdog: relaunch driver and browser on acquire
        self.users = 0
        self.launches = 0
        self.driver_starts = 0
        self.sandboxed = False
        self.sandbox_note = ""
        # Contexts of envs garbage-collected where Playwright cannot be called (another
        # thread, or inside Playwright's own dispatcher): closed on the next `acquire`.
        self._orphans: list[BrowserContext] = []
        # Browsers replaced by one launched otherwise (another env's config, or frames
        # wanted) while envs still had contexts in them: they live on for those contexts
        # and close with the last one (`close_orphans`). Closing them at once would pull
        # the page from under another env of the process.
        self._retired: list[tuple[Browser, BrowserConfig]] = []

    # ------------------------------------------------------------------ users
    def join(self) -> None:
        """A session starts using the browser."""
        self.users += 1

    def leave(self) -> None:
        """A session is done with the browser; the last one out closes it (and the driver)
        when Playwright may be called here, else it goes at the next acquire or at exit."""
        self.users = max(0, self.users - 1)
        if self.users == 0 and self._callable_here():
            self.close()

    @contextlib.contextmanager
    def keep_open(self) -> Iterator[SharedBrowser]:
        """Hold the browser open between sessions (a test session, a benchmark)."""
        self.join()
        try:
            yield self
        finally:
            self.leave()

    def _callable_here(self) -> bool:
        import greenlet

        # A sync Playwright call from inside its dispatcher greenlet would wait on itself.
        on_thread = self._thread is None or threading.get_ident() == self._thread
        return on_thread and greenlet.getcurrent().parent is None

    # -------------------------------------------------------- bounded calls
    def bounded(
        self,
        fn: Callable[[], T],
        timeout_ms: int,
        on_hang: Callable[[], None] | None = None,
        what: str = "a browser call",
        setting: str = "step_timeout_ms",
    ) -> T:
        """`fn()` (a sync Playwright call), bounded: past `timeout_ms` `on_hang` runs (close
        the hung page, say), and `KILL_AFTER_S` later Chromium and the driver are killed by
        pid. A failure is `BrowserCrashedError`, a hang `StepTimeoutError` (with our own
        message, naming the `setting` that bounded it: Playwright's call log can echo the
        values typed). 0 means unbounded."""
        from playwright.sync_api import Error as PlaywrightError

        loop = getattr(self._manager, "_loop", None)
        guard = None
        if timeout_ms and loop is not None:
            guard = Guard(loop, timeout_ms / 1000, on_hang or (lambda: None), self.kill)
        try:
            result = fn()
        except PlaywrightError as exc:
            if guard is not None and guard.fired:
                raise self._timeout(what, f"{setting}={timeout_ms}", guard) from exc
            raise BrowserCrashedError(f"{what} failed: {_first_line(exc)}") from exc
        finally:
            if guard is not None:
                guard.cancel()
        if guard is not None and guard.fired:  # returned just as the watchdog fired
            raise self._timeout(what, f"{setting}={timeout_ms}", guard)
        return result

    @staticmethod
    def _timeout(what: str, limit: str, guard: Guard) -> StepTimeoutError:
        action = (
            "Chromium and the Playwright driver were killed and start afresh at the next reset"
            if guard.killed
            else "the page was closed and the next reset opens a fresh one"
        )
        return StepTimeoutError(
            f"{what} did not finish within {limit} (a script in an"
            f" endless loop, a frozen or crashed browser?); {action}"
        )

    def kill(self) -> None:
        """Kill Chromium and the driver by pid (they are frozen, or gone wrong): every call
        in flight fails, and the next `acquire` starts both again."""
        self.dead = True
        self.processes.kill()

    # ------------------------------------------------------------- contexts
    def close_context(self, context: BrowserContext, timeout_ms: int = CLOSE_TIMEOUT_MS) -> None:
        """Close `context` now if Playwright may be called here, else at the next `acquire`."""
        if self._callable_here() and self._thread is not None:
            if not self.dead:
                with contextlib.suppress(Exception):  # already gone: nothing to clean
                    self.bounded(context.close, timeout_ms, what="closing a context")
        else:
            self._orphans.append(context)

    def retired(self, context: BrowserContext, config: BrowserConfig) -> bool:
        """`context` lives in a retired browser and the running one serves `config`: its
        session should move there at its next load (see `acquire`). A session whose own
        browser was retired for another env's config stays where it is."""
        try:
            browser = context.browser
        except Exception:  # Playwright's objects are gone with their connection
            return False
        return any(b is browser for b, _ in self._retired) and self._serves(config)

    def close_orphans(self) -> None:
        """Close the contexts `close_context` had to leave for later, and the browsers
        replaced by one that draws once their last context is gone."""
        while self._orphans:
            context = self._orphans.pop()
            if not self.dead:
                with contextlib.suppress(Exception):
                    self.bounded(context.close, CLOSE_TIMEOUT_MS, what="closing a context")
        for browser, config in [r for r in self._retired if not r[0].contexts]:
            self._retired.remove((browser, config))
            if not self.dead:
                with contextlib.suppress(Exception):  # already gone: nothing to clean
                    self.bounded(browser.close, CLOSE_TIMEOUT_MS, what="closing a browser")

    def _serves(self, config: BrowserConfig) -> bool:
        """The running browser does what `config` asks (see `_launched_for`)."""
        return self._config is not None and _launched_for(self._config, config)

    def _claim(self) -> None:
        """This thread becomes the browser's (or already is); any other is refused. Under a
        lock: two threads resetting their first envs at once must not both start one."""
        me = threading.get_ident()
        with self._claim_lock:
            if self._thread is None:
                self._thread = me
            elif self._thread != me:
                raise WrongThreadError(
                    "webfactory envs in one process must be used from one thread (Playwright's"
                    " sync API is thread-bound); use a vector env (webfactory_env.vector) to"
                    " run envs in parallel, each in a process of its own."
                )

    def acquire(self, config: BrowserConfig | None = None) -> Browser:
        config = config or BrowserConfig()
        self._claim()
        try:
            return self._acquire(config)
        finally:
            if self._playwright is None:
                self._thread = None  # nothing started here: the claim goes too

    def _acquire(self, config: BrowserConfig) -> Browser:
        if self.dead or not self.processes.driver_alive():
            self._discard_driver()  # killed, or died on its own: start again from scratch
        self.close_orphans()
        if self._browser is not None and self._browser.is_connected() and self._serves(config):
            return self._browser
        if self._browser is not None:
            self._retire_browser()
        # A browser retired earlier may serve this config (two envs of one process launched
        # otherwise, taking turns): use it again rather than launch a third.
        for browser, launched in self._retired:
            if browser.is_connected() and _launched_for(launched, config):
                self._retired.remove((browser, launched))
                self._browser, self._config = browser, launched
                return browser
        if self._playwright is None:
            self._start_driver()
        assert self._playwright is not None
        if config.server_endpoint or config.cdp_endpoint:
            self._browser = self._connect(config)
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
        self.processes.find_browser()
        log.debug("launched %s (%s)", executable, self._browser.version)
        return self._browser

    @property
    def browser(self) -> Browser | None:
        return self._browser

    @property
    def remote(self) -> bool:
        """The browser is another process's (a `BrowserServer`, or a CDP endpoint)."""
        return self._config is not None and bool(
            self._config.server_endpoint or self._config.cdp_endpoint
        )

    def reconnect(self, config: BrowserConfig) -> Browser:
        """Drop the connection to a remote browser and connect again."""
        self._close_browser()
        return self.acquire(config)

    def _connect(self, config: BrowserConfig) -> Browser:
        """The running Chromium of a `BrowserServer` (or at `cdp_endpoint`), or
        `BrowserCrashedError` when nothing answers there (it was closed, or died) within
        `CONNECT_TIMEOUT_MS`."""
        from playwright.sync_api import Error as PlaywrightError

        assert self._playwright is not None
        chromium = self._playwright.chromium
        try:
            if config.server_endpoint and config.server_endpoint.startswith("ws+unix://"):
                return direct.connect(chromium, config.server_endpoint, CONNECT_TIMEOUT_MS)
            if config.server_endpoint:
                return chromium.connect(config.server_endpoint, timeout=CONNECT_TIMEOUT_MS)
            assert config.cdp_endpoint is not None
            return chromium.connect_over_cdp(config.cdp_endpoint, timeout=CONNECT_TIMEOUT_MS)
        except (PlaywrightError, OSError, TimeoutError) as exc:
            # The server's address without its token: a message may end up in a log.
            where = (config.server_endpoint or "").rsplit(":/", 1)[0] or config.cdp_endpoint
            raise BrowserCrashedError(
                f"no shared Chromium answers at {where} ({_first_line(exc)}): its"
                " BrowserServer was closed or died; a WebTaskVectorEnv starts it again at its"
                " next step or reset"
            ) from exc

    # ------------------------------------------------------------- lifecycle
    def _start_driver(self) -> None:
        from playwright.sync_api import sync_playwright

        self._manager = sync_playwright()
        self._playwright = self._manager.start()
        self._thread = threading.get_ident()
        self.driver_starts += 1
        self.dead = False
        self.processes = Processes(driver=_driver_pid(self._manager))

    def _discard_driver(self) -> None:
        """Forget a driver that was killed or died (and its browser), killing what is left."""
        log.warning("the Playwright driver or Chromium was killed or died; starting both again")
        self.processes.kill()
        self._orphans.clear()
        self._retired = []
        self._browser = None
        if self._playwright is not None:
            with contextlib.suppress(Exception):  # its pipe is closed: stop() just cleans up
                self._playwright.stop()
        self._manager = self._playwright = None
        self.processes = Processes()
        self.dead = False

    def _retire_browser(self) -> None:
        """Replace the running browser: retired while an env still has a context in it
        (it closes with the last one), else closed now."""
        browser, config = self._browser, self._config
        self._browser = None
        if browser is None:
            return
        try:
            in_use = browser.is_connected() and bool(browser.contexts)
        except Exception:  # gone with its connection
            in_use = False
        if in_use and config is not None:
            self._retired.append((browser, config))
        elif not self.dead:
            with contextlib.suppress(Exception):  # already gone: nothing to clean
                self.bounded(browser.close, CLOSE_TIMEOUT_MS, what="closing the browser")

    def _close_browser(self) -> None:
        self._orphans.clear()  # closed with their browser
        browsers = [self._browser, *(b for b, _ in self._retired)]
        self._browser, self._retired = None, []
        for browser in browsers:
            if browser is not None and not self.dead:
                with contextlib.suppress(Exception):  # already gone: nothing to clean
                    self.bounded(browser.close, CLOSE_TIMEOUT_MS, what="closing the browser")

    def close(self) -> None:
        """Close the browser and stop the driver (both start again on the next acquire)."""
        if self.dead or not self.processes.driver_alive():
            self._discard_driver()
        self._close_browser()
        if self._playwright is not None:
            playwright = self._playwright
            with contextlib.suppress(Exception):  # already gone: nothing to clean
                self.bounded(playwright.stop, CLOSE_TIMEOUT_MS, what="stopping the driver")
            self._manager = self._playwright = None
        self._thread = None  # another thread may start the next one
        self.processes = Processes()
        self.dead = False

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
        self._manager = None
        self._playwright = None
        self._browser = None
        self._config = None
        self._thread = None
        self._claim_lock = threading.Lock()  # the parent's may have been held at the fork
        self._orphans = []
        self._retired = []
        self.processes = Processes()
        self.dead = False
        self.users = 0


def _first_line(exc: Any) -> str:
    """A Playwright error's first line (its call log below can echo values typed)."""
    text = getattr(exc, "message", None) or str(exc) or type(exc).__name__
    return str(text.strip().splitlines()[0][:300])


def _driver_pid(manager: Any) -> int | None:
    """The pid of the Playwright driver (Node.js) `manager` started, from Playwright's
    transport, or else the newest child of ours that runs a Playwright driver."""
    proc = getattr(getattr(getattr(manager, "_client", None), "_transport", None), "_proc", None)
    pid = getattr(proc, "pid", None)
    if isinstance(pid, int):
        return pid
    drivers = [c for c in children_of(os.getpid()) if "run-driver" in " ".join(cmdline(c))]
    return max(drivers) if drivers else None


_shared = SharedBrowser()
atexit.register(_shared.close)
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_shared.forget)


def shared_browser() -> SharedBrowser:
    return _shared
