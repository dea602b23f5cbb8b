"""The house stays readable from its layout: the module map is current, data flows one way,
env.py is a thin orchestrator, and no site family or tasks module is long."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _module_map():
    spec = importlib.util.spec_from_file_location("module_map", ROOT / "scripts" / "module_map.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_readme_shows_the_current_module_map():
    m = _module_map()
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert m.readme_with_map(text, m.mermaid(m.stage_imports())) == text, (
        "the README's module map is stale: run .venv/bin/python scripts/module_map.py"
    )


def test_stages_form_no_cycle():
    m = _module_map()
    assert m.cycles(m.stage_imports()) == []


def test_env_is_a_thin_orchestrator():
    lines = (ROOT / "webfactory_env" / "env.py").read_text(encoding="utf-8").count("\n")
    assert lines <= 300, f"env.py has {lines} lines; move what is not orchestration out"


def test_no_site_family_module_is_over_800_lines():
    families = ROOT / "webfactory_env" / "sitegen" / "families"
    long = {
        str(p.relative_to(families)): n
        for p in families.rglob("*.py")
        if (n := p.read_text(encoding="utf-8").count("\n")) > 800
    }
    assert long == {}


def test_no_tasks_module_is_over_600_lines():
    """The task compiler reads as a package of seams (run, steps, resolution, operating
    widgets, endings, predicates, words), not one long module."""
    tasks = ROOT / "webfactory_env" / "tasks"
    long = {
        str(p.relative_to(tasks)): n
        for p in tasks.rglob("*.py")
        if (n := p.read_text(encoding="utf-8").count("\n")) > 600
    }
    assert long == {}
