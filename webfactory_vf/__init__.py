"""The factory's verifiers environment under its plugin id, `webfactory-vf` (verifiers loads
a taskset, its env and its harness from a top-level module named after the id):

    vf eval webfactory-vf -m MODEL --env.taskset.suites '["shop-tasks-test"]'

Everything lives in `webfactory_env.rl.vf`; install with the extra `[verifiers]`.
"""

from webfactory_env.rl.vf import WebChatHarness, WebEpisodeEnv, WebTaskset

__all__ = ["WebChatHarness", "WebEpisodeEnv", "WebTaskset"]
