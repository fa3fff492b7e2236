"""A marble of the wrong colour is refused whichever drivers read the squares: the analog
backend (adafruit's ADS1115 code on an emulated chip, the mux on mock pins) and the Pico's
firmware scanning its ADC behind the serial link, as on the simulated board's own parts."""

from __future__ import annotations

import pytest

from orbito_hw.sim.harness import MockRun
from orbito_hw.sim.script import parse_script

WRONG = "put a1 black\npress\nput b2 black\npress\n"  # black's turn, then black again


def events_of(backend: str, script: str) -> list[dict[str, object]]:
    run = MockRun(parts=backend)  # type: ignore[arg-type]
    try:
        run.run_script(parse_script(script))
        return run.events
    finally:
        run.close()


@pytest.mark.parametrize("backend", ["gpio"])
def test_the_wrong_colour_is_refused_as_on_the_simulated_parts(backend: str) -> None:
    expected = events_of("sim", WRONG)
    refused = [e for e in expected if e["event"] == "rejected"]
    assert refused and "b2 holds a black marble" in str(refused[0]["reason"])
    assert events_of(backend, WRONG) == expected


def test_the_analog_parts_tell_colours_on_the_gpio_backend() -> None:
    run = MockRun(parts="gpio")
    try:
        run.run_script(parse_script("put a1 black\npress\nput c3 white\n"))
        sensors = run.parts.sensors
        assert type(sensors).__name__ == "AnalogSquares"
        black, white = sensors.colours()  # type: ignore[attr-defined]
        assert black >> 1 & 1 and white == 1 << 10  # a1 pressed on to b1; c3 white
    finally:
        run.close()
