"""Commands about tasks: list the library, compile a task against a site, format a task file."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from webfactory_env.cli.common import Command, command_group, site_args, usage


def add_tasks(command: Command) -> None:
    """Declare `webfactory tasks list`."""
    tsub = command_group(command, "tasks", "the task library")
    c = tsub.add_parser("list", help="list library tasks")
    c.add_argument("--family")
    c.add_argument("--json", action="store_true")
    c.set_defaults(func=cmd_tasks_list)


def add_compile(command: Command) -> None:
    """Declare `webfactory compile`."""
    c = command("compile", "compile a task (library name or .task file) against a site")
    c.add_argument("task")
    site_args(c)
    c.add_argument("--json", action="store_true")
    c.set_defaults(func=cmd_compile)


def add_fmt(command: Command) -> None:
    """Declare `webfactory fmt`."""
    c = command("fmt", "print a task file in canonical form")
    c.add_argument("file")
    c.add_argument(
        "--check",
        action="store_true",
        help="exit 1 if the file is not already formatted; print nothing",
    )
    c.set_defaults(func=cmd_fmt)


def cmd_tasks_list(args: argparse.Namespace) -> int:
    from webfactory_env.tasks import library_tasks

    tasks = library_tasks(args.family)
    if args.json:
        print(json.dumps([{k: v for k, v in t.to_json().items() if k != "path"} for t in tasks]))
        return 0
    width = max((len(t.name) for t in tasks), default=4)
    for t in tasks:
        print(f"{t.name:<{width}}  {t.family:<8}  {t.difficulty:<6}  {t.description}")
    return 0


def cmd_compile(args: argparse.Namespace) -> int:
    from webfactory_env.sitegen import generate_site
    from webfactory_env.tasks import compile_for_site

    site = generate_site(args.family, args.seed, args.difficulty)
    compiled = compile_for_site(args.task, site)
    for warning in compiled.warnings:  # like a compiler's: located, on stderr
        print(warning, file=sys.stderr)
    if args.json:
        print(json.dumps(compiled.to_json(), indent=2, default=str))
        return 0
    print(f"task:        {compiled.name} ({compiled.family}, seed {args.seed})")
    print(f"digest:      {compiled.digest}")
    print(f"site digest: {compiled.site_digest}")
    if compiled.goal_text:
        print(f"description: {compiled.goal_text}")
    print(f"instruction: {compiled.instruction}")
    for text in compiled.paraphrases:
        print(f"  or:        {text}")
    print(f"values:      {list(compiled.values)}")
    print("goal (every part must hold at once, made by the task's own transitions):")
    for c in compiled.goal:
        print(f"  {c.id} [{c.kind}]  {c.description}")
        print(f"      predicate: {json.dumps(c.predicate.to_json(), default=str)}")
    print("frame (and nothing else: success needs the goal and the frame at once):")
    for line in compiled.frame.describe():
        print(f"  {line}")
    print(f"transitions: {', '.join(sorted(compiled.transitions)) or '(navigation only)'}")
    print("subgoals (shaping):")
    for g in compiled.subgoals:
        flags = "sticky" if g.sticky else ""
        print(f"  {g.id}{f' [{flags}]' if flags else ''}  (line {g.line})")
        print(f"      predicate: {json.dumps(g.predicate.to_json(), default=str)}")
        if g.witness:
            print(f"      witness:   {', '.join(g.witness)}")
        if g.prerequisites:
            print(f"      after:     {', '.join(g.prerequisites)}")
        if g.leads_to:
            print(f"      leads to:  {g.leads_to} (done too when that page is reached)")
    print("oracle plan:")
    for i, step in enumerate(compiled.plan, 1):
        value = f" {step.value!r}" if step.value is not None else ""
        print(f"  {i:>2}. {step.verb} {step.sid}{value}")
    print("bindings:")
    for key, value in compiled.bindings.items():
        print(f"  {key}: {json.dumps(value, default=str)}")
    return 0


def cmd_fmt(args: argparse.Namespace) -> int:
    from webfactory_env.dsl import format_task_file, parse_task_file

    path = Path(args.file)
    if not path.is_file():
        raise usage(f"{args.file}: no such file")
    parsed = parse_task_file(path)
    text = format_task_file(parsed)
    if args.check:
        return 0 if text == parsed.source else 1
    sys.stdout.write(text)
    return 0
