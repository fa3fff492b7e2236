"""Each part of a real board, opened when it can be and tried again until it is.

Exit status 2 is for what only an edit can fix: the config. Everything the hardware does
is transient until proven otherwise: a Pico plugged in after the start, a GPIO line held by
another program at boot, a strip whose SPI is not there yet. So the controller starts on
stand-ins (``hw/standby.py``), this supervisor notes each part it cannot open in the board's
health (``hw/health.py``, the one place that holds it), the referee shows it as a fault (the
status pixel, the page, the log, systemd's status line), and this supervisor tries each
missing part again when its own reconnect policy says (``hw/reconnect.py``: 1 s, doubling to
8 s) until the board is whole. Then the referee carries on from the journal as after a
restart: it homes the rings and checks the board before play goes on.

Each part has one policy, held here. A strip or sensors lost mid-game come back to this
supervisor, on their policy. The Pico, once open, is got back by its serial link (the
handshake, a Pico that restarted): the link is handed the drive's policy, so the Pico's
tries follow one schedule whether it was never plugged in or pulled later. The Pi's own pins
do not come and go.

The opening runs on a worker thread: a port that takes seconds to answer must not hold up
the event loop that feeds the watchdog.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

from orbito_hw.app.assemble import (
    by_light,
    check_backends,
    open_button,
    open_drive,
    open_lights,
    open_pin_factory,
    open_sensors,
    say_pin_library,
)
from orbito_hw.app.config import Config
from orbito_hw.errors import ConfigError, HardwareError
from orbito_hw.hw.health import BoardHealth
from orbito_hw.hw.interfaces import Board, Clock, part_is
from orbito_hw.hw.reconnect import Reconnect, WaitClock
from orbito_hw.hw.standby import (
    StandInButton,
    StandInColourSensors,
    StandInDrive,
    StandInLights,
    StandInSensors,
)
from orbito_hw.lang import _

log = logging.getLogger(__name__)

FIRST_RETRY_S = 1.0
"""The first wait before a missing part is tried again; it doubles up to ``LAST_RETRY_S``."""
LAST_RETRY_S = 8.0
"""The longest wait between tries: a Pico plugged in is found within this and its
handshake, at worst (under 10 s, as a person plugging it in waits); a try of a missing
part is cheap (a port not there is a stat), so waiting longer would save nothing."""


class Devices:
    """The board's parts, each opened as soon as it can be. ``board`` is whole from the
    start for the referee (stand-ins until the real parts are open)."""

    def __init__(
        self,
        config: Config,
        clock: Clock,
        loop: asyncio.AbstractEventLoop,
        reconnect_clock: WaitClock | None = None,
    ) -> None:
        check_backends(config)  # a config no device can mend: ConfigError, exit 2
        self.config = config
        self.loop = loop
        self.sensors = StandInColourSensors() if config.sensors.colour else StandInSensors()
        self.button = StandInButton()
        self.lights = StandInLights()
        self.health = BoardHealth(clock)
        self.drive = StandInDrive(clock, self.health)
        self._factory: Any = None  # the gpio parts' pin factory, opened with the first
        self._factory_open = False
        self.board = Board(
            clock,
            self.sensors,
            self.button,
            self.drive,
            self.lights,
            self._close_factory,
            health=self.health,
        )
        # In the order tried: the lights first, so that they show what else is missing.
        self._openers: dict[str, Callable[[], None]] = {
            "lights": self._open_lights,
            "drive": self._open_drive,
            "sensors": self._open_sensors,
            "button": self._open_button,
        }
        if config.backends.sensors == "serial":
            del self._openers["sensors"]  # they come with the Pico
        for name in self._openers:
            self.health.missing(name, "not opened yet")
        # One reconnect policy per part (the Pico's handed on to its link once it is open).
        self.reconnects = {
            name: Reconnect(FIRST_RETRY_S, LAST_RETRY_S, reconnect_clock) for name in self._openers
        }
        self.tries = 0
        self._timer: asyncio.TimerHandle | None = None
        self._trying: asyncio.Future[Any] | None = None
        self._closed = False
        self.lights.on_lost = lambda why: self._lost("lights", why)
        self._lost_meanwhile: set[str] = set()  # the parts lost while a try ran

    @property
    def missing(self) -> dict[str, str]:
        """The parts not open yet, by name, with why (a copy: the board's health holds it)."""
        return dict(self.health.now().missing)

    @property
    def whole(self) -> bool:
        return not self.health.now().missing

    def open_now(self) -> None:
        """One try at every part, here and now (before the loop runs): a board whose parts
        are all there starts exactly as it always did."""
        found = self._try_all(list(self.missing))
        for name, why in found.items():
            if why:
                self.reconnects[name].lost()  # its first try again after the first wait
        self._settle(found)

    def start(self) -> None:
        """From now on, missing parts are tried again in the background."""
        self._schedule()

    def close(self) -> None:
        """Stop trying; close every part that is open (the lights first, dark)."""
        self._closed = True
        if self._timer is not None:
            self._timer.cancel()
        self.board.close()

    def _lost(self, name: str, why: str) -> None:
        """A part that was open failed (on the loop): missing again, tried again."""
        log.warning(
            "%s",
            _("the board's {part}: lost: {reason}; trying again").format(part=name, reason=why),
        )
        self._lost_meanwhile.add(name)
        # Its words name the part: a strip gone is the strip's fault, not the drive's.
        self._settle({name: f"{part_is(name, 'missing')} ({why})"})
        self.reconnects[name].lost()
        self._schedule()

    # -- the tries ---------------------------------------------------------------------

    def _schedule(self) -> None:
        """The timer for the missing part whose try is due first (none while a try runs:
        its end schedules the next)."""
        if self._closed or self._trying is not None:
            return
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        waits = [self.reconnects[name].remaining() for name in self.missing]
        if waits:
            self._timer = self.loop.call_later(min(waits), self._in_background)

    def _in_background(self) -> None:
        self._timer = None
        due = [name for name in self.missing if self.reconnects[name].due()]
        if not due:  # the loop's timer fired a hair early (its clock's resolution)
            self._schedule()
            return
        self._lost_meanwhile.clear()
        self._trying = self.loop.run_in_executor(None, self._try_all, due)
        self._trying.add_done_callback(self._tried)

    def _tried(self, trying: asyncio.Future[dict[str, str]]) -> None:
        self._trying = None
        if self._closed or trying.cancelled() or trying.exception() is not None:
            return
        # A part opened by this try and lost again before it ended (a strip that failed its
        # first frame) stays missing: the loss, noted on the loop, came after the opening.
        found = {n: why for n, why in trying.result().items() if n not in self._lost_meanwhile}
        for name, why in found.items():
            if why:
                self.reconnects[name].failed()
            else:
                self.reconnects[name].succeeded()
        self._settle(found)
        self._schedule()

    def _try_all(self, names: list[str]) -> dict[str, str]:
        """Each of the missing parts ``names`` once (on a worker thread but for the first
        time): what came of each, by name ("" opened). The board's health is noted on the
        loop, after."""
        self.tries += 1
        missing = self.missing
        found: dict[str, str] = {}
        for name in names:
            if self._closed:
                break
            try:
                self._openers[name]()
            except ConfigError:
                raise
            except HardwareError as exc:
                found[name] = self._failed(name, str(exc), missing.get(name, ""))
            except Exception as exc:  # a library's own surprise: a fault, never a stop
                found[name] = self._failed(
                    name, f"{type(exc).__name__}: {exc}", missing.get(name, "")
                )
            else:
                found[name] = ""
                log.info("%s", _("the board's {part}: open").format(part=name))
        return found

    def _failed(self, name: str, why: str, before: str) -> str:
        if before != why:  # once per new reason: no flood every 8 s
            text = _("the board's {part} cannot be opened yet: {reason}; trying again")
            log.warning("%s", text.format(part=name, reason=why))
        return why

    def _settle(self, found: dict[str, str]) -> None:
        """Note in the board's health what came of the tries (``found``: why a part is
        missing, "" open), and tell whoever watches it (the referee) what it lacks now."""
        for name, why in found.items():
            if why:
                self.health.missing(name, why)
            else:
                self.health.opened(name)
        self.health.tell()
        if not self.missing:
            log.info("%s", _("every part of the board is there"))

    # -- the parts ---------------------------------------------------------------------
    # Each runs on the worker thread; attaching is safe there: the referee is told only
    # through the board's health, on the loop.

    def _open_lights(self) -> None:
        self.lights.attach(open_lights(self.config))

    def _pins(self) -> Any:
        """The pin factory the gpio parts share, opened once (a HardwareError naming
        ``backends.gpio`` until it can be)."""
        if not self._factory_open:
            self._factory = open_pin_factory(self.config, self.loop)
            self._factory_open = True
            say_pin_library(self.config, self._factory)
        return self._factory

    def _close_factory(self) -> None:
        if self._factory is not None:
            self._factory.close()
            self._factory = None

    def _open_drive(self) -> None:
        gpio = self.config.backends.drive != "serial"
        drive, pico_sensors = open_drive(
            self.config, self.board.clock, factory=self._pins() if gpio else None
        )
        if pico_sensors is not None:
            self.sensors.attach(pico_sensors)
        if self.config.backends.drive == "serial":
            from orbito_hw.hw.serial_backend import SerialRingDrive

            if isinstance(drive, SerialRingDrive):  # the Pico: its link gets it back from now on
                policy = self.reconnects["drive"]
                policy.succeeded()  # open now: its next loss starts at the first wait
                drive.link.reconnect = policy
        self.drive.attach(drive)

    def _open_sensors(self) -> None:
        sensors = open_sensors(
            self.config,
            self.board.clock,
            self._pins(),
            self._sensors_lost,
            on_fault=lambda line: self.health.failing("sensors", line),
        )
        if self.config.by_light:  # their LEDs flash on the strip as it comes and goes
            sensors = by_light(
                self.config,
                self.board.clock,
                sensors,
                self.lights,
                self._pins(),
                on_fault=lambda line: self.health.failing("colours", line),
            )
        self.sensors.attach(sensors)

    def _sensors_lost(self, why: str) -> None:
        """The sensors failed mid-game (their ADC gone from the bus): a fault the referee
        shows until they are open again."""
        self.sensors.detach()
        self._lost("sensors", why)

    def _open_button(self) -> None:
        self.button.attach(open_button(self.config, self.board.clock, self._pins()))
