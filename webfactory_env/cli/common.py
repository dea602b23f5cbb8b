"""What the command groups share: how a command is declared, usage errors, common flags."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from webfactory_env.core.errors import WebfactoryError

# Declares one command: `command(name, help)` gives its parser (see `build_parser`).
Command = Callable[[str, str], argparse.ArgumentParser]


def command_group(command: Command, name: str, help_: str) -> Any:
    """A command with subcommands (`tasks list`); alone, it prints its help and exits 2.
    Returns the subparsers to add the subcommands to."""
    group = command(name, help_)
    subcommands = group.add_subparsers(title="subcommands", metavar="SUBCOMMAND")

    def show_help(_: argparse.Namespace) -> int:
        group.print_help()
        return 2

    group.set_defaults(func=show_help)
    return subcommands


class UsageError(WebfactoryError, ValueError):
    """A command line that cannot work (exit 2, like argparse's own errors)."""


def usage(message: str) -> UsageError:
    return UsageError(message)


def write_or_print(text: str, out: str | None) -> None:
    """Write `text` to the file `out` and say so, or print it when no file is given."""
    if out:
        path = Path(out)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        print(f"wrote {path}")
    else:
        sys.stdout.write(text)


def llm_args(c: argparse.ArgumentParser) -> None:
    g = c.add_argument_group(
        "openai:MODEL agents",
        "a language model behind an OpenAI-compatible chat-completions endpoint",
    )
    g.add_argument(
        "--base-url", help="the endpoint, e.g. http://127.0.0.1:8000/v1 (default: $OPENAI_BASE_URL)"
    )
    g.add_argument(
        "--api-key",
        help="the API key (default: $OPENAI_API_KEY; prefer the variable: flags show in ps)",
    )
    g.add_argument("--temperature", type=float, default=0.0, help="sampling temperature (0)")
    g.add_argument("--max-tokens", type=int, default=512, help="cap on each reply (512)")
    g.add_argument(
        "--request-timeout",
        type=float,
        default=120.0,
        metavar="SECONDS",
        help="wall-clock deadline of one request (120)",
    )
    g.add_argument(
        "--max-attempts",
        type=int,
        default=4,
        help="requests per model call on timeouts, 429 and 5xx (4)",
    )
    g.add_argument(
        "--retry-budget",
        type=float,
        default=60.0,
        metavar="SECONDS",
        help="backoff allowed per call, counted from the planned waits (60)",
    )
    g.add_argument("--history", type=int, default=8, help="past steps repeated in the prompt (8)")
    g.add_argument(
        "--max-malformed",
        type=int,
        default=5,
        help="replies without an action in a row before the episode is given up (5)",
    )
    g.add_argument(
        "--max-chars", type=int, default=8000, help="size budget of the text observation (8000)"
    )
    g.add_argument("--price-input", type=float, help="USD per million prompt tokens (for cost)")
    g.add_argument("--price-output", type=float, help="USD per million reply tokens (for cost)")
    g.add_argument(
        "--obs",
        choices=("text", "screenshot"),
        default="text",
        help="what the model sees: the page as text (default), or a 1280x800 screenshot as an"
        " image, acting with the mouse and keyboard at its points",
    )
    g.add_argument(
        "--set-of-marks",
        action="store_true",
        help="with --obs screenshot: number the actionable elements on it; the model acts on"
        " them by number, click(12)",
    )
    g.add_argument(
        "--tool-calls",
        action="store_true",
        help="with --obs screenshot: the model acts by calling a computer function (tools)"
        " rather than writing its action as text",
    )


def llm_options(args: argparse.Namespace) -> Any:
    from webfactory_env.evaluation.agents import LLMOptions

    screen = args.obs != "text" or args.set_of_marks or args.tool_calls
    if screen and not str(args.agent).startswith("openai:"):
        raise usage(
            f"--obs, --set-of-marks and --tool-calls choose what a model sees and how it acts;"
            f" --agent {args.agent} is no model: use --agent openai:MODEL"
        )

    return LLMOptions(
        base_url=args.base_url,
        api_key=args.api_key,
        temperature=args.temperature,
        max_tokens=args.max_tokens,
        timeout_s=args.request_timeout,
        max_attempts=args.max_attempts,
        retry_budget_s=args.retry_budget,
        history=args.history,
        max_malformed=args.max_malformed,
        max_chars=args.max_chars,
        price_input=args.price_input,
        price_output=args.price_output,
        observation=args.obs,
        set_of_marks=args.set_of_marks,
        tool_calls=args.tool_calls,
    )


def instruction_style_arg(c: argparse.ArgumentParser) -> None:
    from webfactory_env.tasks.compiled import INSTRUCTION_STYLES

    c.add_argument(
        "--instruction-style",
        choices=INSTRUCTION_STYLES,
        help="how the agent is told the task: the goal in words (goal, the default), the"
        " goal with the step-by-step recipe as hints (goal+hints), or the recipe alone",
    )


def difficulty_arg(c: argparse.ArgumentParser, default: str | None, help_: str) -> None:
    from webfactory_env.sitegen.registry import DIFFICULTIES

    c.add_argument("--difficulty", choices=DIFFICULTIES, default=default, help=help_)


def site_args(c: argparse.ArgumentParser) -> None:
    c.add_argument("--family", default="shop", help="site family (default: shop)")
    c.add_argument("--seed", type=int, required=True, help="level seed")
    c.add_argument("--difficulty", default="easy", help="easy, medium or hard (default: easy)")


def vary_arg(c: argparse.ArgumentParser) -> None:
    c.add_argument(
        "--vary",
        action="append",
        default=[],
        metavar="AXIS=VALUE",
        help="fix a variation axis, e.g. --vary theme=dark (repeatable; `webfactory axes` "
        "lists them; the others are drawn from the seed)",
    )


def variation(args: argparse.Namespace) -> dict[str, str]:
    out = {}
    for item in args.vary:
        axis, sep, value = item.partition("=")
        if not sep or not axis or not value:
            raise usage(f"--vary takes AXIS=VALUE (e.g. theme=dark), got {item!r}")
        out[axis.strip()] = value.strip()
    return out
