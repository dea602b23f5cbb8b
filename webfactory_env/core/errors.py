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


class TraceError(WebfactoryError):
    """A trace file is unreadable: not the trace schema, or a version this package cannot read."""


class BundleError(WebfactoryError):
    """A replay bundle is missing, malformed or fails its checksums."""


def did_you_mean(name: str, choices: Iterable[str]) -> str:
    """Return ' Did you mean `x`?' for the closest choice, or an empty string."""
    close = difflib.get_close_matches(name, list(choices), n=1, cutoff=0.6)
    return f" Did you mean {close[0]!r}?" if close else ""
