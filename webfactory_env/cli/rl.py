"""Commands for training language-model agents: `webfactory openenv serve`."""

from __future__ import annotations

import argparse

from webfactory_env.cli.common import Command, command_group
from webfactory_env.core.errors import ConfigError
from webfactory_env.rl.episode import REWARD_MODES, EpisodeSettings


def add_openenv(command: Command) -> None:
    """Declare `webfactory openenv serve`."""
    osub = command_group(command, "openenv", "serve web tasks to OpenEnv clients")
    c = osub.add_parser(
        "serve", help="serve web tasks over OpenEnv's WebSocket protocol (needs [openenv])"
    )
    c.add_argument("--host", default="127.0.0.1", help="bind address (default: 127.0.0.1)")
    c.add_argument("--port", type=int, default=8000, help="port (default: 8000)")
    c.add_argument(
        "--max-sessions",
        type=int,
        default=16,
        help="sessions at once, one browser context each (default: 16)",
    )
    c.add_argument(
        "--session-timeout",
        type=float,
        default=600.0,
        metavar="S",
        help="close a session idle for S seconds (default: 600; 0 = never)",
    )
    c.add_argument(
        "--call-timeout",
        type=float,
        default=60.0,
        metavar="S",
        help="a reset or step still running after S seconds leaves its episode unscorable",
    )
    c.add_argument(
        "--reward-mode",
        choices=REWARD_MODES,
        default="success",
        help="success: 1/0 at the end (GRPO's default); return: the shaped rewards",
    )
    c.add_argument("--max-steps", type=int, default=30, help="step budget per episode (30)")
    c.add_argument(
        "--max-chars", type=int, default=6000, help="cap on an observation's text (6000)"
    )
    c.add_argument("--family", help="the family a reset without family= plays")
    c.add_argument("--task", help="the task a reset without task= plays")
    c.set_defaults(func=cmd_openenv_serve)


def cmd_openenv_serve(args: argparse.Namespace) -> int:
    try:
        from webfactory_env.rl.openenv import ServeConfig, serve
    except ImportError as exc:
        raise ConfigError(
            f"`webfactory openenv serve` needs OpenEnv ({exc.name} is missing): install the"
            " extra, pip install 'webfactory-env[openenv]', or run ./scripts/setup --openenv"
            " and use .venv-openenv/bin/webfactory"
        ) from None
    config = ServeConfig(
        max_sessions=args.max_sessions,
        session_timeout_s=args.session_timeout or None,
        call_timeout_s=args.call_timeout,
        default_family=args.family,
        default_task=args.task,
        episode=EpisodeSettings(
            max_steps=args.max_steps, max_chars=args.max_chars, reward_mode=args.reward_mode
        ),
    )
    print(f"serving web tasks to OpenEnv clients at ws://{args.host}:{args.port}/ws", flush=True)
    serve(config, host=args.host, port=args.port)
    return 0
