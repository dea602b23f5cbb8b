"""Replay bundles: one episode as a self-contained, checksummed directory or `.tar.gz`.

Layout (every path relative to the bundle root):

    manifest.json           versions, seed, digests, env kwargs, checksums of all other files
    site/spec.json          the site spec (what the seed decided)
    site/pages/*.html       a static export: one document per static route, as the app renders it
    site/pages/assets/      the stylesheet and runtime those pages share
    task/source.task        the DSL source the task was compiled from
    task/compiled.json      the compiled task: subgoals with witness sets, plan, digest
    trace/trace.jsonl       the episode's trace (schema in `webfactory_env.trace.schema`)
    trace/screens/*.png     per-step screenshots, when they were recorded

`manifest.json` lists a SHA-256 of every other file and one of itself (over its own
content without that field), and is written in one canonical form, so a change to any byte
of any file is caught. Archives are written reproducibly (sorted members, zero mtimes and
owners), so the same episode gives the same bytes.
"""

from __future__ import annotations

import contextlib
import gzip
import hashlib
import io
import json
import re
import shutil
import tarfile
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path, PurePosixPath
from typing import Any

import gymnasium as gym
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from webfactory_env.__about__ import __version__
from webfactory_env.core.errors import (
    BundleError,
    ConfigError,
    MalformedBundleError,
    UnsafeFileError,
    one_line,
)
from webfactory_env.core.resources import read_text, resource_root, runtime_script
from webfactory_env.dsl import DSL_VERSION
from webfactory_env.env import WebTaskEnv
from webfactory_env.replay.files import MAX_MANIFEST_BYTES, MAX_TRACE_BYTES, read_inside
from webfactory_env.sitegen.registry import Site
from webfactory_env.tasks import COMPILER_VERSION
from webfactory_env.trace.jsonl import EpisodeTrace, parse_trace, read_trace, write_trace
from webfactory_env.trace.recorder import SCREENS_DIR
from webfactory_env.trace.redact import plan_privacy, scrub_patterns, scrub_secret_fields
from webfactory_env.trace.schema import TRACE_SCHEMA_VERSION

BUNDLE_FORMAT = "1.0"
MANIFEST = "manifest.json"
SPEC_FILE = "site/spec.json"
PAGES_DIR = "site/pages"
ASSETS_DIR = "site/pages/assets"
TASK_SOURCE = "task/source.task"
TASK_COMPILED = "task/compiled.json"
TRACE_FILE = "trace/trace.jsonl"
ARCHIVE_SUFFIX = ".tar.gz"


class BundleManifest(BaseModel):
    """`manifest.json`: what the bundle holds and how to re-create it."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    bundle_format: str
    package_version: str
    generator_version: str
    compiler_version: str
    dsl_version: str
    trace_schema_version: str
    build_hash: str = Field(description="hash of the package code and resources that wrote it")
    family: str
    seed: int
    difficulty: str
    variation: dict[str, Any]
    task: str = Field(description="the task's name inside task/source.task")
    env_kwargs: dict[str, Any] = Field(description="gymnasium.make kwargs of the recorded env")
    site_digest: str
    task_digest: str
    steps: int
    success: bool
    episode_return: float = Field(alias="return")
    pages: dict[str, str] = Field(description="static route -> exported HTML file")
    files: dict[str, str] = Field(description="path -> SHA-256 of every file but this one")
    manifest_sha256: str = Field(description="SHA-256 of this manifest without this field")


@dataclass(frozen=True)
class Problem:
    """Why a bundle's files cannot be trusted: the file, and what is wrong with it.
    `malformed`: not the shape the file must have (rather than modified or missing)."""

    file: str
    message: str
    field: str | None = None
    malformed: bool = False

    def __str__(self) -> str:
        return f"{self.file}: {self.message}"


# ------------------------------------------------------------------------- writing
def write_bundle(
    out: str | Path, env: gym.Env[Any, Any], trace: str | Path, *, episode: int = -1
) -> Path:
    """Bundle an episode the env just ran (`episode` of the trace file, default the last).

    `out` ending in `.tar.gz` writes an archive, anything else a directory (which must not
    exist yet, or be empty). The env must still hold the episode's site and task.
    """
    base = env.unwrapped
    if not isinstance(base, WebTaskEnv) or base.site is None or base.task is None:
        raise BundleError("write_bundle needs the WebTask-v0 env that ran the episode")
    episodes = read_trace(trace)
    if not episodes:
        raise BundleError(f"trace {str(trace)!r} holds no episode to bundle")
    try:
        ep = episodes[episode]
    except IndexError:
        raise BundleError(
            f"trace {str(trace)!r} has {len(episodes)} episode(s), not {episode}"
        ) from None
    if ep.damaged:  # a bundle is exact or nothing: replay checks every step
        raise BundleError(
            f"trace {str(trace)!r}: the episode has damaged lines ({ep.damaged[0]}); a bundle"
            " of it could not be verified"
        )
    head = ep.header
    if head.site_build.digest != base.site.digest or head.task.compiled_digest != base.task.digest:
        raise BundleError(
            "the env has moved on from the trace's episode (site or task digest differ);"
            " bundle right after the episode, before the next reset"
        )
    out = check_new_bundle_path(out)
    archive = out.name.endswith(ARCHIVE_SUFFIX)
    screens = Path(trace).parent / SCREENS_DIR
    out.parent.mkdir(parents=True, exist_ok=True)
    # Staged next to `out` and moved into place at the end: a failure or crash midway never
    # leaves something at `out` that looks like a bundle.
    with tempfile.TemporaryDirectory(prefix=".wf-bundle-", dir=out.parent) as tmp:
        root = Path(tmp) / "bundle"
        root.mkdir()
        _write_contents(root, base, ep, screens)
        if archive:
            pack_archive(root, Path(tmp) / "bundle.tar.gz")
            (Path(tmp) / "bundle.tar.gz").replace(out)
        else:
            if out.exists():
                out.rmdir()  # empty, as checked above
            root.replace(out)
    return out


def check_new_bundle_path(out: str | Path) -> Path:
    """`out` as a Path, if a bundle can be written there (nothing is there yet)."""
    out = Path(out)
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise ConfigError(f"{out} already exists; choose a new bundle path or delete it first")
    return out


def _write_contents(root: Path, env: WebTaskEnv, ep: EpisodeTrace, screens: Path) -> None:
    assert env.site is not None and env.task is not None
    site, task = env.site, env.task
    # Secrets and personal data stay out of the bundle as out of the trace (trace.redact):
    # the site's ground truth loses its passwords and codes, the compiled task the values
    # its plan types into secret and personal fields, everything its emails and card numbers.
    redactor = plan_privacy(site, task).redactor()
    for secret in env.episode.secrets if env.episode else ():
        redactor.add(secret)
    spec = {"digest": site.digest, **site.spec.to_json()}
    _write_json(root / SPEC_FILE, redactor.scrub(scrub_secret_fields(spec)))
    pages, site_files = export_site(site)
    for rel, text in site_files.items():
        _write_text(root / rel, text)
    # Verbatim: replay recompiles it (a value written into a task file is part of the task).
    _write_text(root / TASK_SOURCE, task.source)
    compiled = {**task.to_json(), "filename": TASK_SOURCE}
    _write_json(root / TASK_COMPILED, redactor.scrub(compiled))
    (root / TRACE_FILE).parent.mkdir(parents=True, exist_ok=True)
    write_trace(root / TRACE_FILE, [ep])
    for obs in ep.observations():
        if obs.screenshot:
            src = screens / f"{obs.screenshot}.png"
            if not src.is_file():
                raise BundleError(f"screenshot {src} referenced by the trace is missing")
            dst = root / "trace" / SCREENS_DIR / src.name
            dst.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src, dst)
    head = ep.header
    manifest = {
        "bundle_format": BUNDLE_FORMAT,
        "package_version": __version__,
        "generator_version": site.spec.generator_version,
        "compiler_version": task.compiler_version,
        "dsl_version": task.dsl_version,
        "trace_schema_version": TRACE_SCHEMA_VERSION,
        "build_hash": build_hash(),
        "family": site.spec.family,
        "seed": head.site_build.seed,
        "difficulty": site.spec.difficulty,
        "variation": head.site_build.variation,
        "task": task.name,
        "env_kwargs": head.env_kwargs,
        "site_digest": site.digest,
        "task_digest": task.digest,
        "steps": len(ep.steps),
        "success": ep.success,
        "return": ep.total_return,
        "pages": dict(sorted(pages.items())),
    }
    seal(root, manifest)


def export_site(site: Site) -> tuple[dict[str, str], dict[str, str]]:
    """The static export: (route -> page path, bundle path -> file text).

    One HTML document per static route, as the app serves it over HTTP
    (`SiteApp.document(transport="fetch")`), except that the stylesheet and runtime every
    page inlines are written once under `site/pages/assets/` and linked: a page then stays
    small enough for gzip's 32 KB window to share the rest between pages, which keeps a
    bundle a few tens of KB. The pages open from disk in any browser.
    """
    assets = {
        f"{ASSETS_DIR}/base.css": read_text("sites", "common", "base.css"),
        f"{ASSETS_DIR}/runtime.js": runtime_script(),
    }
    files = dict(assets)
    pages: dict[str, str] = {}
    for route in site.spec.routes:
        app = site.new_app()
        app.visit(route)
        name = re.sub(r"[^A-Za-z0-9._/-]+", "_", route.strip("/")) or "index"
        name = "/".join(part.lstrip(".") or "_" for part in name.split("/"))
        rel = f"{PAGES_DIR}/{name}.html"
        while rel in files:  # two routes that sanitise alike: keep both
            rel = rel[: -len(".html")] + "_.html"
        up = "../" * rel[len(PAGES_DIR) + 1 :].count("/")
        html = app.document(transport="fetch")
        html = html.replace(
            f"<style>{assets[f'{ASSETS_DIR}/base.css']}</style>",
            f'<link rel="stylesheet" href="{up}assets/base.css">',
            1,
        ).replace(
            f"<script>{assets[f'{ASSETS_DIR}/runtime.js']}</script>",
            f'<script src="{up}assets/runtime.js"></script>',
            1,
        )
        pages[route] = rel
        files[rel] = scrub_patterns(html)  # emails, card numbers: pseudonyms (verify alike)
    return pages, files


def seal(root: Path, manifest: dict[str, Any]) -> BundleManifest:
    """Checksum every file under `root` and write `manifest.json` (also used to re-seal)."""
    files = {
        p.relative_to(root).as_posix(): sha256_file(p)
        for p in sorted(root.rglob("*"))
        if p.is_file() and p.relative_to(root).as_posix() != MANIFEST
    }
    data = {k: v for k, v in manifest.items() if k not in ("files", "manifest_sha256")}
    data["files"] = files
    data["manifest_sha256"] = _self_hash(data)
    parsed = BundleManifest.model_validate(data)
    (root / MANIFEST).write_text(manifest_text(data), encoding="utf-8")
    return parsed


def manifest_text(data: dict[str, Any]) -> str:
    return json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def _self_hash(data: dict[str, Any]) -> str:
    rest = {k: v for k, v in data.items() if k != "manifest_sha256"}
    text = json.dumps(rest, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()


def pack_archive(root: Path, out: Path) -> None:
    """A reproducible `.tar.gz` of `root`'s files (members at the archive root)."""
    buf = io.BytesIO()
    with (
        gzip.GzipFile(filename="", mode="wb", fileobj=buf, mtime=0, compresslevel=9) as gz,
        tarfile.open(fileobj=gz, mode="w", format=tarfile.PAX_FORMAT) as tar,
    ):
        for path in sorted(p for p in root.rglob("*") if p.is_file()):
            info = tarfile.TarInfo(path.relative_to(root).as_posix())
            data = path.read_bytes()
            info.size, info.mtime, info.mode = len(data), 0, 0o644
            info.uid = info.gid = 0
            info.uname = info.gname = ""
            tar.addfile(info, io.BytesIO(data))
    out.write_bytes(buf.getvalue())


# ------------------------------------------------------------------------- reading
@contextlib.contextmanager
def open_bundle(path: str | Path) -> Iterator[Path]:
    """The bundle's root directory (an archive is unpacked to a temporary one)."""
    path = Path(path)
    if not path.exists():
        raise ConfigError(f"bundle {str(path)!r} does not exist")
    if path.is_dir():
        if not (path / MANIFEST).is_file():
            raise ConfigError(f"{path} is not a replay bundle: it has no {MANIFEST}")
        yield path
        return
    if not path.name.endswith(ARCHIVE_SUFFIX):
        raise ConfigError(f"{path} is not a replay bundle (a directory or a {ARCHIVE_SUFFIX})")
    with tempfile.TemporaryDirectory(prefix="wf-bundle-") as tmp:
        try:
            with tarfile.open(path, "r:gz") as tar:
                _check_members(path, tar)
                _unpack(path, tar, Path(tmp))
        except (tarfile.TarError, OSError, EOFError, gzip.BadGzipFile) as exc:
            raise BundleError(f"{path.name}: not a readable {ARCHIVE_SUFFIX} ({exc})") from None
        root = Path(tmp)
        if not (root / MANIFEST).is_file():
            raise BundleError(f"{path.name} is not a replay bundle: it has no {MANIFEST}")
        yield root


# A bundle is tens of KB (a few MB with screenshots): an archive that unpacks to more is
# refused before anything is written (a gzip bomb).
MAX_MEMBERS = 20_000
MAX_UNPACKED_BYTES = 512 * 1024 * 1024


def _check_members(path: Path, tar: tarfile.TarFile) -> None:
    total = 0
    for count, member in enumerate(tar, 1):  # reads headers only; nothing is extracted yet
        total += max(member.size, 0)
        if count > MAX_MEMBERS or total > MAX_UNPACKED_BYTES:
            raise BundleError(
                f"{path.name}: refused: it unpacks to more than {MAX_MEMBERS} files or"
                f" {MAX_UNPACKED_BYTES >> 20} MB, far beyond any replay bundle"
            )


def _unpack(path: Path, tar: tarfile.TarFile, root: Path) -> None:
    """Write the archive's regular files under `root`. Anything else (links, devices, an
    absolute name, a '..') is refused: a bundle is only ever files. (Done here rather than
    by `extractall(filter="data")`, which Python 3.11 has only from 3.11.4 on: Debian 12's
    is 3.11.2.)"""
    for member in tar:
        if member.isdir():
            continue
        parts = PurePosixPath(member.name).parts
        if not member.isfile() or not parts or parts[0] == "/" or ".." in parts:
            raise BundleError(
                f"{path.name}: refused: {member.name[:100]!r} is not a plain file inside"
                " the bundle (links, devices, absolute paths and '..' are never in one)"
            )
        source = tar.extractfile(member)
        assert source is not None  # a regular file
        target = root.joinpath(*parts)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(source.read())


def check_files(root: Path) -> Problem | None:
    """The first file that is not as the bundle's writer left it, or None."""
    try:
        raw = read_inside(root, MANIFEST, MAX_MANIFEST_BYTES)
    except UnsafeFileError as exc:
        return Problem(MANIFEST, f"refused: {exc.reason}", malformed=True)
    try:
        data = json.loads(raw.decode("utf-8"))
    except RecursionError:
        return Problem(MANIFEST, "corrupt: not JSON (nested too deeply)", malformed=True)
    except ValueError as exc:  # not UTF-8, not JSON, a 5,000-digit number
        return Problem(MANIFEST, f"corrupt: not JSON ({one_line(str(exc), 120)})", malformed=True)
    if not isinstance(data, dict):
        return Problem(MANIFEST, "corrupt: not a JSON object", malformed=True)
    if raw.decode("utf-8") != manifest_text(data):
        return Problem(MANIFEST, "modified: not in the form it was written in")
    if data.get("manifest_sha256") != _self_hash(data):
        return Problem(MANIFEST, "checksum mismatch: the manifest was modified")
    try:
        manifest = BundleManifest.model_validate(data)
    except ValidationError as exc:
        field, message = _first_error(exc)
        return Problem(MANIFEST, f"invalid: {field}: {message}", field, malformed=True)
    if manifest.bundle_format.split(".")[0] != BUNDLE_FORMAT.split(".")[0]:
        return Problem(
            MANIFEST,
            f"bundle format {manifest.bundle_format} cannot be read by webfactory"
            f" {__version__} (format {BUNDLE_FORMAT}); upgrade webfactory_env",
        )
    for rel, digest in sorted(manifest.files.items()):
        file = root / rel
        if not _inside(root, file) or not file.is_file():
            return Problem(rel, "missing")
        if sha256_file(file) != digest:
            return Problem(rel, "checksum mismatch: the file was modified or truncated")
    for file in sorted(root.rglob("*")):
        rel = file.relative_to(root).as_posix()
        if file.is_file() and rel != MANIFEST and rel not in manifest.files:
            return Problem(rel, f"not listed in {MANIFEST}: an unexpected file")
    return None


def load_manifest(root: Path) -> BundleManifest:
    """The validated manifest (call `check_files` first to trust it)."""
    try:
        return BundleManifest.model_validate_json(read_inside(root, MANIFEST, MAX_MANIFEST_BYTES))
    except ValidationError as exc:
        field, message = _first_error(exc)
        raise MalformedBundleError(
            MANIFEST, field, f"not a valid bundle manifest: {field}: {message}"
        ) from None


def bundle_trace(root: Path, *, strict: bool = True) -> EpisodeTrace:
    """The bundle's one episode. `strict`: a damaged line is `MalformedTraceError` (else the
    episode lists it in `damaged`). Read only from a regular file inside the bundle."""
    try:
        data = read_inside(root, TRACE_FILE, MAX_TRACE_BYTES)
    except FileNotFoundError:
        raise BundleError(f"{TRACE_FILE}: missing") from None
    # Named inside the bundle, not the temporary directory it may be unpacked to.
    episodes = parse_trace(data, TRACE_FILE, strict=strict).episodes
    if len(episodes) != 1:
        raise MalformedBundleError(
            TRACE_FILE, None, f"must hold exactly one episode, found {len(episodes)}"
        )
    return episodes[0]


def _first_error(exc: ValidationError) -> tuple[str, str]:
    """(field, message) of the first problem pydantic found, never echoing the input."""
    err = exc.errors(include_url=False, include_input=False)[0]
    return ".".join(map(str, err["loc"])) or "(top level)", one_line(err["msg"], 200)


# -------------------------------------------------------------------------- hashes
def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 16), b""):
            h.update(chunk)
    return h.hexdigest()


@cache
def build_hash() -> str:
    """SHA-256 (16 hex) over this build's Python code, site resources and task library.

    Informational: two builds that differ only in ways no episode can see still replay each
    other's bundles; the digests are what verification checks.
    """
    h = hashlib.sha256()
    package = Path(__file__).resolve().parent.parent
    trees = [(package, "*.py"), (resource_root("sites"), "*"), (resource_root("dsl"), "*")]
    for root, pattern in trees:
        for path in sorted(p for p in root.rglob(pattern) if p.is_file()):
            if "__pycache__" in path.parts:
                continue
            h.update(path.relative_to(root).as_posix().encode() + b"\0")
            h.update(path.read_bytes())
    h.update(__version__.encode())
    h.update(f"{COMPILER_VERSION}/{DSL_VERSION}/{TRACE_SCHEMA_VERSION}".encode())
    return h.hexdigest()[:16]


# -------------------------------------------------------------------------- helpers
def _inside(root: Path, path: Path) -> bool:
    try:
        path.resolve().relative_to(root.resolve())
    except ValueError:
        return False
    return True


def _write_text(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8", newline="\n")


def _write_json(path: Path, data: Any) -> None:
    _write_text(path, json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False, default=str))
