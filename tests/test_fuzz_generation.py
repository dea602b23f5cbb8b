"""Fuzzing without a browser: the task compiler on mutated library tasks, and site
generation over random seeds, difficulties and whole variation vectors.

(`test_dsl_parser.py` fuzzes the parser alone; `test_site_properties.py` and
`test_variation_axes.py` check generation on fixed seeds, one axis at a time. Here the
seeds are random, up to 2**53, and every axis varies at once.)

- The compiler, given any mutation of a library task (strings, numbers and names swapped,
  lines dropped, repeated or swapped), either compiles it or raises a `WebfactoryError`
  with a location — nothing else. What it compiles has a digest, a plan over known verbs,
  and its plan, walked over the site's app without a browser, raises nothing.
- Generation: the rendering invariants of `check_site`, the same digest when generated
  again without the cache, the same meaning (semantic graph) as the plain variation of the
  same seed and difficulty, and a library task of the family that compiles has a plan the
  oracle walks to success.
"""

from __future__ import annotations

import re
from functools import cache

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from webfactory_env.actions import VERBS
from webfactory_env.adversarial import AppDriver, oracle_policy
from webfactory_env.core.errors import WebfactoryError
from webfactory_env.core.seeding import SeedStream
from webfactory_env.dsl.errors import DslError
from webfactory_env.dsl.parser import parse_task_source
from webfactory_env.sitegen import Site, generate_site
from webfactory_env.sitegen.registry import get_family
from webfactory_env.sitegen.variation import AXES, Variation
from webfactory_env.tasks import compile_for_site, library_tasks
from webfactory_env.tasks.compile import compile_task
from webfactory_env.testing import check_site, semantic_graph

FAMILIES = ("shop", "travel", "kanban", "account", "forum")
FUZZ = settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    derandomize=True,  # CI runs the same examples every time
    # No shrinking: an example takes up to a second, and the failing one is printed as is.
    phases=[Phase.explicit, Phase.generate],
)
PLAN_VERBS = {*VERBS, "type", "fill", "select", "click", "submit", "goto", "done_success"}


@cache
def _sources() -> tuple[tuple[str, str], ...]:
    return tuple(
        (t.family, t.path.read_text(encoding="utf-8"))
        for t in sorted(library_tasks(), key=lambda t: t.name)
        if t.family in FAMILIES
    )


@cache
def _site(family: str):
    return generate_site(family, 0)


@cache
def _identifiers() -> tuple[str, ...]:
    words = set()
    for _, text in _sources():
        words |= set(re.findall(r"\b[A-Za-z_][A-Za-z_0-9.]*\b", text))
    return tuple(sorted(words))


STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
NUMBER = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?")
IDENT = re.compile(r"\b[A-Za-z_][A-Za-z_0-9]*\b")


@st.composite
def mutated_task(draw: st.DrawFn) -> tuple[str, str]:
    family, source = draw(st.sampled_from(_sources()))
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["string", "number", "ident", "drop", "dup", "swap"]))
        lines = source.split("\n")
        if kind in ("string", "number", "ident"):
            pattern = {"string": STRING, "number": NUMBER, "ident": IDENT}[kind]
            spots = list(pattern.finditer(source))
            if not spots:
                continue
            m = draw(st.sampled_from(spots))
            if kind == "string":
                text = draw(st.text(max_size=30) | st.sampled_from(["", "%", "*", '\\"']))
                new = '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'
            elif kind == "number":
                new = str(draw(st.integers(-(10**12), 10**12) | st.sampled_from([0, -1, 2**63])))
            else:
                new = draw(st.sampled_from(_identifiers()))
            source = source[: m.start()] + new + source[m.end() :]
        elif len(lines) > 1:
            i = draw(st.integers(0, len(lines) - 1))
            j = draw(st.integers(0, len(lines) - 1))
            if kind == "drop":
                del lines[i]
            elif kind == "dup":
                lines.insert(i, lines[j])
            else:
                lines[i], lines[j] = lines[j], lines[i]
            source = "\n".join(lines)
    return family, source


@FUZZ
@given(mutated_task())
def test_mutated_tasks_compile_or_raise_a_located_error(case: tuple[str, str]) -> None:
    family, source = case
    try:
        tree = parse_task_source(source, "fuzz.task")
    except DslError as exc:
        assert str(exc).startswith("fuzz.task:")
        return
    site = _site(family)
    try:
        compiled = compile_task(tree, site)
    except WebfactoryError as exc:
        assert str(exc)  # a message, and for DSL errors a location
        if isinstance(exc, DslError):
            assert str(exc).startswith("fuzz.task:")
        return
    assert re.fullmatch(r"[0-9a-f]{64}", compiled.digest)
    assert compiled.instruction
    assert all(step.verb in PLAN_VERBS for step in compiled.plan), [s.verb for s in compiled.plan]
    # Its plan, walked over the app without a browser, raises nothing.
    oracle_policy(AppDriver(site, compiled), SeedStream(0), len(compiled.plan) + 1)


@st.composite
def site_case(draw: st.DrawFn) -> tuple[str, int, str, Variation]:
    family = draw(st.sampled_from((*FAMILIES, "gallery")))
    seed = draw(st.integers(0, 2**53) | st.sampled_from([0, 1, 2**31 - 1, 2**32]))
    difficulty = draw(st.sampled_from(get_family(family).difficulties))
    variation = Variation(**{a.name: draw(st.sampled_from(a.values)) for a in AXES})
    return family, seed, difficulty, variation


@pytest.mark.slow
@settings(FUZZ, max_examples=40)
@given(site_case(), st.randoms(use_true_random=False))
def test_random_seeds_and_variation_vectors_keep_every_invariant(case, rnd) -> None:
    family, seed, difficulty, variation = case
    site = generate_site(family, seed, difficulty, variation)
    check_site(site)
    fam = get_family(family)
    again = Site(spec=fam.generate(seed, difficulty, variation.to_json()), family=fam)
    assert again.digest == site.digest, "generation is not stable"
    plain = generate_site(family, seed, difficulty, Variation.plain())
    assert semantic_graph(site) == semantic_graph(plain), "the variation changed the meaning"
    tasks = sorted(t.name for t in library_tasks(family))
    if not tasks:
        return
    task = rnd.choice(tasks)
    try:
        compiled = compile_for_site(task, site)
    except WebfactoryError:
        return  # this task does not fit this site (e.g. no expired coupon to find)
    driver = AppDriver(site, compiled)
    oracle_policy(driver, SeedStream(seed), 200)
    assert driver.success, f"the oracle fails {task} on {family} seed {seed} ({difficulty})"
