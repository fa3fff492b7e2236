"""The board as a player (SPEC.md, "Playing against the board"): it shows its turn on the
LEDs, a person makes it and presses, and the referee accepts exactly that turn."""

from __future__ import annotations

import io
import logging
import random
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from orbito_hw.app.config import parse_config
from orbito_hw.app.logs import describe
from orbito_hw.app.run import settings as settings_of
from orbito_hw.control.events import BoardTurn, GameOver, Rejected, TurnPlayed, from_json
from orbito_hw.control.journal import JournalDamageError, Saved
from orbito_hw.control.settings import Settings
from orbito_hw.errors import ConfigError
from orbito_hw.hw.interfaces import Backend
from orbito_hw.rules.game import Colour, Position, replay
from orbito_hw.rules.squares import square_name
from orbito_hw.rules.turn import Turn
from orbito_hw.sim.demo import run_demo, turn_commands
from orbito_hw.sim.harness import MockRun, board_player
from orbito_hw.sim.script import Command, parse_script
from orbito_hw.solver.opponents import parse_level

from .common.boards import SIM_CONFIG
from .common.scripts import undo_commands

BACKENDS: list[Backend] = ["sim", "gpio", "serial"]


def against(level: str, colour: Colour, parts: Backend = "sim", seed: int = 1) -> MockRun:
    chosen = Settings(opponent=board_player(parse_level(level), colour, seed))
    return MockRun(settings=chosen, parts=parts, seed=seed)


def play(run: MockRun, script: str) -> None:
    for command in parse_script(script):
        run.run(command)
    run.wait_for_rings()


def take_back_by_hand(run: MockRun) -> None:
    """Hold the button and undo what the LEDs ask: the last turn, and against the board
    the person's turn before the board's own."""
    saved = run.referee.saved
    standing = list(saved.turns)
    turns = [Turn.from_notation(t) for t in standing]
    board = run.settings.opponent
    mover = replay(saved.first, saved.turns[:-1]).to_move
    undo = [turns[-1]] + (turns[-2:-1] if board is not None and mover is board.colour else [])
    run.run(Command("hold", seconds=2.5))
    for turn in undo:
        run.run_script(undo_commands(turn))
        run.wait_for_rings()
    assert run.referee.saved.turns == standing[: len(turns) - len(undo)]


def board_turns(run: MockRun) -> list[BoardTurn]:
    return [e for e in run.typed_events if isinstance(e, BoardTurn)]


@pytest.mark.parametrize("parts", BACKENDS)
@pytest.mark.parametrize("level", ["perfect", "random"])
def test_a_whole_game_against_the_board(parts: Backend, level: str) -> None:
    rng = random.Random(7)
    run = against(level, Colour.WHITE, parts)
    try:
        while run.referee.position.result is None:
            position = run.referee.position
            shown = run.referee.board_turn
            if position.to_move is Colour.WHITE:
                assert shown is not None and board_turns(run)[-1].turn == shown
                turn = shown
            else:
                assert shown is None
                turn = rng.choice(list(position.legal_turns()))
            for command in turn_commands(turn, rng, turn == shown):
                run.run(command)
            run.wait_for_rings()
        run.finish()
        played = [e for e in run.typed_events if isinstance(e, TurnPlayed)]
        for event in played:
            if event.colour is Colour.WHITE:  # each of the board's turns was the one it showed
                told = [b for b in board_turns(run) if b.number == event.number]
                assert told and told[-1].turn == event.turn
        final = replay(Colour.BLACK, [e.turn.notation() for e in played])
        over = [e for e in run.typed_events if isinstance(e, GameOver)]
        assert over and over[0].result == final.result
        assert not [e for e in run.typed_events if isinstance(e, Rejected)]
    finally:
        run.close()


def random_person_against_random_board(seed: int) -> MockRun:
    """A whole game: a person making random turns (white's), the board playing white."""
    rng = random.Random(seed)
    run = against("random", Colour.WHITE, seed=seed)
    while run.referee.position.result is None:
        position = run.referee.position
        shown = run.referee.board_turn
        turn = shown or rng.choice(list(position.legal_turns()))
        for command in turn_commands(turn, rng, turn == shown):
            run.run(command)
        run.wait_for_rings()
    return run


def test_an_extra_press_for_the_board_is_shown_as_a_star_and_pressed() -> None:
    run = random_person_against_random_board(31)  # a seed whose game fills the board
    try:
        events = [e.to_json() for e in run.typed_events]
        stars = [i for i, e in enumerate(events) if e["event"] == "board-turn" and e["turn"] == "*"]
        assert stars
        for i in stars:
            after = next(e for e in events[i + 1 :] if e["event"] == "turn")
            assert after["turn"] == "*" and after["colour"] == "white"
            assert after["number"] == events[i]["number"]
    finally:
        run.close()


def test_the_boards_choices_are_reproducible_with_the_seed() -> None:
    first, again, other = (random_person_against_random_board(s) for s in (5, 5, 6))
    try:
        assert first.events == again.events
        assert board_turns(first) != board_turns(other)
    finally:
        for run in (first, again, other):
            run.close()


def test_the_board_turn_is_lit_and_its_status_says_so() -> None:
    run = against("perfect", Colour.BLACK)
    try:
        turn = run.referee.board_turn
        assert turn is not None and turn.place is not None
        palette = run.settings.palette
        seen = set()
        for _ in range(4):
            frame, status = run.lights_frame()
            assert status == palette.board
            seen.add(frame[turn.place])
            run.advance(0.25)
        assert palette.black in seen  # the place blinks in the board's marble colour
    finally:
        run.close()


def _another(run: MockRun, shown: Turn) -> Turn:
    return next(t for t in run.referee.position.legal_turns() if t != shown)


@pytest.mark.parametrize("parts", BACKENDS)
def test_another_legal_turn_is_refused_then_the_right_one_accepted(parts: Backend) -> None:
    run = against("perfect", Colour.BLACK, parts)
    try:
        shown = run.referee.board_turn
        assert shown is not None and shown.place is not None
        wrong = _another(run, shown)
        assert wrong.place is not None and wrong.place != shown.place
        play(run, f"put {_name(wrong.place)}\npress\n")
        refused = run.typed_events[-1]
        assert isinstance(refused, Rejected)
        # Only the square where something was done: not the board's place, still to do.
        assert set(refused.squares) == {wrong.place}
        assert run.referee.board_turn == shown  # shown again
        play(run, f"lift {_name(wrong.place)}\nput {_name(shown.place)}\npress\n")
        turn = [e for e in run.typed_events if isinstance(e, TurnPlayed)]
        assert [t.turn for t in turn] == [shown]
    finally:
        run.close()


def test_a_marble_on_the_wrong_square_of_a_move_is_refused_then_fixed() -> None:
    run = against("perfect", Colour.WHITE)
    try:
        play(run, "put a1\npress\n")
        shown = run.referee.board_turn
        assert shown is not None and shown.move_from is not None
        assert shown.move_to is not None and shown.place is not None
        position = run.referee.position
        free = [s for s in range(16) if position.colour_at(s) is None]
        off = next(s for s in free if s not in (shown.move_to, shown.place))
        src, dst, place = _name(shown.move_from), _name(shown.move_to), _name(shown.place)
        play(run, f"lift {src}\nput {_name(off)}\nput {place}\npress\n")
        assert isinstance(run.typed_events[-1], Rejected)
        assert run.referee.board_turn == shown
        play(run, f"lift {_name(off)}\nput {dst}\npress\n")
        last = [e for e in run.typed_events if isinstance(e, TurnPlayed)][-1]
        assert last.turn == shown and last.colour is Colour.WHITE
    finally:
        run.close()


@pytest.mark.parametrize("parts", BACKENDS)
def test_a_power_cut_shows_the_same_turn_again(parts: Backend) -> None:
    run = against("random", Colour.WHITE, parts)
    try:
        play(run, "put b2\npress\n")
        shown = run.referee.board_turn
        assert shown is not None
        play(run, "power-cut\n")
        assert run.referee.board_turn == shown
        assert board_turns(run)[-1].turn == shown
        assert len(board_turns(run)) == 2  # told again after the restart
    finally:
        run.close()


def test_the_directive_takes_effect_at_once_on_an_untouched_game() -> None:
    run = MockRun()
    try:
        play(run, "opponent perfect black\n")
        assert run.referee.board_turn is not None
        play(run, "opponent none\n")
        assert run.referee.board_turn is None
    finally:
        run.close()


def test_the_directive_waits_for_the_next_reset_once_a_marble_is_placed() -> None:
    run = MockRun()
    try:
        play(run, "put a1\npress\nopponent perfect black\nput b4\npress\n")
        assert not board_turns(run)  # this game stays between two people
        play(run, "reset black\n")
        assert board_turns(run) and board_turns(run)[-1].colour is Colour.BLACK
    finally:
        run.close()


def test_without_an_opponent_nothing_is_chosen() -> None:
    run = MockRun()
    try:
        play(run, "put a1\npress\n")
        assert run.referee.board_turn is None and run.referee.saved.board_turn is None
        assert "board_turn" not in run.referee.saved.to_json()
    finally:
        run.close()


@pytest.mark.parametrize(
    ("value", "said"),
    [
        ("perfect:green", "is not LEVEL:COLOUR"),
        ("perfect", "is not LEVEL:COLOUR"),
        ("best:white", "unknown level 'best'"),
    ],
)
def test_bad_opponent_options_are_one_line_and_exit_2(value: str, said: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "orbito_hw", "run", "--mock", "--opponent", value],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert said in done.stderr and len(done.stderr.strip().splitlines()) == 1


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), steps=st.integers(5, 40))
def test_random_people_never_get_another_turn_accepted_on_the_boards_move(
    seed: int, steps: int
) -> None:
    """People who make the board's turn right or wrong (another legal turn, the placed
    marble on another square) and undo it step by step, take turns back, and power cuts:
    every board turn accepted is the one shown last for its number, and the journal replays
    through the engine."""
    rng = random.Random(seed)
    run = against(rng.choice(["perfect", "random", "3"]), rng.choice(list(Colour)), seed=seed)
    try:
        for _ in range(steps):
            referee = run.referee
            if referee.position.result is not None:
                break
            shown = referee.board_turn
            legal = list(referee.position.legal_turns())
            action = rng.random()
            if action < 0.1:
                play(run, "power-cut\n")
                continue
            if action < 0.25 and referee.saved.turns:
                take_back_by_hand(run)
                continue
            if shown is None or action < 0.6:
                turn = shown or rng.choice(legal)
            else:
                turn = rng.choice(legal)  # often not the board's
            for command in turn_commands(turn, rng, turn == shown):
                run.run(command)
            run.wait_for_rings()
            if isinstance(run.typed_events[-1], Rejected):
                run.run_script(undo_commands(turn))  # step by step, back to the start
                run.wait_for_rings()
                assert not run.referee.reader.touched
        colour = run.settings.opponent.colour if run.settings.opponent else None
        last_shown: dict[tuple[int, int], Turn] = {}
        for event in run.typed_events:
            if isinstance(event, BoardTurn):
                last_shown[(event.game, event.number)] = event.turn
            if isinstance(event, TurnPlayed) and event.colour is colour:
                assert event.turn == last_shown[(event.game, event.number)]
        saved = run.referee.saved
        assert Saved.from_json(saved.to_json()).position() == saved.position()
        assert run.referee.position == replay(saved.first, saved.turns)
    finally:
        run.close()


def _name(square: int) -> str:
    return square_name(square)


def test_the_board_turn_event_has_specs_keys_in_order_and_reads_back() -> None:
    event = BoardTurn(3, 4, Colour.WHITE, Turn.from_notation("a1-a2:b3"))
    line = event.to_json()
    assert list(line) == ["event", "game", "number", "colour", "turn", "by"]
    assert line["event"] == "board-turn" and line["by"] == "board"
    assert from_json(line) == event


@pytest.mark.parametrize(
    ("token", "said"),
    [(7, "is not a turn"), ("zz", "is malformed"), ("a1-a2:b3", "does not fit the board")],
)
def test_a_damaged_board_turn_in_the_journal_is_named_and_spares_the_turns(
    token: object, said: str
) -> None:
    data = {**Saved(turns=["a1"]).to_json(), "board_turn": token}
    with pytest.raises(JournalDamageError, match=f"the board's turn .*{said}") as caught:
        Saved.from_json(data)
    assert caught.value.recovered is not None and caught.value.recovered.turns == ["a1"]


def test_a_board_turn_in_the_journal_reads_back() -> None:
    saved = Saved(turns=["a1"], board_turn="b2")
    assert Saved.from_json(saved.to_json()).board_turn == "b2"


def test_opponent_none_waits_for_the_reset_too() -> None:
    run = against("perfect", Colour.WHITE)
    try:
        play(run, "put a1\npress\nopponent none\n")
        assert run.referee.board_turn is not None  # this game goes on against the board
        play(run, "reset black\nput a1\npress\n")
        assert run.referee.board_turn is None
    finally:
        run.close()


def test_the_demo_lets_the_board_play_its_colour() -> None:
    out = io.StringIO()
    chosen = Settings(opponent=board_player(parse_level("perfect"), Colour.BLACK, 2))
    assert run_demo(seed=2, out=out, settings=chosen) == 0
    assert "the board" in out.getvalue() and "result:" in out.getvalue()


def test_the_game_table_of_the_config_makes_the_board_a_player() -> None:

    two_people = settings_of(parse_config(SIM_CONFIG))
    assert two_people.opponent is None
    config = parse_config(SIM_CONFIG + '[game]\nopponent = "3"\nboard_colour = "black"\n')
    player = settings_of(config).opponent
    assert player is not None and player.colour is Colour.BLACK
    assert player.choose(Position.start()) in list(Position.start().legal_turns())


@pytest.mark.parametrize(
    ("table", "key"),
    [('opponent = "best"', "game.opponent"), ('board_colour = "red"', "game.board_colour")],
)
def test_a_bad_game_table_names_its_key(table: str, key: str) -> None:

    with pytest.raises(ConfigError, match=key):
        parse_config(SIM_CONFIG + f"[game]\n{table}\n")


def test_the_board_turn_reads_as_a_sentence_in_the_log() -> None:
    level, text = describe(BoardTurn(1, 2, Colour.WHITE, Turn.from_notation("b1-a1:b2")))
    assert level == logging.INFO
    assert text == "game 1 turn 2: the board plays white b1-a1:b2: make it on the board and press"
    assert describe(BoardTurn(1, 2, Colour.WHITE, Turn.from_notation("b2")).to_json())[0] == level


def test_lifting_a_wrong_marble_back_off_shows_the_boards_turn_again() -> None:
    run = against("perfect", Colour.BLACK)
    try:
        shown = run.referee.board_turn
        assert shown is not None and shown.place is not None
        wrong = _another(run, shown)
        assert wrong.place is not None
        play(run, f"put {_name(wrong.place)}\npress\n")
        palette = run.settings.palette
        assert run.lights_frame()[1] == palette.error  # refused
        play(run, f"lift {_name(wrong.place)}\n")
        assert run.lights_frame()[1] == palette.board  # undone: the board's turn again
        assert run.referee.board_turn == shown
    finally:
        run.close()


@pytest.mark.parametrize("parts", BACKENDS)
def test_the_boards_turn_made_in_the_wrong_order_is_refused_then_accepted(parts: Backend) -> None:
    """The board shows move, then place: a person who places first and then moves makes the
    right layout the wrong way round; lifting the placed marble and placing it again after
    the move is accepted."""
    rng = random.Random(11)
    run = against("random", Colour.WHITE, parts, seed=11)
    try:
        play(run, "reset black\n")
        shown = run.referee.board_turn
        while shown is None or shown.move_from in (None, shown.place):  # not both on one square
            assert run.referee.position.result is None, "no board turn with a move"
            turn = shown or rng.choice(list(run.referee.position.legal_turns()))
            for command in turn_commands(turn, rng, turn == shown):
                run.run(command)
            run.wait_for_rings()
            shown = run.referee.board_turn
        assert shown.place is not None and shown.move_to is not None
        place, src, dst = (square_name(s) for s in (shown.place, shown.move_from, shown.move_to))
        play(run, f"put {place}\nlift {src}\nput {dst}\npress\n")
        refusal = run.typed_events[-1]
        assert isinstance(refusal, Rejected) and "first" in refusal.reason
        assert refusal.squares == (shown.place,)
        number = len(run.referee.saved.turns)
        play(run, f"lift {place}\nput {place}\npress\n")
        played = run.typed_events[-1]
        assert isinstance(played, TurnPlayed) and played.turn == shown
        assert played.number == number + 1
    finally:
        run.close()


def test_a_power_cut_keeps_the_order_the_turn_was_made_in(tmp_path: object) -> None:
    run = against("random", Colour.WHITE, seed=11)
    try:
        play(run, "reset black\nput a1\nlift a1\nput b1\n")  # a lift of its own placed marble
        assert not run.referee.reader.placed_first
        saved = run.referee.saved
        saved.placed_first = True
        assert Saved.from_json(saved.to_json()).placed_first
        bad = {**saved.to_json(), "placed_first": "yes"}
        with pytest.raises(JournalDamageError, match="placed_first"):
            Saved.from_json(bad)
    finally:
        run.close()
