"""The workspace's model: its declared state (`state`), what it knows (`queries`), the
effects its transitions declare (`effects`) and the transitions themselves (`cards`,
`workspace`). No HTML here; views read the model and bind their elements to transitions.
"""

from __future__ import annotations

from webfactory_env.sitegen.families.kanban.model.queries import (
    PAGE_SIZE,
    SORTS,
    TEMPLATES,
    shift_month,
)
from webfactory_env.sitegen.families.kanban.model.workspace import KanbanModel

__all__ = ["PAGE_SIZE", "SORTS", "TEMPLATES", "KanbanModel", "shift_month"]
