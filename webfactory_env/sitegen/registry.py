"""Site families and `generate_site`: seed in, immutable `Site` out."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from typing import TYPE_CHECKING

from webfactory_env.core.errors import UnknownNameError
from webfactory_env.sitegen.spec import SiteSpec

if TYPE_CHECKING:
    from webfactory_env.sitegen.app import SiteApp

DIFFICULTIES = ("easy", "medium", "hard")


@dataclass(frozen=True)
class Family:
    """A site family: how to generate a spec from a seed, and the app that runs it."""

    name: str
    version: str
    description: str
    generate: Callable[[int, str], SiteSpec]
    app_class: type[SiteApp]
    kinds: tuple[str, ...]
    difficulties: tuple[str, ...] = DIFFICULTIES


@dataclass(frozen=True)
class Site:
    """A generated site: the spec plus the family that can run it."""

    spec: SiteSpec
    family: Family = field(repr=False)

    @cached_property
    def digest(self) -> str:
        return self.spec.digest

    def new_app(self) -> SiteApp:
        """A fresh app in the site's start state."""
        return self.family.app_class(self)


_FAMILIES: dict[str, Family] = {}


def register_family(family: Family) -> None:
    _FAMILIES[family.name] = family


def families() -> dict[str, Family]:
    _load_builtin()
    return dict(_FAMILIES)


def get_family(name: str) -> Family:
    _load_builtin()
    try:
        return _FAMILIES[name]
    except KeyError:
        raise UnknownNameError("family", name, _FAMILIES) from None


def generate_site(family: str, seed: int, difficulty: str = "easy") -> Site:
    """Generate (or fetch from the cache) the site that `seed` determines."""
    fam = get_family(family)
    if difficulty not in fam.difficulties:
        raise UnknownNameError("difficulty", difficulty, fam.difficulties)
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        from webfactory_env.core.errors import ConfigError

        raise ConfigError(f"seed must be a non-negative integer, got {seed!r}")
    return _generate(family, int(seed), difficulty)


@lru_cache(maxsize=128)
def _generate(family: str, seed: int, difficulty: str) -> Site:
    fam = _FAMILIES[family]
    return Site(spec=fam.generate(seed, difficulty), family=fam)


def _load_builtin() -> None:
    if not _FAMILIES:
        from webfactory_env.sitegen.families import shop  # noqa: F401  (registers itself)
