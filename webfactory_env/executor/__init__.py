"""All browser work: launching Chromium, serving sites, acting, observing, screenshots.
The only code that imports Playwright.

Imports `core` and `sitegen`; the env, the service and tools import it."""

from webfactory_env.executor.browser import BrowserConfig, find_chromium, shared_browser
from webfactory_env.executor.browser_server import BrowserServer
from webfactory_env.executor.session import (
    ORIGIN,
    BrowserOp,
    ObserveConfig,
    PageSession,
    SessionConfig,
    StepResult,
)

__all__ = [
    "ORIGIN",
    "BrowserConfig",
    "BrowserOp",
    "BrowserServer",
    "ObserveConfig",
    "PageSession",
    "SessionConfig",
    "StepResult",
    "find_chromium",
    "shared_browser",
]
