"""Seed streams and digests are the same in every process and on every machine."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from webfactory_env.core.seeding import SeedStream, canonical_json, short_hash, stable_digest


def test_streams_are_pinned_to_known_values():
    # A change here changes every generated site: it must be a deliberate version bump.
    s = SeedStream(42).child("content")
    assert [s.below(1000) for _ in range(5)] == [883, 629, 535, 809, 185]
    assert short_hash("SKU:Red Mug") == "CCDEDCDD"


def test_child_streams_do_not_shift_each_other():
    a = SeedStream(7)
    first = [a.child("layout").below(10**9) for _ in range(3)]
    b = SeedStream(7)
    b.child("content").random()  # drawing from a sibling changes nothing
    assert [b.child("layout").below(10**9) for _ in range(3)] == first


def test_choice_shuffle_sample_are_deterministic_and_total():
    items = list(range(20))
    s1, s2 = SeedStream("x"), SeedStream("x")
    s1.shuffle(items)
    again = list(range(20))
    s2.shuffle(again)
    assert items == again and sorted(items) == list(range(20))
    assert SeedStream(1).sample(range(10), 3) == SeedStream(1).sample(range(10), 3)
    assert all(0 <= SeedStream(i).randint(3, 5) <= 5 for i in range(50))


def test_canonical_json_ignores_key_order():
    assert canonical_json({"b": 1, "a": [1, 2]}) == canonical_json({"a": [1, 2], "b": 1})
    assert stable_digest({"b": 1, "a": 2}) == stable_digest({"a": 2, "b": 1})


def test_site_digests_identical_across_hash_seeds():
    code = (
        "import json; from webfactory_env.sitegen import generate_site;"
        "print(json.dumps([generate_site('shop', s).digest for s in range(5)]))"
    )
    outs = []
    for hashseed in ("0", "1", "12345"):
        env = {**os.environ, "PYTHONHASHSEED": hashseed}
        res = subprocess.run(
            [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
        )
        outs.append(json.loads(res.stdout))
    assert outs[0] == outs[1] == outs[2]
    assert len(set(outs[0])) == 5


def test_draws_below_a_bound_are_the_unbiased_rejection_draws_whatever_was_drawn_before():
    """`below` remembers each bound's rejection limit: the draws stay those of SplitMix64
    with rejection above the largest multiple of the bound, first time or not."""

    def reference(stream: SeedStream, n: int) -> int:
        limit = (1 << 64) - ((1 << 64) % n)
        while True:
            x = stream._next()
            if x < limit:
                return x % n

    bounds = [1, 2, 3, 7, 10, 1000, (1 << 63) + 1, (1 << 64) - 1]
    for _ in range(2):  # the second round reads remembered limits
        ours, theirs = SeedStream(7).child("below"), SeedStream(7).child("below")
        assert [ours.below(n) for n in bounds * 50] == [reference(theirs, n) for n in bounds * 50]
    with pytest.raises(ValueError):
        SeedStream(7).below(0)


@pytest.mark.parametrize("family", ["shop", "travel", "kanban", "account", "forum"])
def test_site_digest_is_the_digest_of_the_specs_json(family):
    # The digest encodes records as the encoder meets them; it must stay the digest of the
    # JSON document `to_json` gives (what bundles and `webfactory sites` show).
    from webfactory_env.sitegen import generate_site, registry

    for seed in range(6):
        registry._generate.cache_clear()
        spec = generate_site(family, seed, "hard" if seed % 2 else "easy").spec
        assert spec.digest == stable_digest(spec.to_json())


def test_a_masked_random_policy_draws_what_rng_choice_draws():
    # A seed gives the same actions as before the draws were made without `rng.choice`.
    import numpy as np

    from webfactory_env.agents.random_agent import sample_masked

    nvec = np.array([9, 128, 16])
    masks = np.random.default_rng(3).random((40, int(nvec.sum()))) < 0.2
    masks[::5, 9:137] = False  # no element allowed: that dimension is 0
    drawn = sample_masked(masks, nvec, np.random.default_rng(11))
    rng = np.random.default_rng(11)
    expected = [
        [
            int(rng.choice(np.flatnonzero(part))) if part.any() else 0
            for part in np.split(mask, np.cumsum(nvec)[:-1])
        ]
        for mask in masks
    ]
    assert drawn.tolist() == expected
    assert drawn.dtype == np.int64 and drawn.shape == (40, 3)
    one = sample_masked(masks[0], nvec, np.random.default_rng(11))
    assert one.tolist() == [expected[0]] and one.shape == (1, 3)
