"""Tasks: the compiler from DSL to ground truth, compiled tasks, and the task library."""

from webfactory_env.tasks.compiled import CompiledTask, PlanStep, Subgoal
from webfactory_env.tasks.compiler import COMPILER_VERSION, CompileError, compile_task
from webfactory_env.tasks.library import (
    LibraryTask,
    compile_for_site,
    library,
    library_tasks,
    load_task_file,
)

__all__ = [
    "COMPILER_VERSION",
    "CompileError",
    "CompiledTask",
    "LibraryTask",
    "PlanStep",
    "Subgoal",
    "compile_for_site",
    "compile_task",
    "library",
    "library_tasks",
    "load_task_file",
]
