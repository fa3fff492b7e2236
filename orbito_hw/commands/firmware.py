"""``firmware install``: put the ring controller firmware on a Pico with mpremote."""

from __future__ import annotations

import argparse
import shlex
import shutil
import subprocess
from pathlib import Path
from typing import Any

from orbito_hw.commands import fail


def register(sub: Any) -> None:
    p = sub.add_parser("firmware", help="the Pico ring controller's firmware")
    actions = p.add_subparsers(dest="action", required=True, parser_class=type(p))
    install = actions.add_parser("install", help="copy the firmware to a Pico with mpremote")
    install.add_argument("--port", default="auto", help="the Pico's serial port (default: auto)")
    install.add_argument("--print", action="store_true", help="print the mpremote command only")
    install.set_defaults(func=cmd_install)


def firmware_files() -> tuple[list[Path], Path]:
    """The logic modules and main.py, from the source tree this orbito-hw runs from."""
    import orbito_fw

    package = Path(orbito_fw.__file__).resolve().parent
    main = package.parent / "main.py"
    if not main.is_file():
        fail(f"{main} not found: install the firmware from a source checkout of orbito-hw")
    return sorted(package.glob("*.py")), main


def mpremote_command(port: str, modules: list[Path], main: Path) -> list[str]:
    """One mpremote run: make the package folder, copy each module and main.py, reset."""
    argv = ["mpremote", "connect", port]
    argv += ["exec", "import os; 'orbito_fw' in os.listdir() or os.mkdir('orbito_fw')"]
    for module in modules:
        argv += ["+", "cp", str(module), f":orbito_fw/{module.name}"]
    argv += ["+", "cp", str(main), ":main.py", "+", "reset"]
    return argv


def cmd_install(args: argparse.Namespace) -> int:
    modules, main = firmware_files()
    argv = mpremote_command(args.port, modules, main)
    if args.print:
        print(shlex.join(argv))
        return 0
    mpremote = shutil.which("mpremote")
    if mpremote is None:
        fail("mpremote is not installed: pip install mpremote")
    done = subprocess.run([mpremote, *argv[1:]], check=False)
    if done.returncode != 0:
        fail(f"mpremote failed (exit {done.returncode}) on port {args.port}", 1)
    return 0
