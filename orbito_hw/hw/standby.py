"""Parts that stand in for the board's real ones until these are there, and after they go.

A board lives for years: its Pico is plugged in after the service started, unplugged by a
child, a GPIO line is held by another program at boot. The referee must never see a part
come and go: it sees these stand-ins from the start, and each one hands its work to the
real part once the device supervisor (``app/devices.py``) has opened it.

While a part is missing the board cannot play. What is missing is held in one place, the
board's health (``hw/health.py``), which the referee watches: it hears each missing part
there, and "" once all of them are back, at which it recovers as after a restart: it homes
the rings and checks the board against the journal. A move asked for meanwhile ends at once
with the same fault, no step made (``StandInDrive``).
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable
from typing import Generic, TypeVar

from orbito_hw.hw.health import BoardHealth
from orbito_hw.hw.interfaces import (
    RGB,
    Button,
    ButtonListener,
    Clock,
    FaultListener,
    Frame,
    Lights,
    MoveListener,
    MoveReport,
    RingDrive,
    SquareListener,
    SquareSensors,
    reread_colours,
)

P = TypeVar("P", SquareSensors, Button, RingDrive, Lights)


class StandIn(Generic[P]):
    """A part of the board, real once ``attach``-ed. Closes once, with its real part."""

    def __init__(self) -> None:
        self.real: P | None = None
        self.closed = False

    def attach(self, real: P) -> None:
        if self.closed:
            real.close()  # opened while the board shut down: let go of it at once
            return
        self.real = real
        self._attached(real)

    def _attached(self, real: P) -> None:
        pass

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        if self.real is not None:
            self.real.close()


class StandInSensors(StandIn[SquareSensors]):
    """No square reads a marble until the sensors are there; then each listener hears the
    real sensors (the referee reads them all again when the board is whole)."""

    def __init__(self) -> None:
        super().__init__()
        self._listeners: list[SquareListener] = []

    def read(self) -> int:
        return self.real.read() if self.real is not None else 0

    def subscribe(self, listener: SquareListener) -> None:
        self._listeners.append(listener)
        if self.real is not None:
            self.real.subscribe(listener)

    def _attached(self, real: SquareSensors) -> None:
        for listener in self._listeners:
            real.subscribe(listener)

    def detach(self) -> None:
        """The real sensors failed (an ADC gone from its bus): let go of them; no square
        reads a marble until the supervisor has opened them again."""
        real, self.real = self.real, None
        if real is not None:
            with contextlib.suppress(Exception):
                real.close()


class StandInColourSensors(StandInSensors):
    """The stand-in of sensors that tell colours (``ColourSensors``): no marble of either
    colour until they are there."""

    def colours(self) -> tuple[int, int]:
        real = self.real
        if real is None:
            return 0, 0
        colours: tuple[int, int] = getattr(real, "colours")()  # noqa: B009 - a ColourSensors
        return colours

    def reread(self) -> None:
        """The real sensors' colours read afresh, where they read them only when asked."""
        reread_colours(self.real)


class StandInButton(StandIn[Button]):
    """Never pressed until the button is there."""

    def __init__(self) -> None:
        super().__init__()
        self._listeners: list[ButtonListener] = []

    @property
    def is_pressed(self) -> bool:
        return self.real.is_pressed if self.real is not None else False

    def subscribe(self, listener: ButtonListener) -> None:
        self._listeners.append(listener)
        if self.real is not None:
            self.real.subscribe(listener)

    def _attached(self, real: Button) -> None:
        for listener in self._listeners:
            real.subscribe(listener)


class StandInLights(StandIn[Lights]):
    """Keeps the last frame drawn, and shows it the moment the strip is there: the first
    thing a strip that comes late shows is what is wrong with the rest of the board.

    A strip that fails to show a frame (its SPI device gone: ``OSError``) is let go, and
    ``on_lost`` hears why: the supervisor opens it again, as it does a part never opened."""

    def __init__(self) -> None:
        super().__init__()
        self._frame: list[RGB | None] = [None] * 16
        self._status: RGB | None = None
        self.on_lost: Callable[[str], None] = lambda why: None

    def show(self, frame: Frame, status: RGB | None = None) -> None:
        self._send(frame, status, None)

    def show_full(self, frame: Frame, status: RGB | None, square: int) -> None:
        """As ``show``, ``square``'s pixel past the brightness cap where the strip can (a
        colour reading's flash, hw/light.py)."""
        self._send(frame, status, square)

    def _send(self, frame: Frame, status: RGB | None, full: int | None) -> None:
        self._frame, self._status = list(frame), status
        real = self.real
        if real is None:
            return
        try:
            show_full = getattr(real, "show_full", None)
            if full is not None and show_full is not None:
                show_full(frame, status, full)
            else:
                real.show(frame, status)
        except OSError as exc:
            self.real = None
            with contextlib.suppress(Exception):
                real.close()
            self.on_lost(f"it failed: {exc}")  # the supervisor names the strip

    def shown(self) -> tuple[list[RGB | None], RGB | None]:
        if self.real is not None:
            return self.real.shown()
        return [None] * 16, None  # nothing lit: no strip to light

    @property
    def watched(self) -> bool:
        """Whether the lights are seen (control/lights.py ``watched``): those it stands in
        for; a strip still missing may come, so it is."""
        real = self.real
        return real is None or bool(getattr(real, "watched", True))

    def _attached(self, real: Lights) -> None:
        real.show(self._frame, self._status)


class StandInDrive(StandIn[RingDrive]):
    """The ring drive. While a part of the board is missing (``BoardHealth``) a move asked
    for ends at once with the board's fault line, no step made: the referee must not turn
    the rings of a board it cannot read. The real drive's words between moves go to the
    board's health (``failing``), and to whoever watches the drive itself."""

    def __init__(self, clock: Clock, health: BoardHealth) -> None:
        super().__init__()
        self.clock = clock
        self.health = health
        self._watchers: list[FaultListener] = []

    @property
    def moving(self) -> bool:
        return self.real.moving if self.real is not None else False

    def move(self, places: int, done: MoveListener) -> None:
        self._run(places, done, lambda real: real.move(places, self._heard(done)))

    def home(self, done: MoveListener) -> None:
        self._run(0, done, lambda real: real.home(self._heard(done)))

    def watch(self, on_fault: FaultListener) -> None:
        """The real drive's own words (the board's health is ``BoardHealth``'s)."""
        self._watchers.append(on_fault)
        if self.real is not None:
            self.real.watch(on_fault)

    def wait_idle(self, timeout: float) -> bool:
        wait: Callable[[float], bool] | None = getattr(self.real, "wait_idle", None)
        return True if wait is None else wait(timeout)

    def _run(self, places: int, done: MoveListener, start: Callable[[RingDrive], None]) -> None:
        health = self.health.now()
        if self.real is None or health.missing:
            fault = health.fault or "the ring drive is not open"
            self.clock.post(functools.partial(done, MoveReport(places, 0, False, fault=fault)))
            return
        start(self.real)

    def _heard(self, done: MoveListener) -> MoveListener:
        """``done``, after noting a move's fault as told: the referee has heard it in the
        report, and hears "" once the drive says it works again (a link that came back)."""

        def report(report: MoveReport) -> None:
            self.health.heard(report.fault)
            done(report)

        return report

    def _attached(self, real: RingDrive) -> None:
        real.watch(lambda fault: self.health.failing("drive", fault))
        for watcher in self._watchers:
            real.watch(watcher)
