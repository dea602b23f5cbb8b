"""Golden digests: a change here is a deliberate generator version bump, never an accident.

If you changed generation, rendering content (sites/) or the compiler on purpose, bump the
family's FAMILY_VERSION (or the package version) and update these values in the same commit.
"""

from __future__ import annotations

import pytest

from webfactory_env.sitegen import generate_site
from webfactory_env.tasks import compile_for_site

GOLDEN_SITES = {
    ("shop", 0, "easy"): "56c556ea4c6da8253014978e75d875a6163aae30cc8c40c6d78be3f29622a3e2",
    ("shop", 42, "easy"): "8c8bbf5079f44996938e2f2561563065caf4adafa9b57180faa6c09aed7ca79c",
    ("shop", 7, "hard"): "40b5e446fdf60efcf18f641d7609b8a3c44c3019f7c3b1cf6003b2eacec781aa",
}


@pytest.mark.parametrize(("key", "digest"), GOLDEN_SITES.items(), ids=str)
def test_site_digests_are_golden(key, digest):
    assert generate_site(*key).digest == digest


def test_compiled_task_digest_is_golden():
    task = compile_for_site("buy_red_mug", generate_site("shop", 0))
    assert task.digest == "82762993ed31b6327d6b9678cb29c84c489906330b95acdafd643d0f803355d9"
