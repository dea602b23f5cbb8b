"""`webfactory openenv serve` without OpenEnv installed says how to get it (pure)."""

from __future__ import annotations

import importlib.util

import pytest

from webfactory_env.cli import main


@pytest.mark.skipif(
    importlib.util.find_spec("openenv") is not None, reason="openenv is installed here"
)
def test_openenv_serve_without_openenv_says_how_to_install_it(capsys):
    assert main(["openenv", "serve", "--port", "1"]) == 2  # a user mistake, as elsewhere
    err = capsys.readouterr().err
    assert "needs OpenEnv" in err and "webfactory-env[openenv]" in err
    assert "scripts/setup --openenv" in err and "Traceback" not in err
