"""The metrics file `webfactory eval` writes: versioned pydantic models and their JSON Schema.

The results file crosses a trust boundary (it is read back by reports and by other people's
tools), so it is written and read through these models; `metrics_json_schema()` is the
same contract for other languages, committed as `docs/metrics-schema.json`:

    webfactory eval --schema --out docs/metrics-schema.json

Every metric is a pure function of the episodes, which are seeded: two runs of the same
agent on the same suite write identical files except for `timing` and the `latency` of
model calls, the only parts that read a clock (a sampling language model, of course, is
only as repeatable as its server).

Versioning: `schema_version` is MAJOR.MINOR. A reader accepts its own major version at any
minor version up to its own; adding a field bumps the minor, changing or removing one
bumps the major.
"""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import AliasChoices, BaseModel, ConfigDict, Field

from webfactory_env.core.errors import ConfigError

METRICS_SCHEMA_VERSION = "1.2"
RESULTS_KIND: Literal["webfactory.eval"] = "webfactory.eval"

Outcome = Literal["success", "soft_fail", "hard_fail"]
EndedBy = Literal["success", "agent", "step_budget", "crash", "agent_error"]

DETOURS_DEFINITION = (
    "On a successful episode, the steps the agent took beyond what the oracle needs on the"
    " same episode (same site, task, variation and env settings): max(0, steps -"
    " reference_steps). The reference is the oracle's own step count, not the length of the"
    " compiled plan, because the oracle also scrolls to targets out of view and stops as"
    " soon as the task is done; so the oracle's detours are 0 by definition."
)
ERRORS_DEFINITION = (
    "validation: actions the env refused (out of range, not valid for the element, or the"
    " page could not perform them; error events of kind `agent`). navigation: the page"
    " could not be driven (the executor's selector-drift retries ran out, the app raised"
    " or got an unknown handler, or the browser crashed or hung; error events of kind `executor`,"
    " `app`, `browser`). extraction: the agent ended the episode itself and was wrong (a"
    " false success claim, a wrong answer, or giving up on a feasible task); one per such"
    " episode. timeout: the episode ran out of steps (truncated at max_steps without a"
    " browser failure); one per such episode. model: the agent's model could not go on (its"
    " endpoint kept failing after retries, or it kept giving replies with no readable"
    " action); one per such episode."
)
GROUPED_DEFINITION = (
    "For each variation axis, the suite's own episodes grouped by the value the axis took"
    " on their site. baseline: episodes at the axis's plain (first) value; perturbed:"
    " episodes at any other value. index = perturbed success rate / baseline success rate"
    " (1 = unaffected, below 1 = hurt; null when a group is empty or the baseline never"
    " succeeds); return_delta = perturbed mean return - baseline mean return. Free, but"
    " observational: other axes vary too, so read it as a screen, not a measurement."
)
CALIBRATION_DEFINITION = (
    "Over the episodes whose last action was done(..., confidence=P): P is the agent's"
    " probability that its ending is right, and the outcome is the episode's success. brier ="
    " mean of (P - success)^2. bins: ten equal-width bins of P, each with its episodes, mean P"
    " and success rate (a calibrated agent's two match); ece = sum over bins of (episodes /"
    " total) * |mean P - success rate|."
)
PAIRED_DEFINITION = (
    "Each suite episode is run again on its site with every variation axis plain"
    " (Variation.plain(): the baseline), and once more per listed axis with only that axis"
    " set to its perturbation value. index = perturbed success rate / baseline success"
    " rate on the same episodes (null when the baseline never succeeds); return_delta ="
    " perturbed mean return - baseline mean return. The perturbation value is the one"
    " asked for (AXIS=VALUE) or the axis's last value, the furthest from plain."
)


# Written as `return` (like `webfactory run --json`); `return` is a keyword in Python.
def _return_field() -> Any:
    return Field(
        serialization_alias="return",
        validation_alias=AliasChoices("return", "episode_return"),
        description="the episode's undiscounted return",
    )


class _Model(BaseModel):
    # Unknown fields are an error: a newer writer bumps the version, and we say so first.
    model_config = ConfigDict(extra="forbid", frozen=True)


class LLMSettings(_Model):
    """How a language model was called (`--agent openai:MODEL`); never the API key."""

    model: str
    base_url: str = Field(description="the endpoint, without credentials or query")
    temperature: float
    max_tokens: int = Field(description="cap on each reply's tokens")
    timeout_s: float = Field(description="wall-clock deadline of one HTTP request")
    max_attempts: int = Field(description="requests per model call, retries included")
    retry_budget_s: float = Field(description="planned backoff allowed per call (logical)")
    history: int = Field(description="past steps repeated in each prompt")
    max_malformed: int = Field(description="unreadable replies in a row before giving up")
    price_input_per_mtok: float | None = Field(description="USD per million prompt tokens")
    price_output_per_mtok: float | None = Field(description="USD per million reply tokens")
    prompt_sha256: str = Field(description="SHA-256 of the system prompt")
    observation: Literal["text", "screenshot"] = Field(
        "text", description="what the model saw: the page as text, or a screenshot"
    )
    set_of_marks: bool = Field(
        False, description="screenshots with numbered marks, acted on by element number"
    )
    tool_calls: bool = Field(False, description="actions as calls of the computer function")


class AgentInfo(_Model):
    spec: str = Field(description="the --agent argument: random, oracle, sb3:PATH, openai:MODEL")
    kind: Literal["random", "oracle", "sb3", "openai"]
    path: str | None = Field(default=None, description="the SB3 model file (sb3 only)")
    algorithm: str | None = Field(
        default=None, description="the SB3 algorithm class the model loaded as"
    )
    sha256: str | None = Field(default=None, description="SHA-256 of the model file")
    llm: LLMSettings | None = Field(default=None, description="openai agents only")


class SuiteInfo(BaseModel):
    """The suite as `webfactory suites list --json` shows it (at least these fields)."""

    model_config = ConfigDict(extra="allow", frozen=True)

    name: str
    version: str
    description: str
    family: str
    tasks: list[str]
    seed_start: int
    seed_count: int
    difficulty: str


class RunConfig(_Model):
    episodes: int = Field(description="how many suite episodes were run (the first N)")
    max_steps: int
    obs_mode: str
    env: dict[str, Any] = Field(
        default_factory=dict,
        description="other WebTask-v0 keyword arguments (e.g. shapes an SB3 model needs)",
    )
    robustness_axes: list[str] = Field(
        default_factory=list,
        description="AXIS=VALUE perturbations run for the paired robustness indices",
    )


class ErrorCount(_Model):
    events: int = Field(description="how many times it happened over all episodes")
    episodes: int = Field(description="how many episodes it happened in at least once")


class ErrorTaxonomy(_Model):
    definition: str = ERRORS_DEFINITION
    validation: ErrorCount
    navigation: ErrorCount
    extraction: ErrorCount
    timeout: ErrorCount
    model: ErrorCount = ErrorCount(events=0, episodes=0)


class OutcomeCounts(_Model):
    """Episode outcome classes, as the env reports them in `info["outcome"]`."""

    success: int
    soft_fail: int = Field(description="failed, with artifacts and an actionable reason")
    hard_fail: int = Field(description="failed without artifacts or reason")


class Detours(_Model):
    definition: str = DETOURS_DEFINITION
    episodes: int = Field(description="successful episodes with an oracle reference")
    total: int
    mean: float | None = Field(description="mean detours per such episode (null: none)")


class SubgoalFailure(_Model):
    task: str
    subgoal: str
    description: str
    failed_episodes: int = Field(description="failed episodes of this task")
    never_reached: int = Field(
        description="of those, episodes in which this subgoal was never credited"
    )


class KindCoverage(_Model):
    """Per kind: in how many episodes the pages the agent saw offered it / the agent used it."""

    offered: dict[str, int]
    exercised: dict[str, int]
    never_exercised: list[str] = Field(description="kinds offered but never acted on")
    fraction: float | None = Field(description="kinds exercised / kinds offered")


class Coverage(_Model):
    definition: str = (
        "offered: affordances on the pages the agent was shown (every page state after reset"
        " and after each step), by kind; exercised: affordances that were the target of a"
        " valid action. widgets are the affordance's `ui` (link, button, native, choice,"
        " menu, input, typeahead, calendar); affordances are its `kind` (Item, Filter,"
        " Field, ...); verbs count the agent's actions by verb, valid or not."
    )
    widgets: KindCoverage
    affordances: KindCoverage
    verbs: dict[str, int]


class GroupStats(_Model):
    episodes: int
    successes: int
    success_rate: float | None = Field(description="null when the group has no episodes")
    mean_return: float | None


class AxisRobustness(_Model):
    axis: str
    default: str = Field(description="the axis's plain value")
    perturbed_values: list[str]
    baseline: GroupStats
    perturbed: GroupStats
    index: float | None = Field(description="perturbed / baseline success rate")
    return_delta: float | None = Field(description="perturbed - baseline mean return")
    by_value: dict[str, GroupStats] = Field(default_factory=dict)


class RobustnessReport(_Model):
    definition: str
    axes: dict[str, AxisRobustness]


class Robustness(_Model):
    grouped: RobustnessReport
    paired: RobustnessReport | None = Field(
        default=None, description="present when --robustness asked for perturbation runs"
    )


class ReliabilityBin(_Model):
    lower: float
    upper: float = Field(description="the last bin includes 1.0")
    episodes: int
    mean_confidence: float | None
    success_rate: float | None


class Calibration(_Model):
    definition: str = CALIBRATION_DEFINITION
    episodes: int = Field(description="episodes that ended with a confidence")
    brier: float = Field(description="mean (confidence - success)^2; 0 is perfect")
    ece: float = Field(description="expected calibration error over the bins")
    mean_confidence: float
    success_rate: float = Field(description="of the episodes with a confidence")
    bins: list[ReliabilityBin]


class LLMTotals(_Model):
    episodes: int
    calls: int
    requests: int
    prompt_tokens: int | None
    completion_tokens: int | None
    total_tokens: int | None
    tokens_per_episode: float | None
    tokens_per_success: float | None = Field(description="all tokens / successful episodes")
    cost_usd: float | None
    malformed_replies: int
    retries: int
    timeouts: int
    failed_episodes: int = Field(description="episodes the model could not go on with")
    latency_total_s: float = Field(description="wall clock (not deterministic)")


class Metrics(_Model):
    episodes: int
    successes: int
    success_rate: float
    mean_return: float
    mean_steps: float
    mean_steps_to_success: float | None = Field(
        description="mean steps of the successful episodes (null: none succeeded)"
    )
    detours: Detours
    outcomes: OutcomeCounts
    errors: ErrorTaxonomy
    subgoal_failures: list[SubgoalFailure] = Field(
        description="subgoals never reached in failed episodes, most frequent first"
    )
    coverage: Coverage
    per_family: dict[str, GroupStats]
    per_task: dict[str, GroupStats]
    calibration: Calibration | None = Field(
        default=None, description="present when some episode ended with a confidence"
    )
    llm: LLMTotals | None = Field(default=None, description="model calls (openai agents)")


class ErrorTally(_Model):
    validation: int = 0
    navigation: int = 0
    extraction: int = 0
    timeout: int = 0
    model: int = 0


class Latency(_Model):
    note: str = "wall clock: not deterministic, and not part of any other metric"
    total_s: float = Field(
        description="time spent waiting for the model, retries and failed calls included"
    )
    mean_s: float | None = Field(description="per call, failed ones included (null: no call)")
    max_s: float | None


class LLMUsage(_Model):
    """One episode's model calls (`--agent openai:MODEL`)."""

    calls: int = Field(description="replies received (one per step that got one)")
    requests: int = Field(description="HTTP requests, retries included")
    prompt_tokens: int | None = Field(description="as the server reported (null: never)")
    completion_tokens: int | None
    total_tokens: int | None
    usage_missing: int = Field(description="replies that came without token counts")
    cost_usd: float | None = Field(
        description="prompt and reply tokens at --price-input/--price-output (null: no prices"
        " given, or no token counts)"
    )
    malformed_replies: int = Field(
        description="replies with no readable action (truncated ones included); none was"
        " carried out: each went to env.step as text the env refuses and counts as an"
        " invalid action"
    )
    truncated_replies: int = Field(
        description="replies cut off at max_tokens: malformed, never carried out"
    )
    empty_replies: int
    retries: int = Field(description="requests repeated after a timeout or a retryable error")
    timeouts: int = Field(description="requests that hit the wall-clock deadline")
    http_errors: dict[str, int] = Field(description="error replies by HTTP status")
    transport_errors: int = Field(description="connections refused, reset or broken")
    bad_replies: int = Field(description="HTTP 200 bodies that were no chat completion")
    backoff_s: float = Field(
        description="waits the retry policy planned (logical seconds), failed calls included"
    )
    latency: Latency
    failure: str | None = Field(description="why the model could not go on (null: it could)")


class RunSummary(_Model):
    """An extra run of a suite episode (a robustness perturbation, or its plain baseline)."""

    variation: dict[str, str] = Field(description="the axes forced for this run")
    success: bool
    outcome: Outcome
    steps: int
    episode_return: float = _return_field()


class EpisodeResult(_Model):
    index: int = Field(description="episode index in the suite")
    family: str
    task: str
    seed: int
    difficulty: str
    variation: dict[str, str] = Field(description="the site's full variation vector")
    forced: dict[str, str] = Field(description="the axes the suite fixed for this episode")
    success: bool
    outcome: Outcome
    reason: str
    ended_by: EndedBy
    steps: int
    episode_return: float = _return_field()
    plan_length: int = Field(description="length of the compiled oracle plan")
    reference_steps: int | None = Field(
        description="steps the oracle takes on this episode (successful episodes only)"
    )
    detours: int | None
    subgoals: list[str] = Field(description="every subgoal of the compiled task")
    subgoals_reached: list[str] = Field(description="subgoals credited at some step")
    invalid_actions: int
    error_events: dict[str, int] = Field(description="error events by kind")
    errors: ErrorTally
    widgets_offered: list[str]
    widgets_exercised: list[str]
    affordances_offered: list[str]
    affordances_exercised: list[str]
    verbs: dict[str, int]
    site_digest: str
    task_digest: str
    paired: dict[str, RunSummary] = Field(
        default_factory=dict,
        description="robustness runs: `plain`, and `AXIS=VALUE` per perturbation",
    )
    confidence: float | None = Field(
        default=None,
        description="the agent's done(..., confidence=P): its probability that its ending is"
        " right (null: it gave none)",
    )
    llm: LLMUsage | None = Field(default=None, description="model calls (openai agents)")


class SkippedEpisode(_Model):
    """A suite episode that was not run: its task cannot be compiled on its level."""

    index: int = Field(description="episode index in the suite")
    family: str
    task: str
    seed: int
    difficulty: str
    reason: str = Field(description="the compiler's message")


class Timing(_Model):
    note: str = "wall-clock figures: not deterministic, and not part of any metric"
    wall_seconds: float
    seconds_per_episode: float


class EvalResults(_Model):
    schema_version: str = METRICS_SCHEMA_VERSION
    kind: Literal["webfactory.eval"] = RESULTS_KIND
    package_version: str
    suite: SuiteInfo
    agent: AgentInfo
    config: RunConfig
    metrics: Metrics
    robustness: Robustness
    episodes: list[EpisodeResult]
    skipped_levels: list[SkippedEpisode] = Field(
        default_factory=list,
        description="suite episodes not run because their task cannot be compiled on their"
        " level (no metric counts them); `config.episodes` = run + skipped",
    )
    timing: Timing | None = None

    def to_json_text(self) -> str:
        data = self.model_dump(mode="json", by_alias=True)
        return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def metrics_json_schema() -> dict[str, Any]:
    """The JSON Schema of a results file `webfactory eval` writes."""
    schema = EvalResults.model_json_schema(by_alias=True)
    return {
        **schema,
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": f"webfactory eval results, schema_version {METRICS_SCHEMA_VERSION}",
        "description": (
            "What `webfactory eval` writes: the suite, the agent, the run settings, the"
            " aggregate metrics, robustness indices per variation axis and one row per"
            " episode. Everything but `timing` is deterministic."
        ),
    }


def schema_text() -> str:
    return json.dumps(metrics_json_schema(), indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def load_results(path: str) -> EvalResults:
    """Read a results file back, refusing versions this package cannot read."""
    from pathlib import Path

    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such results file") from None
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{path}: not JSON ({exc})") from None
    version = str(data.get("schema_version", "")) if isinstance(data, dict) else ""
    major, _, minor = version.partition(".")
    own_major, _, own_minor = METRICS_SCHEMA_VERSION.partition(".")
    if major != own_major or not minor.isdigit() or int(minor) > int(own_minor):
        raise ConfigError(
            f"{path}: results schema_version {version or '?'} cannot be read by this package"
            f" (it reads {own_major}.0-{METRICS_SCHEMA_VERSION}); upgrade webfactory_env,"
            " or re-run the evaluation"
        )
    return EvalResults.model_validate(data)
