"""Reading the files of a bundle or trace someone else made: only regular files inside it,
and none larger than any real one.

A bundle directory can hold links (to `/dev/zero`, to another user's files, a `screens`
folder that is itself a link out), pipes and devices. `read_inside` resolves the path first
and refuses anything that lands outside the root, opens without blocking (a pipe would
hang `open`) and without following a last link, and reads only a regular file of at most
`limit` bytes.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from webfactory_env.core.errors import UnsafeFileError

# A trace of one long episode with every observation is a few MB; a screenshot under 1 MB.
MAX_TRACE_BYTES = 256 * 1024 * 1024
MAX_SCREENSHOT_BYTES = 16 * 1024 * 1024
MAX_MANIFEST_BYTES = 16 * 1024 * 1024


def read_inside(root: Path, relative: str | Path, limit: int) -> bytes:
    """The bytes of `root / relative`, which must resolve inside `root` (FileNotFoundError
    when there is nothing there, `UnsafeFileError` when it is not a file to read)."""
    base = root.resolve()
    real = (root / relative).resolve(strict=True)
    if not real.is_relative_to(base):
        raise UnsafeFileError(str(relative), "it links outside the bundle")
    return read_regular(real, limit, shown=str(relative))


def read_regular(path: Path, limit: int, shown: str | None = None) -> bytes:
    """The bytes of `path` if it is a regular file of at most `limit` bytes."""
    name = shown or str(path)
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        if isinstance(exc, FileNotFoundError):
            raise
        raise UnsafeFileError(name, f"it cannot be opened ({exc.strerror})") from None
    with os.fdopen(fd, "rb") as fh:
        info = os.fstat(fh.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise UnsafeFileError(name, "not a regular file (a device, a pipe or a socket)")
        data = fh.read(limit + 1)
    if len(data) > limit:
        raise UnsafeFileError(name, f"larger than {limit >> 20} MB, far beyond any real one")
    return data
