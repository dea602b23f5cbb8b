"""The one way to read `sites/`, `dsl/` and a site family's own data files: from the
wheel, or from a source checkout."""

from __future__ import annotations

import hashlib
from functools import cache
from pathlib import Path

_PACKAGE_DIR = Path(__file__).resolve().parent.parent


@cache
def resource_root(name: str) -> Path:
    """Directory of the top-level resource tree `name` (`"sites"` or `"dsl"`).

    Wheels carry the trees under `webfactory_env/_resources/`; an editable install or a
    plain checkout reads them from the repository root next to the package.
    """
    for candidate in (_PACKAGE_DIR / "_resources" / name, _PACKAGE_DIR.parent / name):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(
        f"webfactory_env resource tree {name!r} is missing; reinstall the package"
        " (pip install --force-reinstall webfactory-env) or run from a full checkout."
    )


def resource_path(name: str, *parts: str) -> Path:
    """Path of a file inside a resource tree, e.g. `resource_path("dsl", "grammar.lark")`."""
    return resource_root(name).joinpath(*parts)


@cache
def read_text(name: str, *parts: str) -> str:
    """Text of a resource file (cached: resources are immutable while the process runs)."""
    return resource_path(name, *parts).read_text(encoding="utf-8")


@cache
def runtime_script() -> str:
    """The page runtime as one script: `sites/runtime/runtime.js` with drag and drop
    (`drag.js`) and the observation (`observe.js`) inside its closure, where runtime.js
    says `/* drag.js */` and `/* observe.js */`."""
    runtime = read_text("sites", "runtime", "runtime.js")
    for part in ("drag.js", "observe.js"):
        runtime = runtime.replace(f"  /* {part} */\n", read_text("sites", "runtime", part), 1)
    return runtime


@cache
def tree_digest(name: str, *subdirs: str) -> str:
    """Short SHA-256 over the files of resource sub-trees (names and bytes, sorted).

    Part of every site digest: a changed stylesheet, copy table or runtime changes what
    agents see, so it changes the digest too.
    """
    h = hashlib.sha256()
    root = resource_root(name)
    for sub in subdirs:
        for path in sorted(p for p in (root / sub).rglob("*") if p.is_file()):
            h.update(path.relative_to(root).as_posix().encode())
            h.update(b"\0")
            h.update(path.read_bytes())
    return h.hexdigest()[:12]


_FAMILIES_DIR = Path(__file__).resolve().parent.parent / "sitegen" / "families"


def family_path(family: str, name: str) -> Path:
    """A data file of a site family (its copy table, vocabulary, theme), kept beside the
    family's code in `webfactory_env/sitegen/families/<family>/`."""
    own = _FAMILIES_DIR / family / name
    return own if own.is_file() else resource_path("sites", family, name)


@cache
def read_family_text(family: str, name: str) -> str:
    return family_path(family, name).read_text(encoding="utf-8")


@cache
def family_digest(family: str) -> str:
    """Short SHA-256 over a family's data files (names and bytes, sorted)."""
    h = hashlib.sha256()
    own = _FAMILIES_DIR / family
    files = sorted(p for p in own.glob("*") if p.is_file() and p.suffix in (".json", ".css"))
    if not files:
        root = resource_root("sites") / family
        files = sorted(p for p in root.rglob("*") if p.is_file())
    for path in files:
        h.update(path.name.encode())
        h.update(b"\0")
        h.update(path.read_bytes())
    return h.hexdigest()[:12]
