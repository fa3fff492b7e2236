"""The gpio and neopixel backends on gpiozero's MockFactory and adafruit's pixel buffer."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

import pytest
from gpiozero.pins.mock import MockFactory

from orbito_hw.hw.clock import VirtualClock
from orbito_hw.hw.gpio import GpioButton, GpioDrive, GpioPins, GpioSensors
from orbito_hw.hw.interfaces import MoveReport
from orbito_hw.hw.strip import StripLights, fake_strip
from orbito_hw.sim.gpio_pins import DEFAULT_PINS, SERPENTINE
from orbito_hw.sim.harness import MockRun
from orbito_hw.sim.script import parse_script

PINS = DEFAULT_PINS


@pytest.fixture
def factory() -> Iterator[MockFactory]:
    factory = MockFactory()
    yield factory
    factory.reset()  # pins and reservations back to clean for the next test


def test_sensor_pins_map_to_their_configured_squares(factory: MockFactory) -> None:
    clock = VirtualClock()
    sensors = GpioSensors(PINS, clock, factory)
    heard: list[tuple[int, bool]] = []
    sensors.subscribe(lambda sq, present, when: heard.append((sq, present)))
    assert sensors.read() == 0  # active-low sensors idle high on their pull-ups
    for square, pin in PINS.squares.items():
        factory.pin(pin).drive_low()  # a magnet closes the reed switch to ground
        clock.advance(0)
        assert sensors.read() == 1 << square
        assert heard[-1] == (square, True)
        factory.pin(pin).drive_high()
        clock.advance(0)
        assert heard[-1] == (square, False)
    sensors.close()


def test_a_press_on_the_button_pin_reaches_the_referee(factory: MockFactory) -> None:
    run = MockRun(parts="gpio")
    try:
        run.run_script(parse_script("put a1\n"))
        run.finger(True)  # drives the mock button pin low, as the switch would
        run.advance(0.1)
        run.finger(False)
        run.finish()
        turns = [e for e in run.events if e["event"] == "turn"]
        assert [t["turn"] for t in turns] == ["a1"]
    finally:
        run.close()


def test_the_button_reports_press_and_release_with_the_clocks_time(factory: MockFactory) -> None:
    clock = VirtualClock(start=5.0)
    button = GpioButton(PINS, clock, factory)
    heard: list[tuple[bool, float]] = []
    button.subscribe(lambda pressed, when: heard.append((pressed, when)))
    factory.pin(PINS.button).drive_low()
    clock.advance(0.25)
    assert button.is_pressed
    factory.pin(PINS.button).drive_high()
    clock.advance(0)
    assert heard == [(True, 5.0), (False, 5.25)]
    button.close()


@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("steps_per_place", [200, 1600])
def test_one_place_is_exactly_steps_per_place_pulses_in_the_right_direction(
    factory: MockFactory, reverse: bool, steps_per_place: int
) -> None:
    pins = GpioPins(**{**PINS.__dict__, "reverse": reverse})
    clock = VirtualClock()
    step, direction, enable = (factory.pin(p) for p in (pins.step, pins.direction, pins.enable))
    drive = GpioDrive(pins, clock, steps_per_place, 4000.0, 20000.0, factory=factory)
    pulses: list[tuple[bool, bool]] = []
    watch_rising_edges(step, lambda: pulses.append((bool(direction.state), enable.state == 0)))
    assert enable.state == 1  # ENABLE is active low: high means the driver is off at rest
    reports: list[MoveReport] = []
    drive.move(1, reports.append)
    clock.advance(5.0)
    assert len(reports) == 1 and reports[0].steps == steps_per_place
    assert len(pulses) == steps_per_place
    assert all(d == (not reverse) and enabled for d, enabled in pulses)
    assert enable.state == 1 and not drive.moving  # released once the rings stopped
    drive.close()


def watch_rising_edges(pin: Any, callback: Any) -> None:
    original = pin._change_state

    def change(value: bool) -> bool:
        changed: bool = original(value)
        if changed and value:
            callback()
        return changed

    pin._change_state = change


def test_the_step_timing_ramps_up_and_down(factory: MockFactory) -> None:
    clock = VirtualClock()
    drive = GpioDrive(PINS, clock, 200, 2000.0, 8000.0, factory=factory)
    times: list[float] = []
    watch_rising_edges(factory.pin(PINS.step), lambda: times.append(clock.now()))
    drive.move(2, lambda report: None)
    clock.advance(5.0)
    gaps = [b - a for a, b in itertools.pairwise(times)]
    assert gaps[0] > gaps[len(gaps) // 2] < gaps[-1]  # slow, fast, slow
    assert min(gaps) >= 1 / 2000.0 - 1e-9  # never above the top speed
    drive.close()


def test_a_serpentine_strip_lights_the_right_squares() -> None:
    strip = fake_strip(17, 0.5, "GRB")
    lights = StripLights.along(strip, SERPENTINE, status_pixel=16)
    frame: list[tuple[int, int, int] | None] = [None] * 16
    frame[4] = (200, 100, 0)  # a2: the 8th pixel of a strip laid back and forth
    lights.show(frame, status=(0, 0, 255))
    sent = strip.sent
    pixels = [tuple(sent[i * 3 : i * 3 + 3]) for i in range(17)]
    lit = [i for i, p in enumerate(pixels) if any(p)]
    assert lit == [SERPENTINE.index(4), 16]
    assert pixels[SERPENTINE.index(4)] == (50, 100, 0)  # GRB order, at half brightness
    assert pixels[16] == (0, 0, 127)
    assert lights.shown()[0][4] == (200, 100, 0)
    lights.close()
    assert not any(strip.sent)


def test_the_real_strip_off_a_pi_says_not_implemented_not_import_error() -> None:
    from orbito_hw.hw.strip import open_neopixel

    with pytest.raises(NotImplementedError):
        open_neopixel(18, 17, 0.3, "GRB")
