"""The opponent menu: at the empty board, holding the button past the menu time opens it;
short presses step through who plays, shown on the LEDs; a hold takes the choice shown."""

from __future__ import annotations

import pytest

from orbito_hw.control.events import NewGame, OpponentChosen
from orbito_hw.control.lights import Palette
from orbito_hw.control.menu import CHOICES, MENU_TIMEOUT, Choice, choice_of
from orbito_hw.hw.interfaces import Backend
from orbito_hw.rules.game import Colour
from orbito_hw.sim.harness import MockRun
from orbito_hw.sim.script import parse_script

P = Palette()


def press_times(run: MockRun, count: int) -> None:
    run.run_script(parse_script("press\n" * count))


@pytest.mark.parametrize("parts", ["sim", "gpio", "serial"])
def test_the_menu_chooses_the_board_at_a_level_and_a_colour(parts: Backend) -> None:
    run = MockRun(parts=parts, seed=3)
    try:
        run.run_script(parse_script("reset black\nhold 5.5\n"))
        assert run.referee.menu == 0  # opens on who plays now: two people
        assert isinstance(run.typed_events[-1], NewGame)  # the hold started a new game first
        frame, status = run.lights_frame()
        assert frame[:4] == [P.black, P.white, P.black, P.white] and status in (P.board, None)
        press_times(run, 3)  # perfect:white, perfect:black, 5:white
        assert CHOICES[run.referee.menu] == Choice("5", Colour.WHITE)
        frame, _ = run.lights_frame()
        assert frame == [P.white] * 6 + [None] * 10  # level 5: six squares, white's colour
        run.run_script(parse_script("hold 2.5\n"))
        assert run.typed_events[-1] == OpponentChosen(1, "board:5", Colour.WHITE)
        assert run.referee.menu is None
        opponent = run.referee.opponent
        assert opponent is not None and opponent.player == "board:5"
        assert opponent.colour is Colour.WHITE
        # The board plays white at once: black's turn, then the board's turn is shown.
        run.run_script(parse_script("put a1\npress\n"))
        assert run.referee.board_turn is not None
    finally:
        run.close()


def test_back_to_two_people_and_a_menu_left_alone_changes_nothing() -> None:
    run = MockRun(seed=3)
    try:
        run.run_script(parse_script("opponent perfect black\nreset white\nhold 5.5\n"))
        assert CHOICES[run.referee.menu or 0] == Choice("perfect", Colour.BLACK)
        run.run_script(parse_script(f"wait {MENU_TIMEOUT + 1}\n"))
        assert run.referee.menu is None
        assert run.referee.opponent is not None  # unchanged
        run.run_script(parse_script("hold 5.5\n"))
        opponents = [c for c in CHOICES if not c.seat]  # no page here: no invitation
        press_times(run, len(opponents) - 2)  # round to the start: two people
        assert run.referee.menu == 0
        run.run_script(parse_script("hold 2.5\n"))
        assert run.referee.opponent is None
        chosen = run.typed_events[-1]
        assert isinstance(chosen, OpponentChosen)
        assert (chosen.player, chosen.colour) == ("person", None)
    finally:
        run.close()


def test_a_shorter_hold_is_only_a_new_game_and_marbles_on_the_board_open_no_menu() -> None:
    run = MockRun()
    try:
        run.run_script(parse_script("reset black\nhold 3\n"))
        assert run.referee.menu is None
        run.run_script(parse_script("put a1\nhold 6\n"))  # the first turn: the press counts
        assert run.referee.menu is None and run.referee.saved.turns == ["a1"]
    finally:
        run.close()


def test_every_choice_has_a_distinct_picture() -> None:
    pictures = {(c.colour, c.squares) for c in CHOICES}
    assert len(pictures) == len(CHOICES)
    assert choice_of("board:3", Colour.BLACK) == CHOICES.index(Choice("3", Colour.BLACK))
    assert choice_of(None, None) == 0


def test_the_choice_survives_a_power_cut_and_the_next_game(tmp_path: object) -> None:
    run = MockRun(str(tmp_path), seed=3)
    try:
        run.run_script(parse_script("reset black\nhold 5.5\npress\npress\nhold 2.5\n"))
        assert run.referee.saved.opponent == "board:perfect:black"
        run.run_script(parse_script("power-cut\n"))
        opponent = run.referee.opponent
        assert opponent is not None and (opponent.player, opponent.colour) == (
            "board:perfect",
            Colour.BLACK,
        )
        assert run.referee.board_turn is not None  # black starts: the board's turn, shown
        run.run_script(parse_script("hold 2.5\n"))  # the empty board: a new game
        assert run.referee.opponent is not None and run.referee.board_turn is not None
    finally:
        run.close()
