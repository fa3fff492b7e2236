"""The tree stays ruff clean and mypy clean (strict, on the package)."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", *argv], cwd=ROOT, capture_output=True, text=True)


# --no-cache: a clean clone (CI) has no cache, and a stale one here once hid an import-order
# error that CI then found.
def test_ruff_check_is_clean() -> None:
    out = run("ruff", "check", "--no-cache", ".")
    assert out.returncode == 0, out.stdout + out.stderr


def test_ruff_format_is_clean() -> None:
    out = run("ruff", "format", "--no-cache", "--check", ".")
    assert out.returncode == 0, out.stdout + out.stderr


def test_mypy_is_clean() -> None:
    out = run("mypy")
    assert out.returncode == 0, out.stdout + out.stderr
