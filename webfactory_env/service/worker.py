"""The browser's own thread: all browser work of the service runs here, one job at a time.

Playwright's sync API is bound to the thread that started it, and one page serves one
payload at a time, so browser work is queued to one worker thread while the event loop
keeps answering `/healthz` and reading other requests. The queue is bounded: past
`max_pending` jobs a request is turned away at once (503) instead of waiting for minutes.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TypeVar

T = TypeVar("T")


class WorkerBusyError(Exception):
    """More browser jobs are waiting than the worker takes."""


class BrowserWorker:
    """One thread that owns Playwright; `run` awaits a job on it from the event loop."""

    def __init__(self, max_pending: int = 16) -> None:
        self.max_pending = max_pending
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="browser")
        self._lock = threading.Lock()
        self.pending = 0

    def submit(self, job: Callable[[], T]) -> Future[T]:
        with self._lock:
            if self.pending >= self.max_pending:
                raise WorkerBusyError(f"{self.pending} browser jobs are already waiting")
            self.pending += 1
        future = self._pool.submit(job)
        future.add_done_callback(self._done)
        return future

    def _done(self, _future: Future[T]) -> None:
        with self._lock:
            self.pending -= 1

    async def run(self, job: Callable[[], T]) -> T:
        return await asyncio.wrap_future(self.submit(job))

    def call(self, job: Callable[[], T], timeout_s: float | None = None) -> T:
        """Run `job` on the worker and wait for it here (start-up and shut-down)."""
        return self.submit(job).result(timeout_s)

    def shutdown(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)
