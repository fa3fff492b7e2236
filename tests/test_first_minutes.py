"""The first minutes, as a new user meets them: a reader that closes the pipe early, a
``web code`` asked on a machine that is not a board, the installer's help, the pins a
config may not use."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

GOLDEN = os.path.join(os.path.dirname(__file__), "golden", "draws.txt")


@pytest.mark.parametrize(
    "argv",
    [["run", "--mock"], ["run", "--mock", "--events", GOLDEN], ["replay", "--batch"]],
    ids=["demo", "events", "replay --batch"],
)
def test_a_reader_that_goes_away_early_is_a_quiet_end(argv: list[str], tmp_path: Path) -> None:
    """``orbito-hw ... | head -1``: exit 0, nothing on stderr, every time."""
    lines = tmp_path / "games.jsonl"
    lines.write_bytes(b'{"first": "black", "moves": "a1"}\n' * 5000)
    for _ in range(8):
        with lines.open("rb") as games:
            process = subprocess.Popen(
                [sys.executable, "-m", "orbito_hw", *argv],
                stdin=games, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            )  # fmt: skip
        assert process.stdout is not None
        assert process.stdout.readline()
        process.stdout.close()  # head -1 has read its line and gone
        assert process.wait(timeout=60) == 0
        assert process.stderr is not None and process.stderr.read() == b""


def board_config(tmp_path: Path, state_dir: Path) -> Path:
    from orbito_hw.app.config import example_text

    text = example_text()
    assert 'state_dir = "/var/lib/orbito-hw"' in text
    config = tmp_path / "config.toml"
    config.write_text(text.replace('"/var/lib/orbito-hw"', f'"{state_dir}"'))
    return config


def web_code(config: Path) -> subprocess.CompletedProcess[str]:
    argv = [sys.executable, "-m", "orbito_hw", "web", "code", "--config", str(config)]
    return subprocess.run(argv, capture_output=True, text=True, timeout=60)


def test_web_code_on_a_machine_that_is_no_board_says_what_it_made(tmp_path: Path) -> None:
    state = tmp_path / "var" / "lib" / "orbito-hw"
    done = web_code(board_config(tmp_path, state))
    assert done.returncode == 0 and done.stdout.strip() == (state / "web-code").read_text().strip()
    assert done.stderr.count("\n") == 1 and str(state / "web-code") in done.stderr


def test_web_code_says_where_it_wrote_a_new_code(tmp_path: Path) -> None:
    state = tmp_path / "state"
    state.mkdir()
    config = board_config(tmp_path, state)
    first = web_code(config)
    assert first.returncode == 0 and str(state / "web-code") in first.stderr
    again = web_code(config)
    assert again.stdout == first.stdout and again.stderr == ""


INSTALL = Path(__file__).resolve().parent.parent / "scripts" / "install.sh"


def test_the_installers_help_names_every_option_it_takes() -> None:
    import re

    taken = set(re.findall(r"^\s+(--[a-z-]+)\)", INSTALL.read_text(), re.M))
    assert {"--dry-run", "--uninstall", "--purge", "--no-start"} <= taken
    shown = subprocess.run(["bash", str(INSTALL), "--help"], capture_output=True, text=True)
    assert shown.returncode == 0
    assert all(option in shown.stdout for option in taken), shown.stdout


def test_a_dry_run_never_says_the_service_runs(tmp_path: Path) -> None:
    done = subprocess.run(
        ["bash", str(INSTALL), "--dry-run"], capture_output=True, text=True,
        env={**os.environ, "ORBITO_ROOT": str(tmp_path)},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "running" not in done.stdout.splitlines()[-1] and "starts nothing" in done.stdout


def orbito(*argv: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "orbito_hw", *argv], capture_output=True,
                          text=True, timeout=120, cwd=cwd)  # fmt: skip


def test_orbito_hw_alone_prints_where_to_start() -> None:
    """Issue 36: ``orbito-hw`` alone printed argparse's "the following arguments are
    required". Now: where to start, and every command by name, exit 0, within 80 columns."""
    done = orbito()
    assert (done.returncode, done.stderr) == (0, "")
    assert "required" not in done.stdout
    for start in ("orbito-hw run --mock ", "orbito-hw run --mock --interactive", "puzzles"):
        assert start in done.stdout
    for command in ("replay", "analyse", "doctor", "games", "web", "config"):
        assert f" {command}," in done.stdout.replace("\n", " ")
    assert max(len(line) for line in done.stdout.splitlines()) <= 80
    assert len(done.stdout.splitlines()) <= 12


def test_orbito_hw_config_alone_prints_its_actions() -> None:
    """Issue 36: ``orbito-hw config`` alone printed argparse's "the following arguments are
    required". Now: the config command's actions, each with what it does, exit 0."""
    done = orbito("config")
    assert (done.returncode, done.stderr) == (0, "")
    assert "required" not in done.stdout
    for action in ("check", "show", "example"):
        assert f"  orbito-hw config {action} " in done.stdout
    assert "orbito-hw config ACTION --help" in done.stdout
    assert max(len(line) for line in done.stdout.splitlines()) <= 80
    french = orbito("config", "--lang", "fr")
    assert french.returncode == 0 and french.stdout.count("orbito-hw config ") >= 3
    assert orbito("config", "example").stdout.startswith("# orbito-hw config")


@pytest.mark.parametrize("argv", [["run"], ["lights", "off"]])
def test_a_first_run_with_no_config_names_the_simulated_board(
    tmp_path: Path, argv: list[str]
) -> None:
    """Issue 36: ``orbito-hw run`` with no config said only "cannot read the config file"."""
    missing = tmp_path / "config.toml"
    done = orbito(*argv, "--config", str(missing))
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert str(missing) in done.stderr
    assert "orbito-hw run --mock" in done.stderr and "orbito-hw config check" in done.stderr
    if not Path("/etc/orbito-hw/config.toml").exists():  # the default: no board here either
        bare = orbito(*argv)
        assert bare.returncode == 2 and "orbito-hw run --mock" in bare.stderr
