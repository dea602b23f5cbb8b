"""What the shop's pages share: the shape of a page, and how money reads."""

from __future__ import annotations

Page = tuple[str, str]  # title, main region


def money(cents: int) -> str:
    return f"${cents // 100}.{cents % 100:02d}"
