"""Compiling one task: choosing it from its file, walking its steps over a fresh app, and
assembling the `CompiledTask` (goal, frame, subgoals, plan, words, digest)."""

from __future__ import annotations

from webfactory_env.core.errors import did_you_mean
from webfactory_env.core.seeding import stable_digest
from webfactory_env.dsl import ast
from webfactory_env.sitegen.registry import Site
from webfactory_env.sitegen.state import PINNED_PARTS
from webfactory_env.tasks.compile.alternatives import routes_as_alternatives
from webfactory_env.tasks.compile.context import CompileRun
from webfactory_env.tasks.compile.errors import CompileError
from webfactory_env.tasks.compile.goal_checks import checked_goal
from webfactory_env.tasks.compile.steps import run_steps
from webfactory_env.tasks.compile.surface import goal_sentences
from webfactory_env.tasks.compile.values import jsonable, param_value
from webfactory_env.tasks.compiled import CompiledTask
from webfactory_env.tasks.frame import derive_frame
from webfactory_env.tasks.instruction import paraphrase_instruction

COMPILER_VERSION = "0.5.0"


def compile_task(task_file: ast.TaskFile, site: Site, task_name: str | None = None) -> CompiledTask:
    """Compile one task of `task_file` (the only one, or `task_name`) against `site`."""
    tasks = {t.name: t for t in task_file.tasks}
    if task_name is None:
        if len(task_file.tasks) != 1:
            raise CompileError(
                f"{len(task_file.tasks)} tasks in this file; say which one to compile",
                filename=task_file.filename,
                source=task_file.source,
                span=task_file.tasks[0].span if task_file.tasks else ast.NO_SPAN,
                hint="names: " + ", ".join(tasks),
            )
        task = task_file.tasks[0]
    elif task_name in tasks:
        task = tasks[task_name]
    else:
        raise CompileError(
            f"no task named {task_name!r} in this file.{did_you_mean(task_name, tasks)}",
            filename=task_file.filename,
            source=task_file.source,
            span=ast.NO_SPAN,
        )
    return compile_run(CompileRun(task_file, task, site))


def compile_run(run: CompileRun) -> CompiledTask:
    """Walk the run's task over its app and assemble what the walk recorded."""
    for param in run.task.params:
        run.params[param.name] = param_value(run, param)
    run_steps(run, run.task.steps)
    if not run.subgoals:
        raise run.error(f"task {run.task.name!r} has no step that changes the site", run.task)
    routes_as_alternatives(run)
    goal = checked_goal(run)
    frame = derive_frame(
        run.schema,
        run.reset_view,
        run.app.state_view(),
        run.allowed,
        type(run.app).back_doors(),
    )
    subgoals = tuple(run.subgoals)
    params = {k: jsonable(v) for k, v in sorted(run.params.items())}
    digest = stable_digest(
        {
            "compiler": COMPILER_VERSION,
            "dsl": ast.DSL_VERSION,
            "task": run.task.name,
            "source": run.file.source,
            "site": run.site.digest,
            "params": params,
        }
    )
    goals = goal_sentences(run)
    return CompiledTask(
        name=run.task.name,
        family=run.site.spec.family,
        site_digest=run.site.digest,
        source=run.file.source,
        filename=run.file.filename,
        goal_text=goals[0][0] if goals else None,
        goal_paraphrases=tuple(text for text, _ in goals[1:]),
        goal_values=tuple(stated for _, stated in goals),
        recipe_values=tuple(dict.fromkeys(run.recipe_values)),
        instruction=" ".join(run.surface),
        paraphrases=paraphrase_instruction(run.surface),
        subgoals=subgoals,
        plan=tuple(run.plan),
        values=tuple(sorted(run.values)),
        bindings=run.bindings,
        params=params,
        dsl_version=ast.DSL_VERSION,
        compiler_version=COMPILER_VERSION,
        digest=digest,
        permitted=frozenset(sid for g in subgoals for sid in g.witness),
        goal=tuple(goal),
        frame=frame,
        transitions=frozenset(
            t for t in run.app.take_fired() if not run.app.transitions()[t].neutral
        ),
        tracked=tuple(
            (n, node.kind if node.kind in ("table", "object") else "value")
            for n, node in run.schema.root.items()
            if node.part in PINNED_PARTS
        ),
        warnings=tuple(sorted(run.warnings, key=lambda w: (w.line, w.column))),
    )
