"""``firmware install``: put the ring controller firmware on a Pico with mpremote.

The firmware is the package ``orbito_fw``, shipped whole with orbito-hw and found where it
is installed (``importlib.resources``), from a wheel as from a checkout: its modules go to
``:orbito_fw/`` on the Pico, and its ``main.py`` (the entry point, which needs ``machine``)
to the Pico's root, where MicroPython runs it at boot.
"""

from __future__ import annotations

import argparse
import shlex
import shutil
import subprocess
from importlib import resources
from pathlib import Path
from typing import Any, Final

from orbito_hw.commands import fail
from orbito_hw.lang import _

PACKAGE: Final = "orbito_fw"
ENTRY_POINT: Final = "main.py"  # in the package here, at the Pico's root there


def register(sub: Any) -> None:
    p = sub.add_parser("firmware", help=_("the Pico ring controller's firmware"))
    actions = p.add_subparsers(dest="action", required=True, parser_class=type(p))
    install = actions.add_parser("install", help=_("copy the firmware to a Pico with mpremote"))
    install.add_argument("--port", default="auto", help=_("the Pico's serial port (default: auto)"))
    install.add_argument("--print", action="store_true", help=_("print the mpremote command only"))
    install.set_defaults(func=cmd_install)


def firmware_folder() -> Path:
    """The installed ``orbito_fw`` package's folder (the checkout's in an editable install)."""
    folder = resources.files(PACKAGE)
    # mpremote copies files by name: a package inside a zip would need unpacking first.
    if not isinstance(folder, Path) or not folder.is_dir():
        text = _("the firmware package {package} is not a folder on disk ({folder})")
        fail(text.format(package=PACKAGE, folder=folder))
    return folder


def firmware_files() -> dict[str, Path]:
    """Every file of the firmware by where it goes on the Pico: the modules under
    ``:orbito_fw/`` in name order, then ``:main.py``."""
    folder = firmware_folder()
    entry = folder / ENTRY_POINT
    if not entry.is_file():
        text = _("{entry} not found: this orbito-hw was installed without the firmware's main.py")
        fail(text.format(entry=entry))
    modules = sorted(p for p in folder.glob("*.py") if p.name != ENTRY_POINT)
    placed = {f":{PACKAGE}/{module.name}": module for module in modules}
    placed[f":{ENTRY_POINT}"] = entry  # last: the Pico boots into it only once the rest is there
    return placed


def mpremote_command(port: str, files: dict[str, Path]) -> list[str]:
    """One mpremote run: make the package folder, copy every file to its place, reset."""
    argv = ["mpremote", "connect", port]
    argv += ["exec", f"import os; '{PACKAGE}' in os.listdir() or os.mkdir('{PACKAGE}')"]
    for target, source in files.items():
        argv += ["+", "cp", str(source), target]
    return [*argv, "+", "reset"]


def cmd_install(args: argparse.Namespace) -> int:
    if not args.port.strip():
        text = _("--port {port} is empty: give the Pico's serial port, e.g. /dev/ttyACM0")
        fail(text.format(port=repr(args.port)))
    argv = mpremote_command(args.port, firmware_files())
    if args.print:
        print(shlex.join(argv))
        return 0
    mpremote = shutil.which("mpremote")
    if mpremote is None:
        fail(_("mpremote is not installed: pip install mpremote"))
    done = subprocess.run([mpremote, *argv[1:]], check=False)
    if done.returncode != 0:
        text = _("mpremote failed (exit {status}) on port {port}")
        fail(text.format(status=done.returncode, port=args.port), 1)
    return 0
