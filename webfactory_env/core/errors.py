"""The one error tree for user mistakes; every message says how to fix the problem."""

from __future__ import annotations

import difflib
from collections.abc import Iterable


class WebfactoryError(Exception):
    """Base class of every error webfactory_env raises on purpose."""


class ConfigError(WebfactoryError, ValueError):
    """A user-supplied option or argument is invalid."""


class UnknownNameError(ConfigError, KeyError):
    """A name (family, task, observation mode, ...) does not exist."""

    def __init__(self, what: str, name: str, choices: Iterable[str]) -> None:
        self.what = what
        self.name = name
        self.choices = sorted(choices)
        super().__init__(
            f"unknown {what} {name!r}.{did_you_mean(name, self.choices)}"
            f" Choose one of: {', '.join(self.choices) or '(none)'}."
        )

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0])


class BrowserNotFoundError(WebfactoryError):
    """No Chromium executable could be found."""


class BrowserCrashedError(WebfactoryError):
    """The browser process or page died while an environment used it."""


class EnvClosedError(WebfactoryError, RuntimeError):
    """An env was used after `close()`; `what` says how."""

    def __init__(self, what: str) -> None:
        super().__init__(
            f"{what} on a closed env: close() ended it and gave its browser page back;"
            " call reset() to open it again, or make a new env"
        )


class WrongThreadError(WebfactoryError, RuntimeError):
    """Browser work from a thread other than the one that started the process's browser
    (Playwright's sync API is bound to one thread)."""


class TraceError(WebfactoryError):
    """A trace file is unreadable: not the trace schema, or a version this package cannot read."""


class BundleError(WebfactoryError):
    """A replay bundle is missing, malformed or fails its checksums."""


class UnsafeFileError(BundleError, ValueError):
    """A file a bundle or trace leads to is not one to read: it resolves outside the bundle
    (a link out), is no regular file (a device, a pipe), or is far larger than any could be.
    `file` names it, `reason` says which."""

    def __init__(self, file: str, reason: str) -> None:
        self.file, self.reason = file, reason
        super().__init__(f"{file}: refused: {reason}")


class MalformedFileError(WebfactoryError, ValueError):
    """A file someone else wrote (a trace, a bundle's manifest, its `env_kwargs`) does not
    have the shape it must have. `file` and `field` say where (the message, one line, names
    both)."""

    def __init__(self, file: str, field: str | None, message: str, line: int | None = None) -> None:
        self.file = file
        self.field = field
        self.line = line
        self.problem = one_line(message)
        super().__init__(f"{file}{f':{line}' if line else ''}: {self.problem}")


class MalformedTraceError(MalformedFileError, TraceError):
    """A trace line that is not the trace schema."""


class MalformedBundleError(MalformedFileError, BundleError):
    """A bundle's manifest (or its `env_kwargs`) that is not the manifest schema."""


def one_line(message: str, limit: int = 300) -> str:
    """`message` on one line of at most `limit` characters (hostile input can be long)."""
    text = " ".join(str(message).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def did_you_mean(name: str, choices: Iterable[str]) -> str:
    """Return ' Did you mean `x`?' for the closest choice, or an empty string."""
    close = difflib.get_close_matches(name, list(choices), n=1, cutoff=0.6)
    return f" Did you mean {close[0]!r}?" if close else ""
