"""One wiring place per world: the real board is assembled from the config in
``app/assemble.py``, the simulated world (every backend on the simulated board) in
``sim/world.py``; the doctor's wiring description is built by ``Wiring.of`` alone; a
``Board`` closes once, with ``with``."""

from __future__ import annotations

import ast
from dataclasses import replace
from pathlib import Path

import pytest

from orbito_hw.app.assemble import doctor_wiring
from orbito_hw.app.config import EXAMPLE_NAME, BackendsConfig, load_config
from orbito_hw.doctor.checks import Wiring
from orbito_hw.doctor.sim import mock_doctor
from orbito_hw.hw.interfaces import BACKENDS, Backend, Board
from orbito_hw.rules.game import Colour
from orbito_hw.rules.squares import mask_of, parse_square
from orbito_hw.sim.world import SimWorld

PACKAGE = Path(__file__).resolve().parent.parent / "orbito_hw"
EXAMPLE = PACKAGE / EXAMPLE_NAME


def callers(*names: str) -> set[str]:
    """The package's files that call any of ``names`` (a class or function, by name)."""
    found = set()
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call):
                func = node.func
                name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
                if name in names:
                    found.add(str(path.relative_to(PACKAGE)))
    return found


def test_a_board_is_put_together_in_two_places_only() -> None:
    # The real board in app/ (all at once for the doctor, part by part as they come for
    # the service: devices.py), the simulated one in the world.
    assert callers("Board") == {"app/assemble.py", "app/devices.py", "sim/world.py"}


def test_the_simulated_parts_are_wired_in_the_world_only() -> None:
    parts = ("SimSensors", "SimButton", "SimDrive", "SimLights", "GpioSimWiring")
    assert callers(*parts, "mock_serial_drive") == {"sim/world.py"}


def test_the_doctors_wiring_is_described_by_wiring_of_only() -> None:
    assert callers("Wiring") == set()
    assert callers("of") >= {"app/assemble.py", "doctor/sim.py"}


# --- Board ---------------------------------------------------------------------------------
class Part:
    def __init__(self, name: str, closed: list[str], fails: bool = False) -> None:
        self.name, self.closed, self.fails = name, closed, fails

    def close(self) -> None:
        self.closed.append(self.name)
        if self.fails:
            raise OSError(f"{self.name} would not close")


def board_of(closed: list[str], failing: str = "") -> Board:
    parts = {n: Part(n, closed, n == failing) for n in ("sensors", "button", "drive", "lights")}
    return Board(None, **parts)  # type: ignore[arg-type]


def test_a_board_closes_once_with_with_and_the_lights_first() -> None:
    closed: list[str] = []
    with board_of(closed) as board:
        assert closed == []
    board.close()
    assert closed == ["lights", "drive", "button", "sensors"]
    assert board.closed


def test_a_part_that_fails_to_close_does_not_keep_the_others_open() -> None:
    closed: list[str] = []
    board = board_of(closed, failing="lights")
    with pytest.raises(OSError, match="lights would not close"):
        board.close()
    assert closed == ["lights", "drive", "button", "sensors"]
    board.close()  # closed once: not again
    assert len(closed) == 4


# --- the simulated world ------------------------------------------------------------------
SCAN = 0.1
"""Seconds for the colour board's analog sensors to read every square again (gpio)."""


@pytest.mark.parametrize("backend", BACKENDS)
def test_every_backend_boots_on_the_simulated_board_and_survives_a_power_cut(
    backend: Backend,
) -> None:
    world = SimWorld(backend)
    parts = world.boot()
    try:
        c3 = parse_square("c3")
        world.physics.put(c3, Colour.BLACK)
        world.clock.advance(SCAN)
        assert parts.sensors.read() == mask_of([c3])
        assert parts.lights.shown() == ([None] * 16, None)  # nothing drawn yet
        assert parts.drive.wait_idle(0.0) and not parts.drive.moving
    finally:
        world.power_cut(parts)
    parts = world.boot()  # the next controller finds the marble where it was
    try:
        assert parts.sensors.read() == mask_of([c3])
    finally:
        world.power_cut(parts)


@pytest.mark.parametrize("backend", ["sim", "gpio"])
def test_crossed_sensor_wires_read_each_square_as_the_other(backend: Backend) -> None:
    c3, c4 = parse_square("c3"), parse_square("c4")
    world = SimWorld(backend, crossed=(c3, c4))
    parts = world.boot()
    try:
        world.physics.put(c3, Colour.WHITE)
        world.clock.advance(SCAN)
        assert parts.sensors.read() == mask_of([c4])
    finally:
        world.power_cut(parts)


def test_only_the_pico_goes_down_with_the_pis_power() -> None:
    assert SimWorld("sim").boot().powered_by_pi == ()
    world = SimWorld("serial")
    parts = world.boot()
    port = Path(parts.drive.link.port)  # type: ignore[attr-defined]
    assert port.exists()
    world.power_cut(parts)
    assert not port.exists()  # the simulated Pico went down: its USB port is gone


# --- the doctor's wiring --------------------------------------------------------------------
@pytest.mark.parametrize("sensors", ["tmag", "gpio"])
def test_a_real_boards_wiring_names_the_configs_pins(sensors: str) -> None:
    """The reference board's squares are on I2C (no GPIO line of theirs to name); the switch
    build's are its 16 lines."""
    config = load_config(EXAMPLE)
    config = replace(config, backends=replace(config.backends, sensors=sensors))
    d, lights = config.drive, config.lights
    assert doctor_wiring(config) == Wiring(
        square_pins=config.sensors.pins if sensors == "gpio" else (),
        button_pin=config.button.pin,
        step_pin=d.step_pin,
        dir_pin=d.dir_pin,
        enable_pin=d.enable_pin,
        index_pin=d.index_pin,
        lights_pin=lights.pin,
        pixel_of=lights.square_pixels(),
        status_pixel=lights.status_pixel,
        steps_per_place=d.steps_per_place,
        max_speed=d.max_speed,
    )


def test_a_part_on_the_pico_has_no_pi_pins_to_name() -> None:
    config = load_config(EXAMPLE)
    config = replace(config, backends=BackendsConfig("serial", "gpio", "serial", "none"))
    wiring = doctor_wiring(config)
    assert wiring.square_pins == () and wiring.step_pin is None and wiring.index_pin is None
    assert wiring.button_pin == config.button.pin and wiring.lights_pin is None


def test_the_simulated_boards_wiring_names_its_mock_pins_and_strip() -> None:
    from orbito_hw.sim.gpio_pins import DEFAULT_PINS

    gpio = mock_doctor("gpio", out=lambda _: None)
    assert gpio.wiring.square_pins == tuple(DEFAULT_PINS.squares[sq] for sq in range(16))
    assert gpio.wiring.step_pin == DEFAULT_PINS.step and len(gpio.wiring.pixel_of) == 16
    sim = mock_doctor("sim", out=lambda _: None)
    assert sim.wiring == Wiring(steps_per_place=sim.physics.steps_per_place, max_speed=2000.0)
    gpio.board.close()
    sim.board.close()


def test_power_cuts_on_mock_pins_leave_no_devices_or_threads_behind() -> None:
    import gc
    import threading

    from orbito_hw.sim.harness import MockRun
    from orbito_hw.sim.script import parse_script

    run = MockRun(parts="gpio")
    try:
        run.run_script(parse_script("reset white\nput b1\npress\npower-cut\n"))
        gc.collect()
        threads = threading.active_count()
        for _ in range(20):
            run.run_script(parse_script("power-cut\n"))
        gc.collect()
        # gpiozero's button keeps a thread per device: a dead controller's must go with it.
        assert threading.active_count() <= threads
        assert [e["turn"] for e in run.events if e["event"] == "turn"] == ["b1"]
    finally:
        run.close()
