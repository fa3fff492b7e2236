"""replay and perft exactly as SPEC.md's machine-readable interfaces say."""

import json

import pytest

from .common import oracle
from .common.cli import run


def test_replay_prints_the_spec_object(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(capsys, "replay", "--first", "white", "b1 c1-c2:a2")
    assert status == 0 and err == ""
    assert json.loads(out) == {
        "board": "..../..W./..../B...",
        "to_move": "white",
        "placed": 2,
        "extra_presses": 0,
        "result": None,
        "lines": [],
    }


GAMES = [
    (
        "black",
        "a3 a2-a1:c4 b4-b3:b2 c1-b1:b3 b2-b3:a1 d1-c1:a4 c2-d2:b4 c2-c3:b4 b2 c2-c1:a4 "
        "b3-c3:b2 b1-b2:d4 c4-d4:a2",
    ),
    (
        "black",
        "b1 c1-d1:b1 b4 d3-c3:b2 b1 c1-c2:c1 b3-b4:a3 a2-a1:b4 c2 c2-d2:b3 c4-b4:c4 b2-b3:d1 "
        "c3-c2:d1 a3-a4:a1",
    ),
    (
        "black",
        "a2 a1-b1:a4 a3-b3:b2 c2-c1:d2 d3-d4:b4 d2-d1:d2 b3-b2:c3 c1 d1-d2:b3 d1 d1 a4-b4:c1 "
        "c4 c2-c3:c2 b1-a1:d1 d1-c1:d1",
    ),
    (
        "black",
        "c4 b4-c4:d4 c4-d4:b3 a4-b4:a1 b1-c1:c4 a2 d2-d1:b1 b2-b3:d1 d3-d4:b4 a4-b4:a2 "
        "a1-a2:b2 b3-c3:a2 b1-c1:b1 b2-c2:c3 c1-c2:c1 a1 * * * * *",
    ),
]


def oracle_replay(first: str, moves: str) -> tuple[str, str | None, int]:
    board: oracle.Board = {}
    mover = first[0].upper()
    extra, result = 0, None
    for token in moves.split():
        before = dict(oracle.turns(board, mover))[token]
        board = oracle.rotate(before)
        extra += token == "*"
        result = oracle.outcome(board, extra)
        mover = "W" if mover == "B" else "B"
    return oracle.to_string(board), result, extra


@pytest.mark.parametrize(("first", "moves"), GAMES)
def test_replay_of_whole_games_agrees_with_the_oracle(
    capsys: pytest.CaptureFixture[str], first: str, moves: str
) -> None:
    status, out, _ = run(capsys, "replay", "--first", first, moves)
    got = json.loads(out)
    board, result, extra = oracle_replay(first, moves)
    assert status == 0
    assert (got["board"], got["result"], got["extra_presses"]) == (board, result, extra)
    assert got["placed"] == board.count("B") + board.count("W")
    assert (got["lines"] == []) == (result is None or (result == "draw" and extra == 5))


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["replay", "--first", "white", "b1 c1-c3:a2"],
            "orbito-hw: turn 2 (c1-c3:a2): c1-c3 is not a step",
        ),
        (["replay", "--first", "white", "b1 c1"], "orbito-hw: turn 2 (c1): c1 is occupied"),
        (
            ["replay", "--first", "white", "q9"],
            "orbito-hw: turn 1 (q9): 'q9': in q9, q is not a column of the board (a to d)",
        ),
        (["replay", "--first", "green", "a1"], "orbito-hw: 'green' is not a colour"),
        (["replay", "a1"], "orbito-hw: replay needs --first"),
        (["perft", "x"], "orbito-hw: argument N: invalid int value"),
        (["perft", "-1"], "orbito-hw: perft depth -1 is negative"),
        (["nonsense"], "orbito-hw: argument command: invalid choice"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    status, out, err = run(capsys, *argv)
    assert status == 2 and out == ""
    assert err.startswith(message) and err.count("\n") == 1


def test_replay_batch_one_line_per_game_and_errors_inline(
    capsys: pytest.CaptureFixture[str],
) -> None:
    stdin = "\n".join(
        [
            json.dumps({"first": "white", "moves": "b1 c1-c2:a2"}),
            json.dumps({"first": "black", "moves": "a1 b1"}),
            "not json",
            json.dumps({"first": "purple", "moves": ""}),
            "",
            json.dumps(["first", "black"]),
        ]
    )
    status, out, _ = run(capsys, "replay", "--batch", stdin=stdin)
    rows = [json.loads(line) for line in out.splitlines()]
    assert status == 0 and len(rows) == 5
    assert rows[0]["board"] == "..../..W./..../B..."
    assert rows[1]["error"].startswith("turn 2 (b1): b1 is occupied")
    assert all("error" in r for r in rows[1:])


def test_perft_prints_the_count_on_its_last_line(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "perft", "3")
    assert status == 0 and out.splitlines()[-1] == "50960"


@pytest.mark.parametrize("flag", [["--events", "x.txt"], ["--interactive"], ["--backend", "gpio"]])
def test_simulated_board_options_without_mock_are_refused(
    capsys: pytest.CaptureFixture[str], flag: list[str]
) -> None:
    status, out, err = run(capsys, "run", *flag)
    assert status == 2 and out == ""
    assert err.startswith(f"orbito-hw: {flag[0]} goes with --mock")
