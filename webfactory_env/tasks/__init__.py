"""Tasks: the compiler from DSL to ground truth (goal, subgoals, plan), compiled tasks,
goals and instructions in words, and the task library.

Imports `core`, `dsl` and `sitegen`; the env, rewards and checks import it."""

from webfactory_env.tasks.compile import COMPILER_VERSION, CompileError, compile_task
from webfactory_env.tasks.compiled import CompiledTask, CompileWarning, PlanStep, Subgoal
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
    "CompileWarning",
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
