"""Visible wording of a site: the family's paraphrase table (`copy.json`), plus seeded noise.

A copy entry is a string or a list of paraphrases; the variation's `paraphrase` axis picks
one. The `noise` axis then alters some labels the way real sites do (a typo, an
abbreviation, odd capitalisation), chosen per key by the site seed, so the same label is
always worded the same way on one site. Entity data (product titles, colours, names) is
never noised: only interface copy is. Nor are the copy sections that word a data value
(`TERMS`: an order's state), since a task may ask for that value as its answer.
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

from webfactory_env.core.resources import read_family_text, read_text
from webfactory_env.core.seeding import SeedStream
from webfactory_env.sitegen.variation import Variation

NOISE_SHARE = 0.35  # fraction of labels a noise axis touches
TERMS = frozenset({"status"})  # copy sections that word a data value: never noised


@cache
def _tables(family: str) -> tuple[dict[str, Any], dict[str, str]]:
    copy = json.loads(read_family_text(family, "copy.json"))
    table = json.loads(read_text("sites", "common", "abbreviations.json"))
    return copy, {word.lower(): short for word, short in table.items()}


class Copy:
    """`copy("product.add")` → this site's wording of that key."""

    def __init__(self, family: str, variation: Variation, seed: int) -> None:
        self.family = family
        self.variation = variation
        self.rng_root = SeedStream(seed).child("copy").child("noise")
        self._cache: dict[str, str] = {}

    def __call__(self, key: str, **fmt: Any) -> str:
        text = self._cache.get(key)
        if text is None:
            text = self._noised(key, self._pick(key))
            self._cache[key] = text
        return text.format(**fmt) if fmt else text

    def raw(self, key: str) -> Any:
        node: Any = _tables(self.family)[0]
        for part in key.split("."):
            if not isinstance(node, dict) or part not in node:
                raise KeyError(f"no copy {key!r} in the {self.family} family's copy.json")
            node = node[part]
        return node

    def _pick(self, key: str) -> str:
        entry = self.raw(key)
        if isinstance(entry, list):
            return str(entry[0] if self.variation.paraphrase == "base" else entry[-1])
        return str(entry)

    def _noised(self, key: str, text: str) -> str:
        mode = self.variation.noise
        if mode == "none" or "{" in text or key.partition(".")[0] in TERMS:
            return text
        rng = self.rng_root.child(key)
        if not rng.chance(NOISE_SHARE):
            return text
        if mode == "case":
            return rng.choice((text.upper(), text.lower(), text.title()))
        if mode == "abbreviations":
            table = _tables(self.family)[1]
            return " ".join(_abbreviate(w, table) for w in text.split(" "))
        # typos: swap two inner letters of the longest word (readable, clearly a typo)
        words = text.split(" ")
        i = max(range(len(words)), key=lambda j: len(words[j]))
        w = words[i]
        if len(w) >= 5:
            k = rng.randint(1, len(w) - 3)
            words[i] = w[:k] + w[k + 1] + w[k] + w[k + 2 :]
        return " ".join(words)


def _abbreviate(word: str, table: dict[str, str]) -> str:
    """`word` shortened as the table says, whatever its case ("address" → "addr.")."""
    short = table.get(word.lower())
    if short is None:
        return word
    return short if word[:1].isupper() else short[:1].lower() + short[1:]
