"""The wheel carries the package, the site content and the DSL."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.slow
def test_wheel_contains_sites_and_dsl(tmp_path):
    build = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(tmp_path),
            str(ROOT),
        ],
        capture_output=True,
        text=True,
    )
    assert build.returncode == 0, build.stderr
    wheel = next(tmp_path.glob("webfactory_env-*.whl"))
    names = set(zipfile.ZipFile(wheel).namelist())
    for required in (
        "webfactory_env/env.py",
        "webfactory_env/_resources/sites/runtime/runtime.js",
        "webfactory_env/_resources/sites/runtime/observe.js",
        "webfactory_env/_resources/sites/runtime/drag.js",
        "webfactory_env/_resources/sites/runtime/shims.js",
        "webfactory_env/_resources/sites/common/base.css",
        "webfactory_env/sitegen/families/shop/vocab.json",
        "webfactory_env/executor/browser_server.js",  # the shared browser of vector envs
        "webfactory_env/_resources/dsl/grammar.lark",
        "webfactory_env/_resources/dsl/tasks/shop/buy_red_mug.task",
        "webfactory_env/_resources/dsl/README.md",
    ):
        assert required in names, required
    assert not any("__pycache__" in n or n.startswith("tests/") for n in names)
    entry = next(n for n in names if n.endswith("entry_points.txt"))
    assert "webfactory = webfactory_env.cli:main" in zipfile.ZipFile(wheel).read(entry).decode()
