"""`verify_bundle`: prove a replay bundle re-executes exactly, or name where it stops doing so.

In order: every file's checksum; the manifest's `env_kwargs` (the env's own argument
checks, and nothing about this machine: a bundle cannot choose which browser runs); the site
re-created from the manifest (digest, variation and static pages); the bundled task source
recompiled (digest); then the recorded raw actions re-executed in a fresh env, comparing per
step validity, route, observation digest, reward, subgoals, state deltas and episode end;
last, the manifest's summary (`steps`, `success`, `return`) against the re-executed episode.
The first difference is the verdict.

Bundles come from other people: a file that is not the shape it must have is `malformed`
(the CLI exits 2 with one line naming the file and field), one that was changed or does
not re-execute is a failed verification (exit 1).

Screenshots stored in a bundle are not compared: their bytes depend on the machine's fonts,
and what an agent saw is already pinned by the observation digest. An observation with a
screenshot (the pixel observation modes) is compared as its `ScreenRecord` instead: every
other part exactly, the screenshot within the raster noise of Chromium's software
compositor, which moves a few edge pixels from one run to the next (README, Determinism).
"""

from __future__ import annotations

import base64
import contextlib
import json
import math
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

from webfactory_env.config import LOCAL_ARGS, EnvConfig
from webfactory_env.core.errors import (
    BundleError,
    MalformedFileError,
    TraceError,
    WebfactoryError,
    one_line,
)
from webfactory_env.dsl import DslError, parse_task_source
from webfactory_env.env import WebTaskEnv
from webfactory_env.episode.records import ScreenSignature
from webfactory_env.replay.bundle import (
    MANIFEST,
    TASK_SOURCE,
    BundleManifest,
    build_hash,
    bundle_trace,
    check_files,
    export_site,
    load_manifest,
    open_bundle,
)
from webfactory_env.sitegen import generate_site
from webfactory_env.sitegen.registry import Site
from webfactory_env.tasks import compile_task
from webfactory_env.trace.recorder import EpisodeLog
from webfactory_env.trace.schema import ObsRecord, StepEvent


@dataclass(frozen=True)
class Verdict:
    """The outcome of verifying a bundle. `message` is what the CLI prints."""

    ok: bool
    message: str
    steps: int = 0
    file: str | None = None
    step: int | None = None
    field: str | None = None
    notes: tuple[str, ...] = ()
    malformed: bool = False  # a file is not the shape it must have (not merely changed)


class _Diverged(Exception):
    def __init__(self, verdict: Verdict) -> None:
        super().__init__(verdict.message)
        self.verdict = verdict


def verify_bundle(
    path: str | Path, *, on_step: Callable[[int, int], None] | None = None
) -> Verdict:
    """Verify the bundle at `path` (a directory or `.tar.gz`).

    Raises `ConfigError` only when `path` is not a bundle at all; a bundle that fails, for
    whatever reason, is a `Verdict` with `ok=False` naming the file or the step and field.
    `on_step(t, total)` is called after each replayed step.
    """
    notes: list[str] = []
    try:
        with open_bundle(path) as root:
            problem = check_files(root)
            if problem is not None:
                return Verdict(
                    False,
                    str(problem),
                    file=problem.file,
                    field=problem.field,
                    malformed=problem.malformed,
                )
            manifest = load_manifest(root)
            if manifest.build_hash != build_hash():
                notes.append(
                    f"recorded by build {manifest.build_hash}, replaying on {build_hash()}"
                )
            kwargs = _check_env_kwargs(manifest)
            episode = bundle_trace(root)
            site = _check_site(root, manifest)
            task_path = _check_task(root, manifest, site)
            replayed = _replay(
                manifest, kwargs, episode.header.obs, episode.steps, task_path, on_step
            )
            _check_summary(manifest, replayed)
    except _Diverged as exc:
        v = exc.verdict
        return Verdict(
            False, v.message, v.steps, v.file, v.step, v.field, tuple(notes), v.malformed
        )
    except MalformedFileError as exc:  # a manifest or trace not in its schema
        return Verdict(
            False, str(exc), file=exc.file, field=exc.field, notes=tuple(notes), malformed=True
        )
    except (BundleError, TraceError) as exc:  # a corrupt archive, an unreadable trace
        return Verdict(False, str(exc), file=Path(path).name, notes=tuple(notes))
    return Verdict(True, f"verified {replayed.steps} steps", replayed.steps, notes=tuple(notes))


@dataclass(frozen=True)
class Replayed:
    """How the re-executed episode ended."""

    steps: int
    success: bool
    total_return: float


def _fail(message: str, **kw: Any) -> _Diverged:
    return _Diverged(Verdict(False, message, **kw))


def _check_env_kwargs(manifest: BundleManifest) -> dict[str, Any]:
    """The recorded env's arguments, if they are arguments this env takes from a file."""
    kwargs = dict(manifest.env_kwargs)
    for key in sorted(kwargs):
        if key in LOCAL_ARGS:
            raise _malformed(
                f"env_kwargs.{key}",
                "is about the recording machine and cannot come from a bundle; delete it",
            )
    problem = EnvConfig.first_problem(kwargs)
    if problem is not None:
        field, message = problem
        raise _malformed(f"env_kwargs.{field}", message)
    return kwargs


def _malformed(field: str, message: str) -> _Diverged:
    return _Diverged(
        Verdict(
            False,
            f"{MANIFEST}: {field}: {one_line(message)}",
            file=MANIFEST,
            field=field,
            malformed=True,
        )
    )


def _check_site(root: Path, manifest: BundleManifest) -> Site:
    try:
        # The env's variation overrides (axes fixed by the user), if any, as recorded.
        fixed = manifest.env_kwargs.get("variation")
        site = generate_site(manifest.family, manifest.seed, manifest.difficulty, fixed)
    except WebfactoryError as exc:
        # An unknown family or axis, a negative seed: the manifest names what no site has.
        raise _malformed(_site_field(manifest), str(exc)) from None
    recorded = {k: str(v) for k, v in manifest.variation.items()}
    if recorded != dict(site.spec.variation):
        axis = next(
            (
                k
                for k in sorted(set(recorded) | set(site.spec.variation))
                if recorded.get(k) != site.spec.variation.get(k)
            ),
            "variation",
        )
        raise _fail(
            f"{MANIFEST}: variation differs from the re-created site's at {axis}: manifest"
            f" {recorded.get(axis)!r}, site {site.spec.variation.get(axis)!r}",
            file=MANIFEST,
            field="variation",
        )
    if site.digest != manifest.site_digest:
        raise _fail(
            f"site digest differs: bundled {manifest.site_digest}, re-created {site.digest}"
            f" (generator {manifest.generator_version} recorded,"
            f" {site.spec.generator_version} installed)",
            field="site_digest",
        )
    pages, files = export_site(site)
    by_file = {rel: route for route, rel in pages.items()}
    for rel, text in files.items():
        path = root / rel
        if not path.is_file() or path.read_text(encoding="utf-8") != text:
            what = f"site page {by_file[rel]}" if rel in by_file else "site asset"
            raise _fail(
                f"{what} ({rel}) differs from what this build renders", file=rel, field="site"
            )
    return site


def _site_field(manifest: BundleManifest) -> str:
    """Which of the manifest's fields no site can be made from (after that failed)."""
    try:
        generate_site(manifest.family, manifest.seed, manifest.difficulty)
    except WebfactoryError:
        return "family, seed or difficulty"
    return "env_kwargs.variation"


def _check_task(root: Path, manifest: BundleManifest, site: Site) -> Path:
    source_path = root / TASK_SOURCE
    source = source_path.read_text(encoding="utf-8")
    try:
        parsed = parse_task_source(source, filename=TASK_SOURCE)
        compiled = compile_task(parsed, site, manifest.task)
    except DslError as exc:
        raise _fail(
            f"{TASK_SOURCE} does not compile against the re-created site: {exc}",
            file=TASK_SOURCE,
            field="task",
        ) from None
    if compiled.digest != manifest.task_digest:
        raise _fail(
            f"task digest differs: bundled {manifest.task_digest}, recompiled {compiled.digest}"
            f" (compiler {manifest.compiler_version} recorded, {compiled.compiler_version} now)",
            field="task_digest",
        )
    # The env takes a task file when it holds just this task: then the replay runs the
    # bundled source, not whatever the installed library holds under that name.
    return source_path if len(parsed.tasks) == 1 else Path(manifest.task)


def _replay(
    manifest: BundleManifest,
    env_kwargs: Mapping[str, Any],
    reset_obs: ObsRecord,
    recorded: tuple[StepEvent, ...],
    task: Path,
    on_step: Callable[[int, int], None] | None,
) -> Replayed:
    kwargs = {**env_kwargs, "task": str(task)}
    with _env(kwargs) as env:
        base: WebTaskEnv = env.unwrapped  # type: ignore[assignment]
        observation, info = env.reset(seed=manifest.seed)
        expected = {"site_digest": manifest.site_digest, "task_digest": manifest.task_digest}
        for key, want in expected.items():
            if info[key] != want:
                raise _fail(
                    f"step 0: {key.replace('_', ' ')} differs: bundled {want},"
                    f" replay env has {info[key]}",
                    step=0,
                    field=key,
                )
        log = EpisodeLog(base, run_id="replay")
        reset = observation_difference(reset_obs, log.header(info, observation).obs)
        if reset is not None:
            field, message = reset
            raise _fail(f"step 0, after reset: {message}", step=0, field=field)
        ended = False
        for i, rec in enumerate(recorded):
            if ended:  # the env would refuse another step: say where the recordings part
                raise _fail(
                    f"step {rec.t}: the replayed episode already ended at step {i}",
                    step=rec.t,
                    field="terminated",
                    steps=i,
                )
            action = _replayable(rec.action.raw, base)
            observation, _, terminated, truncated, info = env.step(action)
            ended = terminated or truncated
            replayed = log.step(info, terminated, truncated, observation)
            difference = first_difference(rec, replayed)
            if difference is not None:
                field, message = difference
                raise _fail(f"step {rec.t}: {message}", step=rec.t, field=field, steps=i)
            if on_step is not None:
                on_step(rec.t, len(recorded))
        success = bool(info["success"]) if recorded else False
        total = float(info["record"]["reward"]["R"]) if recorded else 0.0
    return Replayed(len(recorded), success, total)


def _check_summary(manifest: BundleManifest, replayed: Replayed) -> None:
    """The manifest's summary must describe the episode that re-executed: anyone can edit
    `success` and recompute the checksums, no one can make the steps agree with it."""
    checks: list[tuple[str, Any, Any]] = [
        ("steps", manifest.steps, replayed.steps),
        ("success", manifest.success, replayed.success),
        ("return", manifest.episode_return, replayed.total_return),
    ]
    for field, claimed, actual in checks:
        same = (
            math.isclose(claimed, actual, rel_tol=0, abs_tol=1e-9)
            if field == "return"
            else claimed == actual
        )
        if not same:
            raise _fail(
                f"{MANIFEST}: {field} differs: the manifest says {_show(claimed)},"
                f" the re-executed episode gives {_show(actual)}",
                file=MANIFEST,
                field=field,
                steps=replayed.steps,
            )


@contextlib.contextmanager
def _env(kwargs: Mapping[str, Any]) -> Iterator[gym.Env[Any, Any]]:
    try:
        env = gym.make("WebTask-v0", **kwargs)
    except WebfactoryError as exc:
        raise _fail(
            f"the recorded env cannot be re-created: {one_line(str(exc))}", field="env_kwargs"
        ) from None
    try:
        yield env
    finally:
        env.close()


def first_difference(recorded: StepEvent, replayed: StepEvent) -> tuple[str, str] | None:
    """(field, message) of the first checked field that differs, or None."""
    before: list[tuple[str, str, Any, Any]] = [
        ("action.target", "target element", recorded.action.target, replayed.action.target),
        ("valid", "validity", recorded.valid, replayed.valid),
        ("error", "action error", recorded.error, replayed.error),
        ("obs.route", "route", recorded.obs.route, replayed.obs.route),
    ]
    after: list[tuple[str, str, Any, Any]] = [
        ("reward.r", "reward", recorded.reward.r, replayed.reward.r),
        ("reward.subgoals", "subgoals", recorded.reward.subgoals, replayed.reward.subgoals),
        ("reward.undone", "undone subgoals", recorded.reward.undone, replayed.reward.undone),
    ]
    for field, name, a, b in before:
        if a != b:
            return field, f"{name} differs: recorded {_show(a)}, replayed {_show(b)}"
    seen = observation_difference(recorded.obs, replayed.obs)
    if seen is not None:
        return seen
    for field, name, a, b in after:
        if a != b:
            return field, f"{name} differs: recorded {_show(a)}, replayed {_show(b)}"
    deltas = _delta_difference(recorded.deltas, replayed.deltas)
    if deltas is not None:
        return "deltas", deltas
    for field, a, b in (
        ("reward.R", recorded.reward.R, replayed.reward.R),
        ("terminated", recorded.terminated, replayed.terminated),
        ("truncated", recorded.truncated, replayed.truncated),
        ("success", recorded.success, replayed.success),
    ):
        if a != b:
            return field, f"{field} differs: recorded {_show(a)}, replayed {_show(b)}"
    return None


def observation_difference(recorded: ObsRecord, replayed: ObsRecord) -> tuple[str, str] | None:
    """(field, message) when the replayed observation is not the recorded one, or None.
    An observation with a screenshot recorded by schema 2.2 or later is compared as its
    `ScreenRecord`: every other part exactly, the screenshot within the browser's raster
    noise (README, Determinism). Otherwise, and for older traces, the digests must agree."""
    if recorded.digest == replayed.digest:
        return None
    mine, theirs = _signature(recorded), _signature(replayed)
    if mine is None or theirs is None:
        return "obs.digest", (
            f"observation digest differs: recorded {_short(recorded.digest)},"
            f" replayed {_short(replayed.digest)}"
        )
    problem = mine.differs_from(theirs)
    return None if problem is None else ("obs.screen", f"observation differs: {problem}")


def _signature(obs: ObsRecord) -> ScreenSignature | None:
    if obs.screen is None:
        return None
    try:
        blocks = base64.b64decode(obs.screen.blocks, validate=True)
    except ValueError:
        return None  # a damaged signature is no signature: the digests decide
    return ScreenSignature(obs.screen.rest_digest, blocks)


def _delta_difference(recorded: dict[str, Any], replayed: dict[str, Any]) -> str | None:
    # Compare as JSON: the recorded side went through a file.
    a, b = _as_json(recorded), _as_json(replayed)
    for path in sorted(set(a) | set(b)):
        if path not in a or path not in b or a[path] != b[path]:
            left = _show(a[path]) if path in a else "(unchanged)"
            right = _show(b[path]) if path in b else "(unchanged)"
            return f"state deltas differ at {path}: recorded {left}, replayed {right}"
    return None


def _as_json(obj: Any) -> Any:
    return json.loads(json.dumps(obj, sort_keys=True, default=str))


def _short(digest: Any) -> str:
    return f"{str(digest)[:12]}…"


def _show(value: Any) -> str:
    if isinstance(value, str) and value.endswith("…"):
        return value
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 120 else text[:117] + "..."


def _replayable(raw: list[int] | str, env: Any) -> Any:
    """The action to step again: numeric arrays as recorded; text actions with their
    `{{value:K}}` placeholders filled from the (bundled, recompiled) task's values."""
    if not isinstance(raw, str):
        return np.asarray(raw, dtype=np.int64)
    values = env.task.values
    return re.sub(
        r"\{\{value:(\d+)\}\}",
        lambda m: (
            json.dumps(values[int(m.group(1))]) if int(m.group(1)) < len(values) else m.group(0)
        ),
        raw,
    )
