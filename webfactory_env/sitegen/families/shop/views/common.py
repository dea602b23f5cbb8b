"""What the shop's pages share: the shape of a page and form plumbing."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

Page = tuple[str, str]  # title, main region


def no_arg(action: Mapping[str, Any]) -> dict[str, Any]:
    """A form's submit binding: forms take a handler and an effect, no argument."""
    return {k: v for k, v in action.items() if k != "arg"}
