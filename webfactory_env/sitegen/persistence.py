"""What persists: which paths of a family's state outlive a visit, as the frame of a task
watches them, and why (`webfactory schema` lists them).

A family declares it once, in its state (`sitegen.state`): entity tables persist (a `log`
table's new records and a table's `visit` records are bookkeeping all the same), session
values persist when declared `persists=True`, and inside them `derived` and `transient`
fields do not. Drafts, the view and page facts never do.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from webfactory_env.sitegen.state import Node, Path, Schema


@dataclass(frozen=True)
class PathDoc:
    """One schema path as `webfactory schema` lists it (`*` standing for ids and keys):
    its part, and why the frame of a task does or does not watch it."""

    path: str
    part: str
    why: str

    @property
    def kept(self) -> bool:
        return self.why.startswith(("entity", "persistent"))


@dataclass(frozen=True)
class Kept:
    """One value that persists, as the frame of a task watches it: a table (with the
    fields of its records that count), a session object (its lasting fields) or a value."""

    name: str
    kind: str  # table, object, value
    fields: tuple[str, ...] = ()
    log: bool = False
    visit: str | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "kind": self.kind, "fields": list(self.fields)}
        if self.log:
            out["log"] = True
        if self.visit:
            out["visit"] = self.visit
        return out


def kept_values(schema: Schema) -> tuple[Kept, ...]:
    """Every entity table and lasting session value, with the fields of its records (or of
    the object) that are neither bookkeeping nor transient."""
    out: list[Kept] = []
    for name, node in schema.root.items():
        if not node.persists:
            continue
        shape = node.item if node.kind == "table" else node
        fields = tuple(
            f
            for f, sub in (shape.fields.items() if shape is not None else ())
            if not sub.derived and not sub.transient
        )
        kind = node.kind if node.kind in ("table", "object") else "value"
        out.append(Kept(name, kind, fields, node.log, node.visit))
    return tuple(out)


def path_docs(schema: Schema) -> list[PathDoc]:
    """Every node of the schema, with its part and whether (and why) the frame keeps it."""
    out: list[PathDoc] = []

    def walk(node: Node, path: str, part: str, why: str) -> None:
        if node.derived:
            why = "derived"
        elif node.transient:
            why = "transient"
        out.append(PathDoc(path, part + (" (derived)" if node.derived else ""), why))
        if node.kind == "object":
            for name, sub in node.fields.items():
                walk(sub, f"{path}.{name}", part, why)
        elif node.item is not None and node.item.kind != "leaf":
            walk(node.item, f"{path}.*", part, why)

    for name, node in schema.root.items():
        walk(node, name, node.part or "page", _why(node))
    return out


def path_doc(schema: Schema, path: Path) -> PathDoc | None:
    """The `path_docs` row of a concrete path (its keys read as `*`), if there is one."""
    node = schema.root.get(path[0]) if path else None
    pattern = list(path[:1])
    for name in path[1:]:
        if node is None:
            return None
        keyed = node.kind in ("table", "map", "list")
        pattern.append("*" if keyed else name)
        node = node.item if keyed else node.child(name)
    text = ".".join(pattern)
    return next((d for d in path_docs(schema) if d.path == text), None)


def _why(node: Node) -> str:
    """Why a top-level value is or is not watched by the frame."""
    if node.part == "entities":
        if node.log:
            return "entity (a log: new records are bookkeeping)"
        if node.visit:
            return f"entity (records with {node.visit}=true belong to this visit)"
        return "entity"
    if node.part == "session":
        return "persistent setting" if node.persists else "transient (this visit)"
    return {"drafts": "transient (draft)", "view": "transient (view)"}.get(
        node.part or "", "page fact (derived)"
    )
