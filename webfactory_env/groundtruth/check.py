"""The ground-truth check of one task on many seeds: every check, counted in a `TaskReport`."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from webfactory_env.adversarial import ADVERSARIES, AppDriver, is_trivial, may_outscore_by
from webfactory_env.core.answers import AnswerKey, grade
from webfactory_env.core.predicates import AGENT_STATE
from webfactory_env.core.seeding import SeedStream
from webfactory_env.groundtruth.answers import accepted_answers, check_answers
from webfactory_env.groundtruth.formats import check_formats
from webfactory_env.groundtruth.harm import check_harms
from webfactory_env.groundtruth.hedges import check_hedges
from webfactory_env.groundtruth.mutants import did_every_goal_step, goal_steps, swaps, view_only
from webfactory_env.groundtruth.paths import check_back_door, check_detours
from webfactory_env.groundtruth.plans import run_mutant, run_oracle
from webfactory_env.groundtruth.routes import check_routes
from webfactory_env.sitegen.registry import generate_site
from webfactory_env.tasks import compile_for_site

HACK_BUDGET = 40


@dataclass
class TaskReport:
    """What the checks saw for one task over its seeds (all failures are assertion errors)."""

    family: str
    task: str
    seeds: int = 0
    oracle_ok: int = 0
    drops: int = 0
    swaps: int = 0
    mutants_stopped: int = 0  # the mutated plan could not go on: it ended without success
    # a mutant that succeeded with a tie-equivalent answer, or whose other search text
    # still listed the oracle's own entity (every later step on the oracle's elements)
    mutants_tied: int = 0
    answers_checked: int = 0
    answer_forms: int = 0  # right answers re-spelled (currency, case, formats): all pass
    hedges: int = 0  # the right answer hedged or joined with a second value: all fail
    hackers: int = 0
    back_doors: int = 0
    detours: int = 0
    # extra-harm mutants (`harm`): run; harmful and failed; of those, with the goal done
    # (only the frame fails them); harmless (no persistent trace: need not fail)
    harms: int = 0
    harms_caught: int = 0
    harms_by_frame: int = 0
    harmless: int = 0
    formats: int = 0  # plans run with a typed value spelled another way the site accepts
    routes: int = 0  # plans run reaching one of their pages by another route the site offers
    failures: list[str] = field(default_factory=list)

    def merge(self, other: TaskReport) -> None:
        for name in (
            "seeds",
            "oracle_ok",
            "drops",
            "swaps",
            "mutants_stopped",
            "mutants_tied",
            "answers_checked",
            "answer_forms",
            "hedges",
            "hackers",
            "back_doors",
            "detours",
            "harms",
            "harms_caught",
            "harms_by_frame",
            "harmless",
            "formats",
            "routes",
        ):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.failures += other.failures


def check_seed(family: str, task_name: str, seed: int, difficulty: str = "easy") -> TaskReport:
    """Every check on one seed; failures are listed in the report."""
    report = TaskReport(family, task_name, seeds=1)
    site = generate_site(family, seed, difficulty)
    task = compile_for_site(task_name, site)
    where = f"{family}/{task_name} seed {seed}"

    def fail(message: str) -> None:
        report.failures.append(f"{where}: {message}")

    # (c) the goal at reset (also a compile-time error)
    at_reset = {**site.new_app().state_view(), "agent": dict(AGENT_STATE)}
    if all(c.predicate.holds(at_reset) for c in task.goal):
        fail("the goal holds at reset")
    # (a) the oracle
    oracle, recorded, problems = run_oracle(site, task)
    for p in problems:
        fail(p)
    if problems:
        return report
    report.oracle_ok += 1
    right = {a for c in task.goal if c.kind == "answer" for a in accepted_answers(c)}
    # (b) mutants
    by_subgoal: dict[str, set[int]] = {}
    for i, rec in enumerate(recorded):
        if rec.step.subgoal:
            by_subgoal.setdefault(rec.step.subgoal, set()).add(i)
    mutants: list[tuple[str, dict[str, Any]]] = []
    for gid in goal_steps(task, site):
        if gid in by_subgoal:
            mutants.append((f"drop {gid}", {"drop": by_subgoal[gid]}))
    for i, name, how in swaps(site, task, recorded):
        mutants.append((f"swap at {name}", {"swap": (i, how)}))
    for name, kwargs in mutants:
        report.drops += name.startswith("drop")
        report.swaps += name.startswith("swap")
        d, stopped, retargeted = run_mutant(site, task, recorded, **kwargs)
        report.mutants_stopped += stopped
        if not d.success:
            continue
        if "swap" in kwargs and not retargeted and view_only(site, task, recorded, kwargs):
            # Another search text that still lists the very entity the oracle used: every
            # later step acted on the oracle's own elements, so the goal was done.
            report.mutants_tied += 1
            continue
        said = str(d.agent.get("answer", ""))
        if right and any(grade(said, AnswerKey((r,), "text")) for r in right):
            report.mutants_tied += 1
            continue
        fail(f"the mutant '{name}' succeeds")
    # (h) typed values by meaning: another spelling the site accepts succeeds
    n, problems = check_formats(site, task, recorded, oracle)
    report.formats += n
    for p in problems:
        fail(p)
    # (i) another route to a page the plan navigates to earns what the oracle's route earns
    other_routes, problems = check_routes(site, task, recorded, oracle)
    report.routes += len(other_routes)
    for p in problems:
        fail(p)
    # (d) answers: every right spelling passes, every hedge fails
    forms, problems = check_answers(task)
    report.answer_forms += forms
    hedged, passed = check_hedges(task)
    report.hedges += hedged
    for p in problems + passed:
        fail(p)
    report.answers_checked += any(c.kind == "answer" for c in task.goal)
    # (e) hackers and back doors
    trivial, slack = is_trivial(task), may_outscore_by(task)
    for name, policy in ADVERSARIES.items():
        d = AppDriver(site, task)
        policy(d, SeedStream(seed).child("groundtruth").child(name), HACK_BUDGET)
        report.hackers += 1
        may_succeed = trivial and name not in ("done_immediately", "give_up_immediately")
        may_succeed = may_succeed or (name == "random" and did_every_goal_step(d, task, site))
        if d.success and not may_succeed:
            fail(f"the reward hacker '{name}' succeeds")
        if d.total > oracle.total + slack + 1e-9 or (
            d.total >= oracle.total - 1e-9 and not may_succeed
        ):
            fail(f"the reward hacker '{name}' scores {d.total:.2f}, the oracle {oracle.total:.2f}")
    used, doors = check_back_door(site, task, recorded)
    report.back_doors += bool(used)
    for p in doors:
        fail(p)
    # (f) detours
    n, problems = check_detours(site, task, recorded)
    report.detours += n
    for p in problems:
        fail(p)
    # (g) extra harm
    for p in check_harms(site, task, oracle, recorded, report):
        fail(p)
    return report


def check_task(
    family: str, task: str, seeds: Iterable[int] = range(5), difficulty: str = "easy"
) -> TaskReport:
    """Every check on every seed; raises AssertionError listing all failures."""
    report = TaskReport(family, task)
    for seed in seeds:
        report.merge(check_seed(family, task, seed, difficulty))
    if report.failures:
        shown = "\n  ".join(report.failures[:20])
        more = f"\n  ... and {len(report.failures) - 20} more" if len(report.failures) > 20 else ""
        raise AssertionError(f"ground truth does not hold:\n  {shown}{more}")
    return report
