"""The picture of webfactory_env's modules in the README, generated from the imports.

    .venv/bin/python scripts/module_map.py          # rewrite the README's module map
    .venv/bin/python scripts/module_map.py --check  # exit 1 if the README's map is stale

Each node is one stage of the loop (a subpackage, or a top-level module); an edge A --> B
says A imports B. The tests check that the README shows the current map and that the
stages form no cycle: data flows one way; `module_imports` gives the same graph between
the modules of one stage, for the stages that must be acyclic inside too.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "webfactory_env"
README = ROOT / "README.md"
START, END = "<!-- module-map:start -->", "<!-- module-map:end -->"
# Stages listed in the order of the loop; the picture groups them so.
LAYERS = (
    ("foundations", ("core", "dsl")),
    ("sites and tasks", ("sitegen", "tasks")),
    ("the episode", ("executor", "observation", "actions", "reward", "config", "episode")),
    ("the env", ("env", "vector")),
    (
        "around the env",
        ("trace", "replay", "agents", "llm", "adversarial", "groundtruth", "testing"),
    ),
    ("using it", ("evaluation", "suites", "training", "service", "bench", "cli")),
)
IGNORED = {"__about__", "__init__", "progress"}


def stage_of(module: str) -> str | None:
    parts = module.split(".")
    if parts[0] != "webfactory_env" or len(parts) < 2:
        return None
    return None if parts[1] in IGNORED else parts[1]


def imported_names(path: Path) -> set[str]:
    """Every absolute module name `path` imports, at any depth (inside functions too): for
    `from a.b import c`, both `a.b` and `a.b.c` (which may be a module)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.update([node.module, *(f"{node.module}.{a.name}" for a in node.names)])
        elif isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
    return names


def stage_imports() -> dict[str, set[str]]:
    """stage -> the stages it imports (at any depth, including imports inside functions)."""
    edges: dict[str, set[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        module = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        here = stage_of(module)
        if here is None:
            continue
        for name in imported_names(path):
            there = stage_of(name)
            if there is not None and there != here:
                edges.setdefault(here, set()).add(there)
        edges.setdefault(here, set())
    return edges


def module_imports(stage: str) -> dict[str, set[str]]:
    """module -> the modules of the same stage (a subpackage) it imports, at any depth, so
    that a cycle an import inside a function hides still shows. A package's `__init__` is
    the package's own name; importing a submodule does not count as importing it."""
    paths = {
        ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__"): path
        for path in sorted((PACKAGE / stage).rglob("*.py"))
    }
    return {
        module: {name for name in imported_names(path) if name in paths and name != module}
        for module, path in paths.items()
    }


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Every cycle among stages (an empty list when data flows one way)."""
    found: list[list[str]] = []

    def visit(node: str, path: list[str]) -> None:
        for nxt in sorted(edges.get(node, ())):
            if nxt in path:
                cycle = path[path.index(nxt) :]
                if min(cycle) == cycle[0]:
                    found.append([*cycle, nxt])
            else:
                visit(nxt, [*path, nxt])

    for start in sorted(edges):
        visit(start, [start])
    return found


def mermaid(edges: dict[str, set[str]]) -> str:
    """The map as a Mermaid flowchart (GitHub draws it as a picture)."""
    placed = {s for _, stages in LAYERS for s in stages}
    lines = ["```mermaid", "flowchart LR"]
    for title, stages in LAYERS:
        present = [s for s in stages if s in edges]
        if present:
            lines.append(f'  subgraph {title.replace(" ", "_")}["{title}"]')
            lines += [f"    {s}" for s in present]
            lines.append("  end")
    for s in sorted(set(edges) - placed):
        lines.append(f"  {s}")
    # Only the edges to the nearest stages: a stage that imports core through tasks
    # needs no arrow to core too (the picture stays readable).
    for src in sorted(edges):
        for dst in sorted(edges[src]):
            if not any(dst in _reach(edges, via) for via in edges[src] if via != dst):
                lines.append(f"  {src} --> {dst}")
    lines.append("```")
    return "\n".join(lines)


def _reach(edges: dict[str, set[str]], start: str) -> set[str]:
    seen: set[str] = set()
    todo = [start]
    while todo:
        for nxt in edges.get(todo.pop(), ()):
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return seen


def readme_with_map(text: str, diagram: str) -> str:
    head, _, rest = text.partition(START)
    _, _, tail = rest.partition(END)
    return f"{head}{START}\n{diagram}\n{END}{tail}"


def main(argv: list[str]) -> int:
    text = README.read_text(encoding="utf-8")
    if START not in text or END not in text:
        print(f"README.md has no {START} ... {END} block", file=sys.stderr)
        return 2
    edges = stage_imports()
    wanted = readme_with_map(text, mermaid(edges))
    if "--check" in argv:
        if wanted != text:
            print("README.md's module map is stale: run scripts/module_map.py", file=sys.stderr)
            return 1
        return 0
    README.write_text(wanted, encoding="utf-8")
    for cycle in cycles(edges):
        print("cycle: " + " -> ".join(cycle), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
