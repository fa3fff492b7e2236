"""The analog backend: adafruit's own ADS1115 code against an emulated chip on a fake I2C
bus, the multiplexer's select lines on gpiozero's mock pins, the scan on a virtual clock."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from gpiozero.pins.mock import MockFactory
from hypothesis import given, settings
from hypothesis import strategies as st

from orbito_hw.errors import HardwareError
from orbito_hw.hw.analog import AdcError, AnalogSquares, Scanner
from orbito_hw.hw.analog_front import FrontEnd, SquareColours
from orbito_hw.hw.calibration_file import (
    CALIBRATION_NAME,
    load_calibration,
    save_calibration,
)
from orbito_hw.hw.clock import VirtualClock
from orbito_hw.hw.hall import Calibration, SquareLevels, default_calibration
from orbito_hw.hw.interfaces import tells_colour
from orbito_hw.sim.fake_i2c import FakeAds1115, FakeI2C, MuxLine

FRONT = FrontEnd(select_pins=(5, 6, 13, 19))


class Rig:
    """A board's worth of sensors behind the mux, the chip and its bus."""

    def __init__(self, front: FrontEnd = FRONT) -> None:
        self.clock = VirtualClock()
        self.factory = MockFactory()
        self.field = [0.0] * 16
        self.chip = FakeAds1115(self.clock, self._volts)
        self.pins = [
            self.factory.pin(p, pin_class=MuxLine, on_change=self.chip.switched)
            for p in front.select_pins
        ]
        self.bus = FakeI2C(self.chip)
        self.front = front
        self.lost: list[str] = []
        self.sensors = AnalogSquares(
            front,
            self.clock,
            default_calibration(),
            self.factory,
            self.bus,
            self.lost.append,
            Scanner.CLOCK,
        )
        self.events: list[tuple[int, bool]] = []
        self.sensors.subscribe(lambda sq, present, when: self.events.append((sq, present)))

    def _volts(self, _input: int) -> float:
        channel = sum(int(bool(p.state)) << i for i, p in enumerate(self.pins))
        return self.front.volts(self.field[channel])


@pytest.fixture
def rig() -> Iterator[Rig]:
    r = Rig()
    yield r
    r.sensors.close()


def test_a_marble_of_each_colour_is_read_on_its_square(rig: Rig) -> None:
    rig.clock.advance(0.3)
    assert rig.sensors.read() == 0 and rig.events == []
    rig.field[5] = 200.0  # b2: black
    rig.field[10] = -200.0  # c3: white
    rig.clock.advance(FRONT.scan_s * 2)
    assert rig.sensors.colours() == (1 << 5, 1 << 10)
    assert sorted(rig.events) == [(5, True), (10, True)]
    assert tells_colour(rig.sensors)


def test_a_colour_turning_into_the_other_is_a_lift_then_a_put(rig: Rig) -> None:
    rig.field[0] = 200.0
    rig.clock.advance(FRONT.scan_s * 2)
    rig.events.clear()
    rig.field[0] = -200.0
    rig.clock.advance(FRONT.scan_s * 2)
    assert rig.events == [(0, False), (0, True)]
    assert rig.sensors.colours() == (0, 1)


def test_a_scan_reads_each_square_once_with_one_conversion_read(rig: Rig) -> None:
    rig.clock.advance(FRONT.scan_s * 10 + FRONT.settle_s)
    before = rig.chip.conversions
    rig.clock.advance(FRONT.scan_s * 10)
    assert rig.chip.conversions - before == 16 * 10
    assert rig.sensors.scans >= 10


def test_the_settling_is_two_conversions_at_the_data_rate() -> None:
    assert FRONT.settle_s == pytest.approx(2 * 1.1 / 860)
    assert FRONT.scan_s == pytest.approx(0.1)
    slow = FrontEnd(select_pins=(5, 6, 13, 19), data_rate=128)
    assert slow.scan_s == pytest.approx(16 * 2 * 1.1 / 128)  # longer than scan_ms


class Hasty(FrontEnd):
    """A scan that reads as soon as it has switched the mux."""

    settle_s = 0.0  # type: ignore[assignment]


def test_a_scan_that_does_not_wait_reads_the_square_before() -> None:
    """The emulated chip keeps the previous square's voltage until two conversions after
    the mux switched: without the wait, every square reads as a1, the one read after the
    pause between scans."""
    rig = Rig(Hasty(select_pins=FRONT.select_pins))
    rig.field[0] = 200.0
    rig.clock.advance(1.0)
    assert rig.sensors.colours() == (0xFFFF, 0)
    rig.sensors.close()
    waits = Rig()
    waits.field[0] = 200.0
    waits.clock.advance(1.0)
    assert waits.sensors.colours() == (1, 0)
    waits.sensors.close()


def test_an_adc_not_on_the_bus_names_its_address_and_bus() -> None:
    clock, factory = VirtualClock(), MockFactory()
    bus = FakeI2C(FakeAds1115(clock, lambda _: 1.65), address=0x49)
    with pytest.raises(AdcError, match=r"0x48 on bus 1 does not answer") as caught:
        AnalogSquares(FRONT, clock, default_calibration(), factory, bus, scanner=Scanner.CLOCK)
    assert isinstance(caught.value, HardwareError) and isinstance(caught.value, OSError)
    # the select lines were let go again: a second try can open them
    again = FakeI2C(FakeAds1115(clock, lambda _: 1.65))
    AnalogSquares(
        FRONT, clock, default_calibration(), factory, again, scanner=Scanner.CLOCK
    ).close()


def test_an_adc_gone_mid_game_stops_the_scan_and_says_why(rig: Rig) -> None:
    rig.clock.advance(0.3)
    rig.bus.gone = True
    rig.clock.advance(0.3)
    assert rig.lost == ["the ADS1115 at I2C address 0x48 on bus 1 stopped answering: "
                        "[Errno 5] Input/output error"]  # fmt: skip
    transfers = rig.bus.transfers
    rig.clock.advance(1.0)
    assert rig.bus.transfers == transfers  # no more tries: the supervisor opens it again


def test_close_is_idempotent_and_frees_the_pins(rig: Rig) -> None:
    rig.sensors.close()
    rig.sensors.close()
    before = rig.chip.conversions
    rig.clock.advance(1.0)
    assert rig.chip.conversions == before
    bus = FakeI2C(FakeAds1115(rig.clock, lambda _: 1.65))
    AnalogSquares(FRONT, rig.clock, default_calibration(), rig.factory, bus, Scanner.CLOCK).close()


def test_the_thread_scanner_reads_and_stops(rig: Rig) -> None:
    clock, factory = VirtualClock(), MockFactory()
    bus = FakeI2C(FakeAds1115(clock, lambda _: FRONT.volts(300.0)))
    sensors = AnalogSquares(FRONT, clock, default_calibration(), factory, bus)
    try:
        deadline = 200
        while sensors.core.readings < 16 and deadline:
            bus.chip.clock.advance(0.0)  # the thread posts; nothing runs on the clock here
            sensors._stop.wait(0.01)
            deadline -= 1
        assert sensors.read() == 0xFFFF
    finally:
        sensors.close()
    assert sensors._thread is not None and not sensors._thread.is_alive()


LEVELS = SquareLevels(empty=0.0, black=150.0, white=-150.0)
MARGIN = 0.5 * (1 - 0.25) / 2 * 150  # under half the gap less the hysteresis band's half


@settings(max_examples=200, deadline=None)
@given(
    colour=st.sampled_from(["black", "white"]),
    noise=st.lists(st.floats(-MARGIN, MARGIN), min_size=5, max_size=40),
)
def test_noise_inside_the_margins_never_flips_a_square(colour: str, noise: list[float]) -> None:
    clock = VirtualClock()
    core = SquareColours(clock, Calibration((LEVELS,) * 16))
    events: list[tuple[int, bool]] = []
    core.subscribe(lambda sq, present, when: events.append((sq, present)))
    level = LEVELS.black if colour == "black" else LEVELS.white
    for n in noise:
        core.take(3, level + n)
    for n in noise:
        core.take(4, LEVELS.empty + n)
    clock.advance(0.0)
    black, white = core.colours()
    assert (black, white) == ((1 << 3, 0) if colour == "black" else (0, 1 << 3))
    assert events == [(3, True)]


def test_the_calibration_is_saved_atomically_and_read_back(tmp_path: Path) -> None:
    cal = Calibration((LEVELS,) * 16)
    save_calibration(tmp_path, cal)
    loaded = load_calibration(tmp_path)
    assert loaded.calibration == cal and loaded.calibrated and loaded.warning == ""
    assert [p.name for p in tmp_path.iterdir()] == [CALIBRATION_NAME]


def test_no_calibration_runs_on_the_design_with_a_warning(tmp_path: Path) -> None:
    loaded = load_calibration(tmp_path)
    assert loaded.calibration == default_calibration() and not loaded.calibrated
    assert "not calibrated" in loaded.warning and "doctor" in loaded.warning


def test_a_damaged_calibration_is_moved_aside_not_deleted(tmp_path: Path) -> None:
    (tmp_path / CALIBRATION_NAME).write_text('{"version": 1, "squares": {"a1": 3}}')
    loaded = load_calibration(tmp_path)
    kept = tmp_path / f"{CALIBRATION_NAME}.damaged-1"
    assert kept.read_text() == '{"version": 1, "squares": {"a1": 3}}'
    assert not (tmp_path / CALIBRATION_NAME).exists()
    assert "damaged" in loaded.warning and str(kept) in loaded.warning
    assert loaded.calibration == default_calibration()
