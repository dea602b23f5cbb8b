"""Compiled library tasks kept on disk, so a level compiled once is never compiled again.

Compiling a task walks the oracle's plan through the site's app: most of a reset to a new
level (travel: 8 of 13 ms of our Python). What it gives depends only on the task, the level
(family, seed, difficulty, variation overrides) and the code, so every process that meets
the same level again (the other workers of a vector env, the evaluation runs on the same
held-out levels, the next seed of an experiment) loads it instead: about 0.2 ms.

    WEBFACTORY_COMPILE_CACHE=off         # never read or write
    WEBFACTORY_COMPILE_CACHE=/some/dir   # where (default: ~/.cache/webfactory_env/compiled,
                                         # under $XDG_CACHE_HOME when it is set)
    WEBFACTORY_COMPILE_CACHE_MB=512      # the most it holds (least recently used go first)

Only the library's tasks on the built-in families are kept: their sources and the code that
compiles them are all inside the package, whose every file is part of the key (`code_key`,
with the Python, Lark and package versions), beside the task's name and the site's digest.
Editing a task, a family or the compiler, or upgrading, therefore starts an empty cache: an
entry is never reused across code changes.

The entries are pickles, which run code when loaded, so a file is read only if it and its
directories up to the root belong to this user and nobody else may write them, and it
carries an HMAC of its bytes under a key only this user can read (`key`, made once, mode
0600): a file that fails any check is refused (logged, deleted, compiled again), never
loaded. A directory that cannot be written, a bad key, or a system where owners cannot be
checked turns the cache off for the process, with one warning: the compile still runs.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import importlib.metadata
import logging
import os
import pickle
import stat
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from functools import cache
from pathlib import Path

from webfactory_env.__about__ import __version__
from webfactory_env.core.resources import resource_root
from webfactory_env.core.seeding import canonical_json
from webfactory_env.sitegen.registry import BUILTIN_FAMILIES, Site
from webfactory_env.tasks.compiled import CompiledTask

log = logging.getLogger(__name__)

ENV_VAR = "WEBFACTORY_COMPILE_CACHE"
SIZE_VAR = "WEBFACTORY_COMPILE_CACHE_MB"
DEFAULT_MB = 512
SUFFIX = ".task.pickle"
_MAC_BYTES = 32
_KEY_BYTES = 32
_PRUNE_EVERY = 2000  # stores between two checks of the cache's size (a scan of it)


def cache_dir() -> Path | None:
    """Where compiled tasks are kept, or None when the cache is off."""
    setting = os.environ.get(ENV_VAR, "").strip()
    if setting.lower() in {"off", "0", "false", "no"}:
        return None
    if setting:
        return Path(setting).expanduser().absolute()
    base = os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")
    if not os.path.isabs(base):  # no home to keep it in: off
        return None
    return Path(base) / "webfactory_env" / "compiled"


@cache
def code_key() -> str:
    """A digest of everything a compiled task depends on besides its level: every file of
    the package and of its resource trees (the task sources among them), and the versions
    of Python, Lark and the package."""
    h = hashlib.sha256()
    versions = (__version__, sys.version_info[:2], importlib.metadata.version("lark"))
    h.update(repr(versions).encode())
    package = Path(__file__).resolve().parents[1]
    resources = [resource_root("sites").resolve(), resource_root("dsl").resolve()]
    # A wheel keeps the resource trees inside the package: hashed once, with it.
    roots = [package, *(r for r in resources if package not in r.parents)]
    h.update(tree_digest(roots).encode())
    return h.hexdigest()[:32]


def tree_digest(roots: list[Path]) -> str:
    """A digest of every file under `roots` (its path below its root and its bytes),
    compiled bytecode left out: any edit, added or removed file changes it."""
    h = hashlib.sha256()
    for root in roots:
        h.update(f"root {len(str(root))}\0".encode())  # which root the files below are in
        for path in sorted(root.rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc":
                h.update(path.relative_to(root).as_posix().encode() + b"\0")
                h.update(hashlib.sha256(path.read_bytes()).digest())
    return h.hexdigest()


class CompileCache:
    """Compiled library tasks in one directory (see the module docstring)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.enabled = True
        self._stores = 0
        self._lock = threading.Lock()
        self._mac_key: bytes | None = None
        self._max_bytes = _max_bytes()

    # ----------------------------------------------------------------- the entries
    def entry(self, task: str, site: Site) -> Path | None:
        """The file of library task `task` compiled on `site`, or None on a family
        registered from outside the package (its code is not in `code_key`)."""
        if site.spec.family not in BUILTIN_FAMILIES:
            return None
        name = hashlib.sha256(canonical_json([task, site.digest])).hexdigest()[:40]
        return self.root / code_key() / (name + SUFFIX)

    def load(self, task: str, site: Site) -> CompiledTask | None:
        """`task` compiled on `site`, if kept and sound; else None."""
        path = self.entry(task, site) if self.enabled else None
        if path is None:
            return None
        try:
            data = path.read_bytes() if self._trusted(path) else None
        except FileNotFoundError:
            return None
        except OSError as exc:
            log.debug("compile cache: cannot read %s: %s", path, exc)
            return None
        if data is None:
            return None
        mac, body = data[:_MAC_BYTES], data[_MAC_BYTES:]
        try:
            signed = self._mac(path, body)
        except OSError as exc:
            self._turn_off(f"no signing key: {exc}")
            return None
        if len(mac) < _MAC_BYTES or not hmac.compare_digest(mac, signed):
            return self._refuse(path, "its signature does not match its contents")
        try:
            found = pickle.loads(body)  # signed with this user's key: checked above
        except Exception as exc:  # a file cut short by a full disk, say
            return self._refuse(path, f"it does not load ({type(exc).__name__})")
        if not isinstance(found, CompiledTask) or (found.name, found.site_digest) != (
            task,
            site.digest,
        ):
            return self._refuse(path, "it holds another task or level")
        with contextlib.suppress(OSError):
            os.utime(path)  # recently used: pruned last
        return found

    def store(self, task: str, site: Site, compiled: CompiledTask) -> None:
        """Keep `compiled` (atomically: a reader sees the whole file or none)."""
        path = self.entry(task, site) if self.enabled else None
        if path is None:
            return
        try:
            body = pickle.dumps(compiled, protocol=pickle.HIGHEST_PROTOCOL)
            signed = self._mac(path, body)
            if not path.parent.is_dir():
                path.parent.mkdir(mode=0o700, exist_ok=True)  # ours alone, as the root
            fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
            try:
                with os.fdopen(fd, "wb") as out:
                    out.write(signed + body)
                os.replace(tmp, path)
            except BaseException:
                Path(tmp).unlink(missing_ok=True)
                raise
        except OSError as exc:
            self._turn_off(f"cannot write {path.parent}: {exc}")
            return
        with self._lock:
            self._stores += 1
            due = self._stores % _PRUNE_EVERY == 0
        if due:
            self.prune()

    def prune(self) -> None:
        """Delete the least recently used entries beyond the size limit, and the entries of
        other code versions first (and what a writer killed mid-store left, after an hour)."""
        try:
            current = self.root / code_key()
            files = [(p.stat(), p) for p in self.root.glob(f"*/*{SUFFIX}")]
            left = [p for p in self.root.glob("*/*.tmp") if p.stat().st_mtime < time.time() - 3600]
        except OSError:
            return
        for p in left:
            p.unlink(missing_ok=True)
        stale = [p for _, p in files if current not in p.parents]
        live = sorted((s.st_mtime, s.st_size, p) for s, p in files if current in p.parents)
        for p in stale:
            p.unlink(missing_ok=True)
        total = sum(size for _, size, _ in live)
        for _, size, p in live:
            if total <= self._max_bytes:
                break
            p.unlink(missing_ok=True)
            total -= size

    # -------------------------------------------------------------------- safety
    def _trusted(self, path: Path) -> bool:
        """Whether `path` and the directories above it, up to the cache's root, belong to
        this user and nobody else may write them (a pickle runs code when loaded)."""
        getuid = getattr(os, "getuid", None)
        if getuid is None:  # no owners to check (Windows): never load a pickle
            self._turn_off("file owners cannot be checked on this system")
            return False
        uid = getuid()
        for p in (path, *path.parents):
            st = p.stat()
            if st.st_uid != uid or st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
                self._turn_off(f"{p} belongs to another user or others may write it")
                return False
            if p == self.root:
                return True
        return False

    def _mac(self, path: Path, body: bytes) -> bytes:
        """The signature of `body` kept at `path`: the entry's name below the root (its code
        version, task and site) is signed with it, so an entry moved to another name, of
        another level, task or code version, fails it."""
        where = path.relative_to(self.root).as_posix().encode() + b"\0"
        return hmac.new(self._key(), where + body, hashlib.sha256).digest()

    def _key(self) -> bytes:
        """This user's signing key (`<root>/key`, made on first use, mode 0600; published
        whole, so a process starting beside the one making it never reads half of it)."""
        if self._mac_key is None:
            path = self.root / "key"
            self.root.parent.mkdir(parents=True, exist_ok=True)
            self.root.mkdir(mode=0o700, exist_ok=True)
            if not path.exists():
                fd, tmp = tempfile.mkstemp(dir=self.root, suffix=".key")  # mode 0600
                try:
                    with os.fdopen(fd, "wb") as out:
                        out.write(os.urandom(_KEY_BYTES))
                    with contextlib.suppress(FileExistsError):  # another process's won
                        os.link(tmp, path)
                finally:
                    Path(tmp).unlink(missing_ok=True)
            key = path.read_bytes() if self._trusted(path) else b""
            if len(key) != _KEY_BYTES:
                raise OSError(f"{path} is not a signing key of this user's alone")
            self._mac_key = key
        return self._mac_key

    def _refuse(self, path: Path, why: str) -> CompiledTask | None:
        """None, after saying why the entry at `path` is not loaded and deleting it."""
        log.warning("compile cache: refused %s (%s); compiling the task again", path, why)
        path.unlink(missing_ok=True)
        return None

    def _turn_off(self, why: str) -> None:
        if self.enabled:
            log.warning("compile cache off for this process: %s", why)
        self.enabled = False


def _max_bytes() -> int:
    raw = os.environ.get(SIZE_VAR, "").strip()
    try:
        mb = float(raw) if raw else DEFAULT_MB
    except ValueError:
        log.warning("%s=%r is not a number of megabytes; using %d", SIZE_VAR, raw, DEFAULT_MB)
        mb = DEFAULT_MB
    return int(mb * 1024 * 1024)


_caches: dict[Path, CompileCache] = {}
_caches_lock = threading.Lock()


def compile_cache() -> CompileCache | None:
    """The process's cache for the directory `WEBFACTORY_COMPILE_CACHE` names now (None:
    off). Read on every use, so a test or a notebook can point it elsewhere."""
    root = cache_dir()
    if root is None:
        return None
    with _caches_lock:
        found = _caches.get(root)
        if found is None:
            found = _caches[root] = CompileCache(root)
            try:
                code_key()
            except OSError as exc:  # the package's files cannot be read: no key, no cache
                found._turn_off(f"cannot read the package's files: {exc}")
    return found if found.enabled else None


@contextlib.contextmanager
def fresh_compile_cache() -> Iterator[Path]:
    """Within the block, compiled tasks are kept in a new, empty directory (removed after):
    what a benchmark of first visits needs, whatever the user's cache holds."""
    before = os.environ.get(ENV_VAR)
    with tempfile.TemporaryDirectory(prefix="webfactory-compiled-") as tmp:
        root = Path(tmp) / "compiled"
        os.environ[ENV_VAR] = str(root)
        try:
            yield root
        finally:
            if before is None:
                os.environ.pop(ENV_VAR, None)
            else:
                os.environ[ENV_VAR] = before
            with _caches_lock:
                _caches.pop(root.absolute(), None)
