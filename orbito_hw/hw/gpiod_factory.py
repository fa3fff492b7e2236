"""A gpiozero pin factory on the kernel's GPIO character device, through libgpiod v2's Python
bindings (``gpiod`` on PyPI): ``pin_factory=GpiodFactory()``, or by name,
``GPIOZERO_PIN_FACTORY=gpiod`` (pyproject.toml registers it under gpiozero's
``gpiozero_pin_factories`` entry point).

Why another factory: a board waits almost all its life, and lgpio's alert thread wakes
some 2,000 times a second to look for edges (a fixed 0.5 ms ``ppoll`` timeout) whenever one
is armed. The kernel already queues each edge on the line request's file descriptor, with
its own timestamp. Given the controller's asyncio loop (``GpiodFactory(loop=...)``, as
the app does), the loop waits on those descriptors itself: an edge is read and handed to
gpiozero on the loop, where the referee takes it, with no thread between (the system test
measured the edge on the loop 1 to 1.5 ms sooner than through lgpio, 5.8 against 7.3 ms
under emulation). Without a loop, one thread sleeps in ``epoll_wait`` on them with no
timeout. Either way an idle board costs no wake-ups at all.

- Each pin is a line request of its own (so pins open and fail one at a time, naming the
  pin, as with the other factories), claimed when the pin is made and released when it is
  closed. It is changed in place (``reconfigure_lines``), never released and claimed again,
  so no other process can take the line in between.
- Inputs: the kernel's bias (pull-up, pull-down, off) and debounce (``debounce_period``,
  from gpiozero's ``bounce``: the kernel passes an edge on once the line has been steady
  that long); edges come with the kernel's CLOCK_MONOTONIC timestamp, the clock of the
  factory's ``ticks()`` (``time.monotonic``) and of the controller's event loop.
- Outputs (STEP, DIR, ENABLE): one ``GPIO_V2_LINE_SET_VALUES`` ioctl per level, as lgpio's
  ``gpio_write``, so a step train keeps today's timing; ``output_with_state`` switches a
  line to output at its first level in one ioctl (no glitch on an active-low ENABLE).
- A line another process holds (or the kernel claimed for a bus) is a ``PinLineBusyError``
  naming the pin and the holder; any other refusal a ``PinLineError`` naming the pin.
- ``close()`` (the factory's or a pin's) releases what it opened, and may be called again.

The module imports ``gpiod`` at once: it is imported only when this factory is chosen.
"""

from __future__ import annotations

import asyncio
import ctypes
import errno
import logging
import os
import select
import struct
import threading
from collections.abc import Callable
from contextlib import suppress
from datetime import timedelta
from pathlib import Path
from typing import Any, Final

import gpiod
from gpiod.line import Bias, Direction, Edge, Value
from gpiozero.exc import (
    PinError,
    PinFixedPull,
    PinInvalidBounce,
    PinInvalidEdges,
    PinInvalidFunction,
    PinInvalidPin,
    PinInvalidPull,
    PinSetInput,
)
from gpiozero.pins.local import LocalPiFactory, LocalPiPin

from orbito_hw.errors import HardwareError
from orbito_hw.hw.clock import on_loop
from orbito_hw.lang import _

log = logging.getLogger(__name__)

CONSUMER: Final = "orbito-hw"
# The labels of the Raspberry Pis' own GPIO chips: a Pi 5's RP1, a Pi 4's BCM2711, the
# BCM2835 driver of the older Pis (Zero 2 W, 3). Any other machine: gpiochip0.
PI_CHIP_LABELS: Final = ("pinctrl-rp1", "pinctrl-bcm2712", "pinctrl-bcm2711", "pinctrl-bcm2835")
BIAS: Final = {"up": Bias.PULL_UP, "down": Bias.PULL_DOWN, "floating": Bias.DISABLED}
# The kernel's edge record (linux/gpio.h, struct gpio_v2_line_event, 48 bytes): timestamp_ns,
# id (GPIO_V2_LINE_EVENT_RISING_EDGE 1, FALLING 2), offset, seqno, line_seqno, 6 words
# padding; only the first two are used.
EVENT_RECORD: Final = struct.Struct("=QI36x")
EVENT_SIZE: Final = EVENT_RECORD.size
EVENT_RISING: Final = 1
EVENTS_PER_READ: Final = 16  # the kernel queues up to 16 per line by default
EDGES: Final = {
    "both": Edge.BOTH, "rising": Edge.RISING, "falling": Edge.FALLING, "none": Edge.NONE
}  # fmt: skip


# gpiozero's PinError (what its callers catch) and the package's HardwareError (an OSError:
# the machine's doing, not a bad value), as every error of orbito-hw is (tests/test_errors.py).
class PinLineBusyError(PinError, HardwareError):  # type: ignore[misc]  # gpiozero is untyped
    """The line is held by another process, or the kernel claimed it (an SPI chip select)."""


class PinLineError(PinError, HardwareError):  # type: ignore[misc]
    """The kernel refused a line for another reason (permissions, a chip gone)."""


def chips() -> list[Path]:
    """The machine's GPIO chips, in number order."""
    found = Path("/dev").glob("gpiochip*")
    return sorted(found, key=lambda p: int(p.name[8:]) if p.name[8:].isdigit() else 1 << 30)


def default_chip() -> Path:
    """The Pi's own GPIO chip (the header's pins), found by its label; else gpiochip0."""
    for path in chips():
        try:
            with gpiod.Chip(str(path)) as chip:
                label = chip.get_info().label
        except OSError:
            continue
        if label in PI_CHIP_LABELS:
            return path
    return Path("/dev/gpiochip0")


def _name_thread(name: bytes) -> None:
    """The calling thread's name in /proc/*/task/*/comm, for ``top -H`` and the system test's
    per-thread figures (Python before 3.14 names only its own ``threading`` objects)."""
    with suppress(OSError, AttributeError):  # no libc to be found: the name is a nicety
        ctypes.CDLL(None).prctl(15, name)  # PR_SET_NAME


def _take_edges(
    lock: threading.RLock, pins: dict[int, GpiodPin], fd: int, drop: Callable[[int], None]
) -> None:
    """The edges queued on the request behind ``fd``, read under ``lock`` (a pin closed
    meanwhile is never read) and handed to its pin outside it (a callback may close pins).
    A request whose edges cannot be read (its chip gone) is dropped: that line is lost, not
    the others, and a descriptor in error no longer wakes the reader."""
    with lock:
        pin = pins.get(fd)
        if pin is None:
            return
        try:
            events = pin._pending_events()
        except OSError as exc:
            text = _("{pin}: its edges cannot be read: {reason}")
            log.error("%s", text.format(pin=repr(pin), reason=exc))
            drop(fd)
            return
    for event in events:
        pin._edge(event)


class _EdgeReader:
    """One thread for every input's edges, asleep in ``epoll_wait`` with no timeout until
    the kernel queues an edge on a request's descriptor, or ``stop`` writes to an eventfd.

    A request's events are read under ``lock`` (the factory's, which every use of a request
    takes), so a pin closed meanwhile is never read; the callbacks run outside it, so a
    callback may close pins."""

    def __init__(self, lock: threading.RLock) -> None:
        self.lock = lock
        self._epoll = select.epoll()
        self._wake = os.eventfd(0, os.EFD_CLOEXEC | os.EFD_NONBLOCK)
        self._epoll.register(self._wake, select.EPOLLIN)
        self._pins: dict[int, GpiodPin] = {}  # the request's fd -> its pin
        self._thread: threading.Thread | None = None
        self._stopping = False

    def watch(self, fd: int, pin: GpiodPin) -> None:
        with self.lock:
            if fd in self._pins:
                return
            self._pins[fd] = pin
            self._epoll.register(fd, select.EPOLLIN)
            if self._thread is None:  # only once an edge is wanted: outputs need no thread
                self._thread = threading.Thread(target=self._run, name="gpiod-edges", daemon=True)
                self._thread.start()

    def unwatch(self, fd: int, then: Callable[[], None] | None = None) -> None:
        """Stop watching ``fd``; then ``then`` (the request's release)."""
        with self.lock:
            if self._pins.pop(fd, None) is not None:
                self._epoll.unregister(fd)
        if then is not None:
            then()

    def _run(self) -> None:
        _name_thread(b"gpiod-edges")
        while True:
            try:
                ready = self._epoll.poll()  # no timeout: the kernel wakes us, nothing else
            except (OSError, ValueError):  # closed under us (ValueError): the factory closed
                return
            for fd, _mask in ready:
                if fd == self._wake:
                    if self._stopping:
                        return
                    continue
                _take_edges(self.lock, self._pins, fd, self.unwatch)

    def stop(self) -> None:
        """Wake the thread to end, wait for it, close the descriptors. Idempotent."""
        if self._stopping:
            return
        self._stopping = True
        os.eventfd_write(self._wake, 1)
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout=5)
        self._epoll.close()
        os.close(self._wake)


class _LoopEdges:
    """Every input's edges read on the controller's event loop: the loop's own ``epoll``
    waits on each request's descriptor (``add_reader``), so an edge wakes no other thread and
    crosses no thread on its way: the read, gpiozero's callbacks and the referee's listeners
    all run on the loop, one wake-up for each edge.

    asyncio's readers belong to the loop's thread. From another thread (the devices'
    supervisor opens and closes parts on a worker), a watch is handed to the loop, and an
    unwatch waits (briefly, holding no lock) until the loop has let the descriptor go: a
    descriptor closed while the loop still watches it could come back as another file's
    under the same number (issue 26's race)."""

    HAND_OVER_S: Final = 1.0  # a loop that long busy: the release is left to it, not lost

    def __init__(self, lock: threading.RLock, loop: asyncio.AbstractEventLoop) -> None:
        self.lock = lock
        self.loop = loop
        self._pins: dict[int, GpiodPin] = {}

    def _here(self) -> bool:
        """Whether the loop's readers may be touched from this thread now (a closed loop
        has none: ``_remove`` leaves it alone)."""
        loop = self.loop
        return on_loop(loop) or not loop.is_running() or loop.is_closed()

    def watch(self, fd: int, pin: GpiodPin) -> None:
        with self.lock:
            if fd in self._pins:
                return
            self._pins[fd] = pin
        if self.loop.is_closed():
            return  # the controller is gone: no edge is wanted any more
        if self._here():
            self.loop.add_reader(fd, self._ready, fd)
        else:
            self.loop.call_soon_threadsafe(self._add, fd)

    def _add(self, fd: int) -> None:
        if fd in self._pins:  # not unwatched meanwhile
            self.loop.add_reader(fd, self._ready, fd)

    def unwatch(self, fd: int, then: Callable[[], None] | None = None) -> None:
        """Stop watching ``fd``; ``then`` (the request's release) once the loop has."""
        with self.lock:
            if self._pins.pop(fd, None) is None:
                if then is not None:
                    then()
                return
        if self._here():
            self._remove(fd, then)
            return
        once, done = threading.Lock(), threading.Event()

        def remove() -> None:
            if once.acquire(blocking=False):  # once, whoever comes first
                self._remove(fd, then)
                done.set()

        try:
            self.loop.call_soon_threadsafe(remove)
        except RuntimeError:  # the loop closed since: nobody watches the descriptor now
            remove()
        if not done.wait(self.HAND_OVER_S):
            if self.loop.is_running():  # busy: the loop releases the line when it gets there
                log.warning("%s", _("the event loop is busy: a GPIO line is released later"))
            else:  # stopped meanwhile: nobody else will
                remove()

    def _remove(self, fd: int, then: Callable[[], None] | None) -> None:
        if not self.loop.is_closed():
            self.loop.remove_reader(fd)
        if then is not None:
            then()

    def _ready(self, fd: int) -> None:
        _take_edges(self.lock, self._pins, fd, self._drop)

    def _drop(self, fd: int) -> None:
        """A descriptor in error, off the loop (on the loop: it would wake it for ever)."""
        self._pins.pop(fd, None)
        self.loop.remove_reader(fd)

    def stop(self) -> None:
        """Every line is unwatched as its pin closes: nothing of its own to stop."""


class GpiodFactory(LocalPiFactory):  # type: ignore[misc]  # gpiozero is untyped
    """gpiozero's pins on a GPIO chip through libgpiod v2. ``chip``: a path or a number
    (``/dev/gpiochipN``); None: the Pi's own chip (``default_chip``). ``loop``: the edges
    are read and their callbacks run on that asyncio loop (``_LoopEdges``: the controller's
    way); None: on a thread of the factory's own (``_EdgeReader``: gpiozero's way)."""

    kernel_timestamps: Final = True
    """Edge ticks are the kernel's CLOCK_MONOTONIC timestamps, in seconds (hw/gpio.py)."""

    def __init__(
        self, chip: int | str | Path | None = None, loop: asyncio.AbstractEventLoop | None = None
    ) -> None:
        super().__init__()
        if chip is None:
            path = default_chip()
        elif isinstance(chip, int) or str(chip).isdigit():
            path = Path(f"/dev/gpiochip{chip}")
        else:
            path = Path(chip)
        self.chip_path = path
        self.lock = threading.RLock()
        self._chip: gpiod.Chip | None = gpiod.Chip(str(path))
        self._reader: _EdgeReader | _LoopEdges = (
            _EdgeReader(self.lock) if loop is None else _LoopEdges(self.lock, loop)
        )
        self.pin_class = GpiodPin

    @property
    def chip(self) -> gpiod.Chip:
        if self._chip is None:
            raise PinLineError(f"{self.chip_path}: the pin factory is closed")
        return self._chip

    def close(self) -> None:
        # Every pin first (each releases its line), then the edge thread, then the chip.
        for pin in list(self.pins.values()):
            pin.close()
        self.pins.clear()
        self._reader.stop()
        if self._chip is not None:
            self._chip.close()
            self._chip = None


def _value(state: Any) -> Value:
    return Value.ACTIVE if state else Value.INACTIVE


class GpiodPin(LocalPiPin):  # type: ignore[misc]
    """One GPIO line, one line request. The line is claimed as it is (its direction and
    bias untouched) until a device says what it wants: ``output_with_state`` or
    ``input_with_pull`` then sets it up in one step."""

    def __init__(self, factory: GpiodFactory, info: Any) -> None:
        super().__init__(factory, info)
        self._offset: int = int(info.name[4:])
        self._edges = "both"
        self._bounce: float | None = None
        self._watching = False
        self._request: gpiod.LineRequest | None = None
        with factory.lock:
            line = self._call(lambda: factory.chip.get_line_info(self._offset))
            self._function = "output" if line.direction is Direction.OUTPUT else "input"
            self._pull = {Bias.PULL_UP: "up", Bias.PULL_DOWN: "down"}.get(line.bias, "floating")
            self._output = False
            self._request = self._claim(line)

    # --- the line ------------------------------------------------------------------------
    @property
    def _owner(self) -> GpiodFactory:
        factory: GpiodFactory = self.factory
        return factory

    def _call(self, action: Any) -> Any:
        """``action()``, with the kernel's refusal as an error naming the pin."""
        try:
            return action()
        except ValueError as exc:  # an offset the chip does not have
            raise PinInvalidPin(f"{self!r}: not a line of {self._owner.chip_path}") from exc
        except OSError as exc:
            reason = exc.strerror or str(exc)
            raise PinLineError(f"{self!r}: {reason}") from exc

    def _claim(self, line: Any) -> gpiod.LineRequest:
        factory = self._owner
        try:
            request = factory.chip.request_lines({self._offset: gpiod.LineSettings()}, CONSUMER)
        except OSError as exc:
            if exc.errno == errno.EBUSY:
                holder = f"held by {line.consumer!r}" if line.consumer else "in use"
                raise PinLineBusyError(
                    f"{self!r} is busy: line {self._offset} of {factory.chip_path} is {holder}"
                ) from exc
            raise PinLineError(
                f"{self!r}: cannot claim line {self._offset} of {factory.chip_path}: "
                f"{exc.strerror or exc}"
            ) from exc
        os.set_blocking(request.fd, False)  # edges read as they come (_pending_events)
        return request

    @property
    def request(self) -> gpiod.LineRequest:
        if self._request is None:
            raise PinLineError(f"{self!r}: the pin is closed")
        return self._request

    def _settings(self) -> gpiod.LineSettings:
        if self._function == "output":
            return gpiod.LineSettings(direction=Direction.OUTPUT, output_value=_value(self._output))
        return gpiod.LineSettings(
            direction=Direction.INPUT,
            bias=BIAS[self._pull],
            edge_detection=EDGES[self._edges] if self._watching else Edge.NONE,
            debounce_period=timedelta(seconds=self._bounce or 0),
        )

    def _apply(self) -> None:
        with self._owner.lock:
            request = self.request
            self._call(lambda: request.reconfigure_lines({self._offset: self._settings()}))

    def close(self) -> None:
        factory = self._owner
        with factory.lock:
            request, self._request = self._request, None
            if request is None:
                return
            self._watching = False
            # A closed pin is done with: the next device on this pin gets a new one.
            if factory.pins.get(self.info) is self:
                del factory.pins[self.info]
        # Outside the lock (the loop takes it to read edges): the line is released once
        # nothing waits on its descriptor any more.
        factory._reader.unwatch(request.fd, then=request.release)

    # --- gpiozero's pin ------------------------------------------------------------------
    def output_with_state(self, state: Any) -> None:
        self._function, self._output = "output", bool(state)
        self._apply()

    def input_with_pull(self, pull: str) -> None:
        self._check_pull(pull, "input")
        self._function, self._pull = "input", pull
        self._apply()

    def _get_function(self) -> str:
        return self._function

    def _set_function(self, value: str) -> None:
        if value not in ("input", "output"):
            raise PinInvalidFunction(f'invalid function "{value}" for pin {self!r}')
        if value == "output" and self._function != "output":
            self._watching = False  # gpiozero's when_changed is for inputs only
            self._output = self._get_state()  # an output at the level the line had
        self._function = value
        self._apply()

    def _get_state(self) -> bool:
        request = self.request
        return bool(self._call(lambda: request.get_value(self._offset)) is Value.ACTIVE)

    def _set_state(self, value: Any) -> None:
        if self._function != "output":
            raise PinSetInput(f"cannot set state of pin {self!r}")
        # The step train's hot path: one ioctl, no lock (set_value on a request is atomic
        # in the kernel, and only close() replaces the request).
        self._output = bool(value)
        request = self.request
        try:
            request.set_value(self._offset, Value.ACTIVE if value else Value.INACTIVE)
        except OSError as exc:
            raise PinLineError(f"{self!r}: {exc.strerror or exc}") from exc

    def _get_pull(self) -> str:
        return self._pull

    def _check_pull(self, value: str, function: str) -> None:
        if function != "input":
            raise PinFixedPull(f"cannot set pull on non-input pin {self!r}")
        if value not in BIAS:
            raise PinInvalidPull(f'invalid pull "{value}" for pin {self!r}')
        if self.info.pull not in (value, ""):
            raise PinFixedPull(f"{self!r} has a physical pull-{self.info.pull} resistor")

    def _set_pull(self, value: str) -> None:
        self._check_pull(value, self._function)
        self._pull = value
        self._apply()

    def _get_bounce(self) -> float | None:
        return self._bounce

    def _set_bounce(self, value: float | None) -> None:
        if value is not None and value < 0:
            raise PinInvalidBounce("bounce must be 0 or greater")
        self._bounce = value or None
        if self._function == "input":
            self._apply()

    def _get_edges(self) -> str:
        return self._edges

    def _set_edges(self, value: str) -> None:
        if value not in EDGES:
            raise PinInvalidEdges(f'invalid edge specification "{value}" for pin {self!r}')
        self._edges = value
        if self._watching:
            self._apply()

    def _enable_event_detect(self) -> None:
        with self._owner.lock:
            self._watching = True
            self._apply()
            self._owner._reader.watch(self.request.fd, self)

    def _disable_event_detect(self) -> None:
        factory = self._owner
        with factory.lock:
            self._watching = False
            request = self._request
            if request is None:
                return
        factory._reader.unwatch(request.fd)  # outside the lock, as in close
        with factory.lock:
            if self._request is request:
                self._apply()

    # --- the edge thread's side ----------------------------------------------------------
    def _pending_events(self) -> list[tuple[int, bool]]:
        """The edges queued on the request, as (kernel timestamp in ns, rising), without
        blocking (called under the lock; the request's descriptor is non-blocking).

        Read as the kernel's ``struct gpio_v2_line_event`` records, in one ``read``: the
        bindings' ``read_edge_events`` costs a ``poll`` and a dataclass and an Enum per edge
        (``wait_edge_events(0)`` first, else it blocks), the edge thread's whole path."""
        request = self._request
        if request is None:
            return []
        try:
            data = os.read(request.fd, EVENT_SIZE * EVENTS_PER_READ)
        except BlockingIOError:  # another wake-up took them (or the edge was debounced away)
            return []
        whole = len(data) - len(data) % EVENT_SIZE  # the kernel reads whole records only
        return [
            (stamp, kind == EVENT_RISING) for stamp, kind in EVENT_RECORD.iter_unpack(data[:whole])
        ]

    def _edge(self, event: tuple[int, bool]) -> None:
        """One edge to gpiozero: the kernel's timestamp as the tick, the level it went to."""
        if self._when_changed is None:  # stopped listening since the edge was read
            return
        stamp, rising = event
        try:
            self._call_when_changed(stamp / 1e9, rising)
        except Exception:  # the thread serves every pin: one callback's bug stops no other
            log.exception("%s", _("{pin}: the edge callback failed").format(pin=repr(self)))
