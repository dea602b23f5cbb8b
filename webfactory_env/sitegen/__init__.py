"""Site generation: seeded specs, the Python apps that run them, and their HTML."""

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
