"""Web tasks on OpenEnv (extra `[openenv]`): the typed action, observation and state, the
`WebTaskEnvironment` on the episode host, the server (`webfactory openenv serve`) and the
`WebTaskClient`. OpenEnv's `GenericEnvClient` works too:
`reset(family="shop", task="buy_red_mug", level_seed=3)`, then `step({"action": "click(4)"})`.
"""

from webfactory_env.rl.openenv.client import WebTaskClient
from webfactory_env.rl.openenv.environment import WebTaskEnvironment
from webfactory_env.rl.openenv.models import WebTaskAction, WebTaskObservation, WebTaskState
from webfactory_env.rl.openenv.server import ENV_NAME, LazyHost, ServeConfig, make_app, serve

__all__ = [
    "ENV_NAME",
    "LazyHost",
    "ServeConfig",
    "WebTaskAction",
    "WebTaskClient",
    "WebTaskEnvironment",
    "WebTaskObservation",
    "WebTaskState",
    "make_app",
    "serve",
]
