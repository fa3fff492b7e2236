"""The reference board's TMAG5273 sensors (issue 43), on the emulated bus: adafruit's own
drivers against the chips' registers, the backend asleep until an edge, and its faults
(a NAK, a dead multiplexer channel, a multiplexer gone, the bus held low, a sensor reset)
under hypothesis: a square unknown keeps what it read and is named, never read wrong."""

from __future__ import annotations

import contextlib
import math
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from orbito_hw.control.events import Fault, TurnPlayed
from orbito_hw.hw import tmag_chip as chip
from orbito_hw.hw.tmag import wake_thresholds
from orbito_hw.hw.tmag_calibration import (
    FILE_NAME,
    SquareCalibration,
    TmagCalibration,
    load_tmag_calibration,
    save_tmag_calibration,
)
from orbito_hw.rules.game import Colour
from orbito_hw.rules.squares import SQUARE_NAMES, SQUARES
from orbito_hw.sim.harness import MockRun
from orbito_hw.sim.script import parse_line
from orbito_hw.sim.tmag_bus import EmulatedI2C, FakeTmag5273
from orbito_hw.sim.world import SimWorld


def _world() -> tuple[SimWorld, object]:
    world = SimWorld("tmag")
    parts = world.boot()
    return world, parts


# --- the chips at the drivers' own interface --------------------------------------------------
def test_adafruits_drivers_read_the_emulated_chips_through_the_multiplexer() -> None:
    from adafruit_tca9548a import TCA9548A
    from adafruit_tmag5273 import TMAG5273

    from orbito_hw.hw.clock import VirtualClock

    clock = VirtualClock()
    bus = EmulatedI2C()
    bus.add_mux(0x71)
    sensor = FakeTmag5273(clock, lambda: (12.5, -30.0, 101.0), lambda: None)
    bus.behind[(0x71, 5)] = sensor
    tmag = TMAG5273(TCA9548A(bus, 0x71)[5], chip.SENSOR_ADDRESS)  # checks the manufacturer ID
    assert tmag.manufacturer_id == chip.MANUFACTURER_ID
    assert tmag.device_id & 0x3 == chip.VERSION_X1
    # The driver puts it in continuous mode on the wide range: its reading is the field's.
    x, y, z = tmag.magnetic  # microtesla
    assert (x / 100, y / 100, z / 100) == pytest.approx((12.5, -30.0, 101.0), abs=0.05)
    assert bus.muxes[0x71].control == 0  # the channel deselected after each transfer
    assert not bus.locked and bus.collisions == 0
    # Its power-on flag is set until cleared by a 1 written to it (SLYS043 CONV_STATUS).
    assert tmag.conversion_status & chip.POR
    with tmag.i2c_device as i2c:
        i2c.write(bytes([chip.CONV_STATUS, chip.POR]))
    assert not tmag.conversion_status & chip.POR


def test_a_sensor_armed_above_pulses_when_a_field_passes_its_threshold_and_only_then() -> None:
    from orbito_hw.hw.clock import VirtualClock

    clock = VirtualClock()
    field = [(0.0, 0.0, 2.0)]
    pulses: list[float] = []
    sensor = FakeTmag5273(clock, lambda: field[0], lambda: pulses.append(clock.now()))
    config = bytes([0x00, chip.AVERAGE_32X << 2, chip.HYST_ABSOLUTE << 5 | chip.MODE_WAKE_SLEEP,
                    chip.CHANNELS_XYZ << 4 | 4, 0, 4, 4, 4, 0, 0x64])  # fmt: skip
    sensor.write(config)
    clock.advance(1.0)
    assert pulses == [] and sensor.conversions <= 2  # nothing changes: it sleeps
    field[0] = (0.0, 0.0, 13.0)  # over 4 x 3.125 G on z
    sensor.field_changed()
    clock.advance(0.03)
    assert len(pulses) == 1


# --- the backend on the simulated board -------------------------------------------------------
def test_a_marble_put_and_lifted_is_seen_after_an_edge_without_polling() -> None:
    world, parts = _world()
    sensors = parts.presence  # type: ignore[attr-defined]
    heard: list[tuple[int, bool]] = []
    sensors.subscribe(lambda sq, present, when: heard.append((sq, present)))
    world.clock.advance(0.1)
    edges, sweeps = sensors.edges, sensors.sweeps
    world.physics.put(5, Colour.WHITE)
    world.clock.advance(0.05)
    assert sensors.read() == 1 << 5 and heard == [(5, True)]
    assert sensors.edges > edges and sensors.sweeps == sweeps + 1
    world.physics.lift(5)
    world.clock.advance(0.05)
    assert sensors.read() == 0 and heard[-1] == (5, False)


@pytest.mark.parametrize("colour", [Colour.BLACK, Colour.WHITE])
def test_every_pose_of_the_model_wakes_an_empty_square_and_a_lift_wakes_it_again(
    colour: Colour,
) -> None:
    """The wake thresholds against every pose the table holds, on every square's sensor
    of a board drawn with the model's offsets and stray fields."""
    world = SimWorld("tmag", seed=3)
    assert world.fields is not None
    cal = world.fields.calibration()
    sign = 1.0 if colour is Colour.BLACK else -1.0
    lsb = chip.GAUSS_PER_THRESHOLD
    for square in SQUARES:
        sq_cal = cal.squares[square]
        e = sq_cal.empty
        armed = wake_thresholds(sq_cal, e, False)
        for pose in chip.figures().poses_black_g:
            b = tuple(e[i] + sign * pose[i] for i in range(3))
            assert sq_cal.present(b, False), (SQUARE_NAMES[square], pose)
            assert any(abs(b[i]) >= armed[i] * lsb for i in range(3)), (square, pose)
            below = wake_thresholds(sq_cal, b, True)
            assert any(below[i] > 0 and abs(e[i]) < below[i] * lsb for i in range(3))


def test_idle_the_bus_is_read_only_by_the_slow_check() -> None:
    world, parts = _world()
    world.physics.put(0, Colour.BLACK)
    world.clock.advance(1.0)
    bus = world.tmag.bus  # type: ignore[union-attr]
    before, sweeps = bus.transfers, parts.presence.sweeps  # type: ignore[attr-defined]
    pulses = sum(c.pulses for c in world.tmag.chips)  # type: ignore[union-attr]
    world.clock.advance(60.0)
    checks = parts.presence.sweeps - sweeps  # type: ignore[attr-defined]
    assert checks == pytest.approx(60.0 / chip.TmagConfig().check_s, abs=1)
    # one transfer a sensor a check, with the multiplexer's select and deselect around it
    assert bus.transfers - before == checks * 16 * 3
    assert sum(c.pulses for c in world.tmag.chips) == pulses  # type: ignore[union-attr]


# --- faults -------------------------------------------------------------------------------
FAULTS = ("nak", "dead_channel", "mux_gone", "stuck", "stuck_for_good", "reset")


def _break(world: SimWorld, fault: str, square: int) -> None:
    tm = world.tmag
    assert tm is not None
    mux, channel = chip.square_channel(tm.config.channels[square])
    m = tm.bus.muxes[tm.config.muxes[mux]]
    if fault == "nak":
        tm.chips[square].answering = False
    elif fault == "dead_channel":
        m.dead.add(channel)
    elif fault == "mux_gone":
        m.answering = False
    elif fault == "stuck":
        tm.bus.hold_sda()
    elif fault == "stuck_for_good":
        tm.bus.hold_sda(for_good=True)
    elif fault == "reset":
        tm.chips[square].power_cycle()


def _mend(world: SimWorld) -> None:
    tm = world.tmag
    assert tm is not None
    tm.bus.held = tm.bus.held_for_good = False
    for m in tm.bus.muxes.values():
        m.answering, m.dead = True, set()
    for c in tm.chips:
        c.answering = True


step = st.tuples(
    st.sampled_from(("put", "lift", "break", "mend", "wait")),
    st.sampled_from(SQUARES),
    st.sampled_from(FAULTS),
    st.sampled_from((Colour.BLACK, Colour.WHITE)),
)


@settings(max_examples=40, deadline=None)
@given(st.lists(step, min_size=1, max_size=14), st.integers(0, 5))
def test_faults_never_read_a_square_wrong_and_name_every_unknown_square(
    steps: list[tuple[str, int, str, Colour]], seed: int
) -> None:
    world = SimWorld("tmag", seed=seed)
    faults: list[str] = []
    parts = world.boot()
    sensors = parts.presence
    assert parts.health is not None
    parts.health.watch(lambda health: faults.append(health.fault))
    for action, square, fault, colour in steps:
        known = sensors.read()  # type: ignore[attr-defined]
        if action == "put" and world.physics.colour_at(square) is None:
            world.physics.put(square, colour)
        elif action == "lift" and world.physics.colour_at(square) is not None:
            world.physics.lift(square)
        elif action == "break":
            _break(world, fault, square)
        elif action == "mend":
            _mend(world)
        world.clock.advance(chip.TmagConfig().check_s + 0.1)
        unknown = sensors.unknown()  # type: ignore[attr-defined]
        truth = world.physics.occupancy()
        read = sensors.read()  # type: ignore[attr-defined]
        # Every square that answers reads what is on it; one that does not is never read
        # empty for it: it keeps what it last read.
        assert (read ^ truth) & ~unknown == 0
        # ...and a square unknown is not read empty for a marble it held (it keeps it).
        assert known & unknown & ~read == 0
        assert world.tmag.bus.collisions == 0 and not world.tmag.bus.locked  # type: ignore[union-attr]
        if unknown:
            names = [SQUARE_NAMES[s] for s in SQUARES if unknown >> s & 1]
            assert faults and all(name in faults[-1] for name in names[:1])
            assert parts.health.now().failing
        else:
            assert not parts.health.now().failing
    _mend(world)
    world.clock.advance(2 * chip.TmagConfig().check_s + 0.1)
    assert sensors.unknown() == 0  # type: ignore[attr-defined]
    assert sensors.read() == world.physics.occupancy()  # type: ignore[attr-defined]
    assert not parts.health.now().failing


def test_a_square_unknown_keeps_its_marble_and_is_never_read_empty() -> None:
    world, parts = _world()
    world.physics.put(6, Colour.BLACK)
    world.clock.advance(0.1)
    _break(world, "nak", 6)
    world.physics.lift(6)  # taken while its sensor is silent
    world.clock.advance(chip.TmagConfig().check_s + 0.1)
    assert parts.sensors.read() >> 6 & 1  # type: ignore[attr-defined]
    assert "c2" in parts.health.now().fault  # type: ignore[union-attr]
    assert "channel 6 of the TCA9548A at 0x70" in parts.health.now().fault  # type: ignore[union-attr]
    _mend(world)
    world.clock.advance(chip.TmagConfig().check_s + 0.1)
    assert parts.sensors.read() == 0 and parts.health.now().fault == ""  # type: ignore[union-attr,attr-defined]


def test_a_stuck_bus_is_clocked_free_and_a_reset_sensor_set_up_again() -> None:
    world, parts = _world()
    tm = world.tmag
    assert tm is not None
    tm.bus.hold_sda()
    world.physics.put(9, Colour.WHITE)
    world.clock.advance(0.1)
    assert tm.bus.clocked >= 1 and not tm.bus.held
    world.clock.advance(chip.TmagConfig().check_s + 0.1)
    assert parts.sensors.read() == 1 << 9  # type: ignore[attr-defined]
    tm.chips[9].power_cycle()  # a brown-out: back in standby, its INT quiet, POR set
    world.physics.lift(9)
    world.clock.advance(2 * chip.TmagConfig().check_s + 0.1)
    assert tm.chips[9].mode == chip.MODE_WAKE_SLEEP
    assert not tm.chips[9].regs[chip.CONV_STATUS] & chip.POR
    assert parts.sensors.read() == 0  # type: ignore[attr-defined]


def test_the_referee_shows_the_square_and_decides_no_turn_until_it_answers() -> None:
    run = MockRun(parts="tmag")
    try:
        for text in ("reset white", "put b2"):
            command = parse_line(text)
            assert command is not None
            run.run(command, first_command=text.startswith("reset"))
        turns = len([e for e in run.typed_events if isinstance(e, TurnPlayed)])
        _break(run.world, "nak", 5)  # b2's sensor stops answering
        run.advance(chip.TmagConfig().check_s + 0.5)
        faults = [e for e in run.typed_events if isinstance(e, Fault)]
        assert faults and "b2" in faults[-1].reason
        run.physics.empty_hand()
        run.finger(True)
        run.advance(0.1)
        run.finger(False)
        run.advance(1.0)
        assert len([e for e in run.typed_events if isinstance(e, TurnPlayed)]) == turns
        _mend(run.world)
        run.advance(chip.TmagConfig().check_s + 0.5)
        run.wait_for_rings()
        assert run.referee.health.fault == ""
    finally:
        run.close()


# --- the calibration's file -----------------------------------------------------------------
def test_the_calibration_is_saved_whole_and_a_damaged_file_set_aside(tmp_path: Path) -> None:
    config = chip.TmagConfig()
    loaded = load_tmag_calibration(tmp_path, config)
    assert "not calibrated" in loaded.warning
    on = config.threshold_g + config.hysteresis_g
    assert loaded.calibration.squares[0].on_g == pytest.approx(on)
    cal = TmagCalibration(
        tuple(SquareCalibration((float(s), -1.0, 2.5), 14.0, 8.0) for s in SQUARES), True
    )
    save_tmag_calibration(tmp_path, cal)
    assert load_tmag_calibration(tmp_path, config).calibration == cal
    (tmp_path / FILE_NAME).write_text('{"version": 1, "squares": {"a1": 3}}')
    damaged = load_tmag_calibration(tmp_path, config)
    assert "damaged" in damaged.warning and "a1" in damaged.warning
    assert (tmp_path / f"{FILE_NAME}.damaged-1").exists()
    assert not (tmp_path / FILE_NAME).exists()


@given(st.text(max_size=200))
def test_no_calibration_text_is_a_traceback(text: str) -> None:
    with contextlib.suppress(ValueError):
        TmagCalibration.from_json(text)


def test_the_model_figures_are_the_mechanics_pages() -> None:
    f = chip.figures()
    assert f.weakest_g / f.operate_g >= 2.4 and f.release_g / f.empty_g >= 2.4
    assert math.isclose(f.threshold_g, 11.14, abs_tol=0.05)
    sizes = [math.hypot(*p) for p in f.poses_black_g]
    assert min(sizes) >= f.weakest_g - 0.05


# --- the doctor ---------------------------------------------------------------------------
def test_the_doctor_calibrates_the_mock_board_and_the_controller_reads_it(tmp_path: Path) -> None:
    from orbito_hw.doctor.sim import run_mock

    lines: list[str] = []
    (result,) = run_mock(("calibrate",), "tmag", out=lines.append, state_dir=tmp_path)
    assert result.passed, result.problems
    assert "put it back on d4 another way up" in lines
    loaded = load_tmag_calibration(tmp_path, chip.TmagConfig())
    assert loaded.warning == "" and loaded.calibration.calibrated
    world = SimWorld("tmag")
    assert world.fields is not None
    for measured, true in zip(loaded.calibration.squares, world.fields.empty, strict=True):
        assert math.dist(measured.empty, true) < 1.0  # the empty vector, within the noise
        # the model's weakest marble still seen with its margin, the neighbours' not
        assert 2 * measured.on_g <= chip.figures().weakest_g
        assert measured.off_g >= 2 * chip.figures().empty_g


def test_a_bus_held_low_for_good_is_cleared_once_in_a_while_and_every_square_named() -> None:
    from orbito_hw.hw.tmag import RECOVER_S

    world, parts = _world()
    tm = world.tmag
    assert tm is not None and parts.health is not None  # type: ignore[attr-defined]
    world.physics.put(2, Colour.BLACK)
    world.clock.advance(0.1)
    tm.bus.hold_sda(for_good=True)
    world.clock.advance(chip.TmagConfig().check_s + 0.1)
    assert tm.bus.clocked == 1  # one bus clear, not one a sensor
    assert parts.presence.unknown() == (1 << 16) - 1  # type: ignore[attr-defined]
    assert parts.sensors.read() == 1 << 2  # type: ignore[attr-defined]  # kept, never empty
    assert "held low" in parts.health.now().fault  # type: ignore[attr-defined]
    world.clock.advance(RECOVER_S)
    assert 2 <= tm.bus.clocked <= 3
    _mend(world)
    world.clock.advance(chip.TmagConfig().check_s + 0.1)
    assert parts.presence.unknown() == 0 and parts.health.now().fault == ""  # type: ignore[attr-defined]


# --- config check ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ("muxes = [0x70, 0x71]", "muxes = [0x70, 0x69]",
         "tmag.muxes[1]: 0x69 is not a TCA9548A's address (0x70..0x77)"),
        ("muxes = [0x70, 0x71]", "muxes = [0x70, 0x70]", "tmag.muxes[1]: 0x70 is listed twice"),
        ("12, 13, 14, 15]", "12, 13, 14, 16]", "tmag.channels.d4: 16 is out of range (0..15)"),
        ("12, 13, 14, 15]", "12, 13, 14, 3]",
         "tmag.channels.d4: channel 3 is also square d1's: one sensor a channel"),
        ("int_pin = 5", "int_pin = 17", "button.pin: pin 17 is also used by tmag.int_pin"),
        ("int_pin = 5", "int_pin = 3", "tmag.int_pin: pin 3 is also used by tmag.bus"),
        ("int_pin = 5", "int_pin = 0", "tmag.int_pin: pin 0 is the HAT ID EEPROM's bus"),
        ("address = 0x35", "address = 0x36", "tmag.address: 0x36 is not a TMAG5273's address"),
        ("select_pins = [22, 27, 26, 16]", "select_pins = [22, 5, 26, 16]",
         "light.select_pins[1]: pin 5 is also used by tmag.int_pin"),
        ("select_pins = [22, 27, 26, 16]", "select_pins = [22, 27, 26, 2]",
         "light.select_pins[3]: pin 2 is also used by tmag.bus"),
        ("select_pins = [22, 27, 26, 16]", "select_pins = [22, 27, 17, 16]",
         "button.pin: pin 17 is also used by light.select_pins[2]"),
        ("select_pins = [22, 27, 26, 16]", "select_pins = [22, 27]",
         "light.select_pins: expected the 4 BCM pins"),
        ("address = 0x48\n# The ADS1115 input the multiplexer's common pin is wired to: 0..3 "
         "(A0..A3).\nchannel = 0\n# Milliseconds", "address = 0x47\n# The ADS1115 input the "
         "multiplexer's common pin is wired to: 0..3 (A0..A3).\nchannel = 0\n# Milliseconds",
         "light.address: 0x47 is not an ADS1115's address"),
        ("flash_ms = 7.0", "flash_ms = 40", "light.flash_ms: 40 is out of range"),
        ("mains_hz = 0", "mains_hz = 55", "light.mains_hz: 55 is not one of"),
    ],
)  # fmt: skip
def test_config_check_names_a_wrong_address_channel_or_int_pin(
    old: str, new: str, message: str
) -> None:
    from orbito_hw.app.config import example_text, parse_config
    from orbito_hw.errors import ConfigError

    text = example_text()
    assert text.count(old) == 1, old
    with pytest.raises(ConfigError) as info:
        parse_config(text.replace(old, new), "board.toml")
    assert message in str(info.value)


# --- a game through sensor faults -------------------------------------------------------------
@settings(max_examples=3, deadline=None)
@given(st.integers(0, 1000), st.lists(st.tuples(st.floats(0.05, 0.95), st.sampled_from(SQUARES),
                                                st.sampled_from(("nak", "reset", "dead_channel"))),
                                      min_size=1, max_size=3))  # fmt: skip
def test_a_game_through_sensor_faults_plays_the_same_turns(
    seed: int, faults: list[tuple[float, int, str]]
) -> None:
    """A random game, a sensor failing for a while at a few points (a NAK, a reset, its
    channel dead): the fault names the square, the board waits, and once the sensor answers
    the game goes on to the same turns as without the faults; never a wrong turn, never a
    stop of the controller."""
    import random

    from .common.scripts import game_script, random_game

    rng = random.Random(seed)
    first, turns = random_game(rng)
    commands = game_script(first, turns, rng)

    def turns_of(run: MockRun) -> list[str]:
        return [str(e.turn.notation()) for e in run.typed_events if isinstance(e, TurnPlayed)]

    clean = MockRun(parts="tmag")
    try:
        clean.run_script(commands)
        expected = turns_of(clean)
    finally:
        clean.close()
    run = MockRun(parts="tmag")
    try:
        at = {round(share * (len(commands) - 1)): (sq, kind) for share, sq, kind in faults}
        for i, command in enumerate(commands):
            if i in at:
                square, kind = at[i]
                _break(run.world, kind, square)
                run.advance(chip.TmagConfig().check_s + 0.2)
                if kind != "reset":  # a sensor that reset answers: set up again, no fault
                    fault = run.referee.health.fault
                    assert fault and SQUARE_NAMES[square] in fault
                _mend(run.world)
                run.advance(chip.TmagConfig().check_s + 0.2)
                run.wait_for_rings()
                assert run.referee.health.fault == ""
            run.run(command, first_command=i == 0)
        run.finish()
        assert turns_of(run) == expected
    finally:
        run.close()
