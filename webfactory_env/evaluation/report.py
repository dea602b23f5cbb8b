"""Writing a results file and its companions: a Markdown summary and, with matplotlib, a plot."""

from __future__ import annotations

from pathlib import Path

from webfactory_env.core.errors import ConfigError
from webfactory_env.evaluation.schema import AxisRobustness, EvalResults, GroupStats

PLOT_HINT = "install matplotlib (pip install 'webfactory-env[eval]') for a plot"


def results_paths(out: str | Path) -> tuple[Path, Path, Path]:
    """(results.json, results.md, results.png): the summary and plot sit next to the file."""
    path = Path(out)
    if path.is_dir():
        raise ConfigError(
            f"--out {out} is a directory; give a file path such as {path}/results.json"
        )
    return path, path.with_suffix(".md"), path.with_suffix(".png")


def write_results(results: EvalResults, out: str | Path) -> list[Path]:
    """Write the results JSON, the Markdown summary and (if matplotlib imports) the PNG."""
    json_path, md_path, png_path = results_paths(out)
    json_path.parent.mkdir(parents=True, exist_ok=True)
    json_path.write_text(results.to_json_text(), encoding="utf-8")
    written = [json_path]
    plot = write_plot(results, png_path)
    md_path.write_text(summary_markdown(results, plot), encoding="utf-8")
    written.append(md_path)
    if plot is not None:
        written.append(plot)
    return written


def _pct(x: float | None) -> str:
    return "–" if x is None else f"{100 * x:.1f}%"


def _num(x: float | None, fmt: str = ".2f") -> str:
    return "–" if x is None else format(x, fmt)


def summary_lines(results: EvalResults) -> list[str]:
    """A few lines for the terminal."""
    m = results.metrics
    o = m.outcomes
    e = m.errors
    lines = [
        f"{results.agent.spec} on {results.suite.name} (v{results.suite.version}),"
        f" {m.episodes} episodes:",
        f"  success rate {_pct(m.success_rate)} ({m.successes}/{m.episodes}),"
        f" mean return {m.mean_return:+.3f}, mean steps {m.mean_steps:.1f}",
        f"  mean steps to success {_num(m.mean_steps_to_success, '.1f')},"
        f" mean detours {_num(m.detours.mean, '.1f')}",
        f"  outcomes: {o.success} success, {o.soft_fail} soft_fail, {o.hard_fail} hard_fail",
        f"  errors: validation {e.validation.events}, navigation {e.navigation.events},"
        f" extraction {e.extraction.events}, timeout {e.timeout.events}, model {e.model.events}",
    ]
    if results.skipped_levels:
        lines.append(f"  {_skipped_text(results)}")
    if m.llm is not None:
        lines.append(
            f"  model: {m.llm.calls} calls, {_num(m.llm.total_tokens, 'd')} tokens,"
            f" cost {_usd(m.llm.cost_usd)}, {m.llm.malformed_replies} malformed replies,"
            f" {m.llm.retries} retries, {m.llm.failed_episodes} episodes given up"
        )
    if m.calibration is not None:
        c = m.calibration
        lines.append(
            f"  calibration ({c.episodes} episodes with a confidence): Brier {c.brier:.3f},"
            f" ECE {c.ece:.3f}"
        )
    paired = results.robustness.paired
    if paired is not None:
        worst = sorted(
            paired.axes.values(), key=lambda a: (a.index if a.index is not None else 2.0, a.axis)
        )
        shown = ", ".join(f"{a.axis} {_num(a.index)}" for a in worst[:5])
        lines.append(f"  robustness (paired, lowest first): {shown}")
    return lines


def _skipped_text(results: EvalResults) -> str:
    """How many suite episodes were skipped because their level does not compile, and the
    first few of them."""
    skipped = results.skipped_levels
    shown = "; ".join(f"{e.task} on level seed {e.seed}: {e.reason}" for e in skipped[:3])
    more = f"; and {len(skipped) - 3} more" if len(skipped) > 3 else ""
    noun = "episode" if len(skipped) == 1 else "episodes"
    return (
        f"skipped {len(skipped)} {noun} whose task cannot be compiled on its level"
        f" (in no metric; see skipped_levels): {shown}{more}"
    )


def summary_markdown(results: EvalResults, plot: Path | None) -> str:
    m, s, a = results.metrics, results.suite, results.agent
    out = [
        f"# Evaluation: {a.spec} on {s.name}",
        "",
        f"Suite `{s.name}` v{s.version} ({s.description}); the first {m.episodes} episodes,"
        f" max_steps {results.config.max_steps}, obs_mode `{results.config.obs_mode}`."
        f" webfactory {results.package_version}, results schema {results.schema_version}.",
    ]
    if results.skipped_levels:
        text = _skipped_text(results)
        out.append(text[0].upper() + text[1:] + ".")
    if a.kind == "sb3":
        out.append(f"Model `{a.path}` ({a.algorithm}, sha256 `{(a.sha256 or '')[:16]}…`).")
    if a.llm is not None:
        out.append(
            f"Model `{a.llm.model}` at {a.llm.base_url}, temperature {a.llm.temperature:g},"
            f" system prompt sha256 `{a.llm.prompt_sha256[:16]}…`."
        )
    out += [
        "",
        "| metric | value |",
        "|---|---|",
        f"| success rate | {_pct(m.success_rate)} ({m.successes}/{m.episodes}) |",
        f"| mean return | {m.mean_return:+.3f} |",
        f"| mean steps | {m.mean_steps:.1f} |",
        f"| mean steps to success | {_num(m.mean_steps_to_success, '.1f')} |",
        f"| mean detours (successes with an oracle reference: {m.detours.episodes})"
        f" | {_num(m.detours.mean, '.1f')} |",
        f"| outcomes | {m.outcomes.success} success, {m.outcomes.soft_fail} soft_fail,"
        f" {m.outcomes.hard_fail} hard_fail |",
        "",
        "## Errors",
        "",
        "| class | events | episodes |",
        "|---|---:|---:|",
    ]
    for name in ("validation", "navigation", "extraction", "timeout", "model"):
        c = getattr(m.errors, name)
        out.append(f"| {name} | {c.events} | {c.episodes} |")
    out += ["", m.errors.definition, ""]
    if m.llm is not None:
        t = m.llm
        out += [
            "## Model calls",
            "",
            f"{t.calls} calls ({t.requests} HTTP requests, {t.retries} retries, {t.timeouts}"
            f" timeouts), {_num(t.prompt_tokens, 'd')} prompt and"
            f" {_num(t.completion_tokens, 'd')} reply tokens"
            f" ({_num(t.tokens_per_episode, '.0f')} per episode), cost {_usd(t.cost_usd)};"
            f" {t.malformed_replies} replies without an action; {t.failed_episodes} episodes"
            f" given up; {t.latency_total_s:.1f} s waiting for the model (wall clock).",
            "",
        ]
    if m.calibration is not None:
        c = m.calibration
        out += [
            "## Calibration",
            "",
            f"{c.episodes} episodes ended with a confidence: Brier {c.brier:.3f}, ECE"
            f" {c.ece:.3f}, mean confidence {c.mean_confidence:.2f} against success rate"
            f" {c.success_rate:.2f}.",
            "",
            "| confidence | episodes | mean confidence | success rate |",
            "|---|---:|---:|---:|",
        ]
        out += [
            f"| {b.lower:.1f}–{b.upper:.1f} | {b.episodes} | {_num(b.mean_confidence)} |"
            f" {_num(b.success_rate)} |"
            for b in c.bins
            if b.episodes
        ]
        out += ["", c.definition, ""]
    if m.subgoal_failures:
        out += [
            "## Subgoals never reached in failed episodes",
            "",
            "| task | subgoal | never reached / failed episodes |",
            "|---|---|---:|",
        ]
        for f in m.subgoal_failures[:15]:
            desc = f" ({f.description})" if f.description else ""
            out.append(
                f"| {f.task} | `{f.subgoal}`{desc} | {f.never_reached}/{f.failed_episodes} |"
            )
        if len(m.subgoal_failures) > 15:
            out.append(f"| … | {len(m.subgoal_failures) - 15} more in the results file | |")
        out.append("")
    cov = m.coverage
    widget_use = ", ".join(
        f"{k} {v}/{cov.widgets.offered[k]}" for k, v in cov.widgets.exercised.items()
    )
    out += [
        "## Coverage",
        "",
        f"Widgets exercised {_pct(cov.widgets.fraction)} of those offered"
        f" (episodes used/offered: {widget_use or 'none'});"
        f" never exercised: {', '.join(cov.widgets.never_exercised) or 'none'}.",
        "",
        f"Affordance kinds exercised {_pct(cov.affordances.fraction)} of those offered;"
        f" never exercised: {', '.join(cov.affordances.never_exercised) or 'none'}.",
        "",
        f"Verbs: {', '.join(f'{k} {v}' for k, v in cov.verbs.items())}.",
        "",
        "## Per task",
        "",
        "| task | episodes | success rate | mean return |",
        "|---|---:|---:|---:|",
    ]
    out += [_stats_row(k, g) for k, g in m.per_task.items()]
    out += ["", "## Robustness per variation axis", ""]
    paired = results.robustness.paired
    if paired is not None:
        out += [
            "Paired perturbation runs (index = perturbed / plain success rate):",
            "",
            *_robustness_table(paired.axes.values()),
            "",
            paired.definition,
            "",
        ]
    grouped = [x for x in results.robustness.grouped.axes.values() if x.index is not None]
    out.append("Grouped by the value each axis took in the suite's own episodes:")
    out.append("")
    if grouped:
        out += _robustness_table(grouped)
    else:
        out.append("(no axis had both plain and perturbed episodes with a plain success)")
    out += ["", results.robustness.grouped.definition, ""]
    if plot is not None:
        out += [f"![results]({plot.name})", ""]
    else:
        out += [f"({PLOT_HINT}.)", ""]
    if results.timing is not None:
        out += [
            f"Wall time {results.timing.wall_seconds:.1f} s"
            f" ({results.timing.seconds_per_episode:.2f} s per episode; not a metric).",
            "",
        ]
    return "\n".join(out)


def _stats_row(name: str, g: GroupStats) -> str:
    return f"| {name} | {g.episodes} | {_pct(g.success_rate)} | {_num(g.mean_return, '+.3f')} |"


def _robustness_table(axes: object) -> list[str]:
    rows = [
        "| axis | perturbed to | index | return Δ | plain | perturbed |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for a in axes:  # type: ignore[attr-defined]
        assert isinstance(a, AxisRobustness)
        rows.append(
            f"| {a.axis} | {', '.join(a.perturbed_values) or '–'} | {_num(a.index)}"
            f" | {_num(a.return_delta, '+.3f')}"
            f" | {_pct(a.baseline.success_rate)} ({a.baseline.episodes})"
            f" | {_pct(a.perturbed.success_rate)} ({a.perturbed.episodes}) |"
        )
    return rows


def write_plot(results: EvalResults, path: Path) -> Path | None:
    """Outcome classes, error classes and robustness indices as one PNG; None without
    matplotlib (the Markdown summary says how to get it)."""
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
        from matplotlib.ticker import MaxNLocator
    except ImportError:
        return None
    m = results.metrics
    paired = results.robustness.paired
    axes_src = paired.axes if paired is not None else results.robustness.grouped.axes
    robust = [(k, a.index) for k, a in axes_src.items() if a.index is not None]
    fig = Figure(figsize=(11, 3.6), dpi=100)
    FigureCanvasAgg(fig)  # attaches itself to the figure; no pyplot, no global state
    ax1, ax2, ax3 = fig.subplots(1, 3)
    labels = ["success", "soft_fail", "hard_fail"]
    ax1.bar(labels, [getattr(m.outcomes, k) for k in labels], color=["#3a7", "#e92", "#c33"])
    ax1.set_title(f"outcomes ({_pct(m.success_rate)} success)")
    err = ["validation", "navigation", "extraction", "timeout"]
    counts = [getattr(m.errors, k).episodes for k in err]
    ax2.bar(err, counts, color="#57a")
    for ax in (ax1, ax2):
        ax.set_ylim(0, max(1, m.episodes))
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax2.set_title("episodes with each error class")
    ax2.tick_params(axis="x", labelrotation=20)
    if robust:
        names = [k for k, _ in robust]
        ax3.barh(names, [v for _, v in robust], color="#875")
        ax3.axvline(1.0, color="#333", linewidth=0.8)
        ax3.set_title(f"robustness index ({'paired' if paired is not None else 'grouped'})")
    else:
        ax3.text(0.5, 0.5, "no robustness index\n(try --robustness)", ha="center", va="center")
        ax3.set_axis_off()
    fig.suptitle(f"{results.agent.spec} on {results.suite.name}")
    fig.tight_layout()
    fig.savefig(path, format="png", metadata={"Software": None})
    return path


def _usd(value: float | None) -> str:
    return "n/a" if value is None else f"${value:.4f}"
