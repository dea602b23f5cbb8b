"""What the shop's pages share: the shape of a page."""

from __future__ import annotations

Page = tuple[str, str]  # title, main region
