"""Metrics over episode rows: pure functions, so equal episodes always give equal numbers."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence

from webfactory_env.evaluation.schema import (
    GROUPED_DEFINITION,
    PAIRED_DEFINITION,
    AxisRobustness,
    Calibration,
    Coverage,
    Detours,
    EpisodeResult,
    ErrorCount,
    ErrorTaxonomy,
    GroupStats,
    KindCoverage,
    LLMTotals,
    Metrics,
    OutcomeCounts,
    ReliabilityBin,
    Robustness,
    RobustnessReport,
    SubgoalFailure,
)
from webfactory_env.sitegen.variation import AXES, AXIS_BY_NAME

DIGITS = 6  # rounding of every rate and mean, so files compare equal across platforms


def _mean(xs: Sequence[float]) -> float | None:
    return round(sum(xs) / len(xs), DIGITS) if xs else None


def _ratio(a: float | None, b: float | None) -> float | None:
    if a is None or b is None or b == 0:
        return None
    return round(a / b, DIGITS)


def group_stats(outcomes: Iterable[tuple[bool, float]]) -> GroupStats:
    """Episodes, successes, success rate and mean return of (success, return) pairs."""
    pairs = list(outcomes)
    wins = sum(1 for s, _ in pairs if s)
    return GroupStats(
        episodes=len(pairs),
        successes=wins,
        success_rate=_ratio(wins, len(pairs)),
        mean_return=_mean([r for _, r in pairs]),
    )


def aggregate(
    rows: Sequence[EpisodeResult], descriptions: Mapping[tuple[str, str], str]
) -> Metrics:
    """The headline metrics of a run (see the field descriptions in `schema.py`)."""
    n = len(rows)
    wins = [r for r in rows if r.success]
    with_reference = [r for r in wins if r.detours is not None]
    detours = [r.detours for r in with_reference if r.detours is not None]
    outcomes = Counter(r.outcome for r in rows)

    def errors(name: str) -> ErrorCount:
        counts = [getattr(r.errors, name) for r in rows]
        return ErrorCount(events=sum(counts), episodes=sum(1 for c in counts if c))

    return Metrics(
        episodes=n,
        successes=len(wins),
        success_rate=round(len(wins) / n, DIGITS) if n else 0.0,
        mean_return=_mean([r.episode_return for r in rows]) or 0.0,
        mean_steps=_mean([r.steps for r in rows]) or 0.0,
        mean_steps_to_success=_mean([r.steps for r in wins]),
        detours=Detours(episodes=len(detours), total=sum(detours), mean=_mean(detours)),
        outcomes=OutcomeCounts(
            success=outcomes["success"],
            soft_fail=outcomes["soft_fail"],
            hard_fail=outcomes["hard_fail"],
        ),
        errors=ErrorTaxonomy(
            validation=errors("validation"),
            navigation=errors("navigation"),
            extraction=errors("extraction"),
            timeout=errors("timeout"),
            model=errors("model"),
        ),
        subgoal_failures=subgoal_failures(rows, descriptions),
        coverage=coverage(rows),
        per_family=_grouped(rows, lambda r: r.family),
        per_task=_grouped(rows, lambda r: r.task),
        calibration=calibration(rows),
        llm=llm_totals(rows),
    )


def calibration(rows: Sequence[EpisodeResult], n_bins: int = 10) -> Calibration | None:
    """Brier score and reliability bins of the episodes that ended with a confidence."""
    pairs = [(r.confidence, r.success) for r in rows if r.confidence is not None]
    if not pairs:
        return None
    bins: list[list[tuple[float, bool]]] = [[] for _ in range(n_bins)]
    for p, ok in pairs:
        bins[min(int(p * n_bins), n_bins - 1)].append((p, ok))
    n = len(pairs)
    ece = sum(
        len(b) / n * abs(sum(p for p, _ in b) / len(b) - sum(ok for _, ok in b) / len(b))
        for b in bins
        if b
    )
    return Calibration(
        episodes=n,
        brier=round(sum((p - ok) ** 2 for p, ok in pairs) / n, DIGITS),
        ece=round(ece, DIGITS),
        mean_confidence=round(sum(p for p, _ in pairs) / n, DIGITS),
        success_rate=round(sum(ok for _, ok in pairs) / n, DIGITS),
        bins=[
            ReliabilityBin(
                lower=round(k / n_bins, DIGITS),
                upper=round((k + 1) / n_bins, DIGITS),
                episodes=len(b),
                mean_confidence=_mean([p for p, _ in b]),
                success_rate=_mean([float(ok) for _, ok in b]),
            )
            for k, b in enumerate(bins)
        ],
    )


def llm_totals(rows: Sequence[EpisodeResult]) -> LLMTotals | None:
    """Model calls summed over the episodes of an LLM agent (None for other agents)."""
    used = [r for r in rows if r.llm is not None]
    if not used:
        return None

    def total(values: Iterable[int | None]) -> int | None:
        known = [v for v in values if v is not None]
        return sum(known) if known else None

    tokens = total(r.llm.total_tokens for r in used if r.llm)
    costs = [r.llm.cost_usd for r in used if r.llm and r.llm.cost_usd is not None]
    wins = sum(1 for r in used if r.success)
    return LLMTotals(
        episodes=len(used),
        calls=sum(r.llm.calls for r in used if r.llm),
        requests=sum(r.llm.requests for r in used if r.llm),
        prompt_tokens=total(r.llm.prompt_tokens for r in used if r.llm),
        completion_tokens=total(r.llm.completion_tokens for r in used if r.llm),
        total_tokens=tokens,
        tokens_per_episode=_ratio(tokens, len(used)),
        tokens_per_success=_ratio(tokens, wins),
        cost_usd=round(sum(costs), DIGITS) if costs else None,
        malformed_replies=sum(r.llm.malformed_replies for r in used if r.llm),
        retries=sum(r.llm.retries for r in used if r.llm),
        timeouts=sum(r.llm.timeouts for r in used if r.llm),
        failed_episodes=sum(1 for r in used if r.llm and r.llm.failure),
        latency_total_s=round(sum(r.llm.latency.total_s for r in used if r.llm), 3),
    )


def subgoal_failures(
    rows: Sequence[EpisodeResult], descriptions: Mapping[tuple[str, str], str]
) -> list[SubgoalFailure]:
    """Per (task, subgoal): in how many failed episodes it was never credited."""
    failed = [r for r in rows if not r.success]
    per_task = Counter(r.task for r in failed)
    missed: Counter[tuple[str, str]] = Counter()
    order: dict[tuple[str, str], int] = {}
    for r in failed:
        reached = set(r.subgoals_reached)
        for i, g in enumerate(r.subgoals):
            order.setdefault((r.task, g), i)
            if g not in reached:
                missed[(r.task, g)] += 1
    keys = sorted(missed, key=lambda k: (-missed[k], k[0], order[k]))
    return [
        SubgoalFailure(
            task=task,
            subgoal=g,
            description=descriptions.get((task, g), ""),
            failed_episodes=per_task[task],
            never_reached=missed[(task, g)],
        )
        for task, g in keys
    ]


def _kind_coverage(offered: Counter[str], exercised: Counter[str]) -> KindCoverage:
    kinds = sorted(offered)
    used = [k for k in kinds if exercised[k]]
    return KindCoverage(
        offered=dict(sorted(offered.items())),
        exercised=dict(sorted(exercised.items())),
        never_exercised=[k for k in kinds if not exercised[k]],
        fraction=_ratio(len(used), len(kinds)),
    )


def coverage(rows: Sequence[EpisodeResult]) -> Coverage:
    """Which widget and affordance kinds the episodes offered and exercised (episode counts)."""
    w_off: Counter[str] = Counter()
    w_ex: Counter[str] = Counter()
    a_off: Counter[str] = Counter()
    a_ex: Counter[str] = Counter()
    verbs: Counter[str] = Counter()
    for r in rows:
        w_off.update(r.widgets_offered)
        w_ex.update(r.widgets_exercised)
        a_off.update(r.affordances_offered)
        a_ex.update(r.affordances_exercised)
        verbs.update(r.verbs)
    return Coverage(
        widgets=_kind_coverage(w_off, w_ex),
        affordances=_kind_coverage(a_off, a_ex),
        verbs=dict(sorted(verbs.items())),
    )


def _grouped(
    rows: Sequence[EpisodeResult], key: Callable[[EpisodeResult], str]
) -> dict[str, GroupStats]:
    groups: dict[str, list[tuple[bool, float]]] = {}
    for r in rows:
        groups.setdefault(key(r), []).append((r.success, r.episode_return))
    return {k: group_stats(v) for k, v in groups.items()}


def robustness(
    rows: Sequence[EpisodeResult], perturbations: Sequence[tuple[str, str]] = ()
) -> Robustness:
    """Robustness indices per variation axis: grouped always, paired when runs were made."""
    grouped: dict[str, AxisRobustness] = {}
    for axis in AXES:
        by_value: dict[str, list[tuple[bool, float]]] = {}
        for r in rows:
            by_value.setdefault(r.variation.get(axis.name, axis.values[0]), []).append(
                (r.success, r.episode_return)
            )
        default = axis.values[0]
        others = [v for v in axis.values[1:] if v in by_value]
        base = group_stats(by_value.get(default, []))
        pert = group_stats(pair for v in others for pair in by_value[v])
        grouped[axis.name] = _axis(axis.name, others, base, pert, by_value)
    paired = None
    if perturbations:
        axes: dict[str, AxisRobustness] = {}
        for axis_name, value in perturbations:
            key = f"{axis_name}={value}"
            base = group_stats(
                (r.paired["plain"].success, r.paired["plain"].episode_return)
                for r in rows
                if "plain" in r.paired
            )
            pert = group_stats(
                (r.paired[key].success, r.paired[key].episode_return)
                for r in rows
                if key in r.paired
            )
            default = AXIS_BY_NAME[axis_name].values[0]
            axes[axis_name] = _axis(
                axis_name, [value], base, pert, None, by_value={default: base, value: pert}
            )
        paired = RobustnessReport(definition=PAIRED_DEFINITION, axes=axes)
    return Robustness(
        grouped=RobustnessReport(definition=GROUPED_DEFINITION, axes=grouped), paired=paired
    )


def _axis(
    name: str,
    perturbed_values: list[str],
    base: GroupStats,
    pert: GroupStats,
    raw: Mapping[str, list[tuple[bool, float]]] | None,
    *,
    by_value: dict[str, GroupStats] | None = None,
) -> AxisRobustness:
    axis = AXIS_BY_NAME[name]
    if by_value is None:
        assert raw is not None
        by_value = {v: group_stats(raw[v]) for v in axis.values if v in raw}
    delta = (
        round(pert.mean_return - base.mean_return, DIGITS)
        if pert.mean_return is not None and base.mean_return is not None
        else None
    )
    return AxisRobustness(
        axis=name,
        default=axis.values[0],
        perturbed_values=perturbed_values,
        baseline=base,
        perturbed=pert,
        index=_ratio(pert.success_rate, base.success_rate) if pert.episodes else None,
        return_delta=delta,
        by_value=by_value,
    )
