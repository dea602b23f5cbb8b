"""The house stays readable from its layout: the module map is current, data flows one way
(between stages, and between the observation's modules), the stages after site generation
use a running site only through its served-site interface, env.py is a thin orchestrator,
and no module or class grows past what a reader can hold."""

from __future__ import annotations

import ast
import importlib.util
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "webfactory_env"
# The stages after site generation that hold a running site (`sitegen.served.ServedSite`).
# Not checked: the task compiler and `testing`, which drive an app as a family's author
# would (they save and restore its UI state).
SITE_USERS = ("executor", "episode", "env.py", "vector.py", "service", "replay", "trace")
SITE_USERS += ("cli", "groundtruth", "adversarial.py", "evaluation", "agents")
# Methods that change a list, dict or set in place.
MUTATORS = {"append", "extend", "insert", "remove", "pop", "clear", "update", "add", "discard"}
MAX_MODULE_LINES = 600
MAX_CLASS_LINES = 500


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


def test_observation_modules_import_one_way():
    m = _module_map()
    assert m.cycles(m.module_imports("observation")) == [], (
        "observation modules import each other (imports inside functions count): move what"
        " both need into a module both import, or compose them in a third"
    )


def _names_a_site(node: ast.expr) -> bool:
    """`app` or `<anything>.app`: how the stages name a running site."""
    if isinstance(node, ast.Attribute):
        return node.attr == "app"
    return isinstance(node, ast.Name) and node.id == "app"


def _part_of_a_site(node: ast.expr) -> bool:
    """An attribute or item of a running site, at any depth (`app.route`, `app.ui.open`)."""
    while isinstance(node, ast.Attribute | ast.Subscript):
        if _names_a_site(node.value):
            return True
        node = node.value
    return False


def _targets(node: ast.AST) -> Iterator[ast.expr]:
    found: list[ast.expr] = []
    if isinstance(node, ast.Assign | ast.Delete):
        found = list(node.targets)
    elif isinstance(node, ast.AugAssign | ast.AnnAssign):
        found = [node.target]
    while found:
        target = found.pop()
        if isinstance(target, ast.Tuple | ast.List):
            found += target.elts
        elif isinstance(target, ast.Starred):
            found.append(target.value)
        else:
            yield target


def site_reach_ins(source: str) -> list[str]:
    """Where `source` sets, deletes or changes in place a running site's attributes, or
    touches its private (`_`) ones, instead of asking the site (`ServedSite`)."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source)):
        line = getattr(node, "lineno", 0)
        for target in _targets(node):
            if _part_of_a_site(target):
                found.append((line, f"sets {ast.unparse(target)}"))
        if (
            isinstance(node, ast.Attribute)
            and node.attr.startswith("_")
            and not node.attr.startswith("__")
            and _names_a_site(node.value)
        ):
            found.append((line, f"uses the private {ast.unparse(node)}"))
        if isinstance(node, ast.Call):
            fn = node.func
            if isinstance(fn, ast.Attribute) and fn.attr in MUTATORS and _part_of_a_site(fn.value):
                found.append((line, f"changes {ast.unparse(fn.value)} in place"))
            named = isinstance(fn, ast.Name) and fn.id in ("setattr", "delattr")
            if named and node.args and _names_a_site(node.args[0]):
                found.append((line, f"{ast.unparse(fn)} on {ast.unparse(node.args[0])}"))
    return [f"line {line}: {what}" for line, what in sorted(found)]


def test_site_reach_ins_are_found():
    assert site_reach_ins("self.app.route = path\napp.ui.modal = None") == [
        "line 1: sets self.app.route",
        "line 2: sets app.ui.modal",
    ]
    assert site_reach_ins("self.app.errors.append(e)\nx = self.app._error_patch()") == [
        "line 1: changes self.app.errors in place",
        "line 2: uses the private self.app._error_patch",
    ]
    fine = "self.app = site.new_app()\nself.session.app = app\nstatus = app.visit(route)"
    assert site_reach_ins(fine) == []


def test_stages_after_site_generation_use_a_site_only_through_its_interface():
    found = {}
    for name in SITE_USERS:
        top = PACKAGE / name
        for path in sorted(top.rglob("*.py")) if top.is_dir() else [top]:
            reach_ins = site_reach_ins(path.read_text(encoding="utf-8"))
            if reach_ins:
                found[str(path.relative_to(ROOT))] = reach_ins
    assert found == {}, "ask the site through `sitegen.served.ServedSite` instead"


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


def _lines(path: Path) -> int:
    return path.read_text(encoding="utf-8").count("\n")


def _class_lines(path: Path) -> dict[str, int]:
    """Each class's length, from its `class` line to its last line."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {
        node.name: node.end_lineno - node.lineno + 1
        for node in ast.walk(tree)
        if isinstance(node, ast.ClassDef) and node.end_lineno is not None
    }


def _modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def test_no_module_is_over_600_lines():
    long = {str(p.relative_to(ROOT)): n for p in _modules() if (n := _lines(p)) > MAX_MODULE_LINES}
    assert long == {}, f"split these along their seams (at most {MAX_MODULE_LINES} lines): {long}"


def test_no_class_is_over_500_lines():
    long = {
        f"{p.relative_to(ROOT)}:{name}": n
        for p in _modules()
        for name, n in _class_lines(p).items()
        if n > MAX_CLASS_LINES
    }
    assert long == {}, f"split these classes (at most {MAX_CLASS_LINES} lines): {long}"
