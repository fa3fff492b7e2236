"""An ask across the board on the LEDs (issue 37): while a player away's take-back ask waits,
the marbles of the turns it would take back pulse in the asker's colour and the status pixel
pulses cyan; while a draw offer waits, the four corners pulse in the offering side's colour
and the status pixel pulses orange. The frame ends when the ask is answered or lapses. The
whole controller on the simulated board, the seat as control/seat.py plays it; the prompt's
LED words (English and French) and the page's glows say the same."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from orbito_hw.control.asks import marbles_now
from orbito_hw.control.led_words import view_words
from orbito_hw.control.lights import Palette, View
from orbito_hw.control.menu import CORNERS
from orbito_hw.lang import speaking
from orbito_hw.rules.game import Colour, Position, replay
from orbito_hw.rules.squares import PRESS_TO, parse_square, squares_of
from orbito_hw.sim.script import Command
from orbito_hw.web.glows import glows

from .common.asks import Table

BLACK, WHITE = Colour.BLACK, Colour.WHITE
P = Palette()
RGB = tuple[int, int, int]


def frames(table: Table, count: int = 20) -> list[tuple[dict[int, RGB], RGB | None]]:
    """The LEDs over one pulse: the lit squares and the status pixel, every tenth second."""
    seen = []
    for _ in range(count):
        squares, status = table.run.lights_frame()
        seen.append(({sq: c for sq, c in enumerate(squares) if c is not None}, status))
        table.run.advance(0.1)
    return seen


def pulses(seen: list[tuple[dict[int, RGB], RGB | None]], squares: tuple[int, ...],
           colour: RGB, status: RGB) -> None:  # fmt: skip
    """``squares`` alone lit, in ``colour``, and the status pixel in ``status``, each at a
    brightness that rises and falls (a pulse: never dark, never steady)."""
    levels = set()
    for lit, pixel in seen:
        assert tuple(sorted(lit)) == squares
        for rgb in lit.values():
            assert _scaled(rgb, colour)
        assert pixel is not None and _scaled(pixel, status)
        levels.add(pixel)
    assert len(levels) > 5


def _scaled(rgb: RGB, full: RGB) -> bool:
    """``rgb`` is ``full`` at some brightness above nothing (rounded as the pulse rounds)."""
    level = max(rgb) / max(full)
    return 0.05 < level <= 1.0 and all(
        abs(c - f * level) <= 1.5 for c, f in zip(rgb, full, strict=True)
    )


def steady(table: Table, to_move: Colour) -> None:
    """The plain display: no square lit, the status pixel steady in the colour to move."""
    for lit, pixel in frames(table, 6):
        assert lit == {} and pixel == P.marble(to_move)


def test_a_take_back_asked_pulses_the_seats_marble_until_it_is_refused(table: Table) -> None:
    table.play("b1", "b4")
    steady(table, BLACK)
    table.seat.ask(table.referee, "take-back")
    table.run.advance(0.0)
    # b4 pressed: the seat's marble stands on the square the press took it to.
    placed = (PRESS_TO[parse_square("b4")],)
    assert marbles_now(table.turns[1:]) == placed
    pulses(frames(table), placed, P.white, P.undo)
    assert table.referee.position.colour_at(placed[0]) is WHITE
    table.referee.answer(BLACK, False, "no")
    table.run.advance(0.0)
    steady(table, BLACK)  # answered: the frame ends


def test_on_the_seats_own_turn_both_turns_marbles_pulse_and_a_hold_agrees(table: Table) -> None:
    table.play("b1", "b4", "c3")
    table.seat.ask(table.referee, "take-back")
    table.run.advance(0.0)
    both = marbles_now(table.turns[1:])
    assert len(both) == 2  # the person's c3 and the seat's b4 before it
    pulses(frames(table), both, P.white, P.undo)
    table.run.run(Command("hold", seconds=2.5))  # agreed: the take-back's own frame
    table.run.wait_for_rings()
    _, status = table.run.lights_frame()
    assert status in (P.undo, None) and table.referee.view().mode == "undo"


def test_a_draw_offered_by_the_seat_pulses_the_corners_until_the_person_plays_on(
    table: Table,
) -> None:
    table.play("b1", "b4")
    table.seat.ask(table.referee, "draw")
    table.run.advance(0.0)
    pulses(frames(table), CORNERS, P.white, P.draw)
    table.play("c3")  # played on: the offer lapses, and its frame with it
    table.run.advance(0.0)
    assert table.referee.snapshot().ask is None
    steady(table, WHITE)


def test_the_persons_draw_offer_pulses_in_their_colour_until_the_seat_declines(
    table: Table,
) -> None:
    table.play("b1", "b4")
    table.referee.ask("draw", BLACK)
    table.run.advance(0.0)
    pulses(frames(table), CORNERS, P.black, P.draw)
    table.seat.answer(table.referee, False)
    table.run.advance(0.0)
    steady(table, BLACK)


def test_the_seats_turn_on_the_lights_comes_before_its_draw_offer(table: Table) -> None:
    table.play("b1", "b4", "c3")
    table.seat.hand_in(table.referee, 4, "d4")
    table.seat.ask(table.referee, "draw")
    table.run.advance(0.0)
    view = table.referee.view()
    assert view.board_turn is not None and view.ask is None  # its turn's steps, not the ask


def test_the_words_and_the_glows_say_what_the_leds_show(table: Table) -> None:
    table.play("b1", "b4")
    table.seat.ask(table.referee, "take-back")
    table.run.advance(0.0)
    view = table.referee.view()
    assert view.ask is not None
    words = {lit.where: lit.text(P) for lit in view_words(view, P)}
    name = next(w for w in words if w != "status")
    assert words[name] == (f"{name}: white asks to take back the turn that put this marble "
                           "here (white, pulsing)")  # fmt: skip
    assert words["status"].startswith("status: white asks to take back their last turn: hold")
    assert words["status"].endswith("(cyan, pulsing)")
    glow = glows(view, P)[name]
    assert (glow["kind"], glow["blink"], glow["colour"]) == ("ask", True, "#ffffff")
    with speaking("fr"):
        said = {lit.where: lit.text(P) for lit in view_words(view, P)}
    assert "les blancs demandent" in said[name] and "pulsant" in said[name]
    assert "maintenez le bouton" in said["status"]
    table.referee.answer(BLACK, False)
    table.referee.ask("draw", BLACK)
    offered = table.referee.view()
    status = [lit.meaning for lit in view_words(offered, P) if lit.where == "status"]
    assert status == ["black offers a draw: waiting for the player away's answer"]
    assert {lit.where for lit in view_words(offered, P)} == {"a1", "d1", "a4", "d4", "status"}


def test_a_view_with_no_ask_is_drawn_as_before() -> None:
    plain = View("play", WHITE)
    assert [lit.text(P) for lit in view_words(plain, P)] == ["status: white to move (white)"]


@settings(max_examples=200, deadline=None)
@given(st.randoms(use_true_random=False), st.integers(1, 3))
def test_the_marbles_of_the_last_turns_are_followed_to_where_they_stand(
    rng: random.Random, last: int
) -> None:
    """After any legal turns, the squares lit for the last ``last`` of them hold marbles, at
    least one per marble placed; every marble not lit stood before those turns, the presses
    since having turned it (it was never moved)."""
    first, position, turns = rng.choice(list(Colour)), None, list[str]()
    position = Position.start(first)
    for _ in range(rng.randint(last, 16)):
        legal = list(position.legal_turns())
        if position.is_over or not legal:
            break
        turn = rng.choice(legal)
        position, turns = position.play(turn), [*turns, turn.notation()]
    if len(turns) < last:
        return
    lit = marbles_now(turns[-last:])
    before = replay(first, turns[:-last]).occupied
    for _ in range(last):
        before = sum(1 << PRESS_TO[sq] for sq in squares_of(before))
    assert all(position.colour_at(sq) is not None for sq in lit)
    placed = sum(1 for token in turns[-last:] if token != "*")
    assert len(lit) >= placed
    unlit = position.occupied & ~sum(1 << sq for sq in lit)
    assert unlit & ~before == 0
