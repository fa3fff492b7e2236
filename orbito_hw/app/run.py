"""The controller on a real board: config, event loop, service glue and logs."""

from __future__ import annotations

import asyncio
import logging
import signal
from collections.abc import Callable

from orbito_hw.app.assemble import build_board, open_lights
from orbito_hw.app.config import Config
from orbito_hw.app.logs import EventLogger
from orbito_hw.app.service import Service
from orbito_hw.control.journal import Journal
from orbito_hw.control.lights import Palette
from orbito_hw.control.referee import Event, Referee, Settings
from orbito_hw.doctor.checks import CheckResult, Doctor, Person, Runner, Wiring
from orbito_hw.hw.clock import LoopClock
from orbito_hw.hw.interfaces import Board, Clock

log = logging.getLogger(__name__)


def palette(config: Config) -> Palette:
    c = config.lights.colours
    return Palette(
        black=c.black, white=c.white, error=c.error, draw=c.draw, busy=c.moving, fault=c.fault
    )


def settings(config: Config) -> Settings:
    return Settings(
        first=config.board.first,
        debounce=config.sensors.debounce_ms / 1000,
        hold_time=config.board.new_game_hold_s,
        palette=palette(config),
    )


def run_board(config: Config) -> int:
    """Referee games on the board until SIGTERM or SIGINT; the LEDs go dark on the way out."""
    loop = asyncio.new_event_loop()
    clock = LoopClock(loop)
    board = build_board(config, clock, realtime=True)
    service = Service()
    try:
        referee = Referee(board, Journal(config.board.state_dir), settings(config))
        referee.add_listener(EventLogger())
        referee.add_listener(lambda event: _status(service, event))
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, loop.stop)
        referee.start()
        service.start(loop)  # READY once the hardware is open and the journal read
        log.info("orbito-hw running: %s", config.summary().splitlines()[1])
        loop.run_forever()
    finally:
        service.stop()
        board.close()  # the lights close first: dark on the way out
        loop.close()
    return 0


def _status(service: Service, event: Event) -> None:
    if event["event"] == "turn":
        service.status(f"game {event['game']}, turn {event['number']}: {event['turn']}")
    elif event["event"] == "result":
        service.status(f"game {event['game']} over: {event['result']}")


def lights_off(config: Config) -> int:
    """Switch every LED off (the unit's ExecStopPost, whatever state the controller left)."""
    open_lights(config).close()
    return 0


def doctor_wiring(config: Config) -> Wiring:
    """The config keys and pins the doctor names when a part fails."""
    b, d, lights = config.backends, config.drive, config.lights
    drive_pins = b.drive == "gpio"
    return Wiring(
        square_pins=config.sensors.pins if b.sensors == "gpio" else (),
        button_pin=config.button.pin if b.button == "gpio" else None,
        step_pin=d.step_pin if drive_pins else None,
        dir_pin=d.dir_pin if drive_pins else None,
        enable_pin=d.enable_pin if drive_pins else None,
        index_pin=d.index_pin if drive_pins else None,
        lights_pin=lights.pin if b.lights == "neopixel" else None,
        pixel_of=lights.square_pixels(),
        status_pixel=lights.status_pixel,
        steps_per_place=d.steps_per_place,
        max_speed=d.max_speed,
    )


def doctor_board(
    config: Config,
    person: Callable[[Clock], Person],
    checks: tuple[str, ...],
    timeout: float,
    out: Callable[[str], None],
    open_board: Callable[[Config, Clock], Board] = build_board,
) -> list[CheckResult]:
    """The doctor on the real board, on an event loop that sleeps until a pin or a timer
    wakes it. ``person`` makes the person at the board on the loop's clock."""
    if config.backends.lights == "none" and "leds" in checks:
        out('leds: skipped (backends.lights = "none": no LEDs fitted)')
        checks = tuple(c for c in checks if c != "leds")
    loop = asyncio.new_event_loop()
    clock = LoopClock(loop)
    board = open_board(config, clock)
    try:
        doctor = Doctor(board, person(clock), doctor_wiring(config), out, timeout)
        runner = Runner(clock, doctor.run(checks))
        finished = loop.create_future()
        runner.start(lambda: finished.set_result(None))
        loop.run_until_complete(finished)
    finally:
        board.close()  # the lights close first: dark on the way out
        loop.close()
    if runner.error is not None:
        raise runner.error
    assert runner.result is not None
    return runner.result
