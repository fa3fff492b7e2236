"""``orbito-hw firmware install`` wraps mpremote: every logic module and main.py, from the
installed package ``orbito_fw`` (the checkout's in an editable install), then a reset; a
missing mpremote or an empty port is one clear line and exit 2.

tests/test_packaging.py runs the same command from a wheel installed in a fresh venv."""

from __future__ import annotations

import shlex
from importlib import resources
from pathlib import Path

import pytest

from orbito_hw.cli import main

FIRMWARE = Path(__file__).resolve().parent.parent / "firmware"
INSTALLED = Path(str(resources.files("orbito_fw")))


def test_the_mpremote_command_copies_every_module_and_main(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["firmware", "install", "--port", "/dev/ttyACM7", "--print"]) == 0
    argv = shlex.split(capsys.readouterr().out)
    assert argv[:3] == ["mpremote", "connect", "/dev/ttyACM7"]
    copied = {argv[i + 2]: argv[i + 1] for i, word in enumerate(argv) if word == "cp"}
    # Every file of the checkout's firmware, main.py to the Pico's root, the rest beside it.
    modules = sorted(p.name for p in (FIRMWARE / "orbito_fw").glob("*.py") if p.name != "main.py")
    assert sorted(copied) == sorted([f":orbito_fw/{m}" for m in modules] + [":main.py"])
    assert copied[":main.py"] == str(INSTALLED / "main.py")
    assert all(Path(source).parent == INSTALLED for source in copied.values())
    # main.py last: the Pico boots into it only once the modules it imports are there.
    assert argv[-6:] == ["+", "cp", str(INSTALLED / "main.py"), ":main.py", "+", "reset"]


def test_the_entry_point_is_the_checkouts_main() -> None:
    # The Pico's main.py lives in the package, so that it ships with it.
    assert (FIRMWARE / "orbito_fw" / "main.py").read_bytes() == (INSTALLED / "main.py").read_bytes()
    assert not (FIRMWARE / "main.py").exists()


def test_without_mpremote_the_install_says_so(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(SystemExit) as caught:
        main(["firmware", "install"])
    assert caught.value.code == 2
    assert capsys.readouterr().err == "orbito-hw: mpremote is not installed: pip install mpremote\n"


@pytest.mark.parametrize("port", ["", "  "])
def test_an_empty_port_is_refused(port: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as caught:
        main(["firmware", "install", "--port", port, "--print"])
    assert caught.value.code == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err == (
        f"orbito-hw: --port {port!r} is empty: give the Pico's serial port, e.g. /dev/ttyACM0\n"
    )


def test_a_firmware_package_without_main_is_named(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    (tmp_path / "__init__.py").write_text("")
    monkeypatch.setattr(resources, "files", lambda package: tmp_path)
    with pytest.raises(SystemExit) as caught:
        main(["firmware", "install", "--print"])
    assert caught.value.code == 2
    assert capsys.readouterr().err == (
        f"orbito-hw: {tmp_path / 'main.py'} not found: "
        "this orbito-hw was installed without the firmware's main.py\n"
    )
