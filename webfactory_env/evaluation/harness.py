"""The evaluation harness: run an agent over a suite's episodes and record what each one did."""

from __future__ import annotations

import logging
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import gymnasium as gym

from webfactory_env.__about__ import __version__
from webfactory_env.actions import DONE_VERBS
from webfactory_env.core.errors import ConfigError, UnknownNameError
from webfactory_env.evaluation.agents import (
    AgentSpec,
    episode_obs_mode,
    llm_prices,
    parse_agent,
)
from webfactory_env.evaluation.metrics import aggregate, robustness
from webfactory_env.evaluation.schema import (
    EpisodeResult,
    ErrorTally,
    EvalResults,
    Latency,
    LLMUsage,
    RunConfig,
    RunSummary,
    SkippedEpisode,
    SuiteInfo,
    Timing,
)
from webfactory_env.llm import AgentAbort, EpisodeUsage
from webfactory_env.sitegen.variation import AXES, AXIS_BY_NAME, Variation
from webfactory_env.suites import Suite, SuiteEpisode, get_suite
from webfactory_env.tasks.levels import UncompilableLevelError

log = logging.getLogger(__name__)

# Error-event kinds (see env._error_event) and the taxonomy class each one counts in.
NAVIGATION_EVENTS = ("executor", "app", "browser")
VALIDATION_EVENTS = ("agent",)
PLAIN = "plain"


@dataclass
class EpisodeRun:
    """What one episode did, before it becomes a row of the results file."""

    success: bool = False
    outcome: str = "hard_fail"
    reason: str = ""
    ended_by: str = "step_budget"
    steps: int = 0
    episode_return: float = 0.0
    reached: list[str] = field(default_factory=list)
    subgoals: dict[str, str] = field(default_factory=dict)  # id -> description
    invalid_actions: int = 0
    error_events: Counter[str] = field(default_factory=Counter)
    widgets_offered: set[str] = field(default_factory=set)
    widgets_exercised: set[str] = field(default_factory=set)
    affordances_offered: set[str] = field(default_factory=set)
    affordances_exercised: set[str] = field(default_factory=set)
    verbs: Counter[str] = field(default_factory=Counter)
    variation: dict[str, str] = field(default_factory=dict)
    plan_length: int = 0
    site_digest: str = ""
    task_digest: str = ""
    confidence: float | None = None
    llm: EpisodeUsage | None = None


def run_episode(
    env: gym.Env[Any, Any],
    agent: AgentSpec,
    episode: SuiteEpisode,
    *,
    variation: Mapping[str, str] | None = None,
    coverage: bool = True,
) -> EpisodeRun:
    """Run `agent` on one suite episode (with `variation` instead of the suite's, if given)."""
    options = episode.reset_options()
    if variation is not None:
        options["variation"] = dict(variation)
    obs, info = env.reset(seed=episode.seed, options=options)
    base = env.unwrapped
    policy = agent.make_policy(env, episode.seed)
    policy.reset()
    task, site = base.task, base.site  # type: ignore[attr-defined]
    run = EpisodeRun(
        subgoals={g.id: g.description for g in task.subgoals},
        variation={k: str(v) for k, v in site.spec.variation.items()},
        plan_length=len(task.plan),
        site_digest=info["site_digest"],
        task_digest=info["task_digest"],
    )
    reached: dict[str, None] = {}
    page = _page_kinds(base, run) if coverage else {}
    terminated = truncated = False
    aborted: str | None = None
    while not (terminated or truncated):
        try:
            action = policy.act(obs, info)
        except AgentAbort as exc:  # the agent's model cannot go on: end with its reason
            aborted = str(exc)
            break
        obs, reward, terminated, truncated, info = env.step(action)
        run.steps += 1
        run.episode_return += float(reward)
        record = info["record"]
        verb = record["action"]["verb"]
        run.verbs[verb or "invalid"] += 1
        if not record["valid"]:
            run.invalid_actions += 1
        elif coverage and record["action"]["target"] in page:
            ui, kind = page[record["action"]["target"]]
            run.widgets_exercised.add(ui)
            run.affordances_exercised.add(kind)
        for event in record["error_events"]:
            run.error_events[str(event["event_type"])] += 1
        for sid in info.get("subgoals_newly", ()):
            reached[sid] = None
        if coverage and not (terminated or truncated):
            page = _page_kinds(base, run)
    run.reached = list(reached)
    run.episode_return = round(run.episode_return, 6)
    usage = getattr(policy, "usage", None)
    run.llm = usage if isinstance(usage, EpisodeUsage) else None
    if aborted is not None:
        # Every step taken is in the trace already; the trace says why no more came.
        end_episode = getattr(env, "end_episode", None)
        if end_episode is not None:
            end_episode(aborted)
        done = sum(1 for g in task.subgoals if g.id in reached)
        run.outcome, run.ended_by = "soft_fail", "agent_error"
        run.reason = (
            f"{aborted}; {done} of {len(task.subgoals)} subgoals reached; last page"
            f" {info.get('route', '?')}"
        )
        return run
    run.success = bool(info["success"])
    run.outcome = str(info.get("outcome") or ("success" if run.success else "soft_fail"))
    run.reason = str(info.get("reason") or "")
    last = info["record"]
    if last["action"]["verb"] in DONE_VERBS and last["valid"]:
        run.confidence = last["action"].get("confidence")
    if run.success:
        run.ended_by = "success"
    elif truncated and any(e["event_type"] == "browser" for e in last["error_events"]):
        run.ended_by = "crash"
    elif terminated and last["action"]["verb"] in DONE_VERBS:
        run.ended_by = "agent"
    else:
        run.ended_by = "step_budget"
    return run


def _page_kinds(env: Any, run: EpisodeRun) -> dict[str, tuple[str, str]]:
    """sid → (widget kind, affordance kind) of the page the agent is shown now; records
    them as offered. Reads the app's side table, never the agent's observation."""
    kinds: dict[str, tuple[str, str]] = {}
    for a in env.app.page().affordances:
        pair = (str(a.ui), str(a.kind))
        kinds[a.sid] = pair
        for o in a.options:
            if o.sid:
                kinds.setdefault(o.sid, pair)
        if a.opener:
            kinds.setdefault(a.opener, pair)
        run.widgets_offered.add(pair[0])
        run.affordances_offered.add(pair[1])
    return kinds


def parse_perturbations(text: str | Sequence[str] | None) -> tuple[tuple[str, str], ...]:
    """`all`, or AXIS / AXIS=VALUE items (comma-separated) → ((axis, value), ...).

    An axis without a value is perturbed to its last value, the one furthest from plain.
    """
    if not text:
        return ()
    items = [text] if isinstance(text, str) else list(text)
    parts = [p.strip() for item in items for p in item.split(",") if p.strip()]
    out: dict[str, str] = {}
    for part in parts:
        if part == "all":
            out.update({a.name: a.values[-1] for a in AXES})
            continue
        axis, _, value = part.partition("=")
        if axis not in AXIS_BY_NAME:
            raise UnknownNameError("variation axis", axis, [*AXIS_BY_NAME, "all"])
        values = AXIS_BY_NAME[axis].values
        value = value or values[-1]
        if value not in values[1:]:
            raise ConfigError(
                f"--robustness {part}: perturb {axis!r} to one of its non-plain values:"
                f" {', '.join(values[1:])}"
            )
        out[axis] = value
    return tuple(out.items())


def evaluate(
    suite: Suite | str,
    agent: AgentSpec | str,
    episodes: int,
    *,
    max_steps: int | None = None,
    obs_mode: str | None = None,
    perturbations: Sequence[tuple[str, str]] = (),
    reference: bool = True,
    on_episode: Callable[[int, int, EpisodeResult], None] | None = None,
    trace: str | None = None,
    instruction_style: str | None = None,
) -> EvalResults:
    """Run the first `episodes` episodes of `suite` with `agent` and compute the metrics.

    `perturbations` ((axis, value) pairs) adds the paired robustness runs; `reference`
    runs the oracle on every episode the agent solved, to count its detours; `trace`
    records the agent's own episodes (not the reference or robustness runs) to a JSONL file.
    An episode whose level the task cannot be compiled on is skipped, logged and listed in
    `skipped_levels`; the others run as usual.
    `max_steps` and `obs_mode` default to the settings a model was trained with (else 64,
    tokens), `instruction_style` to the model's, else the env's (`goal`).
    """
    suite = get_suite(suite) if isinstance(suite, str) else suite
    if episodes < 1:
        raise ConfigError("--episodes must be at least 1")
    plan = list(suite.episode_specs(episodes))  # says how many the suite has, if too many
    agent = parse_agent(agent) if isinstance(agent, str) else agent
    env_kwargs: dict[str, Any] = {**agent.env_kwargs, "obs_mode": episode_obs_mode(agent, obs_mode)}
    if instruction_style is not None:
        env_kwargs["instruction_style"] = instruction_style
    max_steps = int(env_kwargs.pop("max_steps", 64) if max_steps is None else max_steps)
    if max_steps < 1:
        raise ConfigError("--max-steps must be at least 1")
    env = gym.make(
        "WebTask-v0",
        family=plan[0].family,
        task=plan[0].task,
        difficulty=suite.difficulty,
        max_steps=max_steps,
        **env_kwargs,
    )
    recorder = None
    if trace is not None:
        from webfactory_env.trace import TraceRecorder

        recorder = TraceRecorder(env, trace)
    rows: list[EpisodeResult] = []
    skipped: list[SkippedEpisode] = []
    descriptions: dict[tuple[str, str], str] = {}
    start = time.monotonic()  # for the `timing` section only
    prices = llm_prices(agent.llm)
    try:
        for episode in plan:
            try:
                run, row = _suite_episode(
                    env, recorder, agent, episode, reference, perturbations, prices
                )
            except UncompilableLevelError as exc:  # one level never ends a suite
                log.warning("episode %d skipped: %s cannot be compiled", episode.index, exc.level)
                skipped.append(SkippedEpisode(index=episode.index, **exc.level.to_json()))
                continue
            for sid, text in run.subgoals.items():
                descriptions.setdefault((episode.task, sid), text)
            rows.append(row)
            if on_episode is not None:
                on_episode(episode.index + 1, len(plan), row)
    finally:
        if recorder is not None:
            recorder.close_trace()
        env.close()
    if not rows:
        raise ConfigError(
            f"none of the {len(plan)} episodes could be run: the task cannot be compiled on"
            f" any of their levels (first: {skipped[0].task} on level seed {skipped[0].seed}:"
            f" {skipped[0].reason})"
        )
    elapsed = time.monotonic() - start
    extra_env = {k: v for k, v in env_kwargs.items() if k != "obs_mode"}
    return EvalResults(
        package_version=__version__,
        suite=SuiteInfo.model_validate(suite.to_json()),
        agent=agent.info,
        config=RunConfig(
            episodes=episodes,
            max_steps=max_steps,
            obs_mode=str(env_kwargs["obs_mode"]),
            env={k: list(v) if isinstance(v, tuple) else v for k, v in extra_env.items()},
            robustness_axes=[f"{a}={v}" for a, v in perturbations],
        ),
        metrics=aggregate(rows, descriptions),
        robustness=robustness(rows, perturbations),
        episodes=rows,
        skipped_levels=skipped,
        timing=Timing(
            wall_seconds=round(elapsed, 3), seconds_per_episode=round(elapsed / len(rows), 3)
        ),
    )


def _suite_episode(
    env: gym.Env[Any, Any],
    recorder: gym.Env[Any, Any] | None,
    agent: AgentSpec,
    episode: SuiteEpisode,
    reference: bool,
    perturbations: Sequence[tuple[str, str]],
    prices: tuple[float, float] | None,
) -> tuple[EpisodeRun, EpisodeResult]:
    """One suite episode: the agent's run (traced by `recorder`), the oracle's reference
    run when the agent succeeded, and the paired robustness runs."""
    run = run_episode(recorder or env, agent, episode)
    ref_steps = None
    if run.success and reference:
        if agent.info.kind == "oracle":
            ref_steps = run.steps
        else:
            ref = run_episode(env, parse_agent("oracle"), episode, coverage=False)
            ref_steps = ref.steps if ref.success else None
    paired: dict[str, RunSummary] = {}
    if perturbations:
        paired[PLAIN] = _summary(
            run_episode(env, agent, episode, variation=_plain(), coverage=False), {}
        )
        for axis, value in perturbations:
            forced = {axis: value}
            extra = run_episode(env, agent, episode, variation=_plain(forced), coverage=False)
            paired[f"{axis}={value}"] = _summary(extra, forced)
    return run, _row(episode, run, ref_steps, paired, prices)


def _plain(forced: Mapping[str, str] | None = None) -> dict[str, str]:
    return Variation.plain(**dict(forced or {})).to_json()


def _summary(run: EpisodeRun, forced: Mapping[str, str]) -> RunSummary:
    return RunSummary(
        variation=dict(forced),
        success=run.success,
        outcome=run.outcome,  # type: ignore[arg-type]
        steps=run.steps,
        episode_return=run.episode_return,
    )


def _row(
    episode: SuiteEpisode,
    run: EpisodeRun,
    reference_steps: int | None,
    paired: dict[str, RunSummary],
    prices: tuple[float, float] | None = None,
) -> EpisodeResult:
    nav = sum(run.error_events[k] for k in NAVIGATION_EVENTS)
    val = sum(run.error_events[k] for k in VALIDATION_EVENTS)
    errors = ErrorTally(
        validation=val,
        navigation=nav,
        extraction=int(run.ended_by == "agent" and not run.success),
        timeout=int(run.ended_by == "step_budget"),
        model=int(run.ended_by == "agent_error"),
    )
    detours = max(0, run.steps - reference_steps) if reference_steps is not None else None
    return EpisodeResult(
        index=episode.index,
        family=episode.family,
        task=episode.task,
        seed=episode.seed,
        difficulty=episode.difficulty,
        variation=run.variation,
        forced=dict(episode.variation or {}),
        success=run.success,
        outcome=run.outcome,  # type: ignore[arg-type]
        reason=run.reason,
        ended_by=run.ended_by,  # type: ignore[arg-type]
        steps=run.steps,
        episode_return=run.episode_return,
        plan_length=run.plan_length,
        reference_steps=reference_steps,
        detours=detours,
        subgoals=list(run.subgoals),
        subgoals_reached=run.reached,
        invalid_actions=run.invalid_actions,
        error_events=dict(sorted(run.error_events.items())),
        errors=errors,
        widgets_offered=sorted(run.widgets_offered),
        widgets_exercised=sorted(run.widgets_exercised),
        affordances_offered=sorted(run.affordances_offered),
        affordances_exercised=sorted(run.affordances_exercised),
        verbs=dict(sorted(run.verbs.items())),
        site_digest=run.site_digest,
        task_digest=run.task_digest,
        paired=paired,
        confidence=run.confidence,
        llm=llm_usage(run.llm, prices) if run.llm is not None else None,
    )


def llm_usage(u: EpisodeUsage, prices: tuple[float, float] | None) -> LLMUsage:
    """One episode's model calls as a results row's `llm` section (`webfactory run --json`
    prints the same)."""
    counted = u.calls > u.usage_missing
    lat = u.latencies_s
    return LLMUsage(
        calls=u.calls,
        requests=u.requests,
        prompt_tokens=u.prompt_tokens if counted else None,
        completion_tokens=u.completion_tokens if counted else None,
        total_tokens=u.prompt_tokens + u.completion_tokens if counted else None,
        usage_missing=u.usage_missing,
        cost_usd=u.cost(prices),
        malformed_replies=u.malformed_replies,
        truncated_replies=u.truncated_replies,
        empty_replies=u.empty_replies,
        retries=u.retries,
        timeouts=u.timeouts,
        http_errors=dict(sorted(u.http_errors.items())),
        transport_errors=u.transport_errors,
        bad_replies=u.bad_replies,
        backoff_s=round(u.backoff_s, 3),
        latency=Latency(
            total_s=round(sum(lat), 3),
            mean_s=round(sum(lat) / len(lat), 3) if lat else None,
            max_s=round(max(lat), 3) if lat else None,
        ),
        failure=u.failure,
    )
