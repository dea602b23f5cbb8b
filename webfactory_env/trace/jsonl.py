"""Trace files on disk: one JSON object per line, written so any text round-trips, read so
that a damaged line costs that line only.

Writing: canonical JSON (sorted keys, exact floats). Only "\\n" ends a line, but U+0085,
U+2028 and U+2029 end lines for other readers (Python's `str.splitlines`, editors, older
JavaScript): they are written as `\\u` escapes, so a value typed with one of them cannot
break the file for anyone.

Reading: lines split on "\\n" only. A line that is not JSON or not the schema is *damaged*:
it is skipped and reported (`DamagedLine`: its number and what is wrong), and everything
else is read. A damaged last line of an episode that is not JSON is what a crash mid-write
leaves: the episode is marked `torn`. `strict=True` (bundles, whose every line must hold)
raises `MalformedTraceError` at the first damaged line instead, except a torn one.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from webfactory_env.__about__ import __version__
from webfactory_env.core.errors import MalformedTraceError, TraceError, one_line
from webfactory_env.core.text import clean_text
from webfactory_env.trace.schema import (
    LINE_ADAPTER,
    TRACE_SCHEMA_VERSION,
    EpisodeEnd,
    StepEvent,
    TraceHeader,
)

log = logging.getLogger(__name__)

# Line terminators of other readers that JSON leaves raw inside strings.
_ESCAPED_BREAKS = str.maketrans({"\x85": "\\u0085", "\u2028": "\\u2028", "\u2029": "\\u2029"})


@dataclass(frozen=True)
class DamagedLine:
    """A line of a trace file that could not be read, and why (`field`: where in it)."""

    line: int
    problem: str
    field: str | None = None

    def __str__(self) -> str:
        return f"line {self.line}: {self.problem}"


@dataclass(frozen=True)
class EpisodeTrace:
    """One episode read back from a trace: its header and steps, validated."""

    header: TraceHeader
    steps: tuple[StepEvent, ...]
    torn: bool = False  # the file ended (or broke off) inside this episode
    end: EpisodeEnd | None = None  # the agent stopped before the env ended the episode
    damaged: tuple[DamagedLine, ...] = ()  # lines of this episode that were skipped

    @property
    def complete(self) -> bool:
        return bool(self.steps) and (self.steps[-1].terminated or self.steps[-1].truncated)

    @property
    def total_return(self) -> float:
        return self.steps[-1].reward.R if self.steps else 0.0

    @property
    def success(self) -> bool:
        return bool(self.steps) and self.steps[-1].success

    def observations(self) -> list[Any]:
        """Observation records in order: the reset observation, then one per step."""
        return [self.header.obs, *(s.obs for s in self.steps)]


@dataclass(frozen=True)
class TraceReading:
    """What a trace file held: its episodes, and every damaged line (also those that
    belong to no episode: before the first header, or after a damaged one)."""

    episodes: list[EpisodeTrace]
    damaged: tuple[DamagedLine, ...]


def dump_line(line: TraceHeader | StepEvent | EpisodeEnd) -> str:
    """One trace line: canonical JSON (sorted keys, exact floats) and a newline."""
    data = line.model_dump(mode="json")
    text = json.dumps(data, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    # Page text the env did not write (a site's own broken string) must not stop a trace.
    return clean_text(text).translate(_ESCAPED_BREAKS) + "\n"


def write_trace(path: str | Path, episodes: Iterable[EpisodeTrace]) -> None:
    """Write episodes to a new trace file (bundles, tests)."""
    with Path(path).open("w", encoding="utf-8", newline="\n") as fh:
        for ep in episodes:
            fh.write(dump_line(ep.header))
            for step in ep.steps:
                fh.write(dump_line(step))
            if ep.end is not None:
                fh.write(dump_line(ep.end))


def read_trace(path: str | Path, *, strict: bool = False) -> list[EpisodeTrace]:
    """Every episode of a trace file, validated against the schema. Damaged lines are
    skipped, logged as warnings and listed in their episode's `damaged` (see the module
    docstring; `read_trace_report` also returns those of no episode)."""
    reading = read_trace_report(path, strict=strict)
    for damage in reading.damaged:
        log.warning("%s:%d: skipped: %s", path, damage.line, damage.problem)
    return reading.episodes


def read_trace_report(path: str | Path, *, strict: bool = False) -> TraceReading:
    """The episodes of a trace file and its damaged lines."""
    file = Path(path)
    try:
        data = file.read_bytes()
    except FileNotFoundError:
        raise TraceError(f"trace {str(file)!r} does not exist") from None
    return parse_trace(data, str(file), strict=strict)


def parse_trace(data: bytes | str, where: str, *, strict: bool = False) -> TraceReading:
    """The episodes and damaged lines of a trace's bytes (`where` names it in errors)."""
    reader = _Reader(where, strict)
    raw_lines = (
        data.split(b"\n")
        if isinstance(data, bytes)
        else data.encode("utf-8", "surrogatepass").split(b"\n")
    )
    for lineno, raw in enumerate(raw_lines, 1):
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError as exc:  # bytes that are not UTF-8 damage their line only
            reader.damage(lineno, f"not UTF-8 text ({exc.reason} at byte {exc.start})")
            continue
        if line.strip():
            reader.read(lineno, line)
    reader.finish()
    return TraceReading(reader.episodes, tuple(reader.damaged))


class _Reader:
    """Assembles episodes line by line (see the module docstring)."""

    def __init__(self, where: str, strict: bool) -> None:
        self.where, self.strict = where, strict
        self.episodes: list[EpisodeTrace] = []
        self.damaged: list[DamagedLine] = []
        self.header: TraceHeader | None = None
        self.header_line = 0  # of the last header seen, read or damaged
        self.steps: list[StepEvent] = []
        self.end: EpisodeEnd | None = None
        self.mine: list[DamagedLine] = []  # damaged lines of the current episode
        self.broken_last = False  # the last line so far was cut off (not JSON)

    def finish(self) -> None:
        if self.header is not None:
            torn, mine = self.broken_last, tuple(self.mine)
            self.episodes.append(EpisodeTrace(self.header, tuple(self.steps), torn, self.end, mine))
        self.header, self.steps, self.end, self.mine = None, [], None, []

    def damage(
        self, lineno: int, problem: str, field: str | None = None, cut_off: bool = False
    ) -> None:
        found = DamagedLine(lineno, one_line(problem), field)
        if self.strict and not cut_off:
            raise MalformedTraceError(self.where, field, found.problem, lineno)
        self.damaged.append(found)
        if self.header is not None:
            self.mine.append(found)
        self.broken_last = cut_off

    def read(self, lineno: int, line: str) -> None:
        try:
            data = json.loads(line)
        except RecursionError:
            return self.damage(lineno, "not a trace line: nested too deeply")
        except json.JSONDecodeError:
            return self.damage(lineno, "not JSON (a line cut off?)", cut_off=True)
        except ValueError as exc:  # a 5,000-digit number
            return self.damage(lineno, f"not a trace line: {exc}")
        is_header = isinstance(data, dict) and data.get("type") == "header"
        if self.broken_last and self.strict and not is_header:
            raise MalformedTraceError(
                self.where, None, "a step after a broken line; the trace is corrupt", lineno
            )
        self.broken_last = False
        if is_header:
            _check_version(self.where, lineno, data.get("schema_version"))
        try:
            parsed = LINE_ADAPTER.validate_python(data)
        except ValidationError as exc:
            field, problem = _first_error(exc)
            if is_header:  # the lines after it belong to an episode that cannot be read
                self.finish()
                self.header_line = lineno
            shown = f"{field}: {problem}" if field else problem
            return self.damage(lineno, f"not a valid trace line: {shown}", field)
        if isinstance(parsed, TraceHeader):
            self.finish()
            self.header, self.header_line = parsed, lineno
        elif self.header is not None and isinstance(parsed, StepEvent) and self.restarts(parsed):
            # Step numbers start again: a new episode whose header line was lost.
            self.finish()
            self.damage(lineno, "a step whose episode header is missing or damaged")
        elif self.header is None:
            lost = f" (line {self.header_line} is damaged)" if self.header_line else ""
            self.damage(lineno, f"a line whose episode header is missing{lost}")
        elif self.end is not None:
            self.damage(lineno, "a line after the episode's end line")
        elif isinstance(parsed, EpisodeEnd):
            self.end = parsed
        else:
            self.steps.append(parsed)
        return None

    def restarts(self, step: StepEvent) -> bool:
        return bool(self.steps) and step.t <= self.steps[-1].t


def _check_version(where: str, lineno: int, version: Any) -> None:
    ours = TRACE_SCHEMA_VERSION.split(".")
    theirs = str(version).split(".")
    ok = (
        len(theirs) >= 2
        and theirs[0] == ours[0]
        and theirs[1].isdigit()
        and int(theirs[1]) <= int(ours[1])
    )
    if not ok:
        raise TraceError(
            f"{where}:{lineno}: trace schema version {version!r} cannot be read by webfactory"
            f" {__version__} (it reads {ours[0]}.0 to {TRACE_SCHEMA_VERSION});"
            " upgrade webfactory_env, or re-record the trace with this version"
        )


def _first_error(exc: ValidationError) -> tuple[str | None, str]:
    """(field, message) of the first schema violation."""
    err = exc.errors(include_url=False)[0]
    return ".".join(str(p) for p in err["loc"]) or None, err["msg"]
