"""The ground truth's mutants played with a mouse and a keyboard in Chromium.

A coordinate-mode episode is judged by the same compiled predicates as any other, so a
mutant the app-level suite says must fail (a plan with a goal step dropped, a hedged
answer, an extra harm) must fail when a person-like agent plays it on the real page too,
and the oracle's plan and its answer's other right spellings must still succeed there.
`check_pointer_seed` plays each of them through `CoordinateOracle` on one level
(`coordinates_text` mode: the answer travels as text, so a hedge can be written at all).
Of the extra harms (`groundtruth.harm`) it plays those that act on one control of the page
the plan is on (another record's control, a stray one): the oracle does what a person does
to it just before the plan step; the harms that navigate by address (a sibling's run and
back, a stray action on another page) stay app-level.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from typing import Any

import gymnasium as gym

from webfactory_env.actions import DONE_VERBS, Decoded
from webfactory_env.adversarial import AppDriver
from webfactory_env.agents.coordinate_oracle import CoordinateOracle
from webfactory_env.env import WebTaskEnv
from webfactory_env.groundtruth.answers import answer_key, right_answers
from webfactory_env.groundtruth.harm import Harm, footprint, harms, run_harm
from webfactory_env.groundtruth.hedges import hedges
from webfactory_env.groundtruth.mutants import goal_steps
from webfactory_env.groundtruth.plans import answer_in, run_mutant, run_oracle
from webfactory_env.sitegen import generate_site
from webfactory_env.sitegen.persistence import kept_values
from webfactory_env.sitegen.spec import Affordance
from webfactory_env.tasks import PlanStep, compile_for_site

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


class HarmOracle(CoordinateOracle):
    """The coordinate oracle acting on `harm.control` just before plan step `harm.at`, as
    a person does (`extra_steps`); `extra_done` says whether it got past that."""

    def __init__(self, env: Any, harm: Harm) -> None:
        assert harm.control is not None
        self._harm, self._extra = harm, extra_steps(harm.control)
        super().__init__(env)

    def _plan(self) -> Sequence[PlanStep]:
        plan, at = super()._plan(), self._harm.at
        return [*plan[:at], *self._extra, *plan[at:]]

    @property
    def extra_done(self) -> bool:
        return bool(self._extra) and self._next >= self._harm.at + len(self._extra)


def extra_steps(control: Affordance) -> list[PlanStep]:
    """What a person does to act on `control` as an extra harm does (`harm._do`): a click
    (a switch: to its other state), or another option of a choice chosen."""
    if control.verb != "select" or control.attr_map().get("checked") is not None:
        return [PlanStep("click", control.sid)]
    other = next((o for o in control.options if o.value != (control.value or "")), None)
    if other is None:
        return []
    if other.sid is None:  # an entry of a native dropdown
        return [PlanStep("select", control.sid, other.label)]
    opener = [PlanStep("click", control.sid)] if control.ui == "menu" else []
    return [*opener, PlanStep("click", other.sid)]


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
    harms: int = 0  # extra harms played
    harms_caught: int = 0  # of which harmful (a persistent trace) and failed
    harmless: int = 0  # of which left no persistent trace
    harms_not_done: int = 0  # the extra never got done on the page (not judged)
    failures: list[str] = field(default_factory=list)


def play(env: gym.Env[Any, Any], seed: int, oracle: CoordinateOracle) -> bool:
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
    assert isinstance(unwrapped, WebTaskEnv)

    def run(**mutation: Any) -> bool:
        report.episodes += 1
        return play(env, seed, MutantOracle(unwrapped, **mutation))

    oracle, recorded, problems = run_oracle(site, task)
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
    kept = kept_values(site.family.schema)
    reset = AppDriver(site, task).state()
    expected = footprint(kept, reset, oracle.state())
    for harm in harms(site, task, recorded):
        if harm.control is None or run_harm(site, task, recorded, harm) is None:
            continue  # app-level only, or an extra the app-level run could not do
        report.episodes += 1
        player = HarmOracle(unwrapped, harm)
        success = play(env, seed, player)
        if not player.extra_done:
            report.harms_not_done += 1
            continue
        report.harms += 1
        assert unwrapped.app is not None
        if footprint(kept, reset, unwrapped.app.state_view()) == expected:
            report.harmless += 1
        elif success:
            report.failures.append(f"{where}: the harm mutant '{harm.name}' succeeds")
        else:
            report.harms_caught += 1
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
