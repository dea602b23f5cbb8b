"""Compiled library tasks kept on disk (`tasks.compile_cache`): a level compiled by one
process is loaded by the next, equal to a fresh compile; a file that was tampered with, holds
another level, or sits where others may write is never loaded; the cache never breaks a
compile."""

from __future__ import annotations

import importlib
import logging
import os
import pickle

import pytest

from webfactory_env.sitegen import generate_site
from webfactory_env.tasks import compile_cache as cc

library = importlib.import_module("webfactory_env.tasks.library")  # the package shadows it

TASK, FAMILY = "book_flight_roundtrip", "travel"


@pytest.fixture
def cache_root(tmp_path, monkeypatch):
    root = tmp_path / "compiled"
    monkeypatch.setenv(cc.ENV_VAR, str(root))
    monkeypatch.setattr(cc, "_caches", {})
    library.forget_levels()
    yield root
    library.forget_levels()


def _new_process(monkeypatch, *, compiles: bool) -> None:
    """What another process has: no site or compiled task in memory, its own cache object;
    and, unless `compiles`, a compiler that must not run."""
    library.forget_levels()
    monkeypatch.setattr(cc, "_caches", {})
    if not compiles:

        def refuse(*args, **kwargs):
            raise AssertionError("compiled although the task was on disk")

        monkeypatch.setattr(library, "compile_task", refuse)


def _entries(root):
    return sorted(root.glob(f"*/*{cc.SUFFIX}"))


def test_a_level_compiled_once_is_loaded_by_the_next_process_as_compiled(cache_root, monkeypatch):
    site = generate_site(FAMILY, 7)
    fresh = library.compile_level(TASK, site)
    assert len(_entries(cache_root)) == 1
    _new_process(monkeypatch, compiles=False)
    loaded = library.compile_level(TASK, site)
    assert loaded == fresh and loaded is not fresh
    assert loaded.to_json() == fresh.to_json() and loaded.digest == fresh.digest
    assert loaded.plan == fresh.plan and loaded.subgoals == fresh.subgoals


def test_each_level_and_task_has_its_own_entry(cache_root):
    for seed in (1, 2):
        library.compile_level(TASK, generate_site(FAMILY, seed))
    library.compile_level("buy_red_mug", generate_site("shop", 1))
    assert len(_entries(cache_root)) == 3
    assert (cache_root / "key").stat().st_mode & 0o777 == 0o600
    assert all(p.stat().st_mode & 0o077 == 0 for p in _entries(cache_root))


def test_a_tampered_entry_is_refused_and_compiled_again(cache_root, monkeypatch, caplog):
    site = generate_site(FAMILY, 8)
    fresh = library.compile_level(TASK, site)
    (entry,) = _entries(cache_root)
    data = bytearray(entry.read_bytes())
    data[-20] ^= 0xFF  # one byte of the pickle
    entry.write_bytes(bytes(data))
    _new_process(monkeypatch, compiles=True)
    with caplog.at_level(logging.WARNING, logger=cc.__name__):
        again = library.compile_level(TASK, site)
    assert again == fresh
    assert "signature does not match" in caplog.text
    _new_process(monkeypatch, compiles=False)  # compiled again, and kept again, signed
    assert library.compile_level(TASK, site) == fresh


def test_a_pickle_signed_with_another_key_is_never_loaded(cache_root, monkeypatch, caplog):
    # What someone who can write the file but not read the key can do: no code of theirs
    # runs (the payload would raise if it were unpickled).
    site = generate_site(FAMILY, 9)
    library.compile_level(TASK, site)
    (entry,) = _entries(cache_root)

    class Boom:
        def __reduce__(self):
            return (os.abort, ())

    entry.write_bytes(bytes(32) + pickle.dumps(Boom()))
    _new_process(monkeypatch, compiles=True)
    with caplog.at_level(logging.WARNING, logger=cc.__name__):
        assert library.compile_level(TASK, site).name == TASK
    assert "refused" in caplog.text


def test_an_entry_moved_to_another_levels_name_is_refused(cache_root, monkeypatch, caplog):
    a, b = generate_site(FAMILY, 10), generate_site(FAMILY, 11)
    library.compile_level(TASK, a)
    (entry,) = _entries(cache_root)
    cache = cc.compile_cache()
    assert cache is not None
    other = cache.entry(TASK, b)
    assert other is not None
    entry.rename(other)  # validly signed, but level 10's task under level 11's name
    _new_process(monkeypatch, compiles=True)
    with caplog.at_level(logging.WARNING, logger=cc.__name__):
        task = library.compile_level(TASK, b)
    assert task.site_digest == b.digest and "refused" in caplog.text


def test_a_cache_others_may_write_is_not_used(cache_root, monkeypatch, caplog):
    site = generate_site(FAMILY, 12)
    library.compile_level(TASK, site)
    cache_root.chmod(0o777)
    _new_process(monkeypatch, compiles=True)
    with caplog.at_level(logging.WARNING, logger=cc.__name__):
        assert library.compile_level(TASK, site).site_digest == site.digest
    assert "others may write" in caplog.text
    assert cc.compile_cache() is None  # off for the rest of the process


def test_a_cache_that_cannot_be_written_leaves_compiling_as_it_was(tmp_path, monkeypatch, caplog):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    monkeypatch.setenv(cc.ENV_VAR, str(blocker / "compiled"))
    monkeypatch.setattr(cc, "_caches", {})
    library.forget_levels()
    site = generate_site(FAMILY, 13)
    with caplog.at_level(logging.WARNING, logger=cc.__name__):
        assert library.compile_level(TASK, site).site_digest == site.digest
    assert "compile cache off" in caplog.text
    library.forget_levels()


def test_off_writes_nothing_and_task_files_are_never_kept(cache_root, monkeypatch, tmp_path):
    task_file = tmp_path / "mine.task"
    task_file.write_text(library.library()["buy_red_mug"].path.read_text())
    library.compile_level(str(task_file), generate_site("shop", 3))
    assert not _entries(cache_root)
    monkeypatch.setenv(cc.ENV_VAR, "off")
    library.compile_level("buy_red_mug", generate_site("shop", 3))
    assert cc.compile_cache() is None and not _entries(cache_root)


def test_other_code_misses_and_its_entries_are_pruned_first(cache_root, monkeypatch):
    site = generate_site(FAMILY, 14)
    library.compile_level(TASK, site)
    (old,) = _entries(cache_root)
    monkeypatch.setattr(cc, "code_key", lambda: "another-version-of-the-code")
    _new_process(monkeypatch, compiles=True)
    library.compile_level(TASK, site)  # a miss: compiled and kept under the new key
    (new,) = [p for p in _entries(cache_root) if p != old]
    assert "another-version-of-the-code" in str(new)
    cache = cc.compile_cache()
    assert cache is not None
    cache.prune()
    assert _entries(cache_root) == [new]


def test_the_least_recently_used_go_when_the_cache_is_full(cache_root, monkeypatch):
    for seed in (20, 21, 22):
        library.compile_level(TASK, generate_site(FAMILY, seed))
    entries = _entries(cache_root)
    for age, path in enumerate(sorted(entries)):
        os.utime(path, (1_000_000 + age, 1_000_000 + age))
    newest = max(entries, key=lambda p: p.stat().st_mtime)
    killed = newest.parent / "abc.tmp"  # what a writer killed mid-store leaves
    killed.write_bytes(b"half")
    os.utime(killed, (1_000_000, 1_000_000))
    cache = cc.compile_cache()
    assert cache is not None
    cache._max_bytes = newest.stat().st_size
    cache.prune()
    assert _entries(cache_root) == [newest] and not killed.exists()


@pytest.mark.browser
def test_an_episode_on_a_loaded_task_is_the_episode_on_a_compiled_one(cache_root, monkeypatch):
    import gymnasium as gym

    from webfactory_env.agents import OracleAgent
    from webfactory_env.episode import observation_digest

    def play() -> list[tuple[str, float, dict]]:
        env = gym.make("WebTask-v0", family="shop", task="buy_red_mug", obs_mode="tokens")
        try:
            obs, info = env.reset(seed=5)
            oracle = OracleAgent(env)
            out = [(observation_digest(obs), 0.0, _plain_info(info))]
            for _ in range(40):
                obs, reward, terminated, truncated, info = env.step(oracle.act(obs, info))
                out.append((observation_digest(obs), float(reward), _plain_info(info)))
                if terminated or truncated:
                    break
            assert info["success"], info["outcome"]
            return out
        finally:
            env.close()

    first = play()  # compiles, and keeps the task (and the level gym.make checks it on)
    assert len(_entries(cache_root)) == 2
    _new_process(monkeypatch, compiles=False)
    assert play() == first


def _plain_info(info: dict) -> dict:
    return {k: v for k, v in info.items() if k not in {"record", "artifacts"}}


def test_storing_keeps_the_cache_within_its_size(cache_root, monkeypatch):
    monkeypatch.setattr(cc, "_PRUNE_EVERY", 2)
    monkeypatch.setenv(cc.SIZE_VAR, "0.000001")  # about one byte: only what is checked last
    monkeypatch.setattr(cc, "_caches", {})
    for seed in (30, 31):
        library.compile_level(TASK, generate_site(FAMILY, seed))
    assert len(_entries(cache_root)) <= 1  # the second store pruned


def test_a_signing_key_that_is_not_one_turns_the_cache_off(cache_root, caplog):
    cache_root.mkdir(mode=0o700, parents=True)
    (cache_root / "key").write_bytes(b"short")
    (cache_root / "key").chmod(0o600)
    site = generate_site(FAMILY, 32)
    with caplog.at_level(logging.WARNING, logger=cc.__name__):
        assert library.compile_level(TASK, site).site_digest == site.digest
    assert "not a signing key" in caplog.text and not _entries(cache_root)


def test_where_owners_cannot_be_checked_no_pickle_is_loaded(cache_root, monkeypatch):
    site = generate_site(FAMILY, 33)
    library.compile_level(TASK, site)  # kept
    _new_process(monkeypatch, compiles=True)
    monkeypatch.delattr(os, "getuid")  # as on Windows
    assert library.compile_level(TASK, site).site_digest == site.digest
    assert cc.compile_cache() is None


def test_another_tasks_entry_under_this_tasks_name_is_refused(cache_root, monkeypatch, caplog):
    # The same level, validly signed, but another task's compile: the site digest matches,
    # the task does not.
    site = generate_site(FAMILY, 34)
    library.compile_level("cheapest_oneway_fare", site)
    (entry,) = _entries(cache_root)
    cache = cc.compile_cache()
    assert cache is not None
    mine = cache.entry(TASK, site)
    assert mine is not None
    entry.rename(mine)
    _new_process(monkeypatch, compiles=True)
    with caplog.at_level(logging.WARNING, logger=cc.__name__):
        task = library.compile_level(TASK, site)
    assert task.name == TASK and "refused" in caplog.text


def test_an_entry_of_another_code_version_moved_into_this_ones_is_refused(
    cache_root, monkeypatch, caplog
):
    # Same task, same level, validly signed, but compiled by other code: only its folder
    # named that, so the folder is signed with it.
    site = generate_site(FAMILY, 35)
    monkeypatch.setattr(cc, "code_key", lambda: "older-code")
    _new_process(monkeypatch, compiles=True)
    library.compile_level(TASK, site)
    (old,) = _entries(cache_root)
    monkeypatch.setattr(cc, "code_key", lambda: "newer-code")
    _new_process(monkeypatch, compiles=True)
    cache = cc.compile_cache()
    assert cache is not None
    here = cache.entry(TASK, site)
    assert here is not None
    here.parent.mkdir(mode=0o700)
    old.rename(here)
    compiled = []
    real = library.compile_task
    monkeypatch.setattr(library, "compile_task", lambda *a: compiled.append(1) or real(*a))
    with caplog.at_level(logging.WARNING, logger=cc.__name__):
        library.compile_level(TASK, site)
    assert compiled == [1] and "signature" in caplog.text


def test_processes_starting_at_once_share_one_key_and_every_entry(cache_root, monkeypatch):
    # Two moves at once: processes racing to make the signing key (one must not read the
    # other's half-written key) and to write the same entries.
    import subprocess
    import sys
    from pathlib import Path

    code = (
        "import importlib\n"
        "from webfactory_env.sitegen import generate_site\n"
        "lib = importlib.import_module('webfactory_env.tasks.library')\n"
        "for s in range(6): lib.compile_level('buy_red_mug', generate_site('shop', 900 + s))\n"
    )
    root = str(Path(__file__).resolve().parents[1])
    env = {**os.environ, cc.ENV_VAR: str(cache_root), "PYTHONPATH": root}
    runs = [
        subprocess.Popen([sys.executable, "-c", code], env=env, stderr=subprocess.PIPE)
        for _ in range(3)
    ]
    errors = [p.communicate(timeout=120)[1].decode() for p in runs]
    assert all(p.returncode == 0 for p in runs), errors
    assert not any("compile cache" in e for e in errors), errors  # no refusal, no turn-off
    assert len(_entries(cache_root)) == 6
    assert not list(cache_root.glob("*.key")) and not list(cache_root.glob("*/*.tmp"))
    _new_process(monkeypatch, compiles=False)
    for s in range(6):
        assert library.compile_level("buy_red_mug", generate_site("shop", 900 + s))


def test_the_code_digest_moves_with_any_file_of_the_code(tmp_path):
    # Edit a byte, add a file, remove one: another digest; bytecode changes nothing.
    tree = tmp_path / "pkg"
    (tree / "sub").mkdir(parents=True)
    (tree / "a.py").write_text("x = 1\n")
    (tree / "sub" / "b.json").write_text("{}")
    first = cc.tree_digest([tree])
    (tree / "__pycache__").mkdir()
    (tree / "__pycache__" / "a.cpython-311.pyc").write_bytes(b"compiled")
    assert cc.tree_digest([tree]) == first
    (tree / "a.py").write_text("x = 2\n")
    edited = cc.tree_digest([tree])
    (tree / "sub" / "c.task").write_text("task t {}")
    added = cc.tree_digest([tree])
    (tree / "sub" / "b.json").unlink()
    removed = cc.tree_digest([tree])
    assert len({first, edited, added, removed}) == 4
    (tree / "sub" / "c.task").rename(tree / "c.task")  # the same bytes, elsewhere
    assert cc.tree_digest([tree]) != removed


def test_a_bench_compiles_into_a_cache_of_its_own_and_leaves_the_users(tmp_path, monkeypatch):
    # The move: a bench run that reads what earlier runs left, and reports loads as first
    # visits; or one that leaves its entries, or its setting, behind.
    users = tmp_path / "users-cache"
    monkeypatch.setenv(cc.ENV_VAR, str(users))
    monkeypatch.setattr(cc, "_caches", {})
    library.forget_levels()
    site = generate_site(FAMILY, 36)
    library.compile_level(TASK, site)
    before = _entries(users)
    library.forget_levels()
    compiled = []
    real = library.compile_task
    monkeypatch.setattr(library, "compile_task", lambda *a: compiled.append(1) or real(*a))
    with cc.fresh_compile_cache() as root:
        library.compile_level(TASK, site)  # compiled again: the user's entry is not read
        assert compiled == [1] and len(_entries(root)) == 1
    assert os.environ[cc.ENV_VAR] == str(users) and not root.exists()
    assert _entries(users) == before
    library.forget_levels()


@pytest.mark.browser
def test_the_benchs_on_disk_resets_load_every_task_and_generate_every_site(monkeypatch, tmp_path):
    # The move that would make the "on disk" column a lie: a cache in memory still holding
    # the levels, so nothing is read from disk or generated again. And the one that would
    # make the "new level" column a lie: a second run finding the first run's levels, in
    # memory or in a compile cache on disk.
    import dataclasses

    from webfactory_env.bench_throughput import reset_run
    from webfactory_env.sitegen import registry

    calls = {"compile": 0, "load": 0, "generate": 0}
    real_compile, real_load = library.compile_task, cc.CompileCache.load
    shop = registry.get_family("shop")  # loads the built-in families (run alone, too)
    real_generate = shop.generate

    def compile_(*a):
        calls["compile"] += 1
        return real_compile(*a)

    def load(self, *a):
        found = real_load(self, *a)
        calls["load"] += found is not None
        return found

    def generate(*a, **k):
        calls["generate"] += 1
        return real_generate(*a, **k)

    monkeypatch.setattr(library, "compile_task", compile_)
    monkeypatch.setattr(cc.CompileCache, "load", load)
    monkeypatch.setitem(registry._FAMILIES, "shop", dataclasses.replace(shop, generate=generate))
    users = tmp_path / "users-cache"
    for n, users_setting in ((1, str(users)), (2, "off")):
        # A user's cache, then a user who turned it off: the bench's own cache serves both
        # runs, and the user's setting is theirs again afterwards.
        monkeypatch.setenv(cc.ENV_VAR, users_setting)
        run = reset_run("shop", "buy_red_mug", 2)
        assert run["on_disk"] is not None and os.environ[cc.ENV_VAR] == users_setting
        # Seeds 0, 1 (warming) and the two measured: compiled once each, in the first env;
        # in the on-disk env all four are loaded and their sites generated a second time.
        # The second run visits them first again: it compiles them all again.
        assert calls == {"compile": 4 * n, "load": 4 * n, "generate": 8 * n}
    library.forget_levels()
    assert not users.exists() or _entries(users) == []  # the user's cache: untouched
