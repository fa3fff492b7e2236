"""The command line in this process: ``main`` with its arguments and a standard input, its
exit status and what it wrote (pytest's capsys)."""

from __future__ import annotations

import io
import sys

import pytest

from orbito_hw.cli import main


def run(capsys: pytest.CaptureFixture[str], *argv: str, stdin: str = "") -> tuple[int, str, str]:
    old = sys.stdin
    sys.stdin = io.StringIO(stdin)
    try:
        try:
            status = main(list(argv))
        except SystemExit as exc:
            status = int(exc.code or 0)
    finally:
        sys.stdin = old
    out, err = capsys.readouterr()
    return status, out, err
