"""webfactory_env: seeded synthetic websites in headless Chromium as a Gymnasium environment.

Importing the package registers `WebTask-v0`:

    import gymnasium, webfactory_env
    env = gymnasium.make("WebTask-v0", family="shop", task="buy_red_mug")
"""

from gymnasium.envs.registration import register, registry

from webfactory_env.__about__ import __version__

if "WebTask-v0" not in registry:
    register(id="WebTask-v0", entry_point="webfactory_env.env:WebTaskEnv")

__all__ = ["__version__"]
