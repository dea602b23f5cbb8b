"""The trace file format: versioned pydantic models of a header line and one line per step.

A trace is JSONL. Each episode starts with a `TraceHeader` line (what was run: versions,
seed, variation vector, digests, task, executor settings, the env's keyword arguments and
the first observation) followed by one `StepEvent` line per `env.step`, and an `EpisodeEnd`
line when the agent stopped before the env ended the episode (its model kept failing).
Files are read back through these models (they cross a trust boundary: disk), and
`trace_json_schema()` is the same contract for other languages, committed as
`docs/trace-schema.json`:

    webfactory trace-schema --out docs/trace-schema.json

Versioning: `schema_version` is MAJOR.MINOR. A reader accepts its own major version at
any minor version up to its own; adding a field bumps the minor, changing or removing one
bumps the major.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    TypeAdapter,
    model_serializer,
)

TRACE_SCHEMA_VERSION = "2.2"
REDACTED = "REDACTED"

Box = tuple[int, int, int, int]
# One observed element, agent-visible only: tag, role, text, value, box (x, y, w, h), flags.
Element = tuple[str, str, str, str, Box, int]


class _Model(BaseModel):
    # Unknown fields are an error: a newer writer bumps the version, and we say so first.
    model_config = ConfigDict(extra="forbid", frozen=True)


class CompactDom(_Model):
    """The observed page without any semantic id (`DomSnapshot.to_json()`)."""

    route: str
    title: str
    scroll_y: int
    elements: list[Element]


class ScreenRecord(_Model):
    """An observed screenshot as replay compares it: within raster noise (2.2)."""

    rest_digest: str = Field(
        description="SHA-256 over the observation arrays but the screenshot, compared exactly"
    )
    blocks: str = Field(
        max_length=4096,
        description="base64 of the screenshot's 16x16 grid of block means per channel"
        " (uint8, row-major), compared within a few units",
    )


class ObsRecord(_Model):
    """One observation: the digest of the agent's arrays, the page it shows, a screenshot."""

    digest: str = Field(description="SHA-256 over the observation arrays (env.observation_digest)")
    route: str
    dom: CompactDom
    screenshot: str | None = Field(
        default=None, description="SHA-256 of the full-size PNG, stored as screens/<hash>.png"
    )
    screen: ScreenRecord | None = Field(
        default=None,
        description="for an observation with a screenshot: what replay compares instead of"
        " `digest`, which the browser's raster noise may move (2.2); absent otherwise",
    )

    @model_serializer(mode="wrap")
    def _without_absent_screen(self, handler: SerializerFunctionWrapHandler) -> Any:
        # Absent, not null, when there is none: a trace of an earlier minor version (and one
        # without pixels) is written back byte for byte.
        data = handler(self)
        if isinstance(data, dict) and data.get("screen", 0) is None:
            del data["screen"]
        return data


class SiteBuild(_Model):
    factory_version: str
    generator_version: str
    family: str
    seed: int
    difficulty: str
    variation: dict[str, Any] = Field(description="the variation vector of the site")
    digest: str


class SubgoalInfo(_Model):
    id: str
    description: str
    prerequisites: list[str] = Field(description="hard edges of the subgoal DAG")
    witness: list[str]
    sticky: bool


class ConjunctInfo(_Model):
    id: str
    kind: str = Field(description="effect, kept, assert, page, answer or infeasible")
    description: str


class TaskInfo(_Model):
    name: str
    dsl_version: str
    compiler_version: str
    compiled_digest: str
    instruction: str
    description: str | None = Field(default=None, description="the task's doc comment")
    goal: list[ConjunctInfo] = Field(
        description="what success means: every conjunct holds at once, by permitted means"
    )
    n_values: int = Field(description="size of the value table (its strings are not traced)")
    subgoals: list[SubgoalInfo]


class ExecutorInfo(_Model):
    viewport: tuple[int, int]
    locale: str
    timezone: str
    obs_mode: str
    max_elements: int
    max_tokens: int
    vocab_size: int
    screenshot_size: tuple[int, int]
    max_steps: int
    max_values: int
    step_ms: int = Field(description="logical time per step")
    reward: dict[str, float]


class TraceHeader(_Model):
    type: Literal["header"] = "header"
    schema_version: str
    run_id: str
    episode: int = Field(ge=1, description="1-based index of the episode within the file")
    site_build: SiteBuild
    task: TaskInfo
    executor: ExecutorInfo
    env_kwargs: dict[str, Any] = Field(description="gymnasium.make kwargs re-creating the env")
    obs: ObsRecord


class ActionInfo(_Model):
    raw: list[int] | str = Field(
        description="the action as given to env.step: [verb, element, slot], or a text action "
        "(a redacted value written as {{value:K}}, K its index in the task's value table)"
    )
    verb: str | None
    index: int | None
    target: str | None = Field(description="semantic id of the acted-on element")
    value: str | None = Field(description=f"typed or selected text; {REDACTED!r} for secrets")
    redacted: bool = False
    box: Box | None = Field(
        default=None, description="the element's box (px) in the observation before the action"
    )
    confidence: float | None = Field(
        default=None,
        description="a text-mode done(..., confidence=P): the agent's probability that its"
        " ending is right",
    )


class RewardInfo(_Model):
    r: float
    R: float = Field(description="return so far")
    subgoals: list[str] = Field(description="subgoals newly satisfied by this step")
    undone: list[str]
    components: dict[str, float]
    tainted: list[str] = Field(
        default_factory=list,
        description="goal state this step changed through a transition the task does not "
        "permit (a back door): it does not count until a permitted action changes it again",
    )


class PrerequisiteLink(_Model):
    subgoal: str
    step: int | None = Field(description="the step that last satisfied it (None: never)")


class SubgoalLabel(_Model):
    """Auto-label: this step satisfied `subgoal`, building on these earlier steps."""

    subgoal: str
    prerequisites: list[PrerequisiteLink]
    prerequisite_steps: list[int] = Field(
        description="steps that satisfied any transitive prerequisite, ascending"
    )


class StepEvent(_Model):
    type: Literal["step"] = "step"
    t: int = Field(ge=1, description="logical step number")
    logical_ms: int
    latency_ms: int = Field(default=0, description="simulated server latency (the latency axis)")
    retries: list[dict[str, Any]] = Field(
        default_factory=list,
        description="executor_web.retry events: the acted element was re-found after drift",
    )
    action: ActionInfo
    valid: bool
    error: str | None
    reward: RewardInfo
    labels: list[SubgoalLabel]
    deltas: dict[str, Any] = Field(description="app-state paths that changed, new values")
    events: list[dict[str, Any]]
    app_errors: list[dict[str, Any]]
    error_events: list[dict[str, Any]] = Field(
        default_factory=list,
        description="the step's failures as events: event_type agent, executor, app or browser"
        " (a browser that crashed or hung, also while the recorder took its screenshot)",
    )
    terminated: bool
    truncated: bool
    success: bool
    obs: ObsRecord


class EpisodeEnd(_Model):
    """The agent stopped before the env ended the episode (e.g. its language model kept
    failing): the steps before this line are all it took, and `reason` says why it stopped."""

    type: Literal["end"] = "end"
    t: int = Field(ge=0, description="steps taken before stopping")
    by: Literal["agent"] = "agent"
    reason: str


TraceLine = Annotated[TraceHeader | StepEvent | EpisodeEnd, Field(discriminator="type")]
LINE_ADAPTER: TypeAdapter[TraceHeader | StepEvent | EpisodeEnd] = TypeAdapter(TraceLine)


def trace_json_schema() -> dict[str, Any]:
    """The JSON Schema of one trace line (either a header or a step event)."""
    schema = LINE_ADAPTER.json_schema()
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": f"webfactory trace line, schema_version {TRACE_SCHEMA_VERSION}",
        "description": (
            "One line of a webfactory JSONL trace: each episode is a header line followed by"
            " one step line per env.step, and an end line when the agent stopped the episode"
            " before the env ended it."
        ),
        **schema,
    }


def schema_text() -> str:
    return json.dumps(trace_json_schema(), indent=2, sort_keys=True, ensure_ascii=False) + "\n"
