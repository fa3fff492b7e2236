"""A GPIO chip in the kernel, as libgpiod v2's Python bindings see it, for the gpiod pin
factory's tests on any machine (no /dev/gpiochip, no gpio-sim needed).

Only ``gpiod.Chip`` is replaced (``install``); the bindings' own pure-Python parts are the
real ones (``LineSettings``, ``Value``, ``EdgeEvent`` and the enums), so the factory is
tested against the bindings' real types. What the fake kernel does, after the kernel's
gpiolib-cdev.c:

- a line is held by one request at a time: another request is ``OSError(EBUSY)``;
- an input reads what drives it from outside (``drive``), else its bias (a pull);
- with edge detection, each change of level is an edge event queued on the request's file
  descriptor (a pipe here) as the kernel's 48-byte ``struct gpio_v2_line_event``,
  timestamped by the caller's CLOCK_MONOTONIC time in ns; with a debounce period, a change
  becomes an event only once the line has stayed at the new level that long (``advance``
  lets the time pass), stamped at that time;
- an output reads back the level it was set to, and every level set is recorded
  (``writes``) with ``time.perf_counter()``.
"""

from __future__ import annotations

import errno
import os
import select
import struct
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import timedelta
from types import SimpleNamespace
from typing import Any

import gpiod
import pytest
from gpiod.line import Bias, Direction, Edge, Value

RISING = gpiod.EdgeEvent.Type.RISING_EDGE
FALLING = gpiod.EdgeEvent.Type.FALLING_EDGE
# linux/gpio.h's struct gpio_v2_line_event: timestamp_ns, id, offset, seqno, line_seqno, padding.
EVENT = struct.Struct("=QIIII24x")


@dataclass
class Line:
    offset: int
    driven: bool | None = None  # the outside world's level; None: nothing drives the line
    settings: gpiod.LineSettings = field(default_factory=gpiod.LineSettings)
    output: bool = False
    request: FakeRequest | None = None
    consumer: str = ""
    seen: bool = False  # the level the edge detector last reported
    pending: tuple[bool, int] | None = None  # a change waiting out the debounce: (level, since)
    seqno: int = 0  # the line's own event count
    writes: list[tuple[float, bool]] = field(default_factory=list)

    def level(self) -> bool:
        if self.settings.direction is Direction.OUTPUT:
            return self.output
        if self.driven is not None:
            return self.driven
        return self.settings.bias is Bias.PULL_UP


class Kernel:
    """One fake GPIO chip (``/dev/gpiochip0``, or ``path``) of ``lines`` lines."""

    def __init__(self, lines: int = 28, label: str = "pinctrl-bcm2711") -> None:
        self.lines = {n: Line(n) for n in range(lines)}
        self.label = label
        self.paths = {"/dev/gpiochip0"}
        self.open_chips = 0
        self.open_requests: set[FakeRequest] = set()
        self.global_seqno = 0

    def hold(self, offset: int, consumer: str) -> None:
        """Another process holds the line (gpioset, or the kernel's SPI driver)."""
        self.lines[offset].consumer = consumer
        self.lines[offset].request = FakeRequest.__new__(FakeRequest)  # not ours

    def drive(self, offset: int, high: bool, at_ns: int | None = None) -> None:
        """The outside world sets a line's level (a sensor, a hand on the button)."""
        line = self.lines[offset]
        line.driven = high
        self._changed(line, time.monotonic_ns() if at_ns is None else at_ns)

    def advance(self, to_ns: int) -> None:
        """Let the time pass until ``to_ns``: debounced changes that stayed are reported."""
        for line in self.lines.values():
            if line.pending is None:
                continue
            level, since = line.pending
            period = _ns(line.settings.debounce_period)
            if since + period <= to_ns:
                line.pending = None
                self._report(line, level, since + period)

    def _changed(self, line: Line, at_ns: int) -> None:
        request, settings = line.request, line.settings
        if not isinstance(request, FakeRequest) or not hasattr(request, "fd"):  # another's
            return
        if settings.edge_detection is Edge.NONE or settings.direction is not Direction.INPUT:
            line.seen = line.level()
            return
        level = line.level()
        if _ns(settings.debounce_period) == 0:
            self._report(line, level, at_ns)
        elif level == line.seen:
            line.pending = None  # bounced back within the period: nothing happened
        else:
            line.pending = (level, at_ns)

    def _report(self, line: Line, level: bool, at_ns: int) -> None:
        if level == line.seen:
            return
        line.seen = level
        edge = line.settings.edge_detection
        if (edge is Edge.RISING and not level) or (edge is Edge.FALLING and level):
            return
        request = line.request
        assert isinstance(request, FakeRequest)
        self.global_seqno += 1
        kind = RISING if level else FALLING
        line.seqno += 1
        # What the kernel queues on the request's descriptor: a struct gpio_v2_line_event.
        record = EVENT.pack(at_ns, kind.value, line.offset, self.global_seqno, line.seqno)
        os.write(request.write_end, record)


def _ns(period: timedelta) -> int:
    return round(period.total_seconds() * 1e9)


class FakeRequest:
    def __init__(self, kernel: Kernel, offsets: list[int]) -> None:
        self.kernel = kernel
        self.offsets = offsets
        self.fd, self.write_end = os.pipe()
        self.released = False
        kernel.open_requests.add(self)

    def fileno(self) -> int:
        return self.fd

    def _line(self, offset: int) -> Line:
        if self.released:
            raise gpiod.RequestReleasedError()
        if offset not in self.offsets:
            raise ValueError(f"line {offset} not in this request")
        return self.kernel.lines[offset]

    def reconfigure_lines(self, config: dict[Any, gpiod.LineSettings | None]) -> None:
        for offset, settings in config.items():
            line = self._line(offset)
            line.settings = settings or gpiod.LineSettings()
            if line.settings.direction is Direction.OUTPUT:
                self._set(line, line.settings.output_value is Value.ACTIVE)
            line.seen = line.level()  # the detector starts from the level it finds
            line.pending = None

    def get_value(self, offset: int) -> Value:
        return Value.ACTIVE if self._line(offset).level() else Value.INACTIVE

    def set_value(self, offset: int, value: Value) -> None:
        line = self._line(offset)
        if line.settings.direction is not Direction.OUTPUT:
            raise PermissionError(errno.EPERM, "Operation not permitted")
        self._set(line, value is Value.ACTIVE)

    def _set(self, line: Line, level: bool) -> None:
        line.output = level
        line.writes.append((time.perf_counter(), level))

    def wait_edge_events(self, timeout: float | timedelta | None = None) -> bool:
        if self.released:
            raise gpiod.RequestReleasedError()
        seconds = timeout.total_seconds() if isinstance(timeout, timedelta) else timeout
        return bool(select.select([self.fd], [], [], seconds)[0])

    def read_edge_events(self, max_events: int | None = None) -> list[gpiod.EdgeEvent]:
        if self.released:
            raise gpiod.RequestReleasedError()
        data = os.read(self.fd, EVENT.size * (max_events or 16))
        return [gpiod.EdgeEvent(*record) for record in EVENT.iter_unpack(data)]

    def release(self) -> None:
        if self.released:
            return
        self.released = True
        for offset in self.offsets:
            line = self.kernel.lines[offset]
            line.request, line.consumer, line.pending = None, "", None
            line.settings = gpiod.LineSettings(bias=line.settings.bias)
        os.close(self.fd)
        os.close(self.write_end)
        self.kernel.open_requests.discard(self)


class FakeChip:
    """``gpiod.Chip`` on the fake kernel."""

    kernel: Kernel

    def __init__(self, path: str) -> None:
        if path not in self.kernel.paths:
            raise FileNotFoundError(errno.ENOENT, "No such file or directory", path)
        self.path = path
        self.closed = False
        self.kernel.open_chips += 1

    def __enter__(self) -> FakeChip:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self.kernel.open_chips -= 1

    def get_info(self) -> SimpleNamespace:
        return SimpleNamespace(name="gpiochip0", label=self.kernel.label, num_lines=28)

    def get_line_info(self, offset: int) -> SimpleNamespace:
        if offset not in self.kernel.lines:
            raise OSError(errno.EINVAL, "Invalid argument")
        line = self.kernel.lines[offset]
        return SimpleNamespace(
            offset=offset,
            used=line.request is not None,
            consumer=line.consumer,
            direction=line.settings.direction
            if line.settings.direction is not Direction.AS_IS
            else Direction.INPUT,
            bias=line.settings.bias if line.settings.bias is not Bias.AS_IS else Bias.UNKNOWN,
        )

    def request_lines(
        self, config: dict[Any, gpiod.LineSettings | None], consumer: str | None = None
    ) -> FakeRequest:
        offsets = [int(offset) for offset in _keys(config)]
        for offset in offsets:
            if offset not in self.kernel.lines:
                raise OSError(errno.EINVAL, "Invalid argument")
            if self.kernel.lines[offset].request is not None:
                raise OSError(errno.EBUSY, "Device or resource busy")
        request = FakeRequest(self.kernel, offsets)
        for offset in offsets:
            line = self.kernel.lines[offset]
            line.request, line.consumer = request, consumer or "?"
        request.reconfigure_lines(dict(config))
        return request


def _keys(config: dict[Any, Any]) -> Iterator[Any]:
    for key in config:
        if isinstance(key, Iterable) and not isinstance(key, str):
            yield from key
        else:
            yield key


@contextmanager
def installed(monkeypatch: pytest.MonkeyPatch, kernel: Kernel) -> Iterator[Kernel]:
    chip = type("Chip", (FakeChip,), {"kernel": kernel})
    monkeypatch.setattr(gpiod, "Chip", chip)
    yield kernel
