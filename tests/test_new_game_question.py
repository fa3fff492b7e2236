"""Issue 48: a new game never costs a game in progress without a confirmation on the board.

A hold on the empty board starts a new game; during a game (a turn made, its marbles lifted
into a hand or the box) the LEDs ask first (control/discard.py): a second hold agrees; a
press, a marble put down, the timeout or a power cut keep the game exactly as it was. The
clock is the simulated world's, advanced by the scripts (``hold``, ``wait``)."""

from __future__ import annotations

import random
from pathlib import Path

from hypothesis import event, given
from hypothesis import strategies as st

from orbito_hw import lang
from orbito_hw.app.logs import describe
from orbito_hw.control.discard import QUESTION_S
from orbito_hw.control.events import Discard, Event, NewGame, TurnPlayed
from orbito_hw.control.journal import Journal
from orbito_hw.control.led_words import view_words
from orbito_hw.control.lights import Palette, View
from orbito_hw.control.menu import MENU_TIMEOUT
from orbito_hw.control.referee import State
from orbito_hw.rules.game import Colour, Position
from orbito_hw.rules.squares import SQUARES, square_name, squares_of
from orbito_hw.rules.turn import Turn
from orbito_hw.sim.harness import MockRun
from orbito_hw.sim.script import parse_script
from orbito_hw.web.glows import glows
from orbito_hw.web.instruction import Situation, instruction

from .common.scripts import game_script

P = Palette()
# Three turns of game 1 (white first); the rings move every marble a place after each press.
OPENING = "reset white\nput a1\npress\nput a2\npress\nput c3\npress\n"


def run_lines(run: MockRun, text: str) -> None:
    run.run_script(parse_script(text))


def lift_all(run: MockRun) -> list[int]:
    """Every marble lifted into the hand, lowest square first: the board reads empty."""
    squares = list(squares_of(run.referee.sensors.read()))
    run_lines(run, "".join(f"lift {square_name(sq)}\n" for sq in squares))
    assert run.referee.sensors.read() == 0
    return squares


def put_back(run: MockRun) -> None:
    """The hand's marbles back where they were lifted from, the last lifted first."""
    for marble in reversed(list(run.referee.hand)):
        assert marble.origin is not None
        run_lines(run, f"put {square_name(marble.origin)}\n")


def discards(events: list[Event]) -> list[tuple[str, str]]:
    return [(e.state, e.reason) for e in events if isinstance(e, Discard)]


def play_a_placement(run: MockRun) -> TurnPlayed:
    """Place a marble of the side to move on the first empty square and press: the turn
    is recorded, numbered after the game's turns (the board is not wedged)."""
    position = run.referee.position
    empty = next(sq for sq in SQUARES if not (position.black | position.white) >> sq & 1)
    before = len(run.typed_events)
    run_lines(run, f"put {square_name(empty)}\npress\n")
    played = [e for e in run.typed_events[before:] if isinstance(e, TurnPlayed)]
    assert len(played) == 1, run.typed_events[before:]
    return played[0]


def test_the_issues_case_the_one_marble_lifted_and_a_hold_asks_and_loses_nothing() -> None:
    run = MockRun()
    try:
        run_lines(run, "reset white\nput a1\npress\n")
        (square,) = lift_all(run)  # the one marble of the game, in the hand
        journal_before = run.referee.journal.load()
        run_lines(run, "hold 2.5\n")
        assert not any(isinstance(e, NewGame) for e in run.typed_events[1:])
        assert discards(run.typed_events) == [("asked", "")]
        assert run.typed_events[-1] == Discard(1, "asked", 1)
        snap = run.referee.snapshot()
        assert snap.view is not None and snap.view.mode == "discard"
        assert snap.saved.turns == ["a1"] and len(snap.hand) == 1
        frame, status = run.lights_frame()
        assert all(c is not None and c[0] > 0 and c[1:] == frame[0][1:] for c in frame)  # type: ignore[index]
        assert status == frame[0]  # every square and the status pixel, one colour
        words = [lit.text(P) for lit in view_words(snap.view, P)]
        assert words == [
            "status: throw this game away? Hold the button again for a new game; press, or put "
            "a marble down, to play on (red, pulsing)"
        ]
        # The journal is the game's, untouched by the question.
        assert run.referee.journal.load() == journal_before
        # The marble back on its square: the question goes, the game goes on.
        run_lines(run, f"put {square_name(square)}\n")
        assert discards(run.typed_events)[-1] == ("cancelled", "marble")
        assert run.referee.snapshot().view.mode == "play"  # type: ignore[union-attr]
        assert play_a_placement(run).number == 2
        assert run.referee.saved.game == 1
    finally:
        run.close()


def test_a_second_hold_agrees_and_the_game_goes_to_the_history_unfinished() -> None:
    run = MockRun()
    try:
        run_lines(run, OPENING)
        lift_all(run)
        run_lines(run, "hold 2.5\nhold 2.5\n")
        assert discards(run.typed_events) == [("asked", ""), ("agreed", "")]
        agreed = next(i for i, e in enumerate(run.typed_events) if e == Discard(1, "agreed", 3))
        assert run.typed_events[agreed + 1] == NewGame(2, run.settings.first)
        assert run.referee.saved.game == 2 and run.referee.saved.turns == []
        assert run.referee.state is State.WAITING and not run.referee.hand
        history = (run.state_dir / Journal.HISTORY).read_text().splitlines()
        assert len(history) == 1 and '"result": null' in history[0]
        assert play_a_placement(run).number == 1
    finally:
        run.close()


def test_a_press_says_no_and_the_game_stands_exactly_as_it_was() -> None:
    run = MockRun()
    try:
        run_lines(run, OPENING)
        lifted = lift_all(run)
        before = run.referee.snapshot()
        run_lines(run, "hold 2.5\npress\n")
        assert discards(run.typed_events) == [("asked", ""), ("cancelled", "press")]
        after = run.referee.snapshot()
        assert (after.saved.turns, after.hand, after.state) == (
            before.saved.turns,
            before.hand,
            before.state,
        )
        assert after.view == before.view  # the game's own display again
        # The press answered the question: it did not count as a press of the game.
        assert not [e for e in run.typed_events if e.kind == "rejected"]
        # And the next hold asks again: a press does not arm anything.
        run_lines(run, "hold 2.5\n")
        assert discards(run.typed_events)[-1] == ("asked", "")
        run_lines(run, "press\n")
        put_back(run)
        assert sorted(squares_of(run.referee.sensors.read())) == lifted
        assert play_a_placement(run).number == 4
    finally:
        run.close()


def test_left_alone_the_question_lapses_and_a_long_hold_opens_no_menu_before_the_answer() -> None:
    run = MockRun()
    try:
        run_lines(run, OPENING)
        lift_all(run)
        asked_at = run.clock.now() + 2.0  # asked 2 s into the hold
        run_lines(run, "hold 6\n")
        assert run.clock.now() - asked_at < QUESTION_S
        assert run.referee.menu is None  # held past the menu time: still only the question
        assert discards(run.typed_events) == [("asked", "")]
        run_lines(run, f"wait {QUESTION_S - (run.clock.now() - asked_at)}\n")
        assert discards(run.typed_events)[-1] == ("cancelled", "timeout")
        assert run.referee.saved.game == 1 and len(run.referee.saved.turns) == 3
        # Asked again and agreed by a long hold: the new game first, then the menu.
        run_lines(run, "hold 2.5\nhold 6\n")
        assert run.referee.saved.game == 2 and run.referee.menu is not None
    finally:
        run.close()


def test_a_power_cut_during_the_question_keeps_the_game(tmp_path: Path) -> None:
    run = MockRun(state_dir=tmp_path)
    try:
        run_lines(run, OPENING)
        lift_all(run)
        run_lines(run, "hold 2.5\npower-cut\n")
        snap = run.referee.snapshot()
        assert snap.saved.game == 1 and len(snap.saved.turns) == 3
        assert snap.view is not None and snap.view.mode != "discard"  # not saved: not asked
        assert len(snap.hand) == 3  # the marbles still in the hand, as the journal has them
        assert not any(isinstance(e, NewGame) for e in run.typed_events[1:])
        # The question is asked again by a hold, and a press keeps the game once more.
        run_lines(run, "hold 2.5\npress\n")
        assert discards(run.typed_events)[-1] == ("cancelled", "press")
        put_back(run)
        assert play_a_placement(run).number == 4
    finally:
        run.close()


def test_no_question_when_no_game_is_in_progress() -> None:
    run = MockRun()
    try:
        # The empty board from the start: a hold is a new game at once (the golden scripts').
        run_lines(run, "reset white\nhold 2.5\n")
        assert discards(run.typed_events) == []
        assert run.typed_events[-1] == NewGame(1, run.settings.first)
        # A marble placed and lifted again before the first turn: nothing of the game lost.
        run_lines(run, "put a1\nlift a1\nhold 2.5\n")
        assert discards(run.typed_events) == []
        assert isinstance(run.typed_events[-1], NewGame)
    finally:
        run.close()


def test_a_finished_game_cleared_away_asks_nothing() -> None:
    run = MockRun()
    try:
        moves = (
            "a3 a2-a1:c4 b4-b3:b2 c1-b1:b3 b2-b3:a1 d1-c1:a4 c2-d2:b4 c2-c3:b4 b2 c2-c1:a4 "
            "b3-c3:b2 b1-b2:d4 c4-d4:a2"
        )  # black wins (test_events' game)
        turns = [Turn.from_notation(t) for t in moves.split()]
        run.run_script(game_script(Colour.BLACK, turns, random.Random(0)))
        assert run.referee.position.result is not None
        for sq in squares_of(run.referee.sensors.read()):
            run_lines(run, f"lift {square_name(sq)}\n")
        run_lines(run, "hold 2.5\n")
        assert discards(run.typed_events) == []
        assert run.referee.saved.game == 2
    finally:
        run.close()


ACTIONS = st.sampled_from(
    ["lift", "clear", "put", "hold", "hold", "long-hold", "press", "wait", "cut"]
)


@given(st.lists(st.tuples(ACTIONS, st.integers(0, 15)), min_size=1, max_size=14))
def test_never_a_game_lost_without_the_second_hold_nor_a_wedged_board(
    steps: list[tuple[str, int]],
) -> None:
    """Holds, lifts, puts, presses, waits and power cuts in any order, mid-game: the game
    changes only by a ``discard`` agreed, that agreement only after the question, and
    afterwards the board still records the next turn."""
    run = MockRun()
    try:
        run_lines(run, OPENING)
        turns = list(run.referee.saved.turns)
        at_cut = 0
        for action, pick in steps:
            board = list(squares_of(run.referee.sensors.read()))
            if action == "lift" and board:
                run_lines(run, f"lift {square_name(board[pick % len(board)])}\n")
            elif action == "clear":  # tidying up: every marble into the hand
                run_lines(run, "".join(f"lift {square_name(sq)}\n" for sq in board))
            elif action == "put" and run.referee.hand:
                origin = run.referee.hand[-1].origin
                assert origin is not None
                run_lines(run, f"put {square_name(origin)}\n")
            elif action in ("hold", "long-hold") and not board:  # a hold on marbles: a take-back
                run_lines(run, "hold 2.5\n" if action == "hold" else "hold 5.5\n")
            elif action == "press":
                run_lines(run, "press\n")
            elif action == "wait":
                run_lines(run, f"wait {pick}\n")
            elif action == "cut":
                run_lines(run, "power-cut\n")
                at_cut = len(discards(run.typed_events))  # a question open goes with the power
            said = discards(run.typed_events)
            new_games = [e for e in run.typed_events[1:] if isinstance(e, NewGame)]
            agreed = [s for s in said if s[0] == "agreed"]
            assert len(new_games) == len(agreed) <= 1, said
            if said:
                event(f"the question {said[-1][0]} {said[-1][1]}".strip())
            if agreed:  # agreed after it was asked, the new game at once after
                assert said[-2:] == [("asked", ""), ("agreed", "")]
                i = run.typed_events.index(Discard(1, "agreed", 3))
                assert isinstance(run.typed_events[i + 1], NewGame)
                break
            assert run.referee.saved.game == 1 and run.referee.saved.turns == turns
            # The LEDs ask exactly while a question is open (never after a power cut).
            open_ = len(said) > at_cut and said[-1][0] == "asked"
            mode = run.referee.snapshot().view.mode  # type: ignore[union-attr]
            assert (mode == "discard") == open_, (said, mode)
        # Never wedged: put back what is in the hand (or play the new game) and a turn counts.
        run_lines(run, "press\n" if run.referee.snapshot().view.mode == "discard" else "")  # type: ignore[union-attr]
        if run.referee.menu is not None:  # a long hold agreed: the menu opened after the game
            run_lines(run, f"wait {MENU_TIMEOUT + 1}\n")  # left alone, it closes
        put_back(run)
        assert run.referee.state is State.WAITING and run.referee.menu is None
        expected = 1 if run.referee.saved.game == 2 else len(turns) + 1
        assert play_a_placement(run).number == expected
        assert run.referee.position != Position.start(run.settings.first)
    finally:
        run.close()


def test_the_page_and_the_prompt_say_the_question_in_english_and_french() -> None:
    view = View("discard", Colour.WHITE)
    situation = Situation(State.TURN.value, view, Position.start(Colour.WHITE))
    assert instruction(situation) == (
        "discard",
        "Throw this game away for a new one? Hold the button again to agree; press, or put "
        "a marble back, to play on (the game is kept)",
    )
    lit = glows(view, P)
    assert len(lit) == 16 and {g["kind"] for g in lit.values()} == {"discard"}
    assert {g["colour"] for g in lit.values()} == {"#ff2000"}
    with lang.speaking("fr"):
        _, sentence = instruction(situation)
        (status,) = view_words(view, P)
    assert sentence.startswith("Abandonner cette partie pour une nouvelle ?")
    assert status.meaning.startswith("abandonner cette partie ?")
    # The board's log: one line a step, at the info level.
    assert describe(Discard(3, "asked", 2))[1] == (
        "game 3: throw this game away (2 turns)? The LEDs ask: hold the button again to agree, "
        "press to play on"
    )
    assert describe(Discard(3, "cancelled", 2, "timeout"))[1] == (
        "game 3: kept (no answer): the game goes on"
    )
