"""webfactory_env: seeded synthetic websites in headless Chromium as a Gymnasium environment.

Importing the package registers `WebTask-v0`:

    import gymnasium, webfactory_env
    env = gymnasium.make("WebTask-v0", family="shop", task="buy_red_mug")
"""

from typing import Any

from gymnasium.envs.registration import register, registry

from webfactory_env.__about__ import __version__

if "WebTask-v0" not in registry:
    # No OrderEnforcing/PassiveEnvChecker wrappers: the env enforces reset-before-step
    # itself (a ConfigError that says so) and the tests run Gymnasium's full checker, so
    # `gymnasium.make` hands back the env and `env.action_masks()` works as documented.
    # Behind other wrappers use `env.get_wrapper_attr("action_masks")()` (as sb3-contrib
    # does) or `webfactory_env.action_masks(env)`.
    register(
        id="WebTask-v0",
        entry_point="webfactory_env.env:WebTaskEnv",
        # gymnasium.make_vec's default: worker processes sharing one Chromium.
        vector_entry_point="webfactory_env.vector:WebTaskVectorEnv",
        order_enforce=False,
        disable_env_checker=True,
    )


def action_masks(env: Any) -> Any:
    """The valid-action masks of a `WebTask-v0` env behind any stack of wrappers (or of
    every env of an SB3 vector env), the way sb3-contrib's MaskablePPO reads them."""
    if hasattr(env, "env_method"):
        import numpy as np

        return np.stack(env.env_method("action_masks"))
    return env.get_wrapper_attr("action_masks")()


__all__ = ["__version__", "action_masks"]
