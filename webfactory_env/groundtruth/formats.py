"""Format mutants: the oracle's plan with one typed value spelled another way the site
accepts (a phone number as digits only or with dashes, an e-mail address in capitals, a
card number without spaces, a date in another format): each must still succeed, and earn
what the oracle earns. A value that looks typed but whose field declares no value type
(`sitegen.state.typed`) is a failure too: its goal would compare it by spelling."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from webfactory_env.adversarial import AppDriver
from webfactory_env.core.pii import luhn_ok
from webfactory_env.core.predicates import Eq
from webfactory_env.core.typed import VALUE_TYPES, parse_date
from webfactory_env.groundtruth.answers import walk
from webfactory_env.groundtruth.plans import Recorded, run_mutant, typing_instead
from webfactory_env.sitegen.registry import Site
from webfactory_env.tasks import CompiledTask

_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[A-Za-z]{2,}$")
_PHONE = re.compile(r"^\+?\d[\d\s().\-]{8,}\d$")


def check_formats(
    site: Site, task: CompiledTask, recorded: Sequence[Recorded], oracle: AppDriver
) -> tuple[int, list[str]]:
    """Run every format mutant; (how many ran, what went wrong)."""
    problems: list[str] = []
    ran = 0
    for i, value, typed_as in typed_steps(task, recorded):
        if typed_as is None:
            problems.append(
                f"step {i + 1} types {value!r}, which looks like {_looks_like(value)}, into "
                "a field that declares no value type: its goal compares the spelling"
            )
            continue
        for spelling in VALUE_TYPES[typed_as].respell(value):
            ran += 1
            d, stopped, _ = run_mutant(site, task, recorded, swap=(i, typing_instead(spelling)))
            where = f"step {i + 1}: {value!r} typed as {spelling!r}"
            if stopped or not d.success:
                problems.append(f"the format mutant ({where}) does not succeed")
            elif abs(d.total - oracle.total) > 1e-9:
                earned = f"earns {d.total:.2f}, the oracle {oracle.total:.2f}"
                problems.append(f"the format mutant ({where}) {earned}")
    return ran, problems


def typed_steps(
    task: CompiledTask, recorded: Sequence[Recorded]
) -> Iterator[tuple[int, str, str | None]]:
    """(plan step, the value it types, its value type) for every step that types a value its
    subgoal compares: declared typed values, and undeclared ones that look typed (None)."""
    for i, rec in enumerate(recorded):
        step = rec.step
        if step.verb != "type" or not step.value or step.subgoal is None:
            continue
        compares = [p for p in walk(task.subgoal(step.subgoal).predicate) if isinstance(p, Eq)]
        typed_as = next((p.as_ for p in compares if isinstance(p.as_, str)), None)
        if typed_as is not None:
            yield i, step.value, typed_as
        elif _looks_like(step.value) and any(p.value == step.value for p in compares):
            yield i, step.value, None


def _looks_like(value: str) -> str:
    """What kind of typed value `value` looks like ("" when it looks like plain text)."""
    text = value.strip()
    digits = "".join(c for c in text if c.isdigit())
    if _EMAIL.match(text):
        return "an e-mail address"
    if 13 <= len(digits) <= 19 and re.fullmatch(r"[\d \-]+", text) and luhn_ok(digits):
        return "a card number"
    if _PHONE.match(text) and 10 <= len(digits) <= 15:
        return "a phone number"
    if parse_date(text) is not None:
        return "a date"
    return ""
