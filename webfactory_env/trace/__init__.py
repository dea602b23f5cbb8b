"""Traces: one JSONL header per episode and one event per step, written as they happen."""

from webfactory_env.trace.recorder import TRACE_SCHEMA_VERSION, TraceRecorder, read_trace

__all__ = ["TRACE_SCHEMA_VERSION", "TraceRecorder", "read_trace"]
