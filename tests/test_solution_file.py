"""The table file: checked on load, refused with a clear message when foreign or damaged."""

from __future__ import annotations

import io
import json
import struct
from pathlib import Path

import pytest

from orbito_hw.solver.layout import TABLE_SIZE
from orbito_hw.solver.progress import ProgressBar
from orbito_hw.solver.table import MAGIC, Solution, SolutionError, pack, shipped_path, unpack

from .common.cli import run


@pytest.fixture(scope="module")
def shipped() -> bytes:
    return shipped_path().read_bytes()


def altered(data: bytes, at: int, new: bytes) -> bytes:
    return data[:at] + new + data[at + len(new) :]


def test_the_shipped_file_loads_and_has_a_value_for_every_position(shipped: bytes) -> None:
    payload = unpack(shipped, "shipped")
    assert len(payload) == TABLE_SIZE
    assert shipped.startswith(MAGIC)


def test_packing_is_deterministic_and_round_trips() -> None:
    payload = bytes(range(256)) * 7
    assert pack(payload) == pack(payload)
    with pytest.raises(SolutionError, match=f"expected {TABLE_SIZE}"):
        unpack(pack(payload), "small.bin")


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (lambda d: b"PK\x03\x04" + d[4:], "small.bin is not an orbito-hw solution table"),
        (lambda d: d[:10], "small.bin is not an orbito-hw solution table"),
        (lambda d: altered(d, 16, struct.pack("<I", 99)), "format 99"),
        (lambda d: altered(d, 24, b"\0" * 32), "checksum does not match"),
        (lambda d: altered(d, len(d) // 2, bytes([d[len(d) // 2] ^ 0x55])), "damaged"),
        (lambda d: d[: len(d) - 1000], "damaged"),
    ],
)
def test_a_damaged_or_foreign_file_is_refused(
    shipped: bytes, tmp_path: Path, damage: object, message: str
) -> None:
    path = tmp_path / "small.bin"
    path.write_bytes(damage(shipped))  # type: ignore[operator]
    with pytest.raises(SolutionError, match=message):
        Solution.load(path)


def test_analyse_with_a_damaged_table_exits_2_with_one_line(
    shipped: bytes, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "bad.bin"
    path.write_bytes(altered(shipped, 1000, b"garbage"))
    status, out, err = run(capsys, "analyse", "--table", str(path), "--first", "black", "a1")
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and f"{path} is damaged" in err


def test_a_missing_table_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "none.bin"
    status, out, err = run(capsys, "analyse", "--table", str(path), "--first", "black")
    assert status == 2 and out == "" and f"cannot read solution table {path}" in err


def test_analyse_prints_the_spec_object(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(capsys, "analyse", "--first", "white", "b1 c1-c2:a2")
    assert status == 0 and err == ""
    got = json.loads(out)
    assert list(got) == ["to_move", "value", "best", "move", "plies"]
    assert got["to_move"] == "white" and got["value"] in ("win", "draw", "loss")
    assert got["best"] == sorted(got["best"]) and got["move"] in got["best"]
    assert isinstance(got["plies"], int) and 1 <= got["plies"] <= 19


def test_analyse_of_a_finished_game_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    # A whole game of perfect play, black first: it ends in black's win.
    from orbito_hw.rules.game import Colour, replay
    from orbito_hw.solver.opponents import make_opponent

    position, moves = replay(Colour.BLACK, ""), []
    perfect = make_opponent("perfect", seed=1)
    while position.result is None:
        turn = perfect.choose(position)
        moves.append(turn.notation())
        position = position.play(turn)
    status, out, err = run(capsys, "analyse", "--first", "black", " ".join(moves))
    assert status == 2 and out == "" and "the game is over (black won)" in err
    lines = [
        json.dumps({"first": "black", "moves": " ".join(moves)}),
        json.dumps({"first": "black", "moves": "a1 b1"}),
        json.dumps({"first": "white", "moves": ""}),
    ]
    status, out, err = run(capsys, "analyse", "--batch", stdin="\n".join(lines))
    answers = [json.loads(line) for line in out.splitlines()]
    assert status == 0 and len(answers) == 3
    assert "the game is over" in answers[0]["error"]
    assert answers[1]["error"].startswith("turn 2 (b1):")
    assert answers[2]["value"] == "win" and answers[2]["to_move"] == "white"


def test_analyse_needs_a_first_player(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(capsys, "analyse", "a1")
    assert status == 2 and out == "" and "--first" in err


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_the_progress_bar_shows_only_on_a_terminal_and_not_when_quiet() -> None:
    for stream, quiet, shown in [
        (Terminal(), False, True),
        (Terminal(), True, False),
        (io.StringIO(), False, False),
    ]:
        bar = ProgressBar(2, "solving", stream=stream, quiet=quiet)
        bar.step("15 marbles")
        bar.step("14 marbles")
        text = stream.getvalue()
        assert ("2/2 14 marbles" in text and text.endswith("\n")) is shown
        assert bool(text) is shown
