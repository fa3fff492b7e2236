"""The controller on a real board: config, event loop, service glue and logs."""

from __future__ import annotations

import asyncio
import logging
import signal

from .config import Config
from .hw.assemble import build_board, open_lights
from .hw.clock import LoopClock
from .journal import Journal
from .lights import Palette
from .logs import EventLogger
from .referee import Event, Referee, Settings
from .service import Service

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
