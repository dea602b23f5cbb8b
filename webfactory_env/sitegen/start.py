"""What fresh apps of one site share: the pages and state views of its start state.

A reset builds two apps of the new site, the task compiler's and the episode's, and both
render the start page and view the start state before anything happens on them: the
second reads what the first computed. Only apps that opt in share (`Site.new_app(
shared_start=True)`): they promise to change their state only through `dispatch`, so
that an app that has dispatched nothing is in the start state.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable
from typing import Any, TypeVar

T = TypeVar("T")


class StartRenders:
    """Pages and state views of a site's start state, by the app's memo key (its route and
    UI state): read only, by apps that have dispatched nothing yet."""

    def __init__(self) -> None:
        self._found: dict[tuple[str, Hashable], Any] = {}
        self._lock = threading.Lock()  # the compiler's thread and the env's share them

    def get(self, what: str, key: Hashable, make: Callable[[], T]) -> T:
        """`make()`, computed once per `what` and key."""
        with self._lock:
            if (what, key) in self._found:
                return self._found[(what, key)]
        made = make()
        with self._lock:
            return self._found.setdefault((what, key), made)
