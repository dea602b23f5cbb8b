"""The `webfactory` command line (see shared/CLI.md for the contract).

One module per group of commands: `sites` (generate, serve, schema, axes, executor),
`tasks` (tasks list, compile, fmt), `episodes` (run, demo, replay, view, trace-schema),
`evaluation` (suites, eval, dataset, bench) and `rl` (openenv serve); `common` holds what
they share.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
from collections.abc import Sequence

from webfactory_env.__about__ import __version__
from webfactory_env.cli import episodes, evaluation, rl, sites, tasks
from webfactory_env.cli.episodes import run_episode
from webfactory_env.core.errors import WebfactoryError

__all__ = ["build_parser", "main", "run_episode"]

# The commands in the order `webfactory --help` lists them.
COMMANDS = (
    episodes.add_demo,
    sites.add_generate,
    sites.add_serve,
    sites.add_schema,
    sites.add_axes,
    tasks.add_tasks,
    tasks.add_compile,
    tasks.add_fmt,
    sites.add_executor,
    episodes.add_run,
    episodes.add_replay,
    episodes.add_view,
    episodes.add_trace_schema,
    evaluation.add_suites,
    evaluation.add_bench,
    evaluation.add_dataset,
    evaluation.add_eval,
    rl.add_openenv,
)


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        code = int(args.func(args) or 0)
        sys.stdout.flush()  # a closed pipe shows here, not at interpreter exit
        return code
    except BrokenPipeError:
        return _stdout_closed()
    except WebfactoryError as exc:
        if args.debug:
            raise
        print(f"error: {exc}" if not _is_dsl(exc) else str(exc), file=sys.stderr)
        return 2 if _is_dsl(exc) or isinstance(exc, ValueError) else 1
    except KeyboardInterrupt:
        return 130


def _stdout_closed() -> int:
    """The reader of our output went away (`webfactory tasks list | head -1`): stop quietly,
    with the exit status of a process killed by SIGPIPE, as `cat` and `ls` end there."""
    # Later writes and the final flush at exit must not fail again: point stdout at devnull.
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
    return 128 + signal.SIGPIPE


def _is_dsl(exc: Exception) -> bool:
    from webfactory_env.dsl.errors import DslError

    return isinstance(exc, DslError)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="webfactory",
        description="Seeded synthetic websites in a real browser, tasks from a DSL, exact rewards.",
    )
    p.add_argument("--version", action="version", version=f"webfactory {__version__}")
    p.add_argument("--debug", action="store_true", help="show Python tracebacks on errors")
    sub = p.add_subparsers(title="commands", metavar="COMMAND")

    def command(name: str, help_: str) -> argparse.ArgumentParser:
        c = sub.add_parser(name, help=help_, description=help_)
        c.add_argument(
            "--debug",
            action="store_true",
            default=argparse.SUPPRESS,
            help="show Python tracebacks on errors",
        )
        return c

    for add in COMMANDS:
        add(command)
    return p
