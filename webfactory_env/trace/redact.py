"""Redaction: secrets typed into fields marked `redact` never reach a trace, bundle or viewer."""

from __future__ import annotations

from typing import Any

from webfactory_env.trace.schema import REDACTED


class Redactor:
    """Remembers the episode's secrets and replaces them in anything about to be written.

    A secret is the value an action typed or selected into a redacted field. It shows up
    again after that action — in the field's value in the observed DOM, in the page events
    the app received, in app-state deltas — so every string written afterwards is scrubbed,
    not just the action's own value.
    """

    def __init__(self) -> None:
        self._secrets: list[str] = []

    def add(self, secret: str) -> None:
        if secret and secret not in self._secrets:
            self._secrets.append(secret)
            # Longest first, so a secret containing another is replaced whole.
            self._secrets.sort(key=len, reverse=True)

    @property
    def active(self) -> bool:
        return bool(self._secrets)

    def scrub(self, obj: Any) -> Any:
        """`obj` (JSON-like) with every occurrence of a secret replaced by `REDACTED`."""
        if not self._secrets:
            return obj
        if isinstance(obj, str):
            for secret in self._secrets:
                obj = obj.replace(secret, REDACTED)
            return obj
        if isinstance(obj, dict):
            return {self.scrub(k): self.scrub(v) for k, v in obj.items()}
        if isinstance(obj, list | tuple):
            return [self.scrub(v) for v in obj]
        return obj
