"""Domains of answer values: every person, place, status word or name a site family can
produce, declared by the family as a `Vocabulary` over its data files and read from them
when an answer is graded (a compiled task names the domain, "forum.members", and never
carries the words)."""

from __future__ import annotations

import contextlib
import importlib
import json
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from webfactory_env.core.answer_values import phrase
from webfactory_env.core.resources import read_family_text


@dataclass(frozen=True)
class Vocabulary:
    """Where the values of one domain come from in a family's data files.

    `phrases` select whole values, as `file:path` with `*` for every item of a list or
    value of a mapping ("vocab.json:devices.*"); an item that is a list is a value and its
    qualifiers (["Lisbon", "Portugal"]: "Lisbon, Portugal" is one place, "Portugal" beside
    another city a second one). `parts` select single words that name one value on their
    own: first names and surnames, the distinctive word of a hotel's name.
    """

    name: str
    kind: str
    phrases: tuple[str, ...] = ()
    parts: tuple[str, ...] = ()


@dataclass(frozen=True)
class Domain:
    """A vocabulary read: its values and naming words as normalised phrases."""

    phrases: frozenset[str] = frozenset()
    parts: frozenset[str] = frozenset()
    qualifiers: Mapping[str, frozenset[str]] = field(default_factory=dict)
    pattern: re.Pattern[str] | None = None  # every phrase and part, longest first

    def find(self, text: str) -> Iterator[str]:
        """The phrases and parts named in `text` (a `phrase`, padded with spaces)."""
        if self.pattern is not None:
            for m in self.pattern.finditer(text):
                yield m.group(1)


_DECLARED: dict[str, tuple[str, Vocabulary]] = {}


def declare(family: str, vocabularies: Iterable[Vocabulary]) -> None:
    """Make `family`'s vocabularies known as "<family>.<name>" (done once per family, when
    its app class is defined)."""
    for v in vocabularies:
        _DECLARED[f"{family}.{v.name}"] = (family, v)


@cache
def domain(name: str) -> Domain:
    """The domain called `name` ("forum.members"), read from its family's data files."""
    if name not in _DECLARED:
        # A task graded in a process that has not built its site yet: a family declares
        # its vocabularies when its package is imported.
        family = name.partition(".")[0]
        if re.fullmatch(r"[a-z_]+", family):
            with contextlib.suppress(ImportError):
                importlib.import_module(f"webfactory_env.sitegen.families.{family}")
    if name not in _DECLARED:
        raise KeyError(f"no answer domain {name!r}; declared: {', '.join(sorted(_DECLARED))}")
    family, vocabulary = _DECLARED[name]
    phrases: set[str] = set()
    qualifiers: dict[str, frozenset[str]] = {}
    for selector in vocabulary.phrases:
        for item in select(family, selector):
            if not isinstance(item, (str, list)):
                raise TypeError(f"{name}: {selector} selects a {type(item).__name__}, not values")
            names = [phrase(str(x)) for x in (item if isinstance(item, list) else [item])]
            phrases.update(n for n in names if n)
            if len(names) > 1 and names[0]:
                qualifiers[names[0]] = qualifiers.get(names[0], frozenset()) | {*names[1:]}
    parts: set[str] = set()
    for selector in vocabulary.parts:
        for item in select(family, selector):
            if not isinstance(item, str):
                raise TypeError(f"{name}: {selector} selects a {type(item).__name__}, not words")
            parts.add(phrase(item))
    parts.discard("")
    every = sorted(phrases | parts, key=lambda p: (-len(p), p))
    pattern = (
        re.compile(r"(?<= )(" + "|".join(re.escape(p) for p in every) + r")(?= )")
        if every
        else None
    )
    return Domain(frozenset(phrases), frozenset(parts), qualifiers, pattern)


def select(family: str, selector: str) -> list[Any]:
    """The items `selector` ("vocab.json:cities.*") picks from a data file of `family`."""
    file, _, path = selector.partition(":")
    nodes: list[Any] = [json.loads(read_family_text(family, file))]
    for key in path.split(".") if path else ():
        step: list[Any] = []
        for node in nodes:
            if key == "*":
                step += list(node.values()) if isinstance(node, Mapping) else list(node)
            elif isinstance(node, Mapping):
                step.append(node[key])
            else:
                step.append(node[int(key)])
        nodes = step
    return nodes
