"""Compile a DSL task against a generated site by running the site's own app in Python.

The compiler walks the task's steps over a fresh app, exactly as an agent following the
task would: each target is resolved against the affordances of the page the app shows at
that moment (the witness set, ranked in page order), the primary witness is acted on, and
the affordance's declared effect, bound to this step's values, becomes the step's
subgoal (shaping). What each step changed in the state a goal may pin is recorded, and
at the end `tasks.goal` turns the run into the task's goal: conjuncts over entity-keyed
state that must hold together. A step whose effect does not hold afterwards (a validation
error, a disabled button), a goal that already holds at reset, an assertion that already
holds at reset and a "first / best by X" whose tie the page does not break are compile
errors, so every compiled task is solvable by its own oracle plan and by nothing less.
Conditions (`if`, `wait`) are decided on the simulated state and loops are unrolled: a
compiled task is a straight line.

The modules share one `CompileRun` (`context`): `run` compiles a task and assembles the
result; `steps` compiles each statement by its entry in `steps.STATEMENTS`; `resolve`
turns targets into witnesses, `ties` settles "first / best by X", `locate` reveals a
target, `operate` works each widget style (a table keyed by `ui`, then `element`) and
`perform` binds a step's effect and records what it did; `conditions` (`assert`, `wait`)
and `endings` (`answer`, `infeasible`) close the walk; `alternatives` lets any route to a
page do the navigation steps that lead there; `goal_checks` derives and checks the goal;
`predicates`, `values` and `surface` give state, values and words.
"""

from webfactory_env.tasks.compile.errors import CompileError
from webfactory_env.tasks.compile.run import COMPILER_VERSION, compile_task
from webfactory_env.tasks.compile.surface import answer_text

__all__ = ["COMPILER_VERSION", "CompileError", "answer_text", "compile_task"]
