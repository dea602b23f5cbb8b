"""A tiny progress bar for long-running commands: drawn on a terminal, silent when piped."""

from __future__ import annotations

import sys
import time
from types import TracebackType
from typing import TextIO


class ProgressBar:
    """`[#######.......]  7/20 episodes, 6 ok, 0:12` redrawn in place on stderr.

    Nothing is written unless the stream is a terminal, so logs and pipes stay clean.
    """

    def __init__(
        self,
        total: int,
        *,
        label: str = "",
        unit: str = "",
        stream: TextIO | None = None,
        enabled: bool | None = None,
        width: int = 30,
    ) -> None:
        self.total = max(0, total)
        self.label = label
        self.unit = unit
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = self.stream.isatty() if enabled is None else enabled
        self.width = width
        self.done = 0
        self.ok = 0
        self._start = time.monotonic()
        self._drawn = False

    def update(self, done: int, *, ok: bool | None = None) -> None:
        self.done = done
        self.ok += bool(ok)
        if self.enabled:
            self._draw()

    def _draw(self) -> None:
        filled = self.width * self.done // self.total if self.total else self.width
        elapsed = int(time.monotonic() - self._start)
        ok = f", {self.ok} ok" if self.ok else ""
        line = (
            f"\r{self.label} [{'#' * filled}{'.' * (self.width - filled)}]"
            f" {self.done}/{self.total} {self.unit}{ok}, {elapsed // 60}:{elapsed % 60:02d}"
        )
        self.stream.write(line)
        self.stream.flush()
        self._drawn = True

    def __enter__(self) -> ProgressBar:
        if self.enabled:
            self._draw()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._drawn:
            self.stream.write("\n")
            self.stream.flush()
