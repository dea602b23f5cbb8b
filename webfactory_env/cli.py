"""The `webfactory` command line (see shared/CLI.md for the contract)."""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from webfactory_env.__about__ import __version__
from webfactory_env.core.errors import UnknownNameError, WebfactoryError


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

    c = command("demo", "run the oracle on WebTask-v0 and save a screenshot and a trace")
    c.add_argument("--out", default="runs/demo", help="output directory (default: runs/demo)")
    c.add_argument("--seed", type=int, default=0, help="level seed (default: 0)")
    c.add_argument("--family", default="shop")
    c.add_argument("--task", default="buy_red_mug")
    c.set_defaults(func=cmd_demo)

    c = command("generate", "generate one site and print its digest")
    _site_args(c)
    _vary_arg(c)
    c.add_argument("--out", help="directory to write site.json (the site spec) into")
    c.add_argument(
        "--screenshot", action="store_true", help="also write a PNG of every static page into --out"
    )
    c.add_argument("--json", action="store_true", help="print a JSON object")
    c.set_defaults(func=cmd_generate)

    c = command("serve", "serve a generated site for a person to browse")
    _site_args(c)
    _vary_arg(c)
    c.add_argument("--host", default="127.0.0.1", help="bind address (default: 127.0.0.1)")
    c.add_argument("--port", type=int, default=8000, help="port (default: 8000; 0 = any free)")
    c.set_defaults(func=cmd_serve)

    c = command("schema", "list a site family's state paths and the part each plays in goals")
    c.add_argument("--family", required=True)
    c.add_argument("--json", action="store_true", help="print a JSON list")
    c.set_defaults(func=cmd_schema)

    c = command("axes", "list the variation axes (the variation vector) and their values")
    c.add_argument("--json", action="store_true", help="print a JSON list")
    c.set_defaults(func=cmd_axes)

    tasks = command("tasks", "the task library")
    tsub = tasks.add_subparsers(title="subcommands", metavar="SUBCOMMAND")
    c = tsub.add_parser("list", help="list library tasks")
    c.add_argument("--family")
    c.add_argument("--json", action="store_true")
    c.set_defaults(func=cmd_tasks_list)

    def tasks_help(_: argparse.Namespace) -> int:
        tasks.print_help()
        return 2

    tasks.set_defaults(func=tasks_help)

    c = command("compile", "compile a task (library name or .task file) against a site")
    c.add_argument("task")
    _site_args(c)
    c.add_argument("--json", action="store_true")
    c.set_defaults(func=cmd_compile)

    c = command("fmt", "print a task file in canonical form")
    c.add_argument("file")
    c.add_argument(
        "--check",
        action="store_true",
        help="exit 1 if the file is not already formatted; print nothing",
    )
    c.set_defaults(func=cmd_fmt)

    executor = command("executor", "the web-executor service")
    esub = executor.add_subparsers(title="subcommands", metavar="SUBCOMMAND")
    c = esub.add_parser("serve", help="serve GET /healthz, GET /sandbox and POST /execute")
    c.add_argument("--bind", help="host:port (default: $WEB_EXECUTOR_BIND_ADDR or 127.0.0.1:8091)")
    c.add_argument(
        "--user",
        help="user to drop to when started as root (default: $WEB_EXECUTOR_USER or nobody;"
        " `root` keeps root)",
    )
    c.add_argument("--family", default="shop", help="the site served on the fake origin")
    c.add_argument("--seed", type=int, default=0)
    c.add_argument(
        "--allow-origin",
        action="append",
        default=[],
        metavar="ORIGIN",
        help="another origin payload URLs may use (repeatable), e.g. http://127.0.0.1:8000;"
        " the browser reaches it through a proxy that reaches nothing else",
    )
    c.add_argument(
        "--header-timeout",
        type=float,
        default=10.0,
        metavar="S",
        help="close a connection whose request head has not arrived within S seconds (10)",
    )
    c.add_argument(
        "--body-timeout",
        type=float,
        default=20.0,
        metavar="S",
        help="answer 408 when a request body has not arrived within S seconds (20)",
    )
    c.add_argument(
        "--max-body",
        type=int,
        default=256 * 1024,
        metavar="BYTES",
        help="answer 413 to a larger request body (262144)",
    )
    c.set_defaults(func=cmd_executor_serve)

    def executor_help(_: argparse.Namespace) -> int:
        executor.print_help()
        return 2

    executor.set_defaults(func=executor_help)

    c = command("run", "run one episode with an agent")
    c.add_argument("--family", default="shop")
    c.add_argument("--task", required=True)
    c.add_argument("--seed", type=int, required=True)
    c.add_argument("--difficulty", default="easy")
    c.add_argument("--agent", default="oracle", help="oracle (default), random, or openai:MODEL")
    c.add_argument("--max-steps", type=int, default=64)
    c.add_argument("--trace", help="write a JSONL trace to this path")
    c.add_argument(
        "--bundle", help="also write a replay bundle to PATH (a directory, or PATH.tar.gz)"
    )
    c.add_argument(
        "--screenshots", action="store_true", help="store a PNG per step in the trace/bundle"
    )
    c.add_argument("--json", action="store_true")
    _llm_args(c)
    c.set_defaults(func=cmd_run)

    c = command("replay", "check or re-execute a replay bundle")
    c.add_argument("--bundle", required=True, help="a bundle directory or .tar.gz")
    c.add_argument(
        "--verify",
        action="store_true",
        help="check checksums, re-create site and task, re-execute every step and compare;"
        " exit 1 at the first difference",
    )
    c.set_defaults(func=cmd_replay)

    c = command("view", "write a self-contained HTML viewer of a trace or bundle")
    c.add_argument("source", metavar="TRACE_OR_BUNDLE")
    c.add_argument("--out", required=True, help="the HTML file to write")
    c.add_argument("--episode", type=int, default=1, help="episode of a trace file (default: 1)")
    c.set_defaults(func=cmd_view)

    c = command("trace-schema", "print (or write) the JSON Schema of trace lines")
    c.add_argument("--out", help="write it to this file (e.g. docs/trace-schema.json)")
    c.set_defaults(func=cmd_trace_schema)

    suites = command("suites", "evaluation and dataset suites")
    ssub = suites.add_subparsers(title="subcommands", metavar="SUBCOMMAND")
    c = ssub.add_parser("list", help="list suites")
    c.add_argument("--json", action="store_true")
    c.set_defaults(func=cmd_suites_list)

    def suites_help(_: argparse.Namespace) -> int:
        suites.print_help()
        return 2

    suites.set_defaults(func=suites_help)

    c = command("bench", "speed benchmarks: step and reset medians next to the browser floor")
    c.add_argument("--json", action="store_true", help="print JSON with the medians in ms")
    c.add_argument("--repeats", type=int, default=50, help="timed runs per figure (median)")
    c.add_argument(
        "--envs",
        default="1,2,4,8",
        help="vector env sizes for the scaling table, comma-separated (0: skip the table)",
    )
    c.set_defaults(func=cmd_bench)

    c = command("dataset", "record episodes of a suite as replay bundles plus arrays")
    c.add_argument("--suite", required=True)
    c.add_argument("--agent", choices=["oracle", "random"], default="oracle")
    c.add_argument("--episodes", type=int, required=True)
    c.add_argument("--out", required=True, help="a new (or empty) directory")
    c.add_argument("--max-steps", type=int, default=64)
    c.add_argument("--obs-mode", default="tokens", help="tokens, pixels or tokens+pixels")
    c.add_argument("--screenshots", action="store_true", help="store a PNG per step")
    c.set_defaults(func=cmd_dataset)

    c = command("eval", "evaluate an agent on a suite: metrics file, Markdown summary, plot")
    c.add_argument(
        "--agent",
        help="random, oracle, sb3:PATH (an SB3/MaskablePPO .zip), or openai:MODEL (a model"
        " behind any OpenAI-compatible chat endpoint: vLLM, llama.cpp, Ollama, ...)",
    )
    c.add_argument("--suite", help="a suite name (see `webfactory suites list`)")
    c.add_argument(
        "--task",
        help="instead of --suite: one task on held-out level seeds 100000, 100001, ...",
    )
    c.add_argument("--family", help="with --task: its site family (default: the task's own)")
    c.add_argument("--episodes", type=int, help="run the suite's first N episodes")
    c.add_argument(
        "--out", help="the results file (e.g. results.json); results.md/.png go next to it"
    )
    c.add_argument(
        "--max-steps",
        type=int,
        help="step budget per episode (default: the model's own, else 64)",
    )
    c.add_argument(
        "--obs-mode", help="tokens, pixels or tokens+pixels (default: the model's, else tokens)"
    )
    c.add_argument(
        "--robustness",
        metavar="AXES",
        help="also run each episode on a plain site and once per axis perturbed"
        " (comma-separated AXIS or AXIS=VALUE, or all) for paired robustness indices",
    )
    c.add_argument(
        "--schema",
        action="store_true",
        help="print the JSON Schema of the results file (with --out, write it there)",
    )
    c.add_argument("--trace", help="also record the agent's episodes to this JSONL trace")
    _llm_args(c)
    c.set_defaults(func=cmd_eval)
    return p


def _llm_args(c: argparse.ArgumentParser) -> None:
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


def _llm_options(args: argparse.Namespace) -> Any:
    from webfactory_env.evaluation.agents import LLMOptions

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
    )


def _site_args(c: argparse.ArgumentParser) -> None:
    c.add_argument("--family", default="shop", help="site family (default: shop)")
    c.add_argument("--seed", type=int, required=True, help="level seed")
    c.add_argument("--difficulty", default="easy", help="easy, medium or hard (default: easy)")


def _vary_arg(c: argparse.ArgumentParser) -> None:
    c.add_argument(
        "--vary",
        action="append",
        default=[],
        metavar="AXIS=VALUE",
        help="fix a variation axis, e.g. --vary theme=dark (repeatable; `webfactory axes` "
        "lists them; the others are drawn from the seed)",
    )


def _variation(args: argparse.Namespace) -> dict[str, str]:
    out = {}
    for item in args.vary:
        axis, sep, value = item.partition("=")
        if not sep or not axis or not value:
            raise _usage(f"--vary takes AXIS=VALUE (e.g. theme=dark), got {item!r}")
        out[axis.strip()] = value.strip()
    return out


# ------------------------------------------------------------------- commands
def cmd_axes(args: argparse.Namespace) -> int:
    from webfactory_env.sitegen.variation import describe_axes

    axes = describe_axes()
    if args.json:
        print(json.dumps(axes))
        return 0
    width = max(len(a["name"]) for a in axes)
    for a in axes:
        values = "|".join(a["values"])
        print(f"{a['name']:<{width}}  {a['group']:<11} {values:<32} {a['description']}")
    return 0


def cmd_schema(args: argparse.Namespace) -> int:
    from webfactory_env.sitegen import get_family

    rows = [{"path": p, "part": part} for p, part in get_family(args.family).schema.documented()]
    if args.json:
        print(json.dumps(rows))
        return 0
    width = max(len(r["path"]) for r in rows)
    print(f"{'path':<{width}}  part (entities and session are what goals pin)")
    for r in rows:
        print(f"{r['path']:<{width}}  {r['part']}")
    return 0


def cmd_generate(args: argparse.Namespace) -> int:
    from webfactory_env.sitegen import generate_site

    site = generate_site(args.family, args.seed, args.difficulty, _variation(args) or None)
    written = []
    if args.out:
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        (out / "site.json").write_text(
            json.dumps({"digest": site.digest, **site.spec.to_json()}, indent=2, default=str)
        )
        written.append(str(out / "site.json"))
        if args.screenshot:
            written += _page_screenshots(site, out)
    elif args.screenshot:
        raise _usage("--screenshot needs --out DIR")
    if args.json:
        print(
            json.dumps(
                {
                    "family": site.spec.family,
                    "seed": site.spec.seed,
                    "difficulty": site.spec.difficulty,
                    "digest": site.digest,
                    "brand": site.spec.brand,
                    "routes": len(site.spec.routes),
                    "variation": site.spec.variation,
                    "files": written,
                }
            )
        )
    else:
        print(f"digest: {site.digest}")
        for f in written:
            print(f"wrote {f}")
    return 0


def _page_screenshots(site: Any, out: Path) -> list[str]:
    from webfactory_env.executor import ObserveConfig, PageSession

    session = PageSession()
    files = []
    try:
        for route in site.representative_routes():  # one page of each kind
            app = site.new_app()
            app.visit(route)
            session.load(app, seed=site.spec.seed, observe=ObserveConfig())
            name = "home" if route == "/" else route.strip("/").replace("/", "_")
            path = out / f"{name}.png"
            path.write_bytes(session.screenshot_png())
            files.append(str(path))
    finally:
        session.close()
    return files


def cmd_executor_serve(args: argparse.Namespace) -> int:
    from webfactory_env.service import Limits, serve

    def ready(host: str, port: int) -> None:
        shown = f"[{host}]" if ":" in host else host
        print(f"web executor listening on http://{shown}:{port}/", flush=True)

    if min(args.header_timeout, args.body_timeout) <= 0 or args.max_body < 1:
        raise _usage("--header-timeout and --body-timeout must be > 0, --max-body >= 1")
    serve(
        bind=args.bind,
        user=args.user,
        family=args.family,
        seed=args.seed,
        allowed_origins=tuple(args.allow_origin),
        ready=ready,
        limits=Limits(max_body=args.max_body, body_timeout_s=args.body_timeout),
        header_timeout_s=args.header_timeout,
    )
    return 0


def cmd_serve(args: argparse.Namespace) -> int:
    from webfactory_env.sitegen import generate_site
    from webfactory_env.sitegen.serve import make_server

    site = generate_site(args.family, args.seed, args.difficulty, _variation(args) or None)
    server = make_server(site.new_app(), args.host, args.port)
    host, port = str(server.server_address[0]), int(server.server_address[1])
    print(
        f"serving {args.family} seed {args.seed} ({site.spec.brand}) at http://{host}:{port}/",
        flush=True,
    )
    print("press Ctrl-C to stop", file=sys.stderr, flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


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
        raise _usage(f"{args.file}: no such file")
    parsed = parse_task_file(path)
    text = format_task_file(parsed)
    if args.check:
        return 0 if text == parsed.source else 1
    sys.stdout.write(text)
    return 0


def run_episode(
    family: str,
    task: str,
    seed: int,
    agent: str,
    *,
    difficulty: str = "easy",
    max_steps: int = 64,
    trace: str | None = None,
    on_step: Any = None,
    obs_mode: str = "tokens+pixels",
    screenshots: bool = False,
    llm: Any = None,
) -> tuple[dict[str, Any], Any]:
    """One episode; returns the summary and the (still open) env for artifacts. `agent` is
    oracle, random or any `webfactory eval` agent (openai:MODEL with `llm` options)."""
    import gymnasium as gym

    from webfactory_env.agents import AGENTS
    from webfactory_env.llm import AgentAbort
    from webfactory_env.trace import TraceRecorder

    spec = None
    if agent not in AGENTS:
        from webfactory_env.evaluation.agents import parse_agent

        spec = parse_agent(agent, llm)  # before the browser starts: mistakes fail fast
    kwargs: dict[str, Any] = {"obs_mode": obs_mode, **(spec.env_kwargs if spec else {})}
    env = gym.make(
        "WebTask-v0", family=family, task=task, difficulty=difficulty, max_steps=max_steps, **kwargs
    )
    if trace:
        env = TraceRecorder(env, trace, screenshots=screenshots)
    policy = spec.make_policy(env, seed) if spec else AGENTS[agent](env, seed=seed)
    obs, info = env.reset(seed=seed)
    policy.reset()
    total, steps, success, terminated, truncated = 0.0, 0, False, False, False
    reason = None
    while not (terminated or truncated):
        try:
            action = policy.act(obs, info)
        except AgentAbort as exc:  # the model cannot go on; the trace keeps every step
            reason = str(exc)
            if isinstance(env, TraceRecorder):
                env.end_episode(reason)
            break
        obs, reward, terminated, truncated, info = env.step(action)
        total += float(reward)
        steps += 1
        success = bool(info["success"])
        if on_step:
            on_step(steps, info, float(reward))
    if not success and reason is None:
        reason = "truncated: step budget exhausted" if truncated else "agent ended the episode"
    summary = {
        "success": success,
        "steps": steps,
        "return": round(total, 6),
        "outcome": "success" if success else "soft_fail",
        "reason": reason,
        "family": family,
        "task": info["task"],
        "seed": seed,
        "agent": agent,
        "site_digest": info["site_digest"],
        "task_digest": info["task_digest"],
        "instruction": info["instruction"],
    }
    usage = getattr(policy, "usage", None)
    if usage is not None:
        summary["llm"] = {
            "calls": usage.calls,
            "prompt_tokens": usage.prompt_tokens,
            "completion_tokens": usage.completion_tokens,
            "malformed_replies": usage.malformed_replies,
            "retries": usage.retries,
            "latency_s": round(sum(usage.latencies_s), 3),
            "failure": usage.failure,
        }
    return summary, env


def cmd_run(args: argparse.Namespace) -> int:
    import tempfile

    with tempfile.TemporaryDirectory(prefix="wf-run-") as tmp:
        # A bundle needs a trace: record one next to the temporary files if none was asked.
        trace = args.trace or (str(Path(tmp) / "trace.jsonl") if args.bundle else None)
        if args.screenshots and not trace:
            raise _usage("--screenshots needs --trace PATH or --bundle PATH")
        if args.bundle:
            from webfactory_env.replay.bundle import check_new_bundle_path

            check_new_bundle_path(args.bundle)  # before the episode, not after it
        summary, env = run_episode(
            args.family,
            args.task,
            args.seed,
            args.agent,
            difficulty=args.difficulty,
            max_steps=args.max_steps,
            trace=trace,
            obs_mode="tokens",
            screenshots=args.screenshots,
            llm=_llm_options(args),
        )
        try:
            if args.bundle and trace:
                from webfactory_env.replay import write_bundle

                summary["bundle"] = str(write_bundle(args.bundle, env, trace))
        finally:
            env.close()
    if args.json:
        print(json.dumps(summary))
    else:
        print(
            f"{summary['outcome']}: {summary['task']} on {summary['family']} seed {summary['seed']}"
            f" with {summary['agent']} in {summary['steps']} steps, return {summary['return']:+.3f}"
        )
        if summary.get("bundle"):
            print(f"bundle: {summary['bundle']}")
    return 0


def cmd_replay(args: argparse.Namespace) -> int:
    from webfactory_env.replay import verify_bundle
    from webfactory_env.replay.bundle import bundle_trace, load_manifest, open_bundle

    if not args.verify:
        with open_bundle(args.bundle) as root:
            m = load_manifest(root)
            steps = len(bundle_trace(root).steps)
        print(f"{m.task} on {m.family} seed {m.seed} ({m.difficulty}): {steps} steps,")
        print(f"  success {m.success}, return {m.episode_return:+.3f}")
        print(f"  site digest {m.site_digest}\n  task digest {m.task_digest}")
        print(f"  recorded with webfactory {m.package_version} (build {m.build_hash})")
        print("add --verify to re-execute it and compare every step")
        return 0
    verdict = verify_bundle(args.bundle)
    for note in verdict.notes:
        print(f"note: {note}", file=sys.stderr)
    if verdict.ok:
        print(verdict.message)
        return 0
    if verdict.malformed:  # a file not in its schema: bad input, like any other (exit 2)
        print(f"error: {verdict.message}", file=sys.stderr)
        return 2
    print(f"verification failed: {verdict.message}", file=sys.stderr)
    return 1


def cmd_view(args: argparse.Namespace) -> int:
    from webfactory_env.replay import write_report

    refused: list[str] = []
    out = write_report(args.source, args.out, episode=args.episode, refused=refused)
    for note in refused:  # a screenshot name pointing out of the bundle: not embedded
        print(f"note: refused to embed screenshot {note}", file=sys.stderr)
    print(f"wrote {out}")
    return 0


def cmd_bench(args: argparse.Namespace) -> int:
    from webfactory_env import bench

    if args.repeats < 1:
        raise _usage("--repeats must be at least 1")
    result = bench.run(args.repeats, bench.parse_envs(args.envs))
    print(json.dumps(result, indent=2) if args.json else bench.table(result))
    return 0


def cmd_trace_schema(args: argparse.Namespace) -> int:
    from webfactory_env.trace.schema import schema_text

    if args.out:
        out = Path(args.out)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(schema_text(), encoding="utf-8")
        print(f"wrote {out}")
    else:
        sys.stdout.write(schema_text())
    return 0


def cmd_suites_list(args: argparse.Namespace) -> int:
    from webfactory_env.suites import suites

    found = list(suites().values())
    if args.json:
        print(json.dumps([s.to_json() for s in found]))
        return 0
    width = max((len(s.name) for s in found), default=4)
    for s in found:
        size = f"{s.size:>7} episodes"
        print(f"{s.name:<{width}}  v{s.version}  {s.split:<5}  {size}  {s.description}")
    return 0


def _task_suite(task: str, family: str | None, episodes: int | None) -> Any:
    """A one-task suite on held-out level seeds (100000 on), for `eval --task`."""
    from webfactory_env.suites import Suite
    from webfactory_env.tasks import library_tasks

    if family is None:
        known = {t.name: t.family for t in library_tasks()}
        if task not in known:
            raise UnknownNameError("task", task, sorted(known))
        family = known[task]
    return Suite(
        name=f"{task}-held-out",
        description=f"{task} on held-out level seeds",
        family=family,
        tasks=(task,),
        seed_start=100_000,
        seed_count=max(int(episodes or 1), 1),
        split="test",
    )


def cmd_eval(args: argparse.Namespace) -> int:
    from webfactory_env.evaluation import (
        evaluate,
        parse_agent,
        parse_perturbations,
        results_paths,
        schema_text,
        summary_lines,
        write_results,
    )
    from webfactory_env.progress import ProgressBar
    from webfactory_env.suites import get_suite

    if args.schema:
        if args.out:
            out = Path(args.out)
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_text(schema_text(), encoding="utf-8")
            print(f"wrote {out}")
        else:
            sys.stdout.write(schema_text())
        return 0
    if args.task and args.suite:
        raise _usage("give --suite or --task, not both")
    if args.family and not args.task:
        raise _usage("--family goes with --task (a suite names its own families)")
    wanted = ("agent", "episodes", "out") if args.task else ("agent", "suite", "episodes", "out")
    missing = [f"--{k}" for k in wanted if getattr(args, k) is None]
    if missing:
        raise _usage(f"webfactory eval needs {', '.join(missing)} (see webfactory eval --help)")
    # Every mistake is reported before the first (slow) episode.
    suite = (
        _task_suite(args.task, args.family, args.episodes) if args.task else get_suite(args.suite)
    )
    if args.episodes < 1:
        raise _usage("--episodes must be at least 1")
    list(suite.episode_specs(args.episodes))  # more than the suite holds: says so
    perturbations = parse_perturbations(args.robustness)
    results_paths(args.out)
    agent = parse_agent(args.agent, _llm_options(args))
    bar = ProgressBar(args.episodes, label=f"eval {suite.name}", unit="episodes")
    with bar:
        results = evaluate(
            suite,
            agent,
            args.episodes,
            max_steps=args.max_steps,
            obs_mode=args.obs_mode,
            perturbations=perturbations,
            on_episode=lambda done, total, row: bar.update(done, ok=row.success),
            trace=args.trace,
        )
    written = write_results(results, args.out)
    for line in summary_lines(results):
        print(line)
    for path in written:
        print(f"wrote {path}")
    return 0


def cmd_dataset(args: argparse.Namespace) -> int:
    from webfactory_env.progress import ProgressBar
    from webfactory_env.replay import read_skipped, write_dataset
    from webfactory_env.replay.dataset import SKIPPED
    from webfactory_env.suites import get_suite

    suite = get_suite(args.suite)
    bar = ProgressBar(args.episodes, label=f"dataset {suite.name}", unit="episodes")
    with bar:
        rows = write_dataset(
            suite,
            args.agent,
            args.episodes,
            args.out,
            obs_mode=args.obs_mode,
            max_steps=args.max_steps,
            screenshots=args.screenshots,
            on_episode=lambda done, total, row: bar.update(done, ok=row["success"]),
        )
    wins = sum(r["success"] for r in rows)
    print(f"wrote {len(rows)} episodes ({wins} successful) to {args.out}")
    skipped = read_skipped(args.out)
    if skipped:
        first = skipped[0]
        print(
            f"skipped {len(skipped)} episode{'s' if len(skipped) != 1 else ''} whose task"
            " cannot be compiled on its level"
            f" (listed in {Path(args.out) / SKIPPED}; first: {first['task']} on level seed"
            f" {first['seed']}: {first['reason']})"
        )
    return 0


def cmd_demo(args: argparse.Namespace) -> int:
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    trace_path = out / "trace.jsonl"
    if trace_path.exists():
        trace_path.unlink()

    def show(step: int, info: dict[str, Any], reward: float) -> None:
        rec = info["record"]
        action = rec["action"]
        target = action["target"] or ""
        value = f" {action['value']!r}" if action["value"] else ""
        newly = ", ".join(rec["reward"]["subgoals"]) or "-"
        err = f"  invalid: {rec['error']}" if rec["error"] else ""
        print(
            f"step {step:>2}  {action['verb']:<11} {target}{value}\n"
            f"         reward {reward:+.3f}  subgoals: {newly}{err}",
            flush=True,
        )

    print(
        f"webfactory demo: oracle on WebTask-v0 ({args.family}/{args.task}, seed {args.seed})",
        flush=True,
    )
    summary, env = run_episode(
        args.family, args.task, args.seed, "oracle", trace=str(trace_path), on_step=show
    )
    try:
        shot = out / "final.png"
        shot.write_bytes(env.unwrapped.screenshot_png())
    finally:
        env.close()
    print(f"instruction: {summary['instruction']}")
    print(f"{summary['outcome']}: {summary['steps']} steps, return {summary['return']:+.3f}")
    print(f"site digest: {summary['site_digest']}")
    print(f"task digest: {summary['task_digest']}")
    print(f"screenshot:  {shot}")
    print(f"trace:       {trace_path}")
    return 0 if summary["success"] else 1


class _UsageError(WebfactoryError, ValueError):
    pass


def _usage(message: str) -> _UsageError:
    return _UsageError(message)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
