"""What the LEDs show for each view, and that blinks and pulses run on the clock."""

from __future__ import annotations

from orbito_hw.control.lights import LightShow, Palette, View, frame_names, result_frame
from orbito_hw.hw.clock import VirtualClock
from orbito_hw.hw.interfaces import RGB, parse_rgb, rgb_hex
from orbito_hw.rules.game import Colour, Result
from orbito_hw.rules.squares import LINES, parse_square
from orbito_hw.sim.board import SimLights
from orbito_hw.sim.harness import MockRun

P = Palette()


def show(view: View) -> tuple[LightShow, SimLights, VirtualClock]:
    clock, lights = VirtualClock(), SimLights()
    light_show = LightShow(lights, clock, P)
    light_show.update(view)
    return light_show, lights, clock


def test_a_win_blinks_the_winning_line_in_the_winners_colour() -> None:
    line = LINES[0]
    _, lights, clock = show(View("result", result=Result.WHITE, lines=(line,)))
    on = [sq for sq, c in enumerate(lights.frame) if c == P.white]
    assert on == [0, 1, 2, 3] and lights.frame.count(None) == 12
    clock.advance(0.5)
    assert lights.frame == [None] * 16
    clock.advance(0.5)
    assert [sq for sq, c in enumerate(lights.frame) if c] == [0, 1, 2, 3]


def test_a_draw_pulses_the_whole_board_amber() -> None:
    _, lights, clock = show(View("result", result=Result.DRAW))
    levels = set()
    for _ in range(20):
        assert all(c is not None and c[2] == 0 and c[0] >= c[1] for c in lights.frame)
        levels.add(lights.frame[0])
        clock.advance(0.1)
    assert len(levels) > 5  # it changes: a pulse, not a steady light


def test_result_event_frame_names_lit_squares_only() -> None:
    lit = result_frame(Result.BLACK, (LINES[8],), P)
    assert frame_names(lit) == {n: rgb_hex(P.black) for n in ("a1", "b2", "c3", "d4")}


def test_correction_lights_missing_marbles_in_their_colour_and_extra_ones_red() -> None:
    view = View(
        "correction", missing=((parse_square("c3"), Colour.WHITE),), extra=(parse_square("a1"),)
    )
    _, lights, _ = show(view)
    assert lights.frame[parse_square("c3")] == P.white
    assert lights.frame[parse_square("a1")] == P.error
    assert sum(c is not None for c in lights.frame) == 2


def test_refused_squares_blink_red_and_the_status_pixel_shows_whose_turn_it_is() -> None:
    _, lights, clock = show(View("refused", Colour.BLACK, squares=(5, 9)))
    assert [sq for sq, c in enumerate(lights.frame) if c == P.error] == [5, 9]
    clock.advance(0.5)
    assert lights.frame == [None] * 16
    _, lights, _ = show(View("play", Colour.BLACK))
    assert lights.status == P.black and lights.frame == [None] * 16


def test_the_boards_turn_blinks_the_step_to_do_now_and_dims_the_steps_after_it() -> None:
    """c1-b1:c1 as far as the hands got (control/guide.py): the step now blinks at full, a
    step after it is dim and steady, a step done is dark; the status pixel blinks once
    only the press is left."""
    from orbito_hw.control.lights import follow
    from orbito_hw.control.reading import TurnReader
    from orbito_hw.rules.game import Position
    from orbito_hw.rules.turn import Turn

    position = Position.start(Colour.BLACK).play(Turn.from_notation("b1"))
    turn, reader = Turn.from_notation("c1-b1:c1"), TurnReader(position)
    c1, b1 = parse_square("c1"), parse_square("b1")

    def halves() -> tuple[dict[int, RGB], dict[int, RGB], RGB | None, RGB | None]:
        view = follow(View("play", Colour.WHITE, board_turn=turn), position, reader.marbles)
        _, lights, clock = show(view)
        first = {sq: c for sq, c in enumerate(lights.frame) if c}, lights.status
        clock.advance(0.5)
        second = {sq: c for sq, c in enumerate(lights.frame) if c}, lights.status
        return first[0], second[0], first[1], second[1]

    quarter = (0, 64, 0)  # board_to, a quarter as bright
    assert halves() == ({c1: P.board_from, b1: quarter}, {b1: quarter}, P.board, P.board)
    reader.sense(c1, False)
    assert halves() == ({b1: P.board_to, c1: (64, 64, 64)}, {c1: (64, 64, 64)}, P.board, P.board)
    reader.sense(b1, True)
    assert halves() == ({c1: P.white}, {}, P.board, P.board)
    reader.sense(c1, True)
    assert halves() == ({}, {}, P.board, None)


def test_after_a_won_game_the_board_blinks_the_line_the_result_event_names() -> None:
    import random

    from orbito_hw.rules.game import replay

    from .common.scripts import game_script

    moves = (
        "a3 a2-a1:c4 b4-b3:b2 c1-b1:b3 b2-b3:a1 d1-c1:a4 c2-d2:b4 c2-c3:b4 b2 c2-c1:a4 "
        "b3-c3:b2 b1-b2:d4 c4-d4:a2"
    )
    final = replay(Colour.BLACK, moves)
    assert final.result is Result.BLACK
    from orbito_hw.rules.turn import Turn

    turns = [Turn.from_notation(t) for t in moves.split()]
    run = MockRun()
    try:
        run.run_script(game_script(Colour.BLACK, turns, random.Random(0)))
        (result,) = [e for e in run.events if e["event"] == "result"]
        lit_names = set(dict(result["leds"]))  # type: ignore[call-overload]
        assert lit_names == {sq for line in final.line_names() for sq in line}
        seen = set()
        for _ in range(4):  # over a blink period the line is on, then off
            frame, status = run.lights_frame()
            seen.add(tuple(frame))
            assert status == P.black
            run.advance(0.25)
        on = max(seen, key=lambda f: sum(c is not None for c in f))
        assert {parse_name(sq) for sq, c in enumerate(on) if c == P.black} == lit_names
        assert (None,) * 16 in seen
    finally:
        run.close()


def parse_name(square: int) -> str:
    return "abcd"[square % 4] + str(square // 4 + 1)


def test_colour_parsing_names_the_bad_text() -> None:
    assert parse_rgb("#ff8800") == (255, 136, 0)
    for bad in ("ff8800", "#ff88", "#gg0000"):
        try:
            parse_rgb(bad)
        except ValueError as exc:
            assert bad in str(exc)
        else:
            raise AssertionError(f"{bad} parsed")


def test_lights_nobody_sees_never_blink_until_a_page_watches() -> None:
    """A board built without LEDs (``lights = "none"``) wakes for no blink; once a page taps
    the frames, the result blinks for it."""
    from orbito_hw.app.assemble import NoLights
    from orbito_hw.hw.standby import StandInLights

    clock = VirtualClock()
    lights = StandInLights()
    lights.attach(NoLights())
    light_show = LightShow(lights, clock, P)
    light_show.update(View("result", result=Result.WHITE, lines=(LINES[0],)))
    assert clock.next_due() is None  # no timer: nothing to wake for
    drawn: list[float] = []
    light_show.subscribe(lambda: drawn.append(clock.now()))
    clock.advance(1.0)
    assert drawn == [0.0, 0.5, 1.0]  # the page gets every phase of the blink


def test_a_strip_still_missing_keeps_its_blink_going() -> None:
    from orbito_hw.hw.standby import StandInLights

    clock = VirtualClock()
    light_show = LightShow(StandInLights(), clock, P)
    light_show.update(View("result", result=Result.BLACK, lines=(LINES[0],)))
    assert clock.next_due() == 0.5  # the strip may come any moment, mid-blink
