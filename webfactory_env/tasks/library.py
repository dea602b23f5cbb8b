"""The task library under `dsl/tasks/<family>/*.task`, and loading a task by name or path."""

from __future__ import annotations

import contextlib
import os
import threading
from collections import OrderedDict
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path

from webfactory_env.core.errors import ConfigError, UnknownNameError
from webfactory_env.core.resources import resource_root
from webfactory_env.dsl import For, If, Step, TaskFile, parse_task_file
from webfactory_env.sitegen.registry import Site, families, forget_sites
from webfactory_env.tasks.compile import CompileError, compile_task
from webfactory_env.tasks.compile_cache import compile_cache
from webfactory_env.tasks.compiled import CompiledTask
from webfactory_env.tasks.instruction import description_of, goal_templates
from webfactory_env.tasks.levels import UncompilableLevelError, uncompilable


@dataclass(frozen=True)
class LibraryTask:
    name: str
    family: str
    path: Path
    description: str
    difficulty: str = "easy"

    def to_json(self) -> dict[str, str]:
        return {
            "name": self.name,
            "family": self.family,
            "description": self.description,
            "difficulty": self.difficulty,
            "path": str(self.path),
        }


# A task's difficulty is the length of its script: up to EASY_STEPS statements is easy, up
# to MEDIUM_STEPS medium, longer is hard (a statement inside a block counts, and so does
# the block's own `if`/`for`). The language reference documents the same rule.
EASY_STEPS = 4
MEDIUM_STEPS = 9


def _count_steps(steps: tuple[Step, ...]) -> int:
    n = 0
    for step in steps:
        n += 1
        if isinstance(step, If):
            n += _count_steps(step.then) + _count_steps(step.otherwise)
        elif isinstance(step, For):
            n += _count_steps(step.body)
    return n


def task_difficulty(steps: tuple[Step, ...]) -> str:
    """`easy`, `medium` or `hard`, from how many statements the task has."""
    n = _count_steps(steps)
    return "easy" if n <= EASY_STEPS else "medium" if n <= MEDIUM_STEPS else "hard"


@cache
def library() -> dict[str, LibraryTask]:
    """Every library task by name (names are unique across families)."""
    root = resource_root("dsl") / "tasks"
    found: dict[str, LibraryTask] = {}
    for path in sorted(root.glob("*/*.task")):
        family = path.parent.name
        parsed = parse_task_file(path)
        for task in parsed.tasks:
            templates = goal_templates(task.doc)
            description = description_of(templates[0]) if templates else ""
            if task.name in found:
                raise ConfigError(
                    f"task {task.name!r} is defined twice in the library "
                    f"({found[task.name].path} and {path})"
                )
            found[task.name] = LibraryTask(
                task.name, family, path, description, task_difficulty(task.steps)
            )
    return found


def library_tasks(family: str | None = None) -> list[LibraryTask]:
    if family is not None and family not in families():
        raise UnknownNameError("family", family, families())
    return [t for t in library().values() if family is None or t.family == family]


def load_task_file(task: str, family: str | None = None) -> tuple[TaskFile, str | None]:
    """A library task name or a path to a `.task` file → (parsed file, task name)."""
    if task.endswith(".task") or os.sep in task or "/" in task:
        path = Path(task)
        if not path.is_file():
            raise ConfigError(f"task file {task!r} does not exist")
        return parse_task_file(path), None
    lib = library()
    if task not in lib:
        names = [t.name for t in library_tasks(family)] if family else list(lib)
        raise UnknownNameError("task", task, names)
    entry = lib[task]
    if family is not None and entry.family != family:
        raise ConfigError(
            f"task {task!r} belongs to family {entry.family!r}, not {family!r};"
            f" use --family {entry.family}"
        )
    return _parsed(str(entry.path)), task


@lru_cache(maxsize=64)
def _parsed(path: str) -> TaskFile:
    return parse_task_file(path)


_COMPILED: OrderedDict[tuple[str, str, str | None, str], CompiledTask] = OrderedDict()
_COMPILED_MAX = 512
_COMPILED_LOCK = threading.Lock()


def forget_levels() -> None:
    """Forget the sites and compiled tasks this process keeps (not those on disk): what a
    new process starts with."""
    forget_sites()
    with _COMPILED_LOCK:
        _COMPILED.clear()


def compile_for_site(task: str, site: Site) -> CompiledTask:
    """Compile a library task (or a task file) for `site`, cached by (source, site digest)
    in the process, and a library task on disk too (`tasks.compile_cache`)."""
    parsed, name = load_task_file(task, site.spec.family)
    key = (parsed.filename, parsed.source, name, site.digest)
    with _COMPILED_LOCK:  # envs compile on a worker thread (see env.py) and on their own
        hit = _COMPILED.get(key)
        if hit is not None:
            _COMPILED.move_to_end(key)
            return hit
    # A library task is kept on disk too (a task file given by path has no name: never).
    disk = compile_cache() if name is not None else None
    compiled = disk.load(name, site) if disk and name else None
    if compiled is None:
        compiled = compile_task(parsed, site, name)
        if disk and name:
            disk.store(name, site, compiled)
    with _COMPILED_LOCK:
        _COMPILED[key] = compiled
        if len(_COMPILED) > _COMPILED_MAX:
            _COMPILED.popitem(last=False)
    return compiled


def compile_level(task: str, site: Site) -> CompiledTask:
    """`compile_for_site`, but a task that cannot be compiled on this level raises
    `UncompilableLevelError`, naming the level and the task beside the compiler's reason."""
    try:
        return compile_for_site(task, site)
    except CompileError as exc:
        raise uncompilable(task, site, exc) from None


def check_task(task: str, site: Site) -> None:
    """Raise now on a task that is no task of `site`'s family (an unknown name, a file that
    does not parse). That it cannot be compiled on `site`'s level is no error here: it may
    compile on the levels a reset shows, and each of those says so for itself."""
    with contextlib.suppress(UncompilableLevelError):
        compile_level(task, site)


_compiler: ThreadPoolExecutor | None = None


def compile_in_background(task: str, site: Site) -> Future[CompiledTask]:
    """`compile_level` on the process's one compile thread (an env's reset compiles there
    while Chromium mounts the new site: the two overlap)."""
    global _compiler
    with _COMPILED_LOCK:  # envs reset on several threads at once share the one thread
        if _compiler is None:
            _compiler = ThreadPoolExecutor(max_workers=1, thread_name_prefix="webfactory-compile")
        compiler = _compiler
    return compiler.submit(compile_level, task, site)


def _forget_compiler() -> None:
    global _compiler
    _compiler = None  # a forked child has no worker thread: it starts its own


os.register_at_fork(after_in_child=_forget_compiler)
