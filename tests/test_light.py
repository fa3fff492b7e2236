"""Colour told by light on the reference board (hw/light.py, hw/light_front.py): the reading
takes the room's light off and names a saturated one too bright; the simulated board's light
(the optical model's figures, sim/light_board.py) read through the real reader on an
emulated ADS1115 never gives a wrong colour in any pose, room light or part inside the
model's margins; a put is told once its colour is read, a ring move's marbles are read again,
a square too bright is a fault the players see (no colour, no turn refused), and nothing is
read while the board waits. The calibration's file and the doctor's walk on this board."""

from __future__ import annotations

import math
import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from orbito_hw.control.events import Rejected, from_json
from orbito_hw.control.referee import State
from orbito_hw.hw.light import RETRY_S, LightColours
from orbito_hw.hw.light_calibration import FILE_NAME, load_light_calibration
from orbito_hw.hw.light_front import (
    NEED,
    ROOMS,
    Conversion,
    SquareLight,
    model_light_calibration,
    optics,
    reading,
)
from orbito_hw.rules.game import Colour
from orbito_hw.rules.squares import SQUARES, parse_square, square_name
from orbito_hw.sim.harness import MockRun
from orbito_hw.sim.script import parse_script
from orbito_hw.sim.world import SimWorld

from .common.scripts import kinds

OPTICS = optics()


# --- the reading's arithmetic --------------------------------------------------------------
def conversions(
    led_v: float,
    room: object,
    lit: int = 5,
    dark: int = 16,
    spacing: float | None = None,
    full_scale: float = 2.048,
) -> list[Conversion]:
    """A reading's conversions as the reader takes them: ``room(t)`` (volts) under all of
    them, ``led_v`` on the lit ones, the flash's frame and settling between the runs. Each
    conversion is its input's mean over the conversion (the ADS1115 integrates); one every
    ``spacing`` seconds (the bus's pace: at least a conversion's time)."""
    tc = spacing or OPTICS.conversion_s
    gap = OPTICS.frame_s + OPTICS.settle_s
    out: list[Conversion] = []
    t = 0.0
    for n, is_lit in ((dark, False), (lit, True), (dark, False)):
        t += gap
        for _ in range(n):
            t += tc
            at = t - OPTICS.conversion_s / 2
            mean = sum(room(t - OPTICS.conversion_s * (k + 0.5) / 32) for k in range(32)) / 32  # type: ignore[operator]
            out.append(Conversion(at, mean + (led_v if is_lit else 0.0), is_lit, full_scale))
    return out


def lamp(level: float, hz: float, phase: float) -> object:
    return lambda t: level * math.pi / 2 * abs(math.sin(math.pi * hz * t + phase))


@pytest.mark.parametrize("mains", [50, 60])
@pytest.mark.parametrize("phase", [0.0, 0.7, 1.9, 2.8])
def test_a_flickering_lamp_is_taken_off_the_reading(mains: int, phase: float) -> None:
    # 10,000 lux of lamps 100 % deep at twice the mains: 24 mV of room light at the load
    # under a white marble, the model's figure; its flicker far larger than a black marble.
    room = lamp(0.024, 2 * mains, phase)
    got = reading(conversions(0.0003, room), 0)  # a black marble's 0.3 mV, the mains told
    assert not got.too_bright
    assert got.mv == pytest.approx(0.3, abs=0.07)  # the model's 0.25 % of 24 mV, and no more
    plain = reading(conversions(0.0003, room), mains)
    assert plain.mv == pytest.approx(0.3, abs=0.07)


def test_steady_and_sliding_room_light_cancel_and_the_leds_is_kept() -> None:
    steady = reading(conversions(0.002, lambda t: 1.1))  # direct sun on a white marble
    assert steady.mv == pytest.approx(2.0, abs=1e-3) and steady.room_mv == pytest.approx(1100)
    # a hand's shadow sliding the room's light from 1 V to nothing over the reading
    total = (
        2 * (16 * OPTICS.conversion_s + OPTICS.frame_s + OPTICS.settle_s) + 5 * OPTICS.conversion_s
    )
    slide = reading(conversions(0.002, lambda t: 1.0 - t / total))
    assert slide.mv == pytest.approx(2.0, abs=0.02)


@pytest.mark.parametrize("spacing", [1.3e-3, 1.4e-3, 1.6e-3, 1.8e-3, 2.0e-3, 2.3e-3])
@pytest.mark.parametrize("mains", [50, 60])
def test_the_fit_holds_whatever_the_buses_pace(spacing: float, mains: int) -> None:
    """On the Pi each single-shot conversion takes the bus's time too: the fit takes each
    conversion at the time it was read, and only the flicker's harmonics that pace can tell
    apart (at 2 ms a conversion the 500 Hz one would alias onto the slow light)."""
    worst = 0.0
    for phase in (0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0):
        room = lamp(0.024, 2 * mains, phase)  # 10,000 lux of lamps, 100 % deep
        got = reading(conversions(0.0003, room, spacing=spacing), 0)
        worst = max(worst, abs(got.mv - 0.3))
    assert worst < 0.55  # 2 % of the lamps' light at the worst pace, under a black marble's


def test_a_saturated_conversion_is_too_bright_never_a_colour() -> None:
    at_ceiling = conversions(0.002, lambda t: OPTICS.ceiling_v - 0.003, full_scale=4.096)
    assert not reading(at_ceiling).too_bright
    over = conversions(0.002, lambda t: OPTICS.ceiling_v, full_scale=4.096)  # lit: over the ceiling
    assert reading(over).too_bright
    at_range = [Conversion(c.at, c.volts, c.lit, 1.024) for c in conversions(0.0, lambda t: 1.024)]
    assert reading(at_range).too_bright  # the ADC's full scale, whatever the ceiling


@given(white=st.floats(0.3, 20.0), ratio=st.floats(NEED, 20.0), share=st.floats(0.0, 1.0))
def test_a_calibrated_squares_threshold_splits_its_white_and_black(
    white: float, ratio: float, share: float
) -> None:
    square = SquareLight(white, white / ratio)
    # any white reading at or over its least, any black at or under its most
    assert square.is_white(white * (1 + share))
    assert not square.is_white(white / ratio * (1 - share / 2))
    assert square.threshold_mv / (white / ratio) == pytest.approx(white / square.threshold_mv)


# --- the simulated board read through the real reader -----------------------------------------
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    room=st.sampled_from(sorted(ROOMS)),
    seed=st.integers(0, 10_000),
    marbles=st.sampled_from(["PETG", "glass"]),
    colours=st.lists(st.sampled_from([Colour.BLACK, Colour.WHITE]), min_size=16, max_size=16),
)
def test_every_pose_room_and_part_reads_the_marbles_true_colour(
    room: str, seed: int, marbles: str, colours: list[Colour]
) -> None:
    """Never a wrong colour inside the margins: each square's parts, each marble's pose, the
    room's light and the ADC's noise drawn anew (hypothesis), every square read right."""
    world = SimWorld("tmag", room=room, seed=seed)
    assert world.light is not None
    world.light.marbles = marbles
    parts = world.boot()
    try:
        for sq in SQUARES:
            world.physics.put(sq, colours[sq])
            world.clock.advance(0.05)
        black, white = parts.sensors.colours()  # type: ignore[attr-defined]
        for sq in SQUARES:
            seen = Colour.BLACK if black >> sq & 1 else Colour.WHITE if white >> sq & 1 else None
            assert seen is colours[sq], (square_name(sq), room, marbles)
        assert parts.sensors.too_bright() == 0  # type: ignore[attr-defined]
    finally:
        world.power_cut(parts)


def test_a_put_is_told_once_its_colour_is_read_and_nothing_is_read_while_the_board_waits() -> None:
    world = SimWorld("tmag", room="window", seed=4)
    parts = world.boot()
    sensors = parts.sensors
    assert isinstance(sensors, LightColours)
    heard: list[tuple[int, bool, int]] = []
    sensors.subscribe(lambda sq, present, when: heard.append((sq, present, sensors.colours()[1])))
    c2 = parse_square("c2")
    world.physics.put(c2, Colour.WHITE)
    world.clock.advance(0.2)
    assert heard == [(c2, True, 1 << c2)]  # white when the put arrives
    reads, conversions_before = sensors.reader.readings, world.light.conversions  # type: ignore[attr-defined,union-attr]
    world.clock.advance(120.0)  # the board waits: the presence sensors sleep, no light is read
    assert sensors.reader.readings == reads  # type: ignore[attr-defined]
    assert world.light is not None and world.light.conversions == conversions_before
    assert parts.lights.shown()[0][c2] is None  # the display as the referee left it
    world.power_cut(parts)


def play(text: str, room: str = "dark", seed: int | None = None) -> MockRun:
    run = MockRun(parts="tmag", room=room, seed=seed)
    for i, command in enumerate(parse_script(text)):
        run.run(command, first_command=i == 0)
    run.finish()
    return run


OPENING = """
reset black
put b1
press
put a2
press
"""  # black to move: c1 black, a1 white


@pytest.mark.parametrize("room", sorted(ROOMS))
def test_a_marble_of_the_wrong_colour_is_refused_by_light_in_every_room(room: str) -> None:
    run = play(OPENING + "put d3 white\npress\n", room)
    try:
        [rejected] = kinds(run.events, "rejected")
        assert rejected["reason"] == "d3 holds a white marble: black's turn"
        assert run.referee.view().mode == "refused"
        for command in parse_script("lift d3\nput d3 black\npress\n"):
            run.run(command)
        run.finish()
        assert kinds(run.events, "turn")[-1]["turn"] == "d3"
    finally:
        run.close()


def test_a_swapped_pair_is_found_by_light_after_the_ring_move() -> None:
    """Two marbles swapped while nobody looks: no square's presence changes, so only the
    reading after the rings have turned finds them."""
    run = play(OPENING + "put d3\n")
    try:
        d1, a1 = parse_square("d1"), parse_square("a1")
        physics = run.physics
        pockets = {sq: physics._pocket_near(sq)[0] for sq in (d1, a1)}
        black, white = physics.pockets[pockets[d1]], physics.pockets[pockets[a1]]
        physics.pockets[pockets[d1]], physics.pockets[pockets[a1]] = white, black
        run.run(parse_script("press")[0])
        run.finish()
        assert kinds(run.events, "turn")[-1]["turn"] == "d3"
        [correction] = kinds(run.events, "correction")
        assert sorted(correction["seen"].values()) == ["black", "white"]  # type: ignore[union-attr]
        assert run.referee.state is State.CORRECTION
    finally:
        run.close()


def test_a_set_up_checks_the_colours_by_light() -> None:
    run = play("setup black b1 a2 c3\n")
    try:
        target = run.referee.position
        black = [sq for sq in SQUARES if target.black >> sq & 1]
        white = [sq for sq in SQUARES if target.white >> sq & 1]
        wrong = white[0]
        text = "".join(f"put {square_name(sq)} black\n" for sq in [*black, wrong])
        text += "".join(f"put {square_name(sq)} white\n" for sq in white[1:])
        for command in parse_script(text + "press\n"):
            run.run(command)
        run.finish()
        assert run.referee.state is State.SETTING_UP
        [rejected] = kinds(run.events, "rejected")
        assert rejected["seen"] == {square_name(wrong): "black"}
        for command in parse_script(f"lift {square_name(wrong)}\nput {square_name(wrong)} white\n"):
            run.run(command)
        run.finish()
        assert kinds(run.events, "setup-done")
    finally:
        run.close()


def test_a_square_too_bright_is_a_fault_the_players_see_never_a_colour_nor_a_refusal() -> None:
    run = play(OPENING)
    try:
        light = run.world.light
        assert light is not None
        d3 = parse_square("d3")
        light.glare[d3] = 3.0  # the sun's beam off a mirror straight into d3's cup
        run.run(parse_script("put d3 black\n")[0])
        run.finish()
        assert not kinds(run.events, "rejected")  # no turn refused for it
        faults = [str(e["reason"]) for e in kinds(run.events, "fault")]
        assert any("square d3 too bright" in f for f in faults), faults
        assert run.referee.state is State.FAULT  # the players see it; no turn is decided
        del light.glare[d3]  # shaded: read again within RETRY_S, the board carries on
        run.advance(RETRY_S + 1.0)
        run.finish()
        # as after any fault, the board is checked again: the marble put while it could not
        # be read is taken off (the LEDs ask for it) and put again
        assert run.referee.state is State.CORRECTION
        assert kinds(run.events, "correction")[-1]["squares"] == ["d3"]
        for command in parse_script("lift d3\nput d3 black\npress\n"):
            run.run(command)
        run.finish()
        assert kinds(run.events, "turn")[-1]["turn"] == "d3"
        assert not kinds(run.events, "rejected")
    finally:
        run.close()


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(room=st.sampled_from(sorted(ROOMS)), seed=st.integers(0, 10_000))
def test_a_game_in_any_room_light_loses_no_turn_to_noise(room: str, seed: int) -> None:
    """Turns in the right colours, each marble in a pose of its own, the room's light and
    the ADC's noise drawn anew: every turn is played, none refused."""
    rng = random.Random(seed)
    run = MockRun(parts="tmag", room=room, seed=seed)
    try:
        played = 0
        for i, command in enumerate(parse_script("reset black\n")):
            run.run(command, first_command=i == 0)
        while not run.referee.position.is_over and played < 8:
            position = run.referee.position
            empty = [sq for sq in SQUARES if not (position.black | position.white) >> sq & 1]
            square = rng.choice(empty)
            colour = position.to_move.value
            for command in parse_script(f"put {square_name(square)} {colour}\npress\n"):
                run.run(command)
            run.finish()
            played += 1
            assert len(kinds(run.events, "turn")) == played, run.events[-3:]
        assert not kinds(run.events, "rejected")
    finally:
        run.close()


# --- the calibration ------------------------------------------------------------------------
def test_a_damaged_calibration_is_moved_aside_and_the_models_threshold_used(tmp_path: Path) -> None:
    (tmp_path / FILE_NAME).write_text('{"version": 1, "squares": {"a1": {"white_mv": -1}}}')
    loaded = load_light_calibration(tmp_path)
    assert loaded.calibration == model_light_calibration()
    assert "damaged" in loaded.warning and "moved aside" in loaded.warning
    assert not (tmp_path / FILE_NAME).exists()
    assert list(tmp_path.glob(f"{FILE_NAME}.damaged-*"))
    assert "not calibrated" in load_light_calibration(tmp_path).warning


def test_the_doctor_calibrates_white_and_black_on_each_square_and_saves_them(
    tmp_path: Path,
) -> None:
    from orbito_hw.doctor.sim import run_mock

    lines: list[str] = []
    (result,) = run_mock(("calibrate",), "tmag", out=lines.append, state_dir=tmp_path)
    assert result.passed, result.problems
    assert "put a white marble on d4" in lines and "put a black marble on d4" in lines
    loaded = load_light_calibration(tmp_path)
    assert loaded.warning == "" and loaded.calibration.calibrated
    assert all(sq.ratio >= NEED for sq in loaded.calibration.squares)
    assert "apart at the least" in result.done


def test_the_doctor_names_a_square_whose_white_and_black_do_not_separate(tmp_path: Path) -> None:
    from orbito_hw.doctor.sim import Faults, run_mock

    lines: list[str] = []
    faults = Faults.parse(["dirty-cup:b2"])
    (result,) = run_mock(("calibrate",), "tmag", faults, lines.append, state_dir=tmp_path)
    assert not result.passed
    [problem] = result.problems
    assert problem.startswith("b2: white ") and "x apart; 3 x needed" in problem
    assert "the cup is clean" in problem and "window" in problem
    assert not (tmp_path / FILE_NAME).exists()  # nothing saved


def test_events_print_the_refusal_read_by_light(tmp_path: Path) -> None:
    import json
    import subprocess
    import sys

    script = tmp_path / "wrong.txt"
    script.write_text(OPENING + "put d3 white\npress\n")
    argv = ["run", "--mock", "--backend", "tmag", "--room", "window", "--events", str(script)]
    out = subprocess.run([sys.executable, "-m", "orbito_hw", *argv], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    events = [from_json(json.loads(line)) for line in out.stdout.splitlines()]
    rejected = [e for e in events if isinstance(e, Rejected)]
    assert len(rejected) == 1 and "d3 holds a white marble" in rejected[0].reason


def test_the_flash_is_the_leds_full_red_past_the_strips_brightness_cap() -> None:
    """The model counts the LED's full red: a strip capped at 0.3 flashes the read square
    at full, every other pixel as the cap sends it, and the cap is back at the next frame."""
    from orbito_hw.hw.strip import SERPENTINE, StripLights, fake_strip

    strip = fake_strip(17, 0.3, "GRB")
    lights = StripLights.along(strip, SERPENTINE, status_pixel=16)
    frame = [(0, 0, 255) if sq % 3 == 0 else None for sq in SQUARES]
    lights.show(frame, (255, 255, 255))
    capped = strip.sent
    c2 = parse_square("c2")
    lit = list(frame)
    lit[c2] = (255, 0, 0)
    lights.show_full(lit, (255, 255, 255), c2)
    pixel = lights.pixel_of[c2]
    assert strip.sent[3 * pixel : 3 * pixel + 3] == bytes([0, 255, 0])  # GRB: red at full
    others = [i for i in range(17) if i != pixel]
    assert all(strip.sent[3 * i : 3 * i + 3] == capped[3 * i : 3 * i + 3] for i in others)
    lights.show(frame, (255, 255, 255))
    assert strip.sent == capped and strip.brightness == pytest.approx(0.3)
    assert lights.shown() == (frame, (255, 255, 255))


def test_a_range_chosen_in_a_lamps_trough_is_read_again_at_the_widest() -> None:
    """The reading's range comes from one conversion: taken in a lamp's trough it is too
    small for the crest; the conversions that reach it are read again at the widest range,
    never taken for too bright (the phototransistor's ceiling is far above them)."""
    from gpiozero.pins.mock import MockFactory

    from orbito_hw.hw.clock import VirtualClock
    from orbito_hw.hw.light import LightReader
    from orbito_hw.hw.light_front import LightConfig
    from orbito_hw.sim.board import SimLights
    from orbito_hw.sim.fake_i2c import FakeAds1115, FakeI2C

    lights = SimLights()
    calls = [0]
    d1 = parse_square("d1")

    def volts(_input: int) -> float:
        calls[0] += 1
        if calls[0] <= 2:  # the range's conversion, in the trough
            return 0.0
        lit = lights.shown()[0][d1] is not None
        return 0.5 + (0.002 if lit else 0.0)

    adc = FakeAds1115(VirtualClock(), volts)
    factory = MockFactory()
    try:
        reader = LightReader(LightConfig(), lights, FakeI2C(adc), factory, sleep=lambda s: None)
        got = reader.read(d1)
        assert got is not None and not got.too_bright
        assert got.mv == pytest.approx(2.0, abs=0.2)
        assert adc.full_scale_v == pytest.approx(4.096)  # read again at the widest range
    finally:
        factory.close()


def test_an_adc_missing_from_the_bus_is_a_hardware_error_naming_its_key(
    mock_pins: object,
) -> None:
    """build_board and the service open the light on the sensors' bus: an ADS1115 that does
    not answer at ``light.address`` is named by that key and its address, the sensors it
    wraps closed."""
    from orbito_hw.app.assemble import by_light
    from orbito_hw.app.config import load_config
    from orbito_hw.errors import HardwareError
    from orbito_hw.hw.clock import VirtualClock
    from orbito_hw.sim.board import SimLights
    from orbito_hw.sim.fake_i2c import FakeAds1115, FakeI2C

    closed: list[bool] = []

    class Presence:
        bus = FakeI2C(FakeAds1115(VirtualClock(), lambda _i: 0.0), address=0x49)

        def read(self) -> int:
            return 0

        def subscribe(self, listener: object) -> None: ...

        def close(self) -> None:
            closed.append(True)

    config = load_config(Path(__file__).resolve().parent.parent / "config.example.toml")
    with pytest.raises(HardwareError) as info:
        by_light(config, VirtualClock(), Presence(), SimLights(), mock_pins)
    text = str(info.value)
    assert "light.address: the phototransistors' ADS1115 at I2C address 0x48" in text
    assert "does not answer" in text and closed == [True]
