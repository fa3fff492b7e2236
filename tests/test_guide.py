"""What is left to do now (control/guide.py), in every guided flow: the model itself, then
each flow driven through the real referee with the simulated board, the LED frame, the LEDs
in words and the page's line and glows checked after each of the person's steps."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from orbito_hw.app.logs import describe
from orbito_hw.control import guide
from orbito_hw.control.board_player import BoardPlayer
from orbito_hw.control.events import Rejected, TakenBack
from orbito_hw.control.led_words import view_words
from orbito_hw.control.lights import LightShow, Palette, View, follow, guide_frame
from orbito_hw.control.reading import TurnReader
from orbito_hw.control.referee import State
from orbito_hw.control.settings import Settings
from orbito_hw.hw.clock import VirtualClock
from orbito_hw.hw.interfaces import RGB
from orbito_hw.rules.game import Colour, Position
from orbito_hw.rules.squares import SQUARES, parse_square, square_name
from orbito_hw.rules.turn import Turn
from orbito_hw.sim.board import SimLights
from orbito_hw.sim.harness import MockRun, board_player
from orbito_hw.sim.script import parse_script
from orbito_hw.solver.opponents import parse_level
from orbito_hw.web.glows import arrow, glows
from orbito_hw.web.instruction import Memory, instruction, read

P = Palette()
B, W = Colour.BLACK, Colour.WHITE


def dim(colour: RGB) -> RGB:
    return (round(colour[0] / 4), round(colour[1] / 4), round(colour[2] / 4))


# --- the model ---------------------------------------------------------------------------
def start_c1() -> Position:
    """Black's b1 pressed to c1: white (the board) to move."""
    return Position.start(B).play(Turn.from_notation("b1"))


def progress(g: guide.Guide) -> list[tuple[str, str, str]]:
    return [
        (s.action, square_name(s.square) if s.square is not None else "", s.progress)
        for s in g.steps
    ]


def test_the_boards_turn_step_by_step_lift_then_put_then_place_then_press() -> None:
    position, turn = start_c1(), Turn.from_notation("c1-b1:c1")
    steps = [
        ({parse_square("c1"): B}, ["now", "waiting", "waiting", "waiting"]),
        ({}, ["done", "now", "waiting", "waiting"]),  # c1 lifted
        ({parse_square("b1"): B}, ["done", "done", "now", "waiting"]),  # put on b1
        ({parse_square("b1"): B, parse_square("c1"): W}, ["done", "done", "done", "now"]),
    ]
    for now, expected in steps:
        made = guide.board_turn(position, turn, now)
        assert [s.progress for s in made.steps] == expected
        assert [s.action for s in made.steps] == ["lift", "put", "place", "press"]
        assert not made.fixes
    assert guide.board_turn(position, turn, steps[-1][0]).press_now


def test_a_marble_placed_before_the_move_or_put_astray_is_a_fix_done_first() -> None:
    position, turn = start_c1(), Turn.from_notation("c1-b1:a1")
    c1, a1, d1 = (parse_square(n) for n in ("c1", "a1", "d1"))
    early = guide.board_turn(position, turn, {c1: B, a1: W})
    assert progress(early)[0] == ("take-off", "a1", "now")
    assert [s.progress for s in early.steps[1:]] == ["waiting"] * 4  # the turn waits
    astray = guide.board_turn(position, turn, {d1: B})  # c1 lifted, put on d1
    assert [(s.action, s.square) for s in astray.fixes] == [("take-off", d1)]
    swapped = guide.board_turn(position, turn, {c1: W})  # white placed where black stands
    assert [(s.action, s.square) for s in swapped.fixes] == [("take-off", c1)]


def test_a_take_back_lifts_first_then_puts_back_the_moved_marble() -> None:
    target = start_c1()  # undoing c1-b1:c1: white off c1, the black from b1 back on c1
    made = guide.undo(target, {parse_square("b1"): B, parse_square("c1"): W})
    assert progress(made) == [
        ("take-off", "b1", "now"),
        ("take-off", "c1", "now"),
        ("put-back", "c1", "waiting"),
    ]
    after = guide.undo(target, {parse_square("b1"): B})  # the white lifted off c1
    assert progress(after) == [("take-off", "b1", "now"), ("put-back", "c1", "waiting")]
    assert progress(guide.undo(target, {})) == [("put-back", "c1", "now")]  # b1 lifted


# --- through the referee -----------------------------------------------------------------
def against(colour: Colour, seed: int, player: BoardPlayer | None = None) -> MockRun:
    chosen = player or board_player(parse_level("perfect"), colour, seed)
    return MockRun(settings=Settings(opponent=chosen), seed=seed)


def play(run: MockRun, script: str) -> None:
    for command in parse_script(script):
        run.run(command)
    run.wait_for_rings()


def lights(run: MockRun) -> tuple[dict[str, set[RGB | None]], set[RGB | None]]:
    """Each lit square's colours over a whole blink (None: dark half the time), and the
    status pixel's."""
    seen: dict[str, set[RGB | None]] = {}
    status: set[RGB | None] = set()
    for _ in range(4):
        frame, pixel = run.lights_frame()
        for sq, colour in enumerate(frame):
            seen.setdefault(square_name(sq), set()).add(colour)
        status.add(pixel)
        run.advance(0.25)
    return {sq: c for sq, c in seen.items() if c != {None}}, status


def words(run: MockRun, who: str = "the board") -> dict[str, str]:
    now = run.referee.snapshot()
    return {lit.where: lit.text(now.palette) for lit in view_words(now.view, now.palette, who)}


def line(run: MockRun) -> str:
    return instruction(read(run.referee.snapshot(), Memory()))[1]


def test_the_boards_turn_follows_the_hands_the_issues_example() -> None:
    """``run --mock --interactive --opponent perfect:white --seed 3``, ``put b1``, ``press``:
    the board plays c1-b1:c1, and the LEDs, their words and the page's line change with
    each lift and put, not only at the press."""
    run = against(W, 3)
    try:
        play(run, "put b1\npress\n")
        assert run.referee.board_turn == Turn.from_notation("c1-b1:c1")
        assert lights(run) == (
            {"c1": {P.board_from, None}, "b1": {dim(P.board_to)}},
            {P.board},
        )
        assert words(run) == {
            "c1": "c1: lift this marble (yellow, blinking)",
            "b1": "b1: then put the marble from c1 here (green, dim)",
            "status": "status: the board's turn: make it for it and press (purple)",
        }
        assert (
            line(run)
            == "The board's turn: move c1 to b1, then place a white marble on c1, then press"
        )
        assert arrow(run.referee.snapshot().view) == ["c1", "b1"]
        play(run, "lift c1\n")
        assert lights(run) == ({"b1": {P.board_to, None}, "c1": {dim(P.white)}}, {P.board})
        assert words(run)["b1"] == "b1: put the marble from c1 here (green, blinking)"
        assert words(run)["c1"] == "c1: then place a white marble here (white, dim)"
        assert line(run) == (
            "The board's turn: put the marble from c1 on b1, then place a white marble on c1, "
            "then press"
        )
        play(run, "put b1\n")
        assert lights(run) == ({"c1": {P.white, None}}, {P.board})  # b1 done: dark
        assert words(run)["c1"] == "c1: place a white marble here (white, blinking)"
        assert line(run) == "The board's turn: place a white marble on c1, then press"
        assert arrow(run.referee.snapshot().view) is None
        play(run, "put c1\n")
        assert lights(run) == ({}, {P.board, None})  # only the press left: it blinks
        assert words(run) == {
            "status": "status: the board's turn: made; now press (purple, blinking)"
        }
        assert line(run) == "The board's turn: made: now press"
        play(run, "press\n")
        assert run.referee.saved.turns == ["b1", "c1-b1:c1"]
    finally:
        run.close()


def test_a_marble_placed_before_the_boards_move_is_lit_to_take_off_first() -> None:
    run = against(W, 1)
    try:
        play(run, "put b1\npress\n")
        assert run.referee.board_turn == Turn.from_notation("c1-b1:a1")
        play(run, "put a1\n")  # placed first: the board's turn moves first
        lit, status = lights(run)
        assert lit == {"a1": {P.error, None}, "c1": {dim(P.board_from)}, "b1": {dim(P.board_to)}}
        assert status == {P.error}
        assert words(run)["a1"] == "a1: wrong: take this marble off (red, blinking)"
        assert words(run)["status"] == (
            "status: the board's turn: first put right the squares lit at full (red)"
        )
        assert line(run).startswith("The board's turn: take the marble off a1, then move c1 to b1")
        play(run, "lift a1\n")  # back to the start of the turn
        assert lights(run)[0] == {
            "c1": {P.board_from, None},
            "b1": {dim(P.board_to)},
            "a1": {dim(P.white)},
        }
    finally:
        run.close()


def test_a_press_with_nothing_placed_names_no_square() -> None:
    run = MockRun()
    try:
        play(run, "put b1\npress\npress\n")  # white presses with nothing placed
        refused = run.typed_events[-1]
        assert isinstance(refused, Rejected) and refused.squares == ()
        assert lights(run) == ({}, {P.error})
        assert words(run) == {"status": "status: refused: place a marble, then press (red)"}
        text = describe(refused)[1]
        assert "squares" not in text and "(none)" not in text
        memory = Memory()
        memory.hear(refused)
        sentence = instruction(read(run.referee.snapshot(), memory))[1]
        assert sentence == "Not accepted: place one of your own marbles, then press"
    finally:
        run.close()


def test_a_wrong_execution_of_the_boards_turn_names_only_where_something_was_done() -> None:
    """The board plays c1-b1:c1; the person moves c1 to d1 and places on c1: only d1 is
    wrong (b1, where nothing was done, is still to do, not an undo)."""
    run = against(W, 3)
    try:
        play(run, "put b1\npress\nlift c1\nput d1\nput c1\npress\n")
        refused = run.typed_events[-1]
        assert isinstance(refused, Rejected)
        assert [square_name(sq) for sq in refused.squares] == ["d1"]
        lit, status = lights(run)
        assert lit == {"d1": {P.error, None}, "b1": {dim(P.board_to)}} and status == {P.error}
        assert words(run) == {
            "b1": "b1: then put the marble from c1 here (green, dim)",
            "d1": "d1: wrong: undo what was done here (red, blinking)",
            "status": "status: refused: the red squares are wrong (red)",
        }
        snapshot = run.referee.snapshot()
        memory = Memory()
        memory.hear(refused)
        sentence = instruction(read(snapshot, memory))[1]
        assert sentence == (
            "Not accepted: the board's turn is c1-b1:c1, not c1-d1:c1. Fix the squares ringed "
            "red: d1. The board asks: put the marble from c1 on b1, then press"
        )
        assert {n: g["kind"] for n, g in glows(snapshot.view, P).items()} == {
            "b1": "to",
            "d1": "fix",
        }
        play(run, "lift d1\n")  # the marble in the hand again: put it on b1
        assert lights(run) == ({"b1": {P.board_to, None}}, {P.board})
        play(run, "put b1\npress\n")
        assert run.referee.saved.turns[-1] == "c1-b1:c1"
    finally:
        run.close()


def test_a_take_back_refused_mid_turn_lights_what_to_put_back_and_take_off() -> None:
    """A hold while a turn is half made is refused until the board stands as the last turn
    left it: the marble placed is to take off (red), the marble lifted to put back (its
    colour), each going dark once done; then the hold takes the turn back."""
    run = MockRun()
    try:
        play(run, "put b1\npress\nlift c1\nput b1\nput a1\nhold 2.5\n")
        refused = run.typed_events[-1]
        assert isinstance(refused, Rejected)
        assert [square_name(sq) for sq in refused.squares] == ["a1", "b1", "c1"]
        lit, status = lights(run)
        assert lit == {"a1": {P.error, None}, "b1": {P.error, None}, "c1": {dim(P.black)}}
        assert status == {P.error}
        assert words(run) == {
            "a1": "a1: wrong: take this marble off (red, blinking)",
            "b1": "b1: wrong: take this marble off (red, blinking)",
            "c1": "c1: then put a black marble back here (blue, dim)",
            "status": "status: refused: first put the lit squares right (red)",
        }
        memory = Memory()
        memory.hear(refused)
        assert instruction(read(run.referee.snapshot(), memory))[1] == (
            "Not accepted: put the board back as the last turn left it, then hold to take it "
            "back. Take the marble off a1, then take the marble off b1, then put a black "
            "marble back on c1"
        )
        play(run, "lift a1\nlift b1\nput c1\nhold 2.5\n")
        assert run.referee.state is State.UNDOING
    finally:
        run.close()


def test_a_remote_boards_turn_follows_the_hands_too() -> None:
    turn = Turn.from_notation("c1-b1:a1")
    remote = BoardPlayer(W, lambda position: turn if position.placed else None, "remote", "remote")
    run = against(W, 1, remote)
    try:
        play(run, "put b1\npress\n")
        run.referee.offer()
        assert run.referee.board_turn == turn
        assert words(run, "white's board")["status"] == (
            "status: white's board's turn: make it for it and press (purple)"
        )
        play(run, "lift c1\nput b1\n")
        assert lights(run) == ({"a1": {P.white, None}}, {P.board})
        assert line(run) == "White's board plays c1-b1:a1: place a white marble on a1, then press"
    finally:
        run.close()


def test_a_correction_lights_what_is_left_and_each_fix_goes_dark() -> None:
    run = MockRun()
    try:
        play(run, "put a1\n")
        run.finger(True)
        run.advance(0.05)
        run.finger(False)
        for _ in range(5000):
            if run.referee.state is State.VERIFYING:
                break
            run.advance(0.005)
        run.physics.put(parse_square("b4"), W)  # knocked in while the rings settle
        run.physics.put(parse_square("c4"), W)
        run.wait_for_rings()
        assert run.referee.state is State.CORRECTION
        assert lights(run) == ({"b4": {P.error}, "c4": {P.error}}, {P.error})
        assert words(run)["b4"] == "b4: take this marble off (red)"
        assert line(run) == "Take the marbles off b4 and c4"
        snapshot = run.referee.snapshot()
        assert glows(snapshot.view, P)["b4"]["step"] == "now"
        play(run, "lift b4\n")
        assert lights(run) == ({"c4": {P.error}}, {P.error})
        assert line(run) == "Take the marble off c4"
        play(run, "lift c4\n")
        assert run.referee.state is not State.CORRECTION
    finally:
        run.close()


def test_a_set_up_lights_one_colour_then_the_other_and_the_page_draws_it() -> None:
    run = MockRun()
    try:
        play(run, "setup white b1 a1\n")  # white b1 -> c1, black a1 -> b1... as the rings go
        asked = run.referee.position
        whites = [square_name(s) for s in SQUARES if asked.colour_at(s) is W]
        blacks = [square_name(s) for s in SQUARES if asked.colour_at(s) is B]
        lit, _status = lights(run)
        assert lit == {**{n: {P.white} for n in whites}, **{n: {dim(P.black)} for n in blacks}}
        kinds = {
            n: (g["kind"], g["step"]) for n, g in glows(run.referee.snapshot().view, P).items()
        }
        assert kinds == {
            **{n: ("place", "now") for n in whites},
            **{n: ("place", "waiting") for n in blacks},
        }
        assert words(run)[blacks[0]] == f"{blacks[0]}: then put a black marble here (blue, dim)"
        assert words(run)[whites[0]] == f"{whites[0]}: put a white marble here (white)"
        play(run, "".join(f"put {n}\n" for n in whites))
        assert words(run)[blacks[0]] == f"{blacks[0]}: put a black marble here (blue)"
        assert whites[0] not in words(run)
        assert lights(run)[0] == {n: {P.black} for n in blacks}  # the whites done: dark
        assert line(run) == f"Set the position up: put black on {' and '.join(blacks)} (lit)"
    finally:
        run.close()


def test_a_take_back_of_the_boards_turn_lifts_then_puts_back() -> None:
    run = against(W, 3)
    try:
        play(run, "put b1\npress\nlift c1\nput b1\nput c1\npress\nhold 2.5\n")
        assert run.referee.state is State.UNDOING
        # The rings turned back: the board's marbles as made before its press.
        lit, status = lights(run)
        assert lit == {"b1": {P.undo, None}, "c1": {P.undo, None}} and status == {P.undo, None}
        assert line(run) == "Undo: take the marble off b1 and c1, then put black on c1 back"
        play(run, "lift c1\n")  # the white off: c1 waits for the black from b1
        assert lights(run)[0] == {"b1": {P.undo, None}, "c1": {dim(P.black)}}
        assert words(run)["c1"] == "c1: then put a black marble back here (blue, dim)"
        assert line(run) == "Undo: take the marble off b1, then put black on c1 back"
        play(run, "lift b1\n")
        assert lights(run)[0] == {"c1": {P.black}}
        assert words(run)["c1"] == "c1: put a black marble back here (blue)"
        play(run, "put c1\n")  # turn 2 undone; the person's turn 1 goes back with it
        assert [e.number for e in run.typed_events if isinstance(e, TakenBack)] == [2]
    finally:
        run.close()


# --- the frame lights exactly what is left -------------------------------------------------
def touches_of(turn: Turn) -> list[tuple[bool, int]]:
    """The board's turn as a person makes it: lift, put, place (put?, square)."""
    out: list[tuple[bool, int]] = []
    if turn.move_from is not None and turn.move_to is not None:
        out += [(False, turn.move_from), (True, turn.move_to)]
    if turn.place is not None:
        out.append((True, turn.place))
    return out


def frame_at(view: View) -> dict[int, RGB]:
    lights = SimLights()
    show = LightShow(lights, VirtualClock(), P)
    show.update(view)
    frame, _status = lights.shown()
    return {sq: c for sq, c in enumerate(frame) if c is not None}


@settings(max_examples=150, deadline=None)
@given(
    tokens=st.lists(st.integers(0, 10_000), max_size=10),
    pick=st.integers(0, 10_000),
    made=st.integers(0, 3),
    astray=st.one_of(st.none(), st.integers(0, 15)),
)
def test_the_frame_lights_exactly_the_squares_left(
    tokens: list[int], pick: int, made: int, astray: int | None
) -> None:
    """A random position, a random board's turn in it, the first ``made`` of its touches
    and maybe one touch astray: the LEDs light exactly the squares the guide has steps left
    on; done steps are dark; a touch astray is a fix, lit red."""
    position = Position.start(B)
    for n in tokens:
        if position.is_over:
            break
        legal = [t for t in position.legal_turns() if t.place is not None]
        if not legal:
            break
        position = position.play(legal[n % len(legal)])
    legal = [t for t in position.legal_turns() if t.place is not None]
    if position.is_over or not legal:
        return
    turn = legal[pick % len(legal)]
    reader = TurnReader(position)
    touches = touches_of(turn)[:made]
    for put, sq in touches:
        reader.sense(sq, put)
    turn_squares = {sq for _, sq in touches_of(turn)}
    if astray is not None and astray not in turn_squares:
        reader.sense(astray, not reader.holds(astray))
    view = follow(View("play", position.to_move, board_turn=turn), position, reader.marbles)
    g = view.guide
    assert g is not None
    left = {s.square for s in g.left() if s.square is not None}
    assert set(frame_at(view)) == left == set(guide_frame(g, P))
    turn_steps = [s for s in g.steps if s.action not in guide.FIXES and s.action != "press"]
    done = turn_steps[: len(touches)]
    assert all(s.done for s in done)  # each touch made is a step done, in order
    assert not any(s.done for s in turn_steps[len(touches) :])
    if astray is not None and astray not in turn_squares:
        assert [s.square for s in g.fixes] == [astray]
        assert frame_at(view)[astray] in (P.error, P.marble(position.colour_at(astray) or B))
    else:
        assert not g.fixes
        assert g.press_now == (len(touches) == len(touches_of(turn)))


@pytest.mark.parametrize(
    "make",
    [
        lambda: View("correction", W, missing=((0, B),), extra=(1,)),
        lambda: View("setup", B, missing=((0, B),), extra=(5,), later=((1, W),)),
        lambda: View("undo", W, missing=((2, B),), extra=(3,)),
        lambda: View("refused", W, squares=(4,)),
    ],
)
def test_every_guided_view_lights_its_guides_squares(make: Callable[[], View]) -> None:
    view = make()
    g = guide_of_view(view)
    assert set(frame_at(view)) == {s.square for s in g.left() if s.square is not None}
    assert {n for n in glows(view, P)} == {square_name(sq) for sq in g.shown()}


def guide_of_view(view: View) -> guide.Guide:
    from orbito_hw.control.lights import guide_of

    g = guide_of(view)
    assert g is not None
    return g
