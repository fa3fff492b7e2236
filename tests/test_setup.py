"""Issue 28: a position set up by the LEDs, and games resumed from the archive.

Scenarios through the whole controller on each simulated backend (wrong squares, lifts, a
power cut mid set-up), the take-back's floor at the set-up position, the request channel of
``games resume``, a resumed game played to the engine's result, and a property: the set-up
accepts exactly the position its record reaches, never one that differs in any square.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from orbito_hw.archive.recorder import Recorder
from orbito_hw.control.journal import Saved, parse_journal
from orbito_hw.control.lights import Palette, View
from orbito_hw.control.referee import State
from orbito_hw.control.requests import NAME, SetupRequest, parse_request
from orbito_hw.control.setup import SetupError, check_record, squares_asked
from orbito_hw.hw.interfaces import Backend
from orbito_hw.rules.game import Colour, Position, replay
from orbito_hw.rules.squares import SQUARES, parse_square, square_name, squares_of
from orbito_hw.rules.turn import Turn
from orbito_hw.sim.demo import turn_commands
from orbito_hw.sim.harness import MockRun
from orbito_hw.sim.script import Command, ScriptError, parse_script
from orbito_hw.solver.table import shipped_solution

from .common.scripts import kinds

BACKENDS: list[Backend] = ["sim", "gpio", "serial"]
FINISHED = (  # perfect play from the empty board, black first: black wins at turn 17
    "a1 a1 b1-a1:b1 c1-c2:a1 b1-b2:c2 b3-b4:b2 c3-d3:b4 a3-b3:d2 d3-d2:d3 c2-d2:c2 c2-d2:c2 "
    "a2-a1:c1 d1-d2:c3 b2-b1:d2 b4-c4:c2 a4 *"
)


def random_record(rng: random.Random, most: int = 14) -> tuple[Colour, list[str]]:
    """A legal record of a game still going on, of up to ``most`` turns."""
    first = rng.choice(list(Colour))
    position, tokens = Position.start(first), []
    for _ in range(rng.randint(0, most)):
        turns = [t for t in position.legal_turns() if position.play(t).result is None]
        if not turns:
            break
        turn = rng.choice(turns)
        tokens.append(turn.notation())
        position = position.play(turn)
    return first, tokens


def setup_command(first: Colour, tokens: list[str]) -> Command:
    return parse_script(f"setup {first} {' '.join(tokens)}\n")[0]


def put(square: int, colour: Colour) -> Command:
    return Command("put", square=square, colour=colour)


def lift(square: int) -> Command:
    return Command("lift", square=square)


def on_board(run: MockRun) -> int:
    return run.physics.occupancy()


# --- the directive and its record -------------------------------------------------------------
def test_the_directive_reads_its_record_and_writes_it_back() -> None:
    (command,) = parse_script("setup white b1 c1-c2:a2  # the worked example\n")
    assert (command.colour, command.moves) == (Colour.WHITE, ("b1", "c1-c2:a2"))
    assert command.text() == "setup white b1 c1-c2:a2"
    assert parse_script("setup black\n")[0].moves == ()


@pytest.mark.parametrize(
    ("line", "said"),
    [
        ("setup", "takes the first player"),
        ("setup green a1", "'green' is not a colour"),
        ("setup white b1 zz", "setup: turn 2 ('zz'): malformed turn"),
        ("setup white a1 b1", "setup: turn 2 ('b1'): "),
        (
            "setup black a1 a1 b1-a1:b1 c1-c2:a1 b1-b2:c2 b3-b4:b2 c3-d3:b4 a3-b3:d2 d3-d2:d3 "
            "c2-d2:c2 c2-d2:c2 a2-a1:c1 d1-d2:c3 b2-b1:d2 b4-c4:c2 a4 *",
            "over after turn 17",
        ),
    ],
)
def test_a_bad_record_stops_the_script_with_one_line(line: str, said: str) -> None:
    with pytest.raises(ScriptError) as caught:
        parse_script(f"reset white\n{line}\n", "game.txt")
    assert str(caught.value).startswith("game.txt:2: ")
    assert said in str(caught.value) and "\n" not in str(caught.value)


def test_a_bad_record_on_the_command_line_exits_2_with_one_line(tmp_path: Path) -> None:
    script = tmp_path / "bad.txt"
    script.write_text("setup white b1 " + "x" * 5000 + "\n")
    out = subprocess.run(
        [sys.executable, "-m", "orbito_hw", "run", "--mock", "--events", str(script)],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr.count("\n") == 1 and "setup: turn 2" in out.stderr
    assert len(out.stderr) < 400  # the long token is cut (its length said), not copied


def test_check_record_refuses_a_finished_game_and_a_bad_turn() -> None:
    assert check_record(Colour.WHITE, ["b1", "c1-c2:a2"]).board() == "..../..W./..../B..."
    with pytest.raises(SetupError, match="over"):
        check_record(Colour.BLACK, FINISHED.split())
    with pytest.raises(SetupError, match="turn 1"):
        check_record(Colour.BLACK, ["q9"])


# --- the set-up on the board ------------------------------------------------------------------
def test_the_worked_example_set_up_with_a_wrong_square_and_a_press() -> None:
    run = MockRun()
    try:
        run.run(put(parse_square("d4"), Colour.WHITE), first_command=True)  # left from before
        run.run(setup_command(Colour.WHITE, ["b1", "c1-c2:a2"]))
        assert run.referee.state is State.SETTING_UP
        run.run(put(parse_square("a1"), Colour.BLACK))
        run.run(Command("press"))  # not done: a refusal says what is left, nothing changes
        run.run(lift(parse_square("d4")))
        assert run.referee.state is State.SETTING_UP
        run.run(put(parse_square("c3"), Colour.WHITE))
        events = run.events
    finally:
        run.close()
    setup, rejected, done = kinds(events, "setup", "rejected", "setup-done")
    assert setup == {"event": "setup", "game": 2, "squares": {"a1": "black", "c3": "white"},
                     "to_move": "white"}  # fmt: skip
    assert rejected["squares"] == ["c3", "d4"] and "setting up" in str(rejected["reason"])
    assert done == {"event": "setup-done", "game": 2, "board": "..../..W./..../B...",
                    "to_move": "white", "number": 3}  # fmt: skip
    assert kinds(events, "turn") == []


def test_a_setup_opening_the_script_sets_up_game_1_and_play_goes_on_numbered() -> None:
    text = "setup white b1 c1-c2:a2\nput a1 black\nput c3 white\nput b2\npress\n"
    run = MockRun()
    try:
        run.run_script(parse_script(text))
        events = run.events
    finally:
        run.close()
    assert [e["game"] for e in events] == [1, 1, 1]
    assert kinds(events, "turn") == [
        {"event": "turn", "game": 1, "number": 3, "colour": "white", "turn": "b2",
         "board": "..../.W../..W./.B.."}
    ]  # fmt: skip


def test_the_leds_guide_the_colour_that_placed_first_then_the_other() -> None:
    run = MockRun()
    try:
        # black first: b1 (black), then white a1 and black ... : three marbles of two colours
        run.run(setup_command(Colour.BLACK, ["b1", "a2", "c4"]), first_command=True)
        target = run.referee.position
        view = run.referee.view()
        assert view.mode == "setup" and view.to_move is Colour.BLACK
        black = {sq for sq, c in squares_asked(target) if c is Colour.BLACK}
        white = {sq for sq, c in squares_asked(target) if c is Colour.WHITE}
        assert {sq for sq, _ in view.missing} == black
        assert {sq for sq, _ in view.later} == white
        frame, status = run.lights_frame()
        palette = Palette()
        assert all(frame[sq] == palette.black for sq in black)
        assert all(frame[sq] not in (None, palette.white) for sq in white)  # dimly
        assert status in (palette.setup, palette.black)
        for sq in black:
            run.run(put(sq, Colour.BLACK))
        view = run.referee.view()
        assert view.to_move is Colour.WHITE and {sq for sq, _ in view.missing} == white
        wrong = next(sq for sq in SQUARES if not target.occupied >> sq & 1)
        run.run(put(wrong, Colour.WHITE))
        assert run.referee.view().extra == (wrong,)
        run.run(Command("press"))  # what is left, every square at full brightness
        assert run.referee.view().later == () and run.referee.state is State.SETTING_UP
    finally:
        run.close()


@pytest.mark.parametrize("parts", BACKENDS)
def test_random_positions_set_up_with_wrong_squares_lifts_and_a_power_cut(parts: Backend) -> None:
    rng = random.Random(f"setup-{parts}")
    run = MockRun(parts=parts)
    try:
        for game in range(2):
            first, tokens = random_record(rng)
            target = replay(first, tokens)
            run.run(setup_command(first, tokens), first_command=game == 0)
            asked = dict(squares_asked(target))
            # wrong squares: marbles where the position has none, to lift off again
            empty = [sq for sq in SQUARES if not target.occupied >> sq & 1
                     and not on_board(run) >> sq & 1]  # fmt: skip
            wrong = rng.sample(empty, min(2, len(empty)))
            todo = [put(sq, rng.choice(list(Colour))) for sq in wrong]
            todo += [put(sq, c) for sq, c in asked.items() if not on_board(run) >> sq & 1]
            todo += [lift(sq) for sq in squares_of(on_board(run) & ~target.occupied)]
            todo += [lift(sq) for sq in wrong]
            # a marble left from the game before on a square of the other colour: the
            # sensors cannot tell, the person swaps it (lifted, and the right one put on)
            swaps = [sq for sq, c in asked.items()
                     if on_board(run) >> sq & 1 and run.physics.colour_at(sq) is not c]  # fmt: skip
            rng.shuffle(todo)
            todo.sort(key=lambda c: c.name == "lift" and c.square in wrong)  # put, then lift
            todo = [c for sq in swaps for c in (lift(sq), put(sq, asked[sq]))] + todo
            half = len(todo) // 2
            for command in todo[:half]:
                run.run(command)
            run.run(Command("power-cut"))  # mid set-up: it goes on, the same squares asked for
            assert run.referee.state is State.SETTING_UP
            for command in todo[half:]:
                run.run(command)
            run.finish()
            done = kinds(run.events, "setup-done")
            assert len(done) == game + 1
            assert done[-1]["board"] == target.board() == run.physics.position_string()
            assert done[-1]["number"] == len(tokens) + 1
            assert done[-1]["to_move"] == target.to_move.value
            assert run.referee.state is State.WAITING
            # play goes on from there: one turn by hand, numbered after the record's
            turn = rng.choice(list(target.legal_turns()))
            for command in turn_commands(turn, rng):
                run.run(command)
            run.finish()
            played = kinds(run.events, "turn")[-1]
            assert played["number"] == len(tokens) + 1
            assert played["board"] == target.play(turn).board()
            if target.play(turn).result is not None:
                break
    finally:
        run.close()


def test_a_power_cut_after_setup_done_resumes_the_game_mid_position(tmp_path: Path) -> None:
    text = "setup black a1 b2\nput c1 black\npower-cut\nput c2 white\npower-cut\nput d4\npress\n"
    run = MockRun(tmp_path)
    try:
        run.run_script(parse_script(text))
        events = run.events
    finally:
        run.close()
    assert len(kinds(events, "setup")) == len(kinds(events, "setup-done")) == 1
    (played,) = kinds(events, "turn")
    assert (played["number"], played["colour"], played["turn"]) == (3, "black", "d4")
    saved = parse_journal((tmp_path / "game.json").read_bytes())
    assert (saved.base, saved.turns, saved.setting_up) == (2, ["a1", "b2", "d4"], False)


def test_a_take_back_never_goes_back_past_the_set_up_position() -> None:
    text = "setup white b1 c1-c2:a2\nput a1 black\nput c3 white\nput b2\npress\nhold 2.5\n"
    text += "lift b2\n"  # the rings turned back: the placed marble off again
    text += "hold 2.5\nhold 2.5\n"  # nothing more to take back: holds take nothing
    run = MockRun()
    try:
        run.run_script(parse_script(text))
        events = run.events
        assert run.referee.saved.turns == ["b1", "c1-c2:a2"]
    finally:
        run.close()
    assert [e["number"] for e in kinds(events, "takeback")] == [3]
    (back,) = kinds(events, "taken-back")
    assert back["board"] == "..../..W./..../B..." and back["to_move"] == "white"


def test_the_board_plays_its_side_from_the_set_up_position() -> None:
    position = replay(Colour.WHITE, "b1 c1-c2:a2 d4".split())
    text = "opponent perfect black\nsetup white b1 c1-c2:a2 d4\n"
    text += "".join(f"put {square_name(sq)} {c}\n" for sq, c in squares_asked(position))
    run = MockRun(seed=1)
    try:
        run.run_script(parse_script(text))
        events = run.events
    finally:
        run.close()
    offered = kinds(events, "board-turn")[-1]
    best = shipped_solution().analyse(position).move.notation()
    assert events.index(offered) > events.index(kinds(events, "setup-done")[0])
    assert (offered["game"], offered["number"], offered["colour"]) == (2, 4, "black")
    assert offered["turn"] == best


def test_a_hold_in_correction_sets_the_journal_game_up_again(tmp_path: Path) -> None:
    first = MockRun(tmp_path)
    try:
        first.run_script(
            parse_script("reset white\nput b1\npress\nlift c1\nput c2\nput a2\npress\n")
        )
    finally:
        first.close()
    run = MockRun(tmp_path)  # a board knocked over: every marble gone, correction
    try:
        run.run_script(parse_script("put c3 white\nhold 2.5\nput a1 black\nput b2\npress\n"))
        events = run.events
    finally:
        run.close()
    assert kinds(events, "correction")
    (setup,) = kinds(events, "setup")
    assert setup["game"] == 1 and setup["squares"] == {"a1": "black", "c3": "white"}
    (done,) = kinds(events, "setup-done")
    assert done["number"] == 3
    assert kinds(events, "turn")[-1]["number"] == 3


# --- the journal ------------------------------------------------------------------------------
def test_a_set_up_game_is_journaled_and_read_back() -> None:
    saved = Saved(first=Colour.WHITE, turns=["b1", "c1-c2:a2"], base=2, setting_up=True,
                  origin="archive:4:2")  # fmt: skip
    back = parse_journal(json.dumps(saved.to_json()).encode())
    assert (back.base, back.setting_up, back.origin, back.own_turns) == (2, True, "archive:4:2", 0)
    plain = Saved(first=Colour.WHITE, turns=["b1"]).to_json()
    assert not {"base", "setting_up", "origin"} & set(plain)  # other journals as they were


@pytest.mark.parametrize(
    ("change", "said"),
    [({"base": 3}, "base 3"), ({"base": True}, "base true"), ({"origin": "\x00"}, "origin"),
     ({"setting_up": True, "pending": "b2"}, "set-up with a turn")],
)  # fmt: skip
def test_a_damaged_set_up_journal_is_told(change: dict[str, object], said: str) -> None:
    data = {**Saved(first=Colour.WHITE, turns=["b1", "c1-c2:a2"], base=2).to_json(), **change}
    with pytest.raises(ValueError, match=said):
        parse_journal(json.dumps(data).encode())


# --- the request channel, and games resumed from the archive ------------------------------------
def test_a_request_is_read_strictly() -> None:
    request = SetupRequest(Colour.WHITE, ("b1", "c1-c2:a2"), "archive:1:2")
    assert parse_request(json.dumps(request.to_json()).encode()) == request
    with pytest.raises(ValueError, match="turn 2"):
        parse_request(b'{"first": "white", "moves": "a1 b1"}')
    for bad in (b"\xff", b"[]", b'{"first": "red", "moves": ""}', b'{"first": "white"}',
                b'{"first": "white", "moves": 5}'):  # fmt: skip
        with pytest.raises(ValueError):
            parse_request(bad)


def test_a_bad_request_is_a_fault_and_is_gone(tmp_path: Path) -> None:
    (tmp_path / NAME).write_bytes(b'{"first": "white", "moves": "zz"}')
    run = MockRun(tmp_path)
    try:
        faults = kinds(run.events, "fault")
        assert faults and "set-up request" in str(faults[0]["reason"])
        assert not (tmp_path / NAME).exists() and run.referee.state is State.WAITING
    finally:
        run.close()


def perfect_commands(position: Position, rng: random.Random) -> list[Command]:
    """Both sides by perfect play (``analyse``'s move) to the end of the game."""
    commands, table = [], shipped_solution()
    while position.result is None:
        turn = table.analyse(position).move
        commands += turn_commands(turn, rng)
        position = position.play(turn)
    return commands


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "orbito_hw", *args], capture_output=True,
                          text=True, timeout=300)  # fmt: skip


@pytest.mark.parametrize("parts", ["sim", "gpio"])
def test_a_resumed_archive_game_plays_on_to_the_engines_result(
    tmp_path: Path, parts: Backend
) -> None:
    rng = random.Random(28)
    first, tokens = Colour.WHITE, ["b1", "c1-c2:a2", "d4", "a4", "b3"]
    script = tmp_path / "game.txt"
    script.write_text("\n".join(c.text() for c in [Command("reset", colour=first)] + [
        c for t in tokens for c in turn_commands(Turn.from_notation(t), rng)]) + "\n")  # fmt: skip
    assert (
        cli("run", "--mock", "--events", str(script), "--state-dir", str(tmp_path)).returncode == 0
    )
    asked = cli("games", "resume", "1", "--at", "3", "--json", "--state-dir", str(tmp_path))
    assert asked.returncode == 0, asked.stderr
    answer = json.loads(asked.stdout)
    position = replay(first, tokens[:3])
    assert (answer["board"], answer["running"], answer["at"]) == (position.board(), False, 3)
    assert (tmp_path / NAME).exists()
    # the next start takes it: the simulated board starts empty, the marbles go on by hand
    archive = Recorder(tmp_path)  # as run --mock wires it
    run = MockRun(tmp_path, parts=parts, on_event=archive, on_boot=archive.boot)
    try:
        assert not (tmp_path / NAME).exists()
        for sq, colour in squares_asked(position):
            run.run(put(sq, colour))
        run.run_script(perfect_commands(position, rng))
        events = run.events
    finally:
        run.close()
        archive.close()
    (setup,) = kinds(events, "setup")
    assert setup["game"] == 2
    end = position
    for token in [e["turn"] for e in kinds(events, "turn")]:
        end = end.play(Turn.from_notation(str(token)))
    (result,) = kinds(events, "result")
    assert end.result is not None and result["result"] == end.result.value
    value = shipped_solution().analyse(position).value
    mover = position.to_move.value
    expected = {"win": mover, "loss": position.to_move.other.value, "draw": "draw"}[
        str(value.value)
    ]
    assert result["result"] == expected  # perfect play keeps the value the table gives
    listed = [json.loads(line) for line in cli("games", "list", "--json", "--state-dir",
                                               str(tmp_path)).stdout.splitlines()]  # fmt: skip
    assert listed[-1]["setup"] == 3 and listed[-1]["from"] == {"game": 1, "turn": 3}
    assert listed[-1]["result"] == expected
    shown = json.loads(cli("games", "show", str(listed[-1]["id"]), "--json", "--state-dir",
                           str(tmp_path)).stdout)  # fmt: skip
    assert replay(first, shown["moves"]).result is not None  # it replays from the empty board
    assert shown["moves"].split()[:3] == tokens[:3]
    review = cli("games", "review", str(listed[-1]["id"]), "--json", "--state-dir", str(tmp_path))
    assert review.returncode == 0


def test_resume_refuses_what_it_cannot_set_up(tmp_path: Path) -> None:
    script = tmp_path / "game.txt"
    script.write_text("reset black\nput a1\npress\nput c1\npress\n")
    assert (
        cli("run", "--mock", "--events", str(script), "--state-dir", str(tmp_path)).returncode == 0
    )
    for args, said in (
        (["9"], "no game 9"), (["1", "--at", "7"], "is not a turn of game 1"),
        (["x"], "is not a number"), (["current", "--at", "1"], "--at goes with"),
    ):  # fmt: skip
        out = cli("games", "resume", *args, "--state-dir", str(tmp_path))
        assert out.returncode == 2 and said in out.stderr and out.stderr.count("\n") == 1
    out = cli("run", "--mock", "--resume", "1@1", "--events", str(script))
    assert out.returncode == 2 and "--state-dir" in out.stderr


def test_run_mock_resume_sets_the_game_up_from_the_archive(tmp_path: Path) -> None:
    script = tmp_path / "game.txt"
    script.write_text("reset black\nput a1\npress\nput c1\npress\n")
    assert (
        cli("run", "--mock", "--events", str(script), "--state-dir", str(tmp_path)).returncode == 0
    )
    position = replay(Colour.BLACK, ["a1", "c1"])
    more = tmp_path / "more.txt"
    more.write_text("".join(f"put {square_name(sq)} {c}\n" for sq, c in squares_asked(position)))
    out = cli("run", "--mock", "--resume", "1@2", "--events", str(more), "--state-dir",
              str(tmp_path))  # fmt: skip
    events = [json.loads(line) for line in out.stdout.splitlines()]
    (done,) = kinds(events, "setup-done")
    assert (done["board"], done["number"]) == (position.board(), 3)


# --- the property: exactly the position the record reaches ---------------------------------
@st.composite
def records(draw: st.DrawFn) -> tuple[Colour, list[str]]:
    first = draw(st.sampled_from(list(Colour)))
    position, tokens = Position.start(first), []
    for _ in range(draw(st.integers(0, 15))):
        turns = sorted((t for t in position.legal_turns() if position.play(t).result is None),
                       key=Turn.notation)  # fmt: skip
        if not turns:
            break
        turn = draw(st.sampled_from(turns))
        tokens.append(turn.notation())
        position = position.play(turn)
    return first, tokens


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(records(), st.randoms(use_true_random=False))
def test_the_set_up_accepts_exactly_the_position_its_record_reaches(
    record: tuple[Colour, list[str]], rng: random.Random
) -> None:
    first, tokens = record
    target = replay(first, tokens)
    empty = [sq for sq in SQUARES if not target.occupied >> sq & 1]
    wrong = rng.sample(empty, min(len(empty), rng.randint(0, 2)))
    touches = [put(sq, c) for sq, c in squares_asked(target)]
    touches += [put(sq, rng.choice(list(Colour))) for sq in wrong]
    rng.shuffle(touches)
    if touches and target.occupied:  # a marble of the position lifted and put back
        sq = rng.choice(list(squares_of(target.occupied)))
        at = next(i for i, c in enumerate(touches) if c.square == sq) + 1
        colour = target.colour_at(sq)
        assert colour is not None
        touches[at:at] = [lift(sq), put(sq, colour)]
    touches += [lift(sq) for sq in wrong]
    run = MockRun()
    try:
        run.run(setup_command(first, tokens), first_command=True)
        for touch in [None, *touches]:
            if touch is not None:
                run.run(touch)
            done = kinds(run.events, "setup-done")
            # accepted exactly when the sensors read the position: never one square off
            assert bool(done) == (run.physics.occupancy() == target.occupied)
            if done:
                break
        (done_event,) = kinds(run.events, "setup-done")
        assert done_event["board"] == target.board() == run.physics.position_string()
        assert done_event["number"] == len(tokens) + 1
    finally:
        run.close()


def test_the_view_of_a_set_up_is_a_view() -> None:  # the words and the LEDs agree
    from orbito_hw.control.led_words import view_words

    view = View("setup", Colour.BLACK, missing=((0, Colour.BLACK),), extra=(5,),
                later=((1, Colour.WHITE),))  # fmt: skip
    words = {lit.where: lit.meaning for lit in view_words(view, Palette())}
    assert "put a black marble" in words["a1"] and "then put a white" in words["b1"]
    assert "take this marble off" in words["b2"] and "setting up" in words["status"]
