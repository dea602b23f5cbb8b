"""Regenerate the README gallery: one page of each site family, in a light and a dark theme.

    .venv/bin/python scripts/gallery.py [--out docs/gallery] [--width 640] [--colors 96]

Each picture is a page of a generated site (seed `SEED`, medium difficulty, every other
variation axis at its plainest value except the accent palette) rendered by the same
Chromium and runtime the env uses, at the env's default viewport, scaled to `--width`
pixels and stored as an optimised palette PNG so the committed gallery stays small.
Screenshots are deterministic (fixed clock, seeded randomness), so rerunning it after a
change shows exactly what changed.
"""

from __future__ import annotations

import argparse
import io
import sys
from collections.abc import Callable
from pathlib import Path

from PIL import Image

from webfactory_env.executor import ObserveConfig, PageSession
from webfactory_env.sitegen import Site, generate_site
from webfactory_env.sitegen.variation import Variation

SEED = 1
DIFFICULTY = "medium"
THEMES = ("light", "dark")
ROOT = Path(__file__).resolve().parent.parent


def _first(prefix: str) -> Callable[[Site], str]:
    def pick(site: Site) -> str:
        return next(r for r in site.spec.routes if r.startswith(prefix))

    return pick


# family -> (accent palette, the page to show, what the caption says it is)
PAGES = {
    "shop": ("blue", _first("/shop"), "catalog with filters, sort and pagination"),
    "travel": ("teal", _first("/flights"), "flight search: typeahead airports, date pickers"),
    "kanban": ("green", _first("/board/"), "a board: columns, labels, assignees, due dates"),
    "account": ("purple", _first("/signup"), "sign-up with password rules"),
    "forum": ("orange", _first("/"), "support forum: categories, threads, votes"),
}


def shrink(png: bytes, width: int, colors: int) -> bytes:
    img = Image.open(io.BytesIO(png)).convert("RGB")
    height = round(img.height * width / img.width)
    small = img.resize((width, height), Image.Resampling.LANCZOS)
    quantized = small.quantize(
        colors=colors, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE
    )
    out = io.BytesIO()
    quantized.save(out, format="PNG", optimize=True)
    return out.getvalue()


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--out", default=str(ROOT / "docs" / "gallery"))
    p.add_argument("--width", type=int, default=640, help="picture width in pixels")
    p.add_argument("--colors", type=int, default=96, help="palette size of each PNG")
    args = p.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    session = PageSession()
    total = 0
    try:
        for family, (palette, pick, caption) in PAGES.items():
            for theme in THEMES:
                variation = Variation.plain(theme=theme, palette=palette)
                site = generate_site(family, SEED, DIFFICULTY, variation)
                app = site.new_app()
                app.route = pick(site)
                session.load(app, seed=SEED, observe=ObserveConfig())
                data = shrink(session.screenshot_png(), args.width, args.colors)
                path = out / f"{family}-{theme}.png"
                path.write_bytes(data)
                total += len(data)
                print(
                    f"{path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}: "
                    f"{app.route} ({caption}), {len(data) // 1024} KiB"
                )
    finally:
        session.close()
    print(f"total {total // 1024} KiB", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
