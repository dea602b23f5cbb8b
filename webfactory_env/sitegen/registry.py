"""Site families and `generate_site`: seed in, immutable `Site` out."""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from typing import Any

from webfactory_env.__about__ import __version__
from webfactory_env.core.errors import ConfigError, UnknownNameError
from webfactory_env.core.resources import family_digest, tree_digest
from webfactory_env.sitegen.app import SiteApp
from webfactory_env.sitegen.renamed import RenamedPath
from webfactory_env.sitegen.spec import SiteSpec
from webfactory_env.sitegen.start import StartRenders
from webfactory_env.sitegen.state import Schema
from webfactory_env.sitegen.variation import AXIS_BY_NAME, Variation

DIFFICULTIES = ("easy", "medium", "hard")


@dataclass(frozen=True)
class Family:
    """A site family: how to generate a spec from a seed, and the app that runs it."""

    name: str
    version: str
    description: str
    generate: Callable[[int, str, Mapping[str, Any] | None], SiteSpec]
    app_class: type[SiteApp]
    kinds: tuple[str, ...]
    difficulties: tuple[str, ...] = DIFFICULTIES
    # State paths of older versions that tasks may still write (`sitegen.renamed`).
    renamed: tuple[RenamedPath, ...] = ()

    @property
    def schema(self) -> Schema:
        """Every path of the family's state view, with its part (`sitegen.state`)."""
        return self.app_class.schema()


@dataclass(frozen=True)
class Site:
    """A generated site: the spec plus the family that can run it."""

    spec: SiteSpec
    family: Family = field(repr=False)

    @cached_property
    def digest(self) -> str:
        return self.spec.digest

    def new_app(self, *, shared_start: bool = False) -> SiteApp:
        """A fresh app in the site's start state. `shared_start`: it shares the pages and
        state views of the start state with the site's other such apps (`sitegen.start`);
        its state must then change only through `dispatch`."""
        app = self.family.app_class(self.spec)
        if shared_start:
            app.start = self._start
        return app

    @cached_property
    def _start(self) -> StartRenders:
        return StartRenders()

    def representative_routes(self) -> tuple[str, ...]:
        """One static route per page kind, in route order: `/product/<sku>` stands for
        every product page (see `route_kind`)."""
        first: dict[str, str] = {}
        for route in self.spec.routes:
            first.setdefault(route_kind(route), route)
        return tuple(first.values())


def route_kind(route: str) -> str:
    """The kind of page a route shows: its last segment is an entity when it has two or
    more (`/product/SKU-1` → `/product/*`, `/hotels/in/rome` → `/hotels/in/*`)."""
    parts = route.strip("/").split("/")
    return "/" + "/".join(parts[:-1]) + "/*" if len(parts) >= 2 else route


def generator_version(family: str, version: str) -> str:
    """A spec's `generator_version`: the package, the family's own version, and a digest of
    the family's site assets (shared CSS, the runtime and its own theme and copy)."""
    return (
        f"{__version__}+{family}.{version}."
        + tree_digest("sites", "common", "runtime")[:6]
        + family_digest(family)[:6]
    )


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


def generate_site(
    family: str,
    seed: int,
    difficulty: str = "easy",
    variation: Mapping[str, Any] | Variation | None = None,
) -> Site:
    """Generate (or fetch from the cache) the site that `seed` determines.

    `variation` fixes variation axes (`{"theme": "dark"}`); the others are drawn from the
    seed. A full `Variation` fixes all of them.
    """
    fam = get_family(family)
    if difficulty not in fam.difficulties:
        raise UnknownNameError("difficulty", difficulty, fam.difficulties)
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ConfigError(f"seed must be a non-negative integer, got {seed!r}")
    if isinstance(variation, Variation):
        variation = variation.to_json()
    overrides = tuple(sorted((variation or {}).items()))
    for name, _ in overrides:
        if name not in AXIS_BY_NAME:
            raise UnknownNameError("variation axis", name, AXIS_BY_NAME)
    return _generate(family, int(seed), difficulty, overrides)


@lru_cache(maxsize=128)
def _generate(
    family: str, seed: int, difficulty: str, overrides: tuple[tuple[str, Any], ...]
) -> Site:
    fam = _FAMILIES[family]
    return Site(spec=fam.generate(seed, difficulty, dict(overrides) or None), family=fam)


def forget_sites() -> None:
    """Forget the sites this process keeps (`generate_site` makes them anew)."""
    _generate.cache_clear()


BUILTIN_FAMILIES = ("shop", "travel", "kanban", "account", "forum", "gallery")


_loaded = False
# Envs made on several threads at once all come here first: the registry counts as loaded
# only once every family module is imported, and the others wait until then.
_LOAD_LOCK = threading.Lock()


def _load_builtin() -> None:
    global _loaded
    if _loaded:
        return
    with _LOAD_LOCK:
        if _loaded:
            return
        import importlib

        for name in BUILTIN_FAMILIES:
            try:  # each module registers itself on import
                importlib.import_module(f"webfactory_env.sitegen.families.{name}")
            except ModuleNotFoundError as exc:  # a family still being written (development)
                if exc.name != f"webfactory_env.sitegen.families.{name}":
                    raise
        _loaded = True
