"""Golden digests: a change here is a deliberate generator version bump, never an accident.

If you changed generation, rendering content (sites/) or the compiler on purpose, bump the
family's FAMILY_VERSION (or the package version) and update these values in the same commit.
"""

from __future__ import annotations

import pytest

from webfactory_env.sitegen import generate_site
from webfactory_env.tasks import compile_for_site

GOLDEN_SITES = {
    ("shop", 0, "easy"): "07d47c917a9d5fcb8d984ef3b6f84d44ce4bd028782918b7d6b14dbf9eca0b35",
    ("shop", 42, "easy"): "8b12520909d11912a5285c53af51802547078f26407b75144e36dd9c071c36b1",
    ("shop", 7, "hard"): "502fe4e5cd9f4e213d16c06cac58542c7b1fbd3623f4256c03251cd05faec05f",
}


@pytest.mark.parametrize(("key", "digest"), GOLDEN_SITES.items(), ids=str)
def test_site_digests_are_golden(key, digest):
    assert generate_site(*key).digest == digest


def test_compiled_task_digest_is_golden():
    task = compile_for_site("buy_red_mug", generate_site("shop", 0))
    assert task.digest == "b63e0389b16a9ae1cf3ca4eaadb532a9ab99ee246ffeae00ad45f03c466d61cd"
