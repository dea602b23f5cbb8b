"""Traces: one JSONL header per episode and one event per step, written as they happen.

Imports the env and what it is made of; replay and the CLI import it."""

from webfactory_env.trace.jsonl import (
    DamagedLine,
    EpisodeTrace,
    TraceReading,
    read_trace,
    read_trace_report,
    write_trace,
)
from webfactory_env.trace.recorder import EpisodeLog, TraceRecorder
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
    "DamagedLine",
    "EpisodeEnd",
    "EpisodeLog",
    "EpisodeTrace",
    "StepEvent",
    "TraceHeader",
    "TraceReading",
    "TraceRecorder",
    "read_trace",
    "read_trace_report",
    "trace_json_schema",
    "write_trace",
]
