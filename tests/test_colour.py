"""The board that tells black from white: the referee refuses a marble of the wrong colour,
finds a swapped pair, holds a set-up to its colours, and plays on exactly as before when
nobody errs in colour; the simulated hall sensors' readings near their thresholds never
make a wrong colour or lose a turn.

``COLOUR_BACKENDS`` are the backends whose sensors tell colours on the simulated board: the
scenarios here run on each (the gpio backend reads the hall sensors through the ADC on a
fake I2C bus, the serial backend through the Pico). The golden script
tests/golden/wrong_colour.txt is run on each of them by test_golden.py."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from orbito_hw.control.debounce import Debouncer
from orbito_hw.control.events import Correction, Rejected, from_json
from orbito_hw.control.led_words import view_words
from orbito_hw.control.lights import Palette, View
from orbito_hw.control.referee import State
from orbito_hw.hw.clock import VirtualClock
from orbito_hw.hw.hall import DESIGN, Seen, classify, default_calibration
from orbito_hw.hw.interfaces import BACKENDS, Backend, SquareListener, tells_colour
from orbito_hw.rules.game import Colour, Position
from orbito_hw.rules.squares import parse_square, square_name
from orbito_hw.sim.hall_sensors import SimHall
from orbito_hw.sim.harness import MockRun
from orbito_hw.sim.script import parse_script
from orbito_hw.web.instruction import Situation, instruction

from .common.scripts import game_script, kinds, random_game

# Every backend tells colours: the reference board's (tmag) by light (hw/light.py).
COLOUR_BACKENDS = BACKENDS

OPENING = """
reset black
put b1
press            # black b1 -> c1
put a2
press            # white a2 -> a1
"""  # black to move: c1 black, a1 white


def play(text: str, backend: Backend = "sim", colour: bool = True) -> MockRun:
    run = MockRun(parts=backend, colour=colour)
    commands = parse_script(text)
    for i, command in enumerate(commands):
        run.run(command, first_command=i == 0)
    run.finish()
    return run


@pytest.mark.parametrize("backend", COLOUR_BACKENDS)
def test_a_marble_of_the_wrong_colour_is_refused_then_the_right_one_accepted(
    backend: Backend,
) -> None:
    run = play(OPENING + "put d3 white\npress\n", backend)
    try:
        assert tells_colour(run.parts.sensors)
        rejected = kinds(run.events, "rejected")
        assert rejected == [
            {"event": "rejected", "game": 1, "reason": "d3 holds a white marble: black's turn",
             "squares": ["d3"], "seen": {"d3": "white"}}
        ]  # fmt: skip
        assert len(kinds(run.events, "turn")) == 2
        d3 = parse_square("d3")
        view = run.referee.view()
        assert view.mode == "refused" and view.squares == (d3,)
        words = [lit.text(Palette()) for lit in view_words(view, Palette())]
        assert words[0].startswith("d3: wrong: a white marble: black's turn")
        for command in parse_script("lift d3\nput d3 black\npress\n"):
            run.run(command)
        run.finish()
        assert kinds(run.events, "turn")[-1]["turn"] == "d3"
    finally:
        run.close()


def test_a_marble_of_the_wrong_colour_is_still_refused_after_a_power_cut() -> None:
    """The journal keeps the puts, not their colours: after the restart the sensors give
    the placed marble its colour again, and the press refuses it as it would have."""
    run = play(OPENING + "put d3 white\npower-cut\npress\n")
    try:
        [rejected] = kinds(run.events, "rejected")
        assert rejected["reason"] == "d3 holds a white marble: black's turn"
        assert not kinds(run.events, "correction")
    finally:
        run.close()


def test_presence_only_sensors_accept_the_wrong_colour_as_before() -> None:
    run = play(OPENING + "put d3 white\npress\n", colour=False)
    try:
        assert not tells_colour(run.parts.sensors)
        assert not kinds(run.events, "rejected")
        assert kinds(run.events, "turn")[-1]["turn"] == "d3"
    finally:
        run.close()


def test_the_moved_marble_must_be_the_opponents_colour() -> None:
    """A black marble from the supply put beside the white it stands for: the white is
    still in the hand, and the black is black's own placing, not the move."""
    run = play(OPENING + "lift a1\nput b1 black\nput a2 black\npress\n")
    try:
        [rejected] = kinds(run.events, "rejected")
        assert rejected["reason"] == "the marble lifted from a1 is not back on the board"
    finally:
        run.close()


def test_a_swapped_pair_is_found_after_the_press() -> None:
    """Two marbles of the two colours swapped while nobody looks: the squares read full as
    before, so presence sees nothing; the colours show the pair after the ring move."""
    run = play(OPENING + "put d3\n")
    try:
        d1, a1 = parse_square("d1"), parse_square("a1")
        physics = run.physics
        # Swapped in their pockets as the button goes down, unread until the rings turn.
        pockets = {sq: physics._pocket_near(sq)[0] for sq in (d1, a1)}
        black, white = physics.pockets[pockets[d1]], physics.pockets[pockets[a1]]
        physics.pockets[pockets[d1]], physics.pockets[pockets[a1]] = white, black
        run.run(parse_script("press")[0])
        run.finish()
        assert kinds(run.events, "turn")[-1]["turn"] == "d3"  # the touches made d3
        [correction] = kinds(run.events, "correction")
        seen = correction["seen"]
        assert isinstance(seen, dict) and sorted(seen.values()) == ["black", "white"]
        assert correction["squares"] == sorted(seen, key=parse_square)
        assert run.referee.state is State.CORRECTION
        # the LEDs ask for the colour that belongs on each: the other than the one seen
        wanted = {square_name(sq): c.value for sq, c in run.referee.view().missing}
        assert wanted == {name: Colour.parse(c).other.value for name, c in seen.items()}
    finally:
        run.close()


def test_a_set_up_with_a_wrong_colour_is_refused_until_it_is_fixed() -> None:
    run = play("setup black b1 a2 c3\n")
    try:
        target = run.referee.position
        black = [sq for sq in range(16) if target.black >> sq & 1]
        white = [sq for sq in range(16) if target.white >> sq & 1]
        assert black and white
        wrong = white[0]
        text = "".join(f"put {square_name(sq)} black\n" for sq in [*black, wrong])
        text += "".join(f"put {square_name(sq)} white\n" for sq in white[1:])
        for command in parse_script(text + "press\n"):
            run.run(command)
        run.finish()
        assert run.referee.state is State.SETTING_UP  # every square full, one the wrong colour
        [rejected] = kinds(run.events, "rejected")
        name = square_name(wrong)
        assert rejected["squares"] == [name] and rejected["seen"] == {name: "black"}
        assert f"{name} holds a black marble, white belongs there" in str(rejected["reason"])
        assert run.referee.view().missing == ((wrong, Colour.WHITE),)
        for command in parse_script(f"lift {name}\nput {name} white\n"):
            run.run(command)
        run.finish()
        assert kinds(run.events, "setup-done")
        assert run.referee.view().mode == "play"
    finally:
        run.close()


# --- the readings near their thresholds --------------------------------------------------
MARGIN_NOISE = 2 * DESIGN.noise_rms_g  # twice the design's noise: the margin's check
NOISE_SPAN = 5 * MARGIN_NOISE  # a reading's noise, at most (five sigma of twice the noise)


@given(
    colour=st.sampled_from([None, Colour.BLACK, Colour.WHITE]),
    offset=st.floats(-DESIGN.offset_spread_g, DESIGN.offset_spread_g),
    share=st.floats(0.0, 1.0),
    stray=st.floats(-DESIGN.empty_strongest_g, DESIGN.empty_strongest_g),
    noise=st.lists(st.floats(-NOISE_SPAN, NOISE_SPAN), min_size=1, max_size=20),
)
def test_uncalibrated_readings_inside_the_margins_read_the_truth_every_time(
    colour: Colour | None, offset: float, share: float, stray: float, noise: list[float]
) -> None:
    """Any marble of the design's range, through any offset, any stray field and noise of
    twice the design's at five sigma, read against the design's default levels (a board
    not yet calibrated): every reading, from whatever was read before, is the truth."""
    d = DESIGN
    field = {
        None: stray,
        Colour.BLACK: d.black_weakest_g + share * (d.black_strongest_g - d.black_weakest_g),
        Colour.WHITE: d.white_weakest_g + share * (d.white_strongest_g - d.white_weakest_g),
    }[colour]
    truth = {None: Seen.EMPTY, Colour.BLACK: Seen.BLACK, Colour.WHITE: Seen.WHITE}[colour]
    levels = default_calibration().squares[0]
    for previous in Seen:
        seen = previous
        for n in noise:
            seen = classify(offset + field + n, levels, seen)
            assert seen is truth


class NoisySquares:
    """Hall sensors read every ``period`` seconds, noise drawn for each reading: what the
    debouncer sees of a real board's ADC scan (ColourSensors)."""

    def __init__(self, hall: SimHall, clock: VirtualClock, period: float = 0.1) -> None:
        self.hall, self.clock = hall, clock
        self.truth: dict[int, Colour] = {}
        self.listeners: list[SquareListener] = []
        self.seen = [Seen.EMPTY] * 16
        clock.call_later(period, lambda: self._scan(period))

    def _scan(self, period: float) -> None:
        for sq in range(16):
            old, new = self.seen[sq], self.hall.sample(sq, self.truth.get(sq))
            self.seen[sq] = new
            if old is not new:
                for listener in self.listeners:
                    if Seen.EMPTY not in (old, new):
                        listener(sq, False, self.clock.now())
                    listener(sq, new is not Seen.EMPTY, self.clock.now())
        self.clock.call_later(period, lambda: self._scan(period))

    def read(self) -> int:
        return sum(1 << sq for sq in range(16) if self.seen[sq] is not Seen.EMPTY)

    def colours(self) -> tuple[int, int]:
        black = sum(1 << sq for sq in range(16) if self.seen[sq] is Seen.BLACK)
        return black, self.read() & ~black

    def subscribe(self, listener: SquareListener) -> None:
        self.listeners.append(listener)

    def close(self) -> None:
        self.listeners.clear()


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**16),
    calibrated=st.booleans(),
    puts=st.lists(
        st.tuples(st.integers(0, 15), st.sampled_from([None, Colour.BLACK, Colour.WHITE])),
        min_size=1,
        max_size=12,
    ),
)
def test_debounced_colours_follow_the_marbles_through_noise(
    seed: int, calibrated: bool, puts: list[tuple[int, Colour | None]]
) -> None:
    """Marbles put on and lifted off, read through noise twice the design's: once settled,
    the debounced colours are the marbles' (never a wrong colour, never one missed), and a
    colour is passed on only with its put."""
    clock = VirtualClock()
    hall = SimHall(seed, replace(DESIGN, noise_rms_g=MARGIN_NOISE), calibrated=calibrated)
    squares = NoisySquares(hall, clock)
    debounced = Debouncer(squares, clock, 0.05)
    heard: list[tuple[int, bool, int]] = []
    debounced.subscribe(
        lambda sq, present, when: heard.append((sq, present, debounced.colours()[0]))
    )
    for square, colour in puts:
        if colour is None:
            squares.truth.pop(square, None)
        else:
            squares.truth[square] = colour
        clock.advance(0.5)
        black = sum(1 << sq for sq, c in squares.truth.items() if c is Colour.BLACK)
        white = sum(1 << sq for sq, c in squares.truth.items() if c is Colour.WHITE)
        assert debounced.colours() == (black, white)
    changes = len(heard)
    clock.advance(5.0)  # nothing moves: noise alone passes nothing on
    assert len(heard) == changes


@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**16), calibrated=st.booleans())
def test_a_whole_game_on_noisy_hall_sensors_loses_no_turn(seed: int, calibrated: bool) -> None:
    """A random game on a simulated board of random sensors (offsets, fields), calibrated or
    not, with noise twice the design's: every turn is accepted, none refused."""
    rng = random.Random(seed)
    first, turns = random_game(rng)
    run = MockRun()
    hall = SimHall(seed, replace(DESIGN, noise_rms_g=MARGIN_NOISE), calibrated=calibrated)
    run.physics.hall = hall
    try:
        for command in game_script(first, turns, rng):
            run.run(command)
        run.finish()
        assert not kinds(run.events, "rejected", "correction")
        assert len(kinds(run.events, "turn")) == len(turns)
    finally:
        run.close()


def test_the_page_asks_for_a_marble_of_the_wrong_colour_to_be_swapped() -> None:
    d3, b1 = parse_square("d3"), parse_square("b1")
    view = View(
        "correction",
        Colour.WHITE,
        missing=((b1, Colour.BLACK), (d3, Colour.BLACK)),
        seen=((d3, Colour.WHITE),),
    )
    situation = Situation(State.CORRECTION.value, view, Position.start(Colour.WHITE))
    assert instruction(situation)[1] == (
        "Put b1 (black) back; swap the white marble on d3 for a black one"
    )


def test_seen_is_in_the_json_only_when_a_colour_is_wrong_and_reads_back() -> None:
    d3 = parse_square("d3")
    plain = Rejected(1, "place one of your own marbles, then press", (d3,))
    assert "seen" not in plain.to_json() and "seen" not in Correction(1, (d3,)).to_json()
    for event in (
        Rejected(1, "d3 holds a white marble: black's turn", (d3,), ((d3, Colour.WHITE),)),
        Correction(1, (d3,), ((d3, Colour.BLACK),)),
    ):
        data = event.to_json()
        assert data["seen"] == {"d3": event.seen[0][1].value}
        assert from_json(data) == event
    with pytest.raises(ValueError, match="seen"):
        from_json({"event": "correction", "game": 1, "squares": ["d3"], "seen": ["d3"]})


def test_a_colour_changed_under_a_marble_is_passed_on_as_a_lift_then_a_put() -> None:
    """Black read, then white with no empty reading between (a lift and a put at the same
    moment): the debouncer settles it as one change, a lift then a put, the colour with it."""
    clock = VirtualClock()
    squares = NoisySquares(SimHall(3), clock)
    debounced = Debouncer(squares, clock, 0.05)
    heard: list[tuple[int, bool, tuple[int, int]]] = []
    debounced.subscribe(lambda sq, present, _: heard.append((sq, present, debounced.colours())))
    squares.truth[5] = Colour.BLACK
    clock.advance(0.5)
    squares.truth[5] = Colour.WHITE
    clock.advance(0.5)
    assert heard == [(5, True, (1 << 5, 0)), (5, False, (0, 1 << 5)), (5, True, (0, 1 << 5))]
