"""Python's cyclic garbage collector held back while a reset makes a burst of objects.

A reset to a new level builds a site, compiles its task and renders pages: thousands of
short-lived containers. With the collector running, each burst triggers several young
collections that promote the burst's temporaries to the older generations, and every few
resets a full collection walks the whole heap (the sites and tasks the caches keep):
50-90 ms on a forum level, 4 ms a reset on average. Held back, the temporaries die by
reference counting as usual, the few cycles wait for the next young collection, and full
collections become rare. The collector is held only if it was running, and given back by
whoever held it first, so nested or concurrent holds (envs in threads) never leave it off.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_lock = threading.Lock()
_holders = 0
_held_by_us = False


@contextmanager
def gc_held() -> Iterator[None]:
    """Run the block with the cyclic collector off (if it was on), then turn it back on."""
    global _holders, _held_by_us
    with _lock:
        _holders += 1
        if _holders == 1 and gc.isenabled():
            gc.disable()
            _held_by_us = True
    try:
        yield
    finally:
        with _lock:
            _holders -= 1
            if _holders == 0 and _held_by_us:
                _held_by_us = False
                gc.enable()
