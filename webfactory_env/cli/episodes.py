"""Commands about episodes: run one, the demo, replay bundles, trace viewers and schema."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from webfactory_env.cli.common import (
    Command,
    difficulty_arg,
    instruction_style_arg,
    llm_args,
    llm_options,
    usage,
    write_or_print,
)


def add_demo(command: Command) -> None:
    """Declare `webfactory demo`."""
    c = command("demo", "run the oracle on WebTask-v0 and save a screenshot and a trace")
    c.add_argument("--out", default="runs/demo", help="output directory (default: runs/demo)")
    c.add_argument("--seed", type=int, default=0, help="level seed (default: 0)")
    c.add_argument("--family", default="shop")
    c.add_argument("--task", default="buy_red_mug")
    c.set_defaults(func=cmd_demo)


def add_run(command: Command) -> None:
    """Declare `webfactory run`."""
    c = command("run", "run one episode with an agent")
    c.add_argument("--family", default="shop")
    c.add_argument("--task", required=True)
    c.add_argument("--seed", type=int, required=True)
    difficulty_arg(c, "easy", "easy (default), medium or hard")
    instruction_style_arg(c)
    c.add_argument("--agent", default="oracle", help="oracle (default), random, or openai:MODEL")
    c.add_argument("--max-steps", type=int, default=64)
    c.add_argument(
        "--obs-mode", help="tokens, pixels or tokens+pixels (default: the agent's, else tokens)"
    )
    c.add_argument("--trace", help="write a JSONL trace to this path")
    c.add_argument(
        "--bundle", help="also write a replay bundle to PATH (a directory, or PATH.tar.gz)"
    )
    c.add_argument(
        "--screenshots", action="store_true", help="store a PNG per step in the trace/bundle"
    )
    c.add_argument("--json", action="store_true")
    llm_args(c)
    c.set_defaults(func=cmd_run)


def add_replay(command: Command) -> None:
    """Declare `webfactory replay`."""
    c = command("replay", "check or re-execute a replay bundle")
    c.add_argument("--bundle", required=True, help="a bundle directory or .tar.gz")
    c.add_argument(
        "--verify",
        action="store_true",
        help="check checksums, re-create site and task, re-execute every step and compare;"
        " exit 1 at the first difference",
    )
    c.set_defaults(func=cmd_replay)


def add_view(command: Command) -> None:
    """Declare `webfactory view`."""
    c = command("view", "write a self-contained HTML viewer of a trace or bundle")
    c.add_argument("source", metavar="TRACE_OR_BUNDLE")
    c.add_argument("--out", required=True, help="the HTML file to write")
    c.add_argument("--episode", type=int, default=1, help="episode of a trace file (default: 1)")
    c.set_defaults(func=cmd_view)


def add_trace_schema(command: Command) -> None:
    """Declare `webfactory trace-schema`."""
    c = command("trace-schema", "print (or write) the JSON Schema of trace lines")
    c.add_argument("--out", help="write it to this file (e.g. docs/trace-schema.json)")
    c.set_defaults(func=cmd_trace_schema)


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
    instruction_style: str | None = None,
    asked_obs_mode: str | None = None,
) -> tuple[dict[str, Any], Any]:
    """One episode; returns the summary and the (still open) env for artifacts. `agent` is
    oracle, random or any `webfactory eval` agent (openai:MODEL with `llm` options).
    `obs_mode` is the observation when the agent has none of its own; `asked_obs_mode`
    (`--obs-mode`) goes over the agent's, where the agent can read it."""
    import gymnasium as gym

    from webfactory_env.agents import AGENTS
    from webfactory_env.llm import AgentAbort
    from webfactory_env.trace import TraceRecorder

    spec = None
    if agent not in AGENTS:
        from webfactory_env.evaluation.agents import episode_obs_mode, parse_agent

        spec = parse_agent(agent, llm)  # before the browser starts: mistakes fail fast
    kwargs: dict[str, Any] = {"obs_mode": obs_mode, **(spec.env_kwargs if spec else {})}
    if asked_obs_mode is not None:
        kwargs["obs_mode"] = episode_obs_mode(spec, asked_obs_mode) if spec else asked_obs_mode
    if instruction_style is not None:
        kwargs["instruction_style"] = instruction_style
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
        from webfactory_env.evaluation.agents import llm_prices
        from webfactory_env.evaluation.harness import llm_usage

        # The same section as an `eval` results row's.
        summary["llm"] = llm_usage(usage, llm_prices(llm)).model_dump(mode="json")
    return summary, env


def cmd_run(args: argparse.Namespace) -> int:
    import tempfile

    with tempfile.TemporaryDirectory(prefix="wf-run-") as tmp:
        # A bundle needs a trace: record one next to the temporary files if none was asked.
        trace = args.trace or (str(Path(tmp) / "trace.jsonl") if args.bundle else None)
        if args.screenshots and not trace:
            raise usage("--screenshots needs --trace PATH or --bundle PATH")
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
            llm=llm_options(args),
            instruction_style=args.instruction_style,
            asked_obs_mode=args.obs_mode,
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
        if summary.get("llm"):
            print(model_line(summary["llm"]))
        if summary.get("bundle"):
            print(f"bundle: {summary['bundle']}")
    return 0


def model_line(llm: dict[str, Any]) -> str:
    """A run's model calls in one line: calls, tokens, cost, malformed replies, failure."""
    tokens = "tokens not reported"
    if llm["total_tokens"] is not None:
        tokens = f"{llm['prompt_tokens']} + {llm['completion_tokens']} tokens"
    cost = f", ${llm['cost_usd']:.6f}" if llm["cost_usd"] is not None else ""
    failure = f"; failed: {llm['failure']}" if llm["failure"] else ""
    return (
        f"model: {llm['calls']} calls ({llm['requests']} requests), {tokens}{cost},"
        f" {llm['malformed_replies']} malformed replies{failure}"
    )


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
    skipped: list[str] = []
    out = write_report(
        args.source, args.out, episode=args.episode, refused=refused, skipped=skipped
    )
    for note in skipped:  # a damaged trace line: the rest is shown
        print(f"note: skipped a damaged trace line: {note}", file=sys.stderr)
    for note in refused:  # a screenshot name pointing out of the bundle: not embedded
        print(f"note: refused to embed screenshot {note}", file=sys.stderr)
    print(f"wrote {out}")
    return 0


def cmd_trace_schema(args: argparse.Namespace) -> int:
    from webfactory_env.trace.schema import schema_text

    write_or_print(schema_text(), args.out)
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
