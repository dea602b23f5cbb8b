"""Site generation: seeded specs, the declarative state model, the Python apps that run
sites, the widget library and their HTML; one package per family under `families/`.

Imports only `core`; tasks, the executor and everything after may import it."""

from webfactory_env.sitegen.app import SiteApp
from webfactory_env.sitegen.registry import Family, Site, families, generate_site, get_family
from webfactory_env.sitegen.spec import Affordance, AppEvent, Option, PageView, Patch, SiteSpec

__all__ = [
    "Affordance",
    "AppEvent",
    "Family",
    "Option",
    "PageView",
    "Patch",
    "Site",
    "SiteApp",
    "SiteSpec",
    "families",
    "generate_site",
    "get_family",
]
