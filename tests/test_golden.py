"""Golden digests: a change here is a deliberate generator version bump, never an accident.

If you changed generation, rendering content (sites/) or the compiler on purpose, run
`.venv/bin/python tests/golden/regenerate.py` and commit `tests/golden/digests.json` (and the
regenerated bundles) in the same change.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from webfactory_env.sitegen import generate_site
from webfactory_env.tasks import compile_for_site

GOLDEN = json.loads((Path(__file__).parent / "golden" / "digests.json").read_text())


@pytest.mark.parametrize(("key", "digest"), sorted(GOLDEN["sites"].items()))
def test_site_digests_are_golden(key, digest):
    family, seed, difficulty = key.split("/")
    assert generate_site(family, int(seed), difficulty).digest == digest, (
        f"{key}: site digest differs; regenerate goldens if the change is deliberate"
    )


@pytest.mark.parametrize(("key", "digest"), sorted(GOLDEN["tasks"].items()))
def test_task_digests_are_golden(key, digest):
    family, task, seed = key.split("/")
    compiled = compile_for_site(task, generate_site(family, int(seed)))
    assert compiled.digest == digest, f"{key}: task digest differs"
