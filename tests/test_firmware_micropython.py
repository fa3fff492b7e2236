"""The firmware logic runs under a real MicroPython (the WebAssembly port, in Node), so
nothing CPython-only slips into what the Pico runs."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = "@micropython/micropython-webassembly-pyscript@1.27.0"
CACHE = Path(os.environ.get("ORBITO_NPM_CACHE", Path.home() / ".cache" / "orbito-hw" / "npm"))


def tool(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        if os.environ.get("CI") == "true":
            pytest.fail(f"{name} is needed to run the firmware under MicroPython")
        pytest.skip(f"{name} is not installed")
    return path


def micropython_modules() -> Path:
    """node_modules holding the MicroPython WebAssembly package (installed once)."""
    modules = CACHE / "node_modules"
    if not (modules / "@micropython/micropython-webassembly-pyscript/micropython.mjs").exists():
        CACHE.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            [tool("npm"), "install", "--no-audit", "--no-fund", "--prefix", str(CACHE), PACKAGE],
            check=True,
            capture_output=True,
            timeout=300,
        )
    return modules


def test_the_firmware_self_checks_pass_under_micropython() -> None:
    node = tool("node")
    modules = micropython_modules()
    out = subprocess.run(
        [node, str(ROOT / "tests/micropython_selfcheck.mjs"), str(modules), str(ROOT / "firmware")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    assert out.stdout.strip() == "micropython orbito_fw self-checks passed"


def test_the_firmware_logic_imports_nothing_micropython_lacks() -> None:
    """A cheap guard for the Pico's own modules, beside the real run above."""
    allowed = {"array", "math", "orbito_fw"}
    for path in (ROOT / "firmware/orbito_fw").glob("*.py"):
        if path.name == "main.py":
            continue  # the Pico's entry point, never imported: it may use machine and rp2
        text = path.read_text()
        assert "\nfrom __future__" not in text, path.name
        for line in text.splitlines():
            words = line.split()
            if words[:1] in (["import"], ["from"]) and not words[1].startswith("."):
                assert words[1].split(".")[0] in allowed | {"typing"}, f"{path.name}: {line}"
            if words[:1] == ["from"] and words[1] == "typing":
                assert line.startswith("    "), f"{path.name}: typing only under TYPE_CHECKING"
