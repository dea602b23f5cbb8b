"""Where the executor service listens and as whom: the bind address, and dropping root.

Started as root, the service first drops to an unprivileged user (`WEB_EXECUTOR_USER`,
default `nobody`), whose own cache directory becomes the browser's home, so nothing the
browser writes is root's; it refuses, naming the closed directory, when that user could
not read the install. The socket is bound before the drop (a low port stays possible).
"""

from __future__ import annotations

import getpass
import grp
import logging
import os
import pwd
import tempfile
from pathlib import Path
from typing import Any

from webfactory_env.core.errors import ConfigError

log = logging.getLogger("webfactory.executor_web")

DEFAULT_BIND = "127.0.0.1:8091"


def parse_bind(value: str | None) -> tuple[str, int]:
    text = value or DEFAULT_BIND
    host, sep, port = text.rpartition(":")
    if not sep or not port.isdigit() or not host:
        raise ConfigError(f"WEB_EXECUTOR_BIND_ADDR must look like host:port, got {text!r}")
    return host.strip("[]"), int(port)


def closed_to(entry: pwd.struct_passwd, path: Path, mode: int = os.R_OK) -> Path | None:
    """The first part of `path` that user `entry` cannot get through (a directory it may
    not search) or use (`path` itself, for `mode`), judged from permission bits; else None."""
    groups = {entry.pw_gid} | {g.gr_gid for g in grp.getgrall() if entry.pw_name in g.gr_mem}

    def allowed(p: Path, bits: int) -> bool:
        st = p.stat()
        shift = 6 if st.st_uid == entry.pw_uid else 3 if st.st_gid in groups else 0
        return all(st.st_mode & (bit << shift) for bit in (4, 2, 1) if bits & bit)

    path = path.resolve()
    for parent in reversed(path.parents):
        if not allowed(parent, os.X_OK):
            return parent
    return None if allowed(path, mode) else path


def _needed_after_drop() -> list[tuple[Path, int]]:
    """What the process opens after dropping root: Playwright's driver (a Node.js program
    the browser is launched through) and this package's own files."""
    from playwright._impl._driver import compute_driver_executable

    node, cli = compute_driver_executable()
    package = Path(__file__).resolve().parent.parent  # webfactory_env/
    return [(Path(node), os.R_OK | os.X_OK), (Path(cli), os.R_OK), (package, os.R_OK | os.X_OK)]


def drop_privileges(user: str) -> dict[str, Any]:
    """Become `user` (when running as root) with a private cache directory as HOME.
    `user="root"` keeps root: an explicit choice, for installs no other user can read."""
    if os.geteuid() != 0:
        return {"dropped": False, "user": getpass.getuser()}
    if user == "root":
        log.warning("running as root: privileges are not dropped (--user root)")
        return {"dropped": False, "user": "root"}
    try:
        entry = pwd.getpwnam(user)
    except KeyError:
        raise ConfigError(
            f"cannot drop privileges: no user {user!r}; create it or set WEB_EXECUTOR_USER"
        ) from None
    for needed, mode in _needed_after_drop():
        blocked = closed_to(entry, needed, mode)
        if blocked is not None:
            raise ConfigError(
                f"cannot drop privileges to {user!r}: it cannot read {needed} because"
                f" {blocked} is closed to it (mode {blocked.stat().st_mode & 0o777:o})."
                f" Install webfactory_env where {user!r} can read it (or open that"
                " directory to it), choose another user with --user/WEB_EXECUTOR_USER,"
                " or keep root with --user root"
            )
    home = Path(tempfile.gettempdir()) / f"webfactory-executor-{entry.pw_name}"
    cache = home / ".cache"
    cache.mkdir(parents=True, exist_ok=True)
    for path in (home, cache):
        os.chown(path, entry.pw_uid, entry.pw_gid)
        path.chmod(0o700)
    os.setgroups([])
    os.setgid(entry.pw_gid)
    os.setuid(entry.pw_uid)
    if os.geteuid() == 0:  # pragma: no cover - setuid failing silently would be a disaster
        raise RuntimeError("still root after dropping privileges")
    os.environ.update(HOME=str(home), XDG_CACHE_HOME=str(cache), USER=entry.pw_name)
    return {"dropped": True, "user": entry.pw_name, "cache_dir": str(cache)}
