"""Random lift/put/press streams: the controller never crashes, never accepts an illegal
turn, and accepts exactly what the rules engine says is a legal turn."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from orbito_hw.control.referee import State
from orbito_hw.rules.game import Colour, Position, replay
from orbito_hw.rules.squares import BB_SQUARES
from orbito_hw.rules.turn import EXTRA_PRESS, Turn
from orbito_hw.sim.demo import turn_commands
from orbito_hw.sim.harness import MockRun
from orbito_hw.sim.script import Command

pytestmark = pytest.mark.fuzz  # hundreds of examples: the long tier

# Mostly what players do (whole legal turns, loose lifts and puts, presses); now and then
# what hardware does (chatter, lost steps, a power cut) and, rarely, a wrong-colour marble.
ACTIONS = (
    ["turn"] * 6
    + ["lift", "put"] * 3
    + ["press"] * 3
    + [
        "bounce",
        "slip",
        "wait",
        "power-cut",
        "hold",
    ]
)
WRONG_COLOUR = 0.03


def physical_masks(run: MockRun) -> tuple[int, int]:
    black = white = 0
    for sq in range(16):
        colour = run.physics.colour_at(sq)
        if colour is Colour.BLACK:
            black |= BB_SQUARES[sq]
        elif colour is Colour.WHITE:
            white |= BB_SQUARES[sq]
    return black, white


def expected_turn(position: Position, masks: tuple[int, int]) -> Turn | None:
    """Independently of the referee: the legal turn whose board is the one on the table."""
    if position.is_full and masks == (position.black, position.white):
        return EXTRA_PRESS
    for turn in position.legal_turns():
        if turn.place is not None and position.before_press(turn) == masks:
            return turn
    return None


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_random_streams_never_crash_and_agree_with_the_engine(data: st.DataObject) -> None:
    run = MockRun()
    diverged = False  # colours the referee cannot see (explicit colours, marbles pocketed)
    try:
        first = data.draw(st.sampled_from(list(Colour)))
        run.run(Command("reset", colour=first), first_command=True)
        for _ in range(data.draw(st.integers(5, 60))):
            ref = run.referee
            run.wait_for_rings()
            occupied = [sq for sq in range(16) if run.physics.colour_at(sq) is not None]
            empty = [sq for sq in range(16) if sq not in occupied]
            action = data.draw(st.sampled_from(ACTIONS))
            if action == "put" and data.draw(st.floats(0, 1)) < WRONG_COLOUR:
                action = "put-colour"
            if action == "turn" and ref.state in (State.WAITING, State.TURN) and not diverged:
                turns = list(ref.position.legal_turns())
                if turns and not ref.reader.touched and not run.physics.hand:
                    turn = turns[data.draw(st.integers(0, len(turns) - 1))]
                    rng = random.Random(data.draw(st.integers(0, 2**16)))
                    for command in turn_commands(turn, rng)[:-1]:
                        run.run(command)
                    action = "press"
            if action in ("press", "hold") and run.physics.hand and data.draw(st.booleans()):
                # Usually a player puts down what they hold before pressing.
                while run.physics.hand and empty:
                    run.run(
                        Command("put", square=empty.pop(data.draw(st.integers(0, len(empty) - 1))))
                    )
            if action == "lift" and occupied:
                run.run(Command("lift", square=data.draw(st.sampled_from(occupied))))
            elif action in ("put", "put-colour") and empty:
                colour = (
                    data.draw(st.sampled_from(list(Colour))) if action == "put-colour" else None
                )
                diverged |= colour is not None
                run.run(Command("put", square=data.draw(st.sampled_from(empty)), colour=colour))
            elif action == "hold":
                diverged |= bool(run.physics.hand)  # the hold sends held marbles home
                run.run(Command("hold", seconds=data.draw(st.floats(0, 3))))
            elif action == "press":
                # The script sends held marbles home; the referee waits for a lifted one back.
                diverged |= any(m.origin is not None for m in ref.hand)
                expect = None
                if ref.state in (State.WAITING, State.TURN) and not diverged:
                    expect = expected_turn(ref.position, physical_masks(run))
                before = len(run.events)
                number = len(ref.saved.turns)
                run.run(Command("press"))
                run.finish()
                new = [e for e in run.events[before:] if e["event"] in ("turn", "rejected")]
                if ref.state is not State.CORRECTION and not diverged and expect is not None:
                    assert new and new[0]["event"] == "turn", new
                    assert new[0]["turn"] == expect.notation()
                    assert new[0]["number"] == number + 1
                elif new and not diverged and ref is run.referee and ref.position.result is None:
                    assert new[0]["event"] == "rejected" or expect is not None
            elif action == "bounce":
                run.run(Command("bounce", square=data.draw(st.integers(0, 15))))
            elif action == "slip":
                run.run(Command("slip", steps=data.draw(st.integers(0, 250))))
            elif action == "wait":
                run.run(Command("wait", seconds=data.draw(st.floats(0, 3))))
            elif action == "power-cut":
                run.run(Command("power-cut"))
            check_invariants(run, diverged)
            ref = run.referee
            if not (run.physics.pockets or run.physics.hand or ref.model or ref.hand):
                diverged = False  # nothing unseen survives an empty board and empty hands
        run.finish()
        check_invariants(run, diverged)
    finally:
        run.close()


def check_invariants(run: MockRun, diverged: bool) -> None:
    ref = run.referee
    # Never an illegal turn: the journal's turns replay through the engine.
    position = replay(ref.saved.first, ref.saved.turns)
    if ref.saved.undo == "turned":  # a take-back: the reader is on the position before
        assert replay(ref.saved.first, ref.saved.turns[:-1]) == ref.position
    else:
        assert position == ref.position
    games = {e["game"] for e in run.events if e["event"] == "turn"}
    last: list[dict[str, object]] = []  # the turn events of this game that still stand
    for e in run.events:
        if e["event"] == "turn" and e["game"] == ref.saved.game:
            last.append(e)
        elif e["event"] == "taken-back" and e["game"] == ref.saved.game:
            last = [t for t in last if int(str(t["number"])) < int(str(e["number"]))]
    assert games <= set(range(1, ref.saved.game + 1))
    if last:
        assert last[-1]["board"] == position.board()
        assert [e["turn"] for e in last] == ref.saved.turns[-len(last) :]
    if ref.state is State.WAITING and not run.drive.moving:
        assert ref.reader.occupied == run.physics.occupancy()
        if not diverged:
            assert physical_masks(run) == (position.black, position.white)
