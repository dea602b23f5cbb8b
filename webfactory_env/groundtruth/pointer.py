"""The ground truth's mutants played with a mouse and a keyboard in Chromium.

A coordinate-mode episode is judged by the same compiled predicates as any other, so a
mutant the app-level suite says must fail (a plan with a goal step dropped, a hedged
answer) must fail when a person-like agent plays it on the real page too, and the oracle's
plan and its answer's other right spellings must still succeed there. `check_pointer_seed`
plays each of them through `CoordinateOracle` on one level (`coordinates_text` mode: the
answer travels as text, so a hedge can be written at all).
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any

import gymnasium as gym

from webfactory_env.actions import DONE_VERBS, Decoded
from webfactory_env.agents.coordinate_oracle import CoordinateOracle
from webfactory_env.groundtruth.answers import answer_key, right_answers
from webfactory_env.groundtruth.hedges import hedges
from webfactory_env.groundtruth.mutants import goal_steps
from webfactory_env.groundtruth.plans import answer_in, run_mutant, run_oracle
from webfactory_env.sitegen import generate_site
from webfactory_env.tasks import compile_for_site

HEDGES_PER_TASK = 3  # the first hedges of each kind: "maybe X", "X or Y", "Y or X", ...
FORMS_PER_TASK = 2  # other right spellings of the answer


class MutantOracle(CoordinateOracle):
    """The coordinate oracle with plan steps `drop` left out and, given `answer`, that text
    as its answer instead of the plan's. A plan with steps left out answers what the page
    shows where the oracle read its answer, as the app-level mutant does (`answer_now`):
    the plan's own answer was read on a page the mutant may never reach."""

    def __init__(self, env: Any, drop: Collection[int] = (), answer: str | None = None) -> None:
        self._drop = frozenset(drop)
        self._answer_text = answer
        super().__init__(env)

    def _left_out(self, index: int) -> bool:
        return index in self._drop

    def _plan_step(self) -> Decoded | None:
        task = self.env.task
        assert task is not None  # an oracle acts after a reset
        while self._next in self._drop:
            self._next += 1
        if self._next < len(task.plan):
            step = task.plan[self._next]
            if step.verb in DONE_VERBS and (self._answer_text is not None or self._drop):
                said = self._answer_text
                if said is None:
                    said = answer_in(self.env.app, task) if step.value else ""
                return self._answer(step.verb, said)
        return super()._plan_step()


@dataclass
class PointerReport:
    """What one level's coordinate-mode mutants did."""

    family: str
    task: str
    seed: int
    episodes: int = 0
    drops: int = 0
    hedges: int = 0
    forms: int = 0
    failures: list[str] = field(default_factory=list)


def play(env: gym.Env[Any, Any], seed: int, oracle: MutantOracle) -> bool:
    """One episode of `oracle` on level `seed`; whether it succeeded."""
    obs, info = env.reset(seed=seed)
    oracle.reset()
    while True:
        obs, _, terminated, truncated, info = env.step(oracle.act(obs, info))
        if terminated or truncated:
            return bool(info["success"])


def check_pointer_seed(
    env: gym.Env[Any, Any], family: str, task_name: str, seed: int
) -> PointerReport:
    """Every coordinate-mode mutant of `task_name` on level `seed`, played in `env` (a
    `coordinates_text` WebTask-v0 of `family` and `task_name` with room for the plan)."""
    report = PointerReport(family, task_name, seed)
    site = generate_site(family, seed)
    task = compile_for_site(task_name, site)
    where = f"{family}/{task_name} seed {seed}"
    unwrapped = env.unwrapped

    def run(**mutation: Any) -> bool:
        report.episodes += 1
        return play(env, seed, MutantOracle(unwrapped, **mutation))

    _, recorded, problems = run_oracle(site, task)
    if problems:  # the app-level suite reports these
        return report
    if not run():
        report.failures.append(f"{where}: the coordinate oracle does not succeed")
        return report
    for gid in goal_steps(task, site):
        drop = {i for i, rec in enumerate(recorded) if rec.step.subgoal == gid}
        if not drop:
            continue
        app, _, _ = run_mutant(site, task, recorded, drop=drop)
        if app.success:  # a drop the app-level suite ties (the goal was done another way)
            continue
        report.drops += 1
        if run(drop=drop):
            report.failures.append(f"{where}: dropping {gid} succeeds with mouse and keys")
    key = answer_key(task)
    if key is not None:
        for hedge in hedges(key)[:HEDGES_PER_TASK]:
            report.hedges += 1
            if run(answer=hedge):
                report.failures.append(f"{where}: the hedged answer {hedge!r} succeeds")
        right = key.accepted[0]
        for form in [f for f in right_answers(right, key) if f != right][:FORMS_PER_TASK]:
            report.forms += 1
            if not run(answer=form):
                report.failures.append(f"{where}: the right answer written {form!r} fails")
    return report
