"""Evaluation: run an agent over a suite and write versioned metrics, a summary and a plot.

    from webfactory_env.evaluation import evaluate, write_results

    results = evaluate("shop-test", "random", episodes=20)
    write_results(results, "runs/eval/results.json")  # + results.md (+ results.png)

The metrics and their definitions are the fields of `EvalResults` (`schema.py`), exported
as JSON Schema in `docs/metrics-schema.json` (`webfactory eval --schema`).

Imports the env, `agents` and `suites`; the CLI imports it.
"""

from webfactory_env.evaluation.agents import (
    AgentSpec,
    episode_obs_mode,
    load_sb3_agent,
    parse_agent,
)
from webfactory_env.evaluation.harness import evaluate, parse_perturbations, run_episode
from webfactory_env.evaluation.report import (
    results_paths,
    summary_lines,
    summary_markdown,
    write_results,
)
from webfactory_env.evaluation.schema import (
    METRICS_SCHEMA_VERSION,
    EvalResults,
    load_results,
    metrics_json_schema,
    schema_text,
)

__all__ = [
    "METRICS_SCHEMA_VERSION",
    "AgentSpec",
    "EvalResults",
    "episode_obs_mode",
    "evaluate",
    "load_results",
    "load_sb3_agent",
    "metrics_json_schema",
    "parse_agent",
    "parse_perturbations",
    "results_paths",
    "run_episode",
    "schema_text",
    "summary_lines",
    "summary_markdown",
    "write_results",
]
