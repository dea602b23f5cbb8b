"""The module-level app OpenEnv's tooling imports (`openenv.yaml`'s `app:`), configured from
the environment: WEBFACTORY_MAX_SESSIONS (16), WEBFACTORY_SESSION_TIMEOUT (600 s),
WEBFACTORY_REWARD_MODE (success). `webfactory openenv serve` takes the same as options."""

from __future__ import annotations

import os
from typing import cast

from webfactory_env.rl.episode import EpisodeSettings, RewardMode
from webfactory_env.rl.openenv.server import ServeConfig, make_app

app = make_app(
    ServeConfig(
        max_sessions=int(os.environ.get("WEBFACTORY_MAX_SESSIONS", "16")),
        session_timeout_s=float(os.environ.get("WEBFACTORY_SESSION_TIMEOUT", "600")) or None,
        episode=EpisodeSettings(
            reward_mode=cast(RewardMode, os.environ.get("WEBFACTORY_REWARD_MODE", "success"))
        ),
    )
)
