"""Stable hashing and named seed streams: the only source of randomness for sites and tasks.

Everything here is independent of `PYTHONHASHSEED`, the platform and library versions:
digests come from SHA-256 over canonical JSON, random draws from SplitMix64 seeded by
BLAKE2b of the parent key and a path (`seed/content/catalog`).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, MutableSequence, Sequence
from typing import Any, TypeVar

T = TypeVar("T")

_MASK64 = (1 << 64) - 1
_LIMITS: dict[int, int] = {}  # n -> the largest multiple of n below 2**64 (see `below`)


def canonical_json(obj: Any, *, default: Callable[[Any], Any] | None = None) -> bytes:
    """Serialise `obj` the same way on every machine (sorted keys, no whitespace);
    `default` gives JSON for what the encoder does not know (as `json.dumps`'s does)."""
    return json.dumps(
        obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=default
    ).encode()


def stable_digest(
    obj: Any, *, length: int = 64, default: Callable[[Any], Any] | None = None
) -> str:
    """Hex SHA-256 of the canonical JSON of `obj`, truncated to `length` hex digits."""
    return hashlib.sha256(canonical_json(obj, default=default)).hexdigest()[:length]


def short_hash(text: str, length: int = 8) -> str:
    """Short, stable, upper-case hex tag of `text` (for semantic ids such as SKUs)."""
    return hashlib.blake2b(text.encode(), digest_size=16).hexdigest()[:length].upper()


def hash_to_int(text: str, bits: int = 64) -> int:
    """A stable integer in [0, 2**bits) derived from `text`."""
    digest = hashlib.blake2b(text.encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") >> (64 - bits)


class SeedStream:
    """A deterministic random stream named by a path below a root seed.

    `SeedStream(42).child("content").child("catalog")` always yields the same draws,
    whatever else was drawn before, so adding a draw in one stream never shifts another.
    """

    __slots__ = ("_state", "key")

    def __init__(self, seed: int | str, key: str | None = None) -> None:
        self.key = key if key is not None else f"seed:{seed}"
        self._state = hash_to_int(self.key)

    def child(self, name: str) -> SeedStream:
        """An independent stream for a named sub-part."""
        return SeedStream(0, f"{self.key}/{name}")

    def _next(self) -> int:
        # SplitMix64: tiny, fast in pure Python, and fully specified.
        self._state = (self._state + 0x9E3779B97F4A7C15) & _MASK64
        z = self._state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        """Uniform integer in [0, n) without modulo bias."""
        limit = _LIMITS.get(n)
        if limit is None:
            if n <= 0:
                raise ValueError("below() needs a positive bound")
            limit = (1 << 64) - ((1 << 64) % n)
            if len(_LIMITS) < 4096:  # the bounds sites draw below, once per process
                _LIMITS[n] = limit
        while True:
            x = self._next()
            if x < limit:
                return x % n

    def randint(self, low: int, high: int) -> int:
        """Uniform integer in [low, high], both ends included."""
        return low + self.below(high - low + 1)

    def random(self) -> float:
        """Uniform float in [0, 1) with 53 random bits."""
        return (self._next() >> 11) / float(1 << 53)

    def chance(self, p: float) -> bool:
        return self.random() < p

    def choice(self, items: Sequence[T]) -> T:
        if not items:
            raise ValueError("choice() from an empty sequence")
        return items[self.below(len(items))]

    def shuffle(self, items: MutableSequence[T]) -> None:
        """Fisher-Yates in place."""
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]

    def sample(self, items: Sequence[T], k: int) -> list[T]:
        pool = list(items)
        self.shuffle(pool)
        return pool[:k]
