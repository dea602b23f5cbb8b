"""Traces: one JSONL header per episode and one event per step, written as they happen.

Imports the env and what it is made of; replay and the CLI import it."""

from webfactory_env.trace.recorder import (
    EpisodeLog,
    EpisodeTrace,
    TraceRecorder,
    read_trace,
    write_trace,
)
from webfactory_env.trace.schema import (
    REDACTED,
    TRACE_SCHEMA_VERSION,
    EpisodeEnd,
    StepEvent,
    TraceHeader,
    trace_json_schema,
)

__all__ = [
    "REDACTED",
    "TRACE_SCHEMA_VERSION",
    "EpisodeEnd",
    "EpisodeLog",
    "EpisodeTrace",
    "StepEvent",
    "TraceHeader",
    "TraceRecorder",
    "read_trace",
    "trace_json_schema",
    "write_trace",
]
