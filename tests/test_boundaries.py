"""Input boundaries (issue 11): bytes from stdin and files are decoded by orbito-hw itself,
line by line and strictly; what is read and what is echoed is bounded; a bad input is one
clear line (``orbito-hw: ...``, exit 2) or, in a batch, an ``{"error": ...}`` line for that
input line, and never a traceback. perft answers in seconds or says why it will not."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import tempfile
import time
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from orbito_hw import commands
from orbito_hw.app.config import load_config
from orbito_hw.cli import main
from orbito_hw.errors import ECHO_LIMIT, ConfigError, echo
from orbito_hw.rules.game import Colour, Position
from orbito_hw.rules.perft import (
    COUNTED_DEPTH,
    LONGEST_GAME,
    perft,
    perft_naive,
    quarter_turn,
    turns_left,
)
from orbito_hw.rules.squares import BB_ALL, has_line, press
from orbito_hw.sim.script import Command, ScriptError, parse_line, parse_script

from .common.scripts import random_game

STRICT = {**os.environ, "PYTHONIOENCODING": "utf-8:strict", "LC_ALL": "C.UTF-8"}
BOM = b"\xef\xbb\xbf"
GOOD = json.dumps({"first": "white", "moves": "b1 c1-c2:a2"}).encode()
GOOD_BOARD = "..../..W./..../B..."


def cli(*argv: str, stdin: bytes = b"") -> tuple[int, str, str]:
    """orbito-hw in this process, stdin a byte stream under a strict UTF-8 text layer (as a
    strict locale gives): its status, stdout and stderr. A traceback fails the test."""
    out, err = io.StringIO(), io.StringIO()
    old = sys.stdin
    sys.stdin = io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8", errors="strict")
    try:
        with redirect_stdout(out), redirect_stderr(err):
            try:
                status = main(list(argv))
            except SystemExit as exc:
                status = int(exc.code or 0)
    finally:
        sys.stdin = old
    return status, out.getvalue(), err.getvalue()


def strict(
    *argv: str, stdin: bytes = b"", timeout: float = 60
) -> subprocess.CompletedProcess[bytes]:
    """orbito-hw in a subprocess under a strict UTF-8 locale."""
    return subprocess.run(
        [sys.executable, "-m", "orbito_hw", *argv],
        input=stdin,
        capture_output=True,
        env=STRICT,
        timeout=timeout,
    )


def one_clear_line(err: str) -> bool:
    return err.count("\n") == 1 and err.startswith("orbito-hw: ") and "Traceback" not in err


# --- defect 5: batches ----------------------------------------------------------------------
@pytest.mark.parametrize("command", ["replay", "analyse"])
def test_a_batch_line_not_utf8_is_an_error_line_and_every_other_line_is_answered(
    command: str,
) -> None:
    stdin = GOOD + b"\n\xff\xfe not utf-8\n" + GOOD + b"\n"
    out = strict(command, "--batch", stdin=stdin)
    assert out.returncode == 0 and out.stderr == b""
    rows = [json.loads(line) for line in out.stdout.splitlines()]
    assert len(rows) == 3
    assert rows[1] == {"error": "line 2: not UTF-8 text (byte 1 of the line is 0xff)"}
    assert "error" not in rows[0] and rows[0] == rows[2]


def test_each_batch_answer_is_written_before_the_next_line_is_read() -> None:
    with subprocess.Popen(
        [sys.executable, "-m", "orbito_hw", "replay", "--batch"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        env=STRICT,
    ) as proc:
        assert proc.stdin is not None and proc.stdout is not None
        for line in (GOOD, b"\xff", GOOD):
            proc.stdin.write(line + b"\n")
            proc.stdin.flush()
            assert json.loads(proc.stdout.readline())  # answered while stdin is still open
        proc.stdin.close()
        assert proc.wait(timeout=30) == 0


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        ({"first": "black"}, 'no "moves"'),
        ({"moves": "a1"}, 'no "first"'),
        ({}, 'no "first" and no "moves"'),
        ({"first": "black", "moves": 3}, "not strings"),
        (["first", "black"], "not a JSON object"),
    ],
)
def test_a_batch_line_without_a_key_it_needs_is_an_error_for_that_line(
    line: object, problem: str
) -> None:
    stdin = json.dumps(line).encode() + b"\n" + GOOD + b"\n"
    status, out, _ = cli("replay", "--batch", stdin=stdin)
    rows = [json.loads(row) for row in out.splitlines()]
    assert status == 0 and len(rows) == 2
    assert rows[0]["error"].startswith(f"line 1: {problem}")
    assert rows[1]["board"] == GOOD_BOARD


def test_a_byte_order_mark_opens_a_batch() -> None:
    status, out, _ = cli("replay", "--batch", stdin=BOM + GOOD + b"\n")
    assert status == 0 and json.loads(out)["board"] == GOOD_BOARD
    out_strict = strict("analyse", "--batch", stdin=BOM + GOOD + b"\n")
    assert "error" not in json.loads(out_strict.stdout)


def test_deeply_nested_json_in_a_batch_is_an_error_line() -> None:
    stdin = b"[" * 100_000 + b"\n" + GOOD + b"\n"
    status, out, _ = cli("replay", "--batch", stdin=stdin)
    rows = [json.loads(row) for row in out.splitlines()]
    assert status == 0 and rows[0] == {"error": "line 1: JSON nested too deeply"}
    assert rows[1]["board"] == GOOD_BOARD


def test_a_batch_line_too_long_to_hold_is_an_error_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(commands, "MAX_LINE_BYTES", 64)
    stdin = b"x" * 1000 + b"\n" + GOOD + b"\n" + b"y" * 65
    status, out, _ = cli("replay", "--batch", stdin=stdin)
    rows = [json.loads(row) for row in out.splitlines()]
    assert status == 0 and len(rows) == 3
    assert rows[0] == {"error": "line 1: longer than 64 bytes"}
    assert rows[2] == {"error": "line 3: longer than 64 bytes"}
    assert rows[1]["board"] == GOOD_BOARD


# --- defect 5: board scripts ----------------------------------------------------------------
def test_a_board_script_not_utf8_is_one_line_naming_its_line(tmp_path: Path) -> None:
    script = tmp_path / "game.txt"
    script.write_bytes(b"put a1\npress\nput \xe9t\xe9\n")
    for source, stdin in ((str(script), b""), ("-", script.read_bytes())):
        out = strict("run", "--mock", "--events", source, stdin=stdin)
        assert out.returncode == 2 and out.stdout == b""
        message = f"orbito-hw: {source}:3: not UTF-8 text (byte 5 of the line is 0xe9)\n"
        assert out.stderr.decode() == message


def test_a_byte_order_mark_opens_a_board_script(tmp_path: Path) -> None:
    script = tmp_path / "game.txt"
    script.write_bytes(BOM + b"put a1\npress\n")
    for source, stdin in ((str(script), b""), ("-", script.read_bytes())):
        out = strict("run", "--mock", "--events", source, stdin=stdin)
        assert out.returncode == 0, out.stderr
        assert json.loads(out.stdout.splitlines()[0])["turn"] == "a1"
    assert parse_script(BOM + b"press") == parse_script("\ufeffpress") == [Command("press", 1)]


def test_typed_commands_not_utf8_are_refused_by_line_and_the_rest_run() -> None:
    out = strict("run", "--mock", "--interactive", stdin=b"put a1\n\xff\xfe\npress\n")
    assert out.returncode == 0
    assert out.stderr.decode() == "orbito-hw: line 2: not UTF-8 text (byte 1 of the line is 0xff)\n"
    turns = [json.loads(line) for line in out.stdout.splitlines()]
    assert [e["turn"] for e in turns if e["event"] == "turn"] == ["a1"]


@pytest.mark.parametrize(
    ("make", "reason"),
    [
        (lambda d: d, "Is a directory"),
        (lambda d: d / "missing.txt", "No such file or directory"),
        (lambda d: Path("/dev/zero"), "is larger than"),
    ],
    ids=["directory", "missing", "endless"],
)
def test_a_board_script_that_cannot_be_read_is_one_line(
    tmp_path: Path, make: object, reason: str
) -> None:
    path = make(tmp_path)  # type: ignore[operator]
    status, out, err = cli("run", "--mock", "--events", str(path))
    assert status == 2 and out == "" and one_clear_line(err) and reason in err


# --- defect 11: echoes, numbers, --only, the config -----------------------------------------
def test_echo_cuts_long_input_and_quotes_short_input() -> None:
    assert echo("q9") == "'q9'"
    cut = echo("x" * 10_000_000)
    assert cut.startswith(repr("x" * ECHO_LIMIT)) and "10000000 characters" in cut
    assert len(cut) < ECHO_LIMIT + 40


def test_a_huge_bad_token_is_named_not_copied() -> None:
    token = "x" * 500_000
    stdin = json.dumps({"first": "black", "moves": f"a1 {token}"}).encode() + b"\n"
    status, out, _ = cli("replay", "--batch", stdin=stdin)
    assert status == 0 and len(out) < 400
    assert json.loads(out)["error"].startswith("turn 2 ('xxxxxxxx")
    status, out, _ = cli(
        "replay", "--batch", stdin=json.dumps({"first": token, "moves": ""}).encode()
    )
    assert len(out) < 200 and "is not a colour" in out
    status, out, err = cli("replay", "--first", "black", token)
    assert status == 2 and one_clear_line(err) and len(err) < 400
    with pytest.raises(ScriptError) as caught:
        parse_script(f"put {token}\n")
    assert len(str(caught.value)) < 200


@pytest.mark.parametrize("word", ["²", "\uff13", "1_0", "-1", "1.5", "100001", "9" * 5000])
def test_slip_takes_ascii_whole_numbers_only(word: str) -> None:
    with pytest.raises(ScriptError, match=r"is not a number of steps \(a whole number 0 to"):
        parse_script(f"slip {word}\n")


@pytest.mark.parametrize("word", ["nan", "inf", "\u0661", "1_0", "-1", "0x10", "1e999", "3601"])
def test_wait_takes_ascii_decimal_seconds_only(word: str) -> None:
    with pytest.raises(ScriptError, match="seconds"):
        parse_script(f"wait {word}\n")


@given(st.floats(0, 3600))
def test_seconds_as_a_command_writes_them_read_back(seconds: float) -> None:
    command = Command("wait", 1, seconds=seconds)
    again = parse_line(command.text(), 1)
    assert again is not None and again.text() == command.text()


def test_doctor_only_with_no_check_named_is_refused() -> None:
    status, out, err = cli("doctor", "--mock", "--only", "", "--yes")
    assert status == 2 and out == "" and one_clear_line(err) and "--only" in err


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (b"a = " + b"[" * 100_000, "nested too deeply"),
        (b"[board]\nfirst = 'black'\nstate_dir = '\xff'\n", "line 3 is not UTF-8 text"),
        (b'[board]\nstate_dir = "a\\u0000b"\n', "board.state_dir: a path cannot hold a NUL"),
        (b'[serial]\nport = "/dev/\\u0000"\n', "serial.port: a path cannot hold a NUL"),
        (b"[board]\nstate_dir = '" + b"n" * 300 + b"'\n", "board.state_dir: a path longer"),
    ],
)
def test_a_config_that_cannot_be_used_is_one_message(
    tmp_path: Path, content: bytes, reason: str
) -> None:
    path = tmp_path / "config.toml"
    path.write_bytes(content)
    with pytest.raises(ConfigError, match=reason):
        load_config(path)
    status, _, err = cli("config", "check", "--config", str(path))
    # Issue 27: several problems are a count, then each problem on an indented line.
    head, *problems = err.splitlines()
    assert status == 2 and reason in err and "Traceback" not in err
    assert one_clear_line(err) or (
        head.endswith(f"{len(problems)} problems:") and all(p.startswith("  ") for p in problems)
    )


def test_an_endless_config_is_one_message() -> None:
    status, _, err = cli("config", "check", "--config", "/dev/zero")
    assert status == 2 and one_clear_line(err) and "larger than" in err


def test_a_config_may_open_with_a_byte_order_mark(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_bytes(
        BOM + b"[backends]\nsensors = 'sim'\nbutton = 'sim'\ndrive = 'sim'\nlights = 'sim'\n"
    )
    assert load_config(path).backends.sensors == "sim"


# --- defect 9: perft ------------------------------------------------------------------------
def test_the_quarter_turn_commutes_with_the_press_and_keeps_lines() -> None:
    for mask in range(BB_ALL + 1):
        assert press(quarter_turn(mask)) == quarter_turn(press(mask))
        assert has_line(quarter_turn(mask)) == has_line(mask)
    assert quarter_turn(quarter_turn(quarter_turn(quarter_turn(0x1234)))) == 0x1234


def test_perft_beyond_the_longest_game_is_zero_at_once() -> None:
    start = time.perf_counter()
    assert perft(LONGEST_GAME + 1) == perft(10**12) == 0
    assert time.perf_counter() - start < 1
    assert turns_left(Position.start(Colour.BLACK)) == LONGEST_GAME == 21


def test_perft_agrees_with_naive_to_the_end_of_late_games() -> None:
    import random

    rng = random.Random(11)
    checked = 0
    for _ in range(40):
        first, turns = random_game(rng)
        position = Position.start(first)
        for turn in turns:
            position = position.play(turn)
            marbles = (position.black | position.white).bit_count()
            # Three plies from twelve marbles on; to the end of the game from fourteen.
            last = turns_left(position) + 1 if marbles >= 14 else 3 if marbles >= 12 else -1
            for depth in range(last + 1):
                assert perft(depth, position) == perft_naive(depth, position), (position, depth)
                checked += 1
    assert checked > 100


def test_perft_refuses_what_would_take_minutes_and_answers_the_rest() -> None:
    out = strict("perft", str(COUNTED_DEPTH + 1), timeout=30)
    assert out.returncode == 2 and out.stdout == b""
    assert f"this counts up to {COUNTED_DEPTH} turns" in out.stderr.decode()
    for depth in (str(LONGEST_GAME + 1), "9" * 100):
        status, out_text, _ = cli("perft", depth)
        assert status == 0 and out_text == "0\n"
    status, _, err = cli("perft", "-5")
    assert status == 2 and err == "orbito-hw: perft depth -5 is negative\n"


# --- fuzz: arbitrary bytes never give a traceback ---------------------------------------------
SCRIPT_LINES = [
    b"put a1", b"press", b"lift c1", b"put c2", b"put b2 white", b"wait 0.5", b"hold 3",
    b"slip 30", b"bounce a2", b"power-cut", b"reset black", b"# a comment", b"",
]  # fmt: skip
script_bytes = st.one_of(
    st.binary(max_size=200),
    st.lists(st.one_of(st.sampled_from(SCRIPT_LINES), st.binary(max_size=12)), max_size=12).map(
        b"\n".join
    ),
)


@settings(max_examples=300, deadline=None)
@given(script_bytes)
def test_any_bytes_parse_as_a_script_or_one_line_naming_the_line(data: bytes) -> None:
    try:
        script = parse_script(data, "fuzz.txt")
    except ScriptError as exc:
        message = str(exc)
        assert message.startswith("fuzz.txt:") and "\n" not in message and len(message) < 300
    else:
        assert all(isinstance(command, Command) for command in script)


def _with_junk(lines: list[bytes], junk: bytes | None, at: int) -> bytes:
    if junk is not None:
        lines = [*lines[:at], junk, *lines[at:]]
    return b"\n".join(lines)


# Mostly commands that run, so the controller itself meets what a script may do; at most one
# line of junk, so many scripts get past the parser.
runnable_scripts = st.builds(
    _with_junk,
    st.lists(st.sampled_from(SCRIPT_LINES[:-2]), max_size=20),
    st.none() | st.binary(max_size=10),
    st.integers(0, 20),
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(script_bytes, runnable_scripts))
def test_any_bytes_as_a_board_script_run_or_are_one_message(data: bytes) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "script.txt"
        path.write_bytes(data)
        status, out, err = cli("run", "--mock", "--events", str(path))
    assert status in (0, 2), err  # 1 would be the controller failing
    if status == 2:
        assert out == "" and err.splitlines()[-1].startswith("orbito-hw: ")
    else:
        assert all("event" in json.loads(line) for line in out.splitlines())


batch_lines = st.lists(
    st.one_of(
        st.sampled_from([GOOD, json.dumps({"first": "black", "moves": "a1 b1"}).encode()]),
        st.binary(max_size=30),
        st.recursive(
            st.none() | st.booleans() | st.integers() | st.text(max_size=5),
            lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner),
            max_leaves=6,
        ).map(lambda value: json.dumps(value).encode()),
    ).map(lambda line: line.replace(b"\n", b" ")),
    max_size=8,
)


def expected_answers(lines: list[bytes]) -> list[str | None]:
    """Per answered input line: the board of a good game, or None for an error line."""
    answers: list[str | None] = []
    for number, line in enumerate(lines, 1):
        raw = line.removeprefix(BOM) if number == 1 else line
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            answers.append(None)
            continue
        if not text.strip():
            continue
        answers.append(GOOD_BOARD if line == GOOD or raw == GOOD else None)
    return answers


@settings(max_examples=200, deadline=None)
@given(batch_lines, st.booleans())
def test_any_bytes_as_batch_lines_answer_each_line(lines: list[bytes], bom: bool) -> None:
    data = (BOM if bom else b"") + b"\n".join(lines) + (b"\n" if lines else b"")
    status, out, err = cli("replay", "--batch", stdin=data)
    assert status == 0 and err == ""
    rows = [json.loads(row) for row in out.splitlines()]
    lines = [(BOM if bom else b"") + lines[0], *lines[1:]] if lines else []
    expected = expected_answers(lines)
    assert len(rows) == len(expected)
    for row, board in zip(rows, expected, strict=True):
        if board is not None:
            assert row["board"] == board
        else:
            assert set(row) == {"error"} or "board" in row  # another good game is fine too


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(batch_lines)
def test_any_bytes_as_analyse_batch_lines_answer_each_line(lines: list[bytes]) -> None:
    status, out, err = cli("analyse", "--batch", stdin=b"\n".join(lines))
    assert status == 0 and err == ""
    rows = [json.loads(row) for row in out.splitlines()]
    assert len(rows) == len(expected_answers(lines))
    assert all("error" in row or "value" in row for row in rows)


@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(batch_lines)
def test_any_bytes_as_batch_lines_under_a_strict_locale(lines: list[bytes]) -> None:
    out = strict("replay", "--batch", stdin=b"\n".join(lines))
    assert out.returncode == 0 and out.stderr == b""
    assert len(out.stdout.splitlines()) == len(expected_answers(lines))


toml_ish = st.one_of(
    st.binary(max_size=300),
    st.lists(
        st.sampled_from(
            [b"[board]", b"[serial]", b"state_dir = '/tmp/x'", b'port = "\\u0000"', b"a = [[[",
             b"first = 'white'", b"x = {y = {z = 1}}", b"\xff", b"pin = 99", b"[[lights]]"]
        ),
        max_size=10,
    ).map(b"\n".join),
)  # fmt: skip


@settings(max_examples=200, deadline=None)
@given(toml_ish)
def test_any_bytes_as_a_config_load_or_are_one_message(data: bytes) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "config.toml"
        path.write_bytes(data)
        try:
            load_config(path)
        except ConfigError as exc:
            assert str(exc).startswith(str(path)) and "Traceback" not in str(exc)


# --- every echo of outside input is bounded -----------------------------------------------------
def test_a_huge_config_value_is_named_not_copied(tmp_path: Path) -> None:
    path = tmp_path / "board.toml"
    path.write_text(f'[board]\nfirst = "{"r" * 100_000}"\n')
    with pytest.raises(ConfigError) as info:
        load_config(path)
    assert "100000 characters" in str(info.value) and "r" * 100 not in str(info.value)


def test_a_huge_position_or_colour_is_named_not_copied() -> None:
    from orbito_hw.errors import NotationError

    for make in (lambda t: Position.from_board(t, Colour.BLACK), Colour.parse):
        with pytest.raises(NotationError) as info:
            make("x" * 100_000)
        assert len(str(info.value)) < 400


@pytest.mark.parametrize("spec", ["slip:²", "slip:0", "slip:999999999", "slip:" + "9" * 5000])
def test_a_bad_simulated_slip_is_one_line(spec: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as caught:
        main(["doctor", "--mock", "--yes", "--fault", spec])
    assert caught.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "expected a positive number of steps" in err
    assert len(err) < 300
