"""Commands about sites: generate, serve, schema, axes and the web-executor service."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from webfactory_env.cli.common import (
    Command,
    command_group,
    site_args,
    usage,
    variation,
    vary_arg,
)


def add_generate(command: Command) -> None:
    """Declare `webfactory generate`."""
    c = command("generate", "generate one site and print its digest")
    site_args(c)
    vary_arg(c)
    c.add_argument("--out", help="directory to write site.json (the site spec) into")
    c.add_argument(
        "--screenshot", action="store_true", help="also write a PNG of every static page into --out"
    )
    c.add_argument("--json", action="store_true", help="print a JSON object")
    c.set_defaults(func=cmd_generate)


def add_serve(command: Command) -> None:
    """Declare `webfactory serve`."""
    c = command("serve", "serve a generated site for a person to browse")
    site_args(c)
    vary_arg(c)
    c.add_argument("--host", default="127.0.0.1", help="bind address (default: 127.0.0.1)")
    c.add_argument("--port", type=int, default=8000, help="port (default: 8000; 0 = any free)")
    c.set_defaults(func=cmd_serve)


def add_schema(command: Command) -> None:
    """Declare `webfactory schema`."""
    c = command(
        "schema",
        "list every state path, the part it plays in goals, and whether the frame keeps it",
    )
    c.add_argument("--family", help="one family (default: every family)")
    c.add_argument("--json", action="store_true", help="print a JSON list")
    c.set_defaults(func=cmd_schema)


def add_axes(command: Command) -> None:
    """Declare `webfactory axes`."""
    c = command("axes", "list the variation axes (the variation vector) and their values")
    c.add_argument("--json", action="store_true", help="print a JSON list")
    c.set_defaults(func=cmd_axes)


def add_executor(command: Command) -> None:
    """Declare `webfactory executor serve`."""
    esub = command_group(command, "executor", "the web-executor service")
    c = esub.add_parser("serve", help="serve GET /healthz, GET /sandbox and POST /execute")
    c.add_argument("--bind", help="host:port (default: $WEB_EXECUTOR_BIND_ADDR or 127.0.0.1:8091)")
    c.add_argument(
        "--user",
        help="user to drop to when started as root (default: $WEB_EXECUTOR_USER or nobody;"
        " `root` keeps root)",
    )
    c.add_argument("--family", default="shop", help="the site served on the fake origin")
    c.add_argument("--seed", type=int, default=0)
    c.add_argument(
        "--allow-origin",
        action="append",
        default=[],
        metavar="ORIGIN",
        help="another origin payload URLs may use (repeatable), e.g. http://127.0.0.1:8000;"
        " the browser reaches it through a proxy that reaches nothing else",
    )
    c.add_argument(
        "--header-timeout",
        type=float,
        default=10.0,
        metavar="S",
        help="close a connection whose request head has not arrived within S seconds (10)",
    )
    c.add_argument(
        "--body-timeout",
        type=float,
        default=20.0,
        metavar="S",
        help="answer 408 when a request body has not arrived within S seconds (20)",
    )
    c.add_argument(
        "--max-body",
        type=int,
        default=256 * 1024,
        metavar="BYTES",
        help="answer 413 to a larger request body (262144)",
    )
    c.set_defaults(func=cmd_executor_serve)


def cmd_axes(args: argparse.Namespace) -> int:
    from webfactory_env.sitegen.variation import describe_axes

    axes = describe_axes()
    if args.json:
        print(json.dumps(axes))
        return 0
    width = max(len(a["name"]) for a in axes)
    for a in axes:
        values = "|".join(a["values"])
        print(f"{a['name']:<{width}}  {a['group']:<11} {values:<32} {a['description']}")
    return 0


def cmd_schema(args: argparse.Namespace) -> int:
    from webfactory_env.sitegen import get_family
    from webfactory_env.sitegen.persistence import path_docs
    from webfactory_env.sitegen.registry import families

    names = [args.family] if args.family else sorted(families())
    docs = [(name, d) for name in names for d in path_docs(get_family(name).schema)]
    if args.json:
        rows = [
            {"family": name, "path": d.path, "part": d.part, "frame": d.kept, "why": d.why}
            for name, d in docs
        ]
        print(json.dumps(rows))
        return 0
    width = max(len(d.path) for _, d in docs)
    part_width = max(len(d.part) for _, d in docs)
    print("entities and session are what goals pin; the frame keeps what persists:")
    print("a task changes nothing it keeps beyond its goal (or its `allow` clause)")
    for name in names:
        print(f"\n{name}")
        print(f"  {'path':<{width}}  {'part':<{part_width}}  frame")
        for family, d in docs:
            if family == name:
                mark = "kept" if d.kept else "free"
                print(f"  {d.path:<{width}}  {d.part:<{part_width}}  {mark}: {d.why}")
    return 0


def cmd_generate(args: argparse.Namespace) -> int:
    from webfactory_env.sitegen import generate_site

    site = generate_site(args.family, args.seed, args.difficulty, variation(args) or None)
    written = []
    if args.out:
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        (out / "site.json").write_text(
            json.dumps({"digest": site.digest, **site.spec.to_json()}, indent=2, default=str)
        )
        written.append(str(out / "site.json"))
        if args.screenshot:
            written += _page_screenshots(site, out)
    elif args.screenshot:
        raise usage("--screenshot needs --out DIR")
    if args.json:
        print(
            json.dumps(
                {
                    "family": site.spec.family,
                    "seed": site.spec.seed,
                    "difficulty": site.spec.difficulty,
                    "digest": site.digest,
                    "brand": site.spec.brand,
                    "routes": len(site.spec.routes),
                    "variation": site.spec.variation,
                    "files": written,
                }
            )
        )
    else:
        print(f"digest: {site.digest}")
        for f in written:
            print(f"wrote {f}")
    return 0


def _page_screenshots(site: Any, out: Path) -> list[str]:
    from webfactory_env.executor import ObserveConfig, PageSession

    session = PageSession()
    files = []
    try:
        for route in site.representative_routes():  # one page of each kind
            app = site.new_app()
            app.visit(route)
            session.load(app, seed=site.spec.seed, observe=ObserveConfig())
            name = "home" if route == "/" else route.strip("/").replace("/", "_")
            path = out / f"{name}.png"
            path.write_bytes(session.screenshot_png())
            files.append(str(path))
    finally:
        session.close()
    return files


def cmd_executor_serve(args: argparse.Namespace) -> int:
    from webfactory_env.service import Limits, serve

    def ready(host: str, port: int) -> None:
        shown = f"[{host}]" if ":" in host else host
        print(f"web executor listening on http://{shown}:{port}/", flush=True)

    if min(args.header_timeout, args.body_timeout) <= 0 or args.max_body < 1:
        raise usage("--header-timeout and --body-timeout must be > 0, --max-body >= 1")
    serve(
        bind=args.bind,
        user=args.user,
        family=args.family,
        seed=args.seed,
        allowed_origins=tuple(args.allow_origin),
        ready=ready,
        limits=Limits(max_body=args.max_body, body_timeout_s=args.body_timeout),
        header_timeout_s=args.header_timeout,
    )
    return 0


def cmd_serve(args: argparse.Namespace) -> int:
    from webfactory_env.sitegen import generate_site
    from webfactory_env.sitegen.serve import make_server

    site = generate_site(args.family, args.seed, args.difficulty, variation(args) or None)
    server = make_server(site.new_app(), args.host, args.port)
    host, port = str(server.server_address[0]), int(server.server_address[1])
    print(
        f"serving {args.family} seed {args.seed} ({site.spec.brand}) at http://{host}:{port}/",
        flush=True,
    )
    print("press Ctrl-C to stop", file=sys.stderr, flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0
