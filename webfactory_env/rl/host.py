"""The episode host: many concurrent episodes in one process, on one Chromium of its own.

Trainers and servers open *sessions* on an `EpisodeHost` and reset and step them from any
thread, or from async code (`areset`, `astep`): every piece of browser work runs on the
host's one browser thread (Playwright's sync API is bound to the thread that started it),
one job at a time, each session in a browser context of its own. The host guarantees what
a training run needs of its environment:

- every call has a deadline (`HostConfig.call_timeout_s`, or `timeout_s=`): a call still
  queued at its deadline is withdrawn (nothing happened); one already running leaves its
  episode *unscorable*, and `HostTimeoutError` says which;
- a repeated operation id (`op_id=`) returns the first call's result instead of stepping
  twice (a client that timed out and retries gets the step it already took);
- `session()` closes its session on every exit path, cancellation included, and sessions
  nobody touched for `idle_timeout_s` are reaped;
- `stats()` counts sessions and the browser's open contexts, for leak checks.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import threading
import time
import uuid
import weakref
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any

from webfactory_env.core.errors import WebfactoryError
from webfactory_env.executor.browser import SharedBrowser
from webfactory_env.rl.episode import (
    EpisodeOutcome,
    EpisodeSettings,
    EpisodeSpec,
    HostedEpisode,
    StepReply,
)
from webfactory_env.service.worker import BrowserWorker, WorkerBusyError


class HostError(WebfactoryError, RuntimeError):
    """The episode host cannot do what was asked; the message says why."""


class HostCapacityError(HostError):
    """Every session the host allows (`max_sessions`) is open."""


class HostTimeoutError(HostError):
    """A call did not finish by its deadline. `withdrawn`: it was still queued and was
    taken back (nothing happened: retry it); else it ran on and left its episode
    unscorable."""

    def __init__(self, message: str, *, withdrawn: bool = False) -> None:
        super().__init__(message)
        self.withdrawn = withdrawn


class UnknownSessionError(HostError, KeyError):
    """No open session has this id (it was closed, reaped, or never opened)."""

    def __str__(self) -> str:
        return str(self.args[0])


@dataclass(frozen=True)
class HostConfig:
    """`max_sessions` open at once; an idle session goes after `idle_timeout_s` (None:
    never); a call's deadline is `call_timeout_s`; the last `op_cache` results of each
    session are kept for repeated operation ids."""

    max_sessions: int = 16
    idle_timeout_s: float | None = 600.0
    call_timeout_s: float = 60.0
    op_cache: int = 64
    episode: EpisodeSettings = field(default_factory=EpisodeSettings)


@dataclass(frozen=True)
class HostStats:
    """What the host holds now and has done so far."""

    sessions: int
    contexts: int
    resets: int
    steps: int
    replayed: int  # calls answered from the operation-id cache
    reaped: int
    timeouts: int
    closed: int


@dataclass
class _Session:
    id: str
    episode: HostedEpisode
    last_active: float
    busy: int = 0
    ops: OrderedDict[str, concurrent.futures.Future[StepReply]] = field(default_factory=OrderedDict)


class EpisodeHost:
    """Sessions of hosted episodes on one browser thread (see the module docstring).

    host = EpisodeHost()
    sid = host.open()
    reply = host.reset(sid, EpisodeSpec("shop", "buy_red_mug", level_seed=3))
    reply = host.step(sid, "click(4)")
    host.close()
    """

    def __init__(
        self, config: HostConfig | None = None, *, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.config = config or HostConfig()
        self._clock = clock
        self._lock = threading.Lock()
        self._sessions: dict[str, _Session] = {}
        self._counts = dict.fromkeys(("resets", "steps", "replayed", "reaped", "timeouts"), 0)
        self._counts["closed"] = 0
        self._browser = SharedBrowser()  # this host's own Chromium, started on first use
        self._browser.join()  # kept open between sessions until the host closes
        self._worker = BrowserWorker(max_pending=4 * self.config.max_sessions + 16)
        self._closed = False
        self._stop = threading.Event()
        self._reaper: threading.Thread | None = None
        if self.config.idle_timeout_s is not None:
            self._reaper = threading.Thread(
                target=_reap_loop, args=(weakref.ref(self), self._stop), daemon=True
            )
            self._reaper.start()
        # A host nobody closes still stops its browser when collected or at exit.
        self._finalizer = weakref.finalize(self, _shutdown, self._worker, self._browser)

    # ---------------------------------------------------------------- sessions
    def open(self) -> str:
        """A new session's id (no browser work yet: its page opens at the first reset)."""
        with self._lock:
            if self._closed:
                raise HostError("the host is closed; make a new EpisodeHost")
            if len(self._sessions) >= self.config.max_sessions:
                raise HostCapacityError(
                    f"all {self.config.max_sessions} sessions are in use; close one, or make"
                    " the host with a larger max_sessions"
                )
            sid = uuid.uuid4().hex
            episode = HostedEpisode(self.config.episode, self._browser)
            self._sessions[sid] = _Session(sid, episode, self._clock())
            return sid

    def reset(
        self,
        session: str,
        spec: EpisodeSpec,
        *,
        op_id: str | None = None,
        timeout_s: float | None = None,
    ) -> StepReply:
        """Start `spec`'s episode in the session (its page opens at the first reset)."""
        s = self._session(session)
        fut = self._submit(s, op_id, "resets", lambda: s.episode.reset(spec))
        return self._wait(s, fut, timeout_s)

    def step(
        self, session: str, action: str, *, op_id: str | None = None, timeout_s: float | None = None
    ) -> StepReply:
        """Carry out one text action (`click(3)`, `type(5, "mug")`, `done()`, ...)."""
        s = self._session(session)
        fut = self._submit(s, op_id, "steps", lambda: s.episode.step(action))
        return self._wait(s, fut, timeout_s)

    async def areset(
        self,
        session: str,
        spec: EpisodeSpec,
        *,
        op_id: str | None = None,
        timeout_s: float | None = None,
    ) -> StepReply:
        s = self._session(session)
        fut = self._submit(s, op_id, "resets", lambda: s.episode.reset(spec))
        return await self._await(s, fut, timeout_s)

    async def astep(
        self, session: str, action: str, *, op_id: str | None = None, timeout_s: float | None = None
    ) -> StepReply:
        s = self._session(session)
        fut = self._submit(s, op_id, "steps", lambda: s.episode.step(action))
        return await self._await(s, fut, timeout_s)

    def outcome(self, session: str) -> EpisodeOutcome | None:
        """The session's episode outcome, frozen at its first ending (None: still running)."""
        episode = self._session(session).episode
        out = episode.outcome
        if out is not None and out.scorable and episode.broken is not None:
            # A step past its deadline finished after all: the episode stays unscorable.
            return replace(out, scorable=False, reward=None, outcome="unscorable")
        return out

    def close_session(self, session: str, timeout_s: float | None = None) -> None:
        """Close a session and give its browser context back (after any call in flight)."""
        s = self._detach(session)
        if s is not None:
            self._close_page(s).result(self._deadline(timeout_s))

    async def aclose_session(self, session: str, timeout_s: float | None = None) -> None:
        s = self._detach(session)
        if s is not None:
            fut = asyncio.wrap_future(self._close_page(s))
            await asyncio.wait_for(asyncio.shield(fut), self._deadline(timeout_s))

    @contextlib.asynccontextmanager
    async def session(self) -> AsyncIterator[str]:
        """A session that is closed however the block ends: normally, by an error, or by
        the task's cancellation (the close itself cannot be cancelled half-way)."""
        sid = self.open()
        try:
            yield sid
        finally:
            await asyncio.shield(self.aclose_session(sid))

    @contextlib.contextmanager
    def session_sync(self) -> Iterator[str]:
        """`session()` for synchronous code."""
        sid = self.open()
        try:
            yield sid
        finally:
            self.close_session(sid)

    def session_ids(self) -> list[str]:
        with self._lock:
            return list(self._sessions)

    # ------------------------------------------------------------------- host
    def stats(self, timeout_s: float = 10.0) -> HostStats:
        """Sessions open, browser contexts open (counted in the browser) and what the
        host has done so far."""
        contexts = 0 if self._closed else self._worker.call(self._count_contexts, timeout_s)
        with self._lock:
            return HostStats(sessions=len(self._sessions), contexts=contexts, **self._counts)

    def reap_idle(self) -> int:
        """Close every session idle for longer than `idle_timeout_s`; how many went."""
        limit = self.config.idle_timeout_s
        if limit is None:
            return 0
        now = self._clock()
        with self._lock:
            sessions = self._sessions.values()
            idle = [s.id for s in sessions if not s.busy and now - s.last_active > limit]
        gone = 0
        for sid in idle:
            s = self._detach(sid)
            if s is not None:
                self._close_page(s)
                gone += 1
        with self._lock:
            self._counts["reaped"] += gone
        return gone

    def close(self) -> None:
        """Close every session and stop the host's browser and thread."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            sessions = list(self._sessions.values())
            self._sessions.clear()
            self._counts["closed"] += len(sessions)
        self._stop.set()
        for s in sessions:
            with contextlib.suppress(Exception):
                self._worker.submit(s.episode.close)
        self._finalizer()

    def __enter__(self) -> EpisodeHost:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --------------------------------------------------------------- internals
    def _session(self, session: str) -> _Session:
        with self._lock:
            s = self._sessions.get(session)
        if s is None:
            raise UnknownSessionError(
                f"no open session {session!r}: it was closed or reaped (idle for more than"
                f" {self.config.idle_timeout_s} s), or never opened; open a new one"
            )
        return s

    def _submit(
        self, s: _Session, op_id: str | None, kind: str, job: Callable[[], StepReply]
    ) -> concurrent.futures.Future[StepReply]:
        with self._lock:
            if op_id is not None and op_id in s.ops:
                self._counts["replayed"] += 1
                return s.ops[op_id]
            try:
                fut = self._worker.submit(job)
            except WorkerBusyError as exc:
                raise HostError(f"the browser thread has too much queued: {exc}") from None
            s.busy += 1
            s.last_active = self._clock()
            self._counts[kind] += 1
            if op_id is not None:
                s.ops[op_id] = fut
                while len(s.ops) > self.config.op_cache:
                    s.ops.popitem(last=False)
        fut.add_done_callback(lambda _: self._idle(s))
        return fut

    def _idle(self, s: _Session) -> None:
        with self._lock:
            s.busy -= 1
            s.last_active = self._clock()

    def _deadline(self, timeout_s: float | None) -> float:
        return self.config.call_timeout_s if timeout_s is None else timeout_s

    def _wait(
        self, s: _Session, fut: concurrent.futures.Future[StepReply], timeout_s: float | None
    ) -> StepReply:
        deadline = self._deadline(timeout_s)
        try:
            return fut.result(deadline)
        except concurrent.futures.TimeoutError:
            raise self._late(s, fut, deadline) from None

    async def _await(
        self, s: _Session, fut: concurrent.futures.Future[StepReply], timeout_s: float | None
    ) -> StepReply:
        deadline = self._deadline(timeout_s)
        try:
            # Shielded: a caller that gives up (or is cancelled) leaves the job to finish,
            # and its result stays cached under the operation id for a retry.
            return await asyncio.wait_for(asyncio.shield(asyncio.wrap_future(fut)), deadline)
        except TimeoutError:
            raise self._late(s, fut, deadline) from None

    def _late(
        self, s: _Session, fut: concurrent.futures.Future[StepReply], deadline: float
    ) -> HostTimeoutError:
        # Cancelled outside the lock: a cancelled future runs its callbacks (`_idle`) here.
        withdrawn = fut.cancel()  # still queued: withdrawn, so nothing happened
        with self._lock:
            self._counts["timeouts"] += 1
            if withdrawn:
                for key in [k for k, v in s.ops.items() if v is fut]:
                    del s.ops[key]
                return HostTimeoutError(
                    f"the call waited {deadline:g} s for the browser thread and was withdrawn"
                    " (nothing was done); the host is overloaded: open fewer sessions",
                    withdrawn=True,
                )
        s.episode.broken = f"a browser call took longer than its {deadline:g} s deadline"
        return HostTimeoutError(
            f"{s.episode.broken}; the episode is unscorable (reset the session to go on)"
        )

    def _detach(self, session: str) -> _Session | None:
        with self._lock:
            s = self._sessions.pop(session, None)
            if s is not None:
                self._counts["closed"] += 1
            return s

    def _close_page(self, s: _Session) -> concurrent.futures.Future[Any]:
        try:
            return self._worker.submit(s.episode.close)
        except (WorkerBusyError, RuntimeError):  # shut down: the browser went with it
            done: concurrent.futures.Future[Any] = concurrent.futures.Future()
            done.set_result(None)
            return done

    def _count_contexts(self) -> int:
        browser = self._browser.browser
        if browser is None or not browser.is_connected():
            return 0
        return len(browser.contexts)


def _reap_loop(host_ref: weakref.ref[EpisodeHost], stop: threading.Event) -> None:
    """Reap idle sessions now and then, until the host is closed or collected."""
    while True:
        host = host_ref()
        if host is None or stop.is_set():
            return
        limit = host.config.idle_timeout_s or 1.0
        interval = max(0.05, min(limit / 4, 5.0))
        host.reap_idle()
        del host
        if stop.wait(interval):
            return


def _shutdown(worker: BrowserWorker, browser: SharedBrowser) -> None:
    """Stop the browser on its own thread, then the thread."""

    def stop_browser() -> None:
        browser.leave()
        browser.close()

    with contextlib.suppress(Exception):
        worker.call(stop_browser, timeout_s=30)
    worker.shutdown()


_default: EpisodeHost | None = None
_default_lock = threading.Lock()


def shared_host(config: HostConfig | None = None) -> EpisodeHost:
    """The process's default host (made on first use, with `config`; made again after
    it was closed). Trainers whose environments are built without arguments (TRL's
    `environment_factory`) share it."""
    global _default
    with _default_lock:
        if _default is None or _default._closed:
            _default = EpisodeHost(config)
        return _default
