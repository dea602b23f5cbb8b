"""Site generation time per family and the size of the pages a generated site serves.

    .venv/bin/python benchmarks/bench_sitegen.py [--seeds N] [--difficulty D] [--json]

For each family and `--seeds` level seeds (0..N-1, medium by default):

- generate: median ms of the family's generator, seed in, `SiteSpec` out (the
  `generate_site` cache is bypassed), wall clock and process CPU time (the latter is what
  to compare when the machine is busy);
- first page: median ms to start the site's app and render its start page;
- all pages: median ms to render one page of every kind (`representative_routes`);
- page bytes: median and largest size of a served document (`app.document()`: the HTML
  shell with base CSS and the runtime, the theme CSS and the page's regions), and the
  median and largest size of its content alone (the regions a patch carries), over every
  page kind.

No browser is involved; figures are taken in one process, after a warm-up seed, and
printed with the machine's load average.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time

from webfactory_env.sitegen.registry import BUILTIN_FAMILIES, DIFFICULTIES, Site, get_family


def _ms(t0: float) -> float:
    return (time.perf_counter() - t0) * 1000


def measure(family: str, seeds: int, difficulty: str) -> dict[str, float | int]:
    fam = get_family(family)
    fam.generate(10_000, difficulty, None)  # warm-up: imports, vocabularies, caches
    gen, gen_cpu, first, every, doc_sizes, content_sizes = [], [], [], [], [], []
    routes = 0
    for seed in range(seeds):
        t0, c0 = time.perf_counter(), time.process_time()
        spec = fam.generate(seed, difficulty, None)
        gen.append(_ms(t0))
        gen_cpu.append((time.process_time() - c0) * 1000)
        site = Site(spec=spec, family=fam)
        t0 = time.perf_counter()
        site.new_app().page()
        first.append(_ms(t0))
        kinds = site.representative_routes()
        routes = max(routes, len(spec.routes))
        t0 = time.perf_counter()
        for route in kinds:
            app = site.new_app()
            app.route = route
            app.page()
        every.append(_ms(t0))
        for route in kinds:
            app = site.new_app()
            app.route = route
            doc_sizes.append(len(app.document().encode()))
            content_sizes.append(len("".join(app.page().regions.values()).encode()))
    return {
        "generate_ms": round(statistics.median(gen), 2),
        "generate_cpu_ms": round(statistics.median(gen_cpu), 2),
        "first_page_ms": round(statistics.median(first), 2),
        "all_pages_ms": round(statistics.median(every), 2),
        "page_kinds": len(site.representative_routes()),
        "routes_max": routes,
        "doc_bytes_median": int(statistics.median(doc_sizes)),
        "doc_bytes_max": max(doc_sizes),
        "content_bytes_median": int(statistics.median(content_sizes)),
        "content_bytes_max": max(content_sizes),
    }


COLUMNS = (
    ("family", "family", "<"),
    ("generate_ms", "generate ms", ">"),
    ("generate_cpu_ms", "(cpu ms)", ">"),
    ("first_page_ms", "first page ms", ">"),
    ("all_pages_ms", "all pages ms", ">"),
    ("page_kinds", "page kinds", ">"),
    ("routes_max", "routes", ">"),
    ("doc_bytes_median", "page bytes (median)", ">"),
    ("doc_bytes_max", "page bytes (max)", ">"),
    ("content_bytes_median", "content bytes (median)", ">"),
    ("content_bytes_max", "(max)", ">"),
)


def table(rows: list[dict[str, object]]) -> str:
    cells = [[str(r[key]) for key, _, _ in COLUMNS] for r in rows]
    heads = [head for _, head, _ in COLUMNS]
    widths = [max(len(h), *(len(c[i]) for c in cells)) for i, h in enumerate(heads)]
    lines = [
        " | ".join(h.ljust(wd) for h, wd in zip(heads, widths, strict=True)),
        "-|-".join("-" * wd for wd in widths),
    ]
    for c in cells:
        lines.append(
            " | ".join(
                v.ljust(wd) if align == "<" else v.rjust(wd)
                for v, wd, (_, _, align) in zip(c, widths, COLUMNS, strict=True)
            )
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--seeds", type=int, default=20, help="level seeds per family (default 20)")
    p.add_argument("--difficulty", default="medium", choices=DIFFICULTIES)
    p.add_argument("--families", nargs="*", default=list(BUILTIN_FAMILIES))
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = p.parse_args(argv)
    rows: list[dict[str, object]] = []
    for family in args.families:
        rows.append({"family": family, **measure(family, args.seeds, args.difficulty)})
        if not args.json:
            print(f"bench_sitegen: {family} done", file=sys.stderr, flush=True)
    load = os.getloadavg()[0]
    if args.json:
        out = {"seeds": args.seeds, "difficulty": args.difficulty, "load": load, "families": rows}
        print(json.dumps(out))
    else:
        print(
            f"site generation, {args.seeds} seeds, {args.difficulty} "
            f"(medians unless noted; load average {load:.2f})"
        )
        print(table(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
