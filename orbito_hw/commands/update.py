"""``version``: which version this is, which one the service runs, and why (the last update
or rollback, from the package's release record). ``update --rollback``: back to the release
before the current one by hand (root; the same start-up check as an upgrade's).

The releases and the rollback policy are app/releases.py's (the Debian package's layout).
"""

from __future__ import annotations

import argparse
import os
import subprocess
from pathlib import Path
from typing import Any

from orbito_hw.commands import emit, fail
from orbito_hw.lang import _


def register(sub: Any) -> None:
    p = sub.add_parser("version", help=_("this version, the one the service runs, and why"))
    p.add_argument("--json", action="store_true", help=_("one JSON object"))
    p.set_defaults(func=cmd_version)
    p = sub.add_parser("update", help=_("the installed releases: --rollback goes back by hand"))
    p.add_argument(
        "--rollback",
        action="store_true",
        help=_("make the release before the current one current again, restart, check it"),
    )
    p.add_argument("--within", type=float, metavar="SECONDS", help=_("the start-up check's bound"))
    p.set_defaults(func=cmd_update)


def service_release(root: Path, proc: Path = Path("/proc")) -> str | None:
    """The release the running service was started from: its interpreter's path (the venv's
    python, releases/VERSION/bin/python, in the script's shebang) in its command line."""
    from orbito_hw.app.releases import SERVICE

    shown = subprocess.run(
        ["systemctl", "show", SERVICE, "--property=MainPID", "--value"],
        capture_output=True,
        text=True,
        check=False,
    ).stdout.strip()
    if not shown.isdigit() or shown == "0":
        return None
    return release_of(proc / shown / "cmdline", root)


def release_of(cmdline: Path, root: Path) -> str | None:
    try:
        args = cmdline.read_bytes().split(b"\0")
    except OSError:
        return None
    releases = root / "releases"
    for arg in args[:2]:
        path = Path(os.fsdecode(arg))
        if path.is_relative_to(releases) and len(path.relative_to(releases).parts) > 1:
            return path.relative_to(releases).parts[0]
    return None


def cmd_version(args: argparse.Namespace) -> int:
    from orbito_hw.app.releases import Releases, this_version

    __version__ = this_version()

    releases = Releases()
    record = releases.record()
    info: dict[str, object] = {
        "version": __version__,
        "service": service_release(releases.root) if releases.root.is_dir() else None,
        "current": releases.current(),
        "installed": releases.installed(),
        "why": record.get("why", ""),
        "failed": record.get("failed", ""),
    }
    if args.json:
        emit(info)
        return 0
    print(f"orbito-hw {__version__}")
    if info["current"] is None:
        print(_("not installed from the package here (no /opt/orbito-hw/current)"))
        return 0
    service = info["service"] or _("nothing (it is not running)")
    print(_("service runs: {release}").format(release=service))
    text = _("current: {release} (installed: {releases})")
    print(text.format(release=info["current"], releases=", ".join(releases.installed())))
    if info["why"]:
        print(_("why: {reason}").format(reason=info["why"]))
    return 0


def cmd_update(args: argparse.Namespace) -> int:
    from orbito_hw.app.releases import WITHIN_S, ReleaseError, Releases

    if not args.rollback:
        fail(_("update: say what: --rollback (upgrades come through apt)"))
    if os.geteuid() != 0:
        fail(_("update --rollback needs root: run it with sudo"), 1)
    try:
        ok = Releases().rollback(args.within or WITHIN_S)
    except ReleaseError as exc:
        fail(f"update --rollback: {exc}", 1)
    return 0 if ok else 1
