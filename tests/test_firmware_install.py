"""``orbito-hw firmware install`` wraps mpremote: every logic module and main.py, then a
reset; a missing mpremote is one clear line and exit 2."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from orbito_hw.cli import main

FIRMWARE = Path(__file__).resolve().parent.parent / "firmware"


def test_the_mpremote_command_copies_every_module_and_main(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["firmware", "install", "--port", "/dev/ttyACM7", "--print"]) == 0
    argv = shlex.split(capsys.readouterr().out)
    assert argv[:3] == ["mpremote", "connect", "/dev/ttyACM7"]
    copied = {argv[i + 2]: argv[i + 1] for i, word in enumerate(argv) if word == "cp"}
    modules = sorted(p.name for p in (FIRMWARE / "orbito_fw").glob("*.py"))
    assert sorted(copied) == sorted([f":orbito_fw/{m}" for m in modules] + [":main.py"])
    assert copied[":main.py"] == str(FIRMWARE / "main.py")
    assert argv[-1] == "reset"


def test_without_mpremote_the_install_says_so(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(SystemExit) as caught:
        main(["firmware", "install"])
    assert caught.value.code == 2
    assert capsys.readouterr().err == "orbito-hw: mpremote is not installed: pip install mpremote\n"
