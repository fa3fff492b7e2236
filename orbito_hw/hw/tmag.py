"""The squares of the reference board: a TMAG5273 three-axis hall sensor under each, on
the Pi's I2C behind two TCA9548A multiplexers (adafruit-circuitpython-tmag5273 and
-tca9548a, imported only when this backend is chosen), asleep until a marble moves.

**Asleep.** Each sensor runs in its wake-up and sleep mode: it converts its three axes
every ``sleep_ms`` on its own and compares them with thresholds the controller armed for
what its square holds. An empty square's sensor is armed *above* (a little over its empty
field on each axis: any marble's field passes one of them, ``wake_thresholds``); a held
square's *below*, on the axis its marble's field is strongest, half-way down to empty. A
crossing pulses the sensor's open-drain INT, all 16 wired together into one GPIO read
through the gpio parts' pin factory; the controller reads the bus only after an edge, plus
one check every ``check_s`` (a sensor that reset and lost its set-up raises no INT).

**A sweep** reads each sensor once: X, Y, Z and its conversion status in one transfer. The
field less the square's calibrated empty vector decides the square (threshold and
hysteresis, ``hw/tmag_calibration.py``); a square that changed is told to the listeners
and its sensor armed again. A status whose POR flag is set is a sensor that reset or
browned out: it is set up again, and read at the next sweep.

**Faults.** A sensor that does not answer (a NAK, its multiplexer's channel dead, the bus
held low, cleared by nine clocks first) leaves its square *unknown*: it keeps what it last
read (never empty), and ``on_fault`` hears a line naming the square, which the board's
health shows the players until it answers again (then ""): no turn is decided meanwhile.
"""

from __future__ import annotations

import functools
import logging
import math
import struct
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from orbito_hw.errors import HardwareError
from orbito_hw.hw import tmag_chip as chip
from orbito_hw.hw.i2c_bus import BUS_ERRNOS, SafeBus
from orbito_hw.hw.interfaces import Clock, SquareListener, TimerHandle
from orbito_hw.hw.tmag_calibration import SquareCalibration, TmagCalibration, Vector
from orbito_hw.lang import R_, _, reworded
from orbito_hw.rules.squares import SQUARE_NAMES, SQUARES

log = logging.getLogger(__name__)

WAKE_MARGIN_G: Final = chip.figures().threshold_g / math.sqrt(3)
"""How far over its empty field an axis must rise to wake the controller: the model's
threshold (``hw/tmag_chip.figures``, its one source) spread over three axes, 6.43 G for
11.14 G; a marble's field, at least 33.8 G, passes it on one axis at least while the empty
field stays under 4 G an axis."""


RECOVER_S = 30.0
"""The least time between two bus clears of a bus that stays held low."""


class TmagError(HardwareError):
    """The sensors' bus cannot be used (it cannot be opened, or no multiplexer answers)."""


def wake_thresholds(cal: SquareCalibration, field: Vector, present: bool) -> tuple[int, ...]:
    """The X, Y, Z threshold registers (7-bit, 3.125 G an LSB) and whether they are armed
    below, for a square read as ``field`` holding a marble (``present``) or not.

    Empty: each axis a margin over its empty field, and over what it reads now (a square read
    empty just over the margin must not pulse every conversion). Held: the strongest axis
    half-way between its field and its empty one, the others at 0 (never under it)."""
    lsb = chip.GAUSS_PER_THRESHOLD
    if not present:
        return tuple(
            min(
                chip.THRESHOLD_MAX,
                max(math.ceil((abs(e) + WAKE_MARGIN_G) / lsb), math.floor(abs(f) / lsb) + 1),
            )
            for e, f in zip(cal.empty, field, strict=True)
        )
    axis = max(range(3), key=lambda i: abs(field[i]))
    half = (abs(field[axis]) + abs(cal.empty[axis])) / 2
    out = [0, 0, 0]
    out[axis] = max(1, min(chip.THRESHOLD_MAX, math.floor(half / lsb)))
    return tuple(out)


@dataclass
class _Square:
    """One square's sensor as the controller knows it."""

    square: int
    device: Any = None  # the library's TMAG5273 (its i2c_device), once it has answered
    present: bool = False
    field: Vector = (0.0, 0.0, 0.0)
    fault: str = ""  # why it is unknown ("": it answers)
    set_up: bool = False


class TmagSquares:
    """``SquareSensors`` on the 16 TMAG5273. ``bus``: a busio.I2C-like bus (None: the Pi's
    ``/dev/i2c-<config.bus>``); ``factory``: the gpio parts' pin factory for the INT line;
    ``on_fault``: hears, through the clock, the line naming the squares unknown ("" once
    every sensor answers)."""

    def __init__(
        self,
        config: chip.TmagConfig,
        clock: Clock,
        calibration: TmagCalibration,
        factory: Any = None,
        bus: Any = None,
        on_fault: Callable[[str], None] | None = None,
        settle: Callable[[float], None] = time.sleep,
    ) -> None:
        self.config = config
        self.clock = clock
        self.calibration = calibration
        self.on_fault = on_fault
        self.sweeps = 0
        self.edges = 0
        self._listeners: list[SquareListener] = []
        self._squares = [_Square(sq) for sq in SQUARES]
        self._closed = False
        self._told = ""
        self._sweep_due = False
        self._stuck = ""  # why the bus is held low for good, in this sweep
        self._recovered = -RECOVER_S  # when nine clocks were last sent
        self._timer: TimerHandle | None = None
        self._int: Any = None
        self._own_bus = bus is None
        if bus is None:
            from orbito_hw.hw.i2c_bus import open_linux_bus

            try:
                bus = open_linux_bus(config.bus, chip.SDA_PIN, chip.SCL_PIN)
            except PermissionError:
                why = (
                    f"cannot open /dev/i2c-{config.bus}: permission denied (the service's "
                    "user must be in the i2c group: scripts/install.sh adds it)"
                )
                raise TmagError(why) from None
            except (OSError, RuntimeError) as exc:
                why = (
                    f"cannot open I2C bus {config.bus}: {exc} "
                    "(I2C on: raspi-config nonint do_i2c 0, or dtparam=i2c_arm=on)"
                )
                raise TmagError(why) from None
        self.bus = bus if isinstance(bus, SafeBus) else SafeBus(bus)
        try:
            from adafruit_tca9548a import TCA9548A  # only when this backend is chosen

            self._muxes = [TCA9548A(self.bus, address) for address in config.muxes]
            self._deselect_all()
            for sq in self._squares:
                self._open_sensor(sq)
            if all(sq.fault for sq in self._squares):
                raise TmagError(f"no sensor answers: {self._squares[0].fault}")
            # Each sensor's first conversion, read before the sensors are open: the first
            # read() is the board as it is (``settle``: the simulated board's is at once).
            settle(chip.CONVERSION_S * 1.5)
            self.sweep()
            self._open_int(factory)
        except BaseException:
            self._close_devices()
            raise
        self._fault_changed()
        self._timer = clock.call_later(config.check_s, self._check)

    # -- SquareSensors ------------------------------------------------------------------
    def read(self) -> int:
        """The squares read holding a marble; an unknown square as it was last read."""
        return sum(1 << sq.square for sq in self._squares if sq.present)

    def subscribe(self, listener: SquareListener) -> None:
        self._listeners.append(listener)

    def unknown(self) -> int:
        """The squares whose sensor does not answer now, as a mask."""
        return sum(1 << sq.square for sq in self._squares if sq.fault)

    def fields(self) -> tuple[Vector | None, ...]:
        """Each square's last field (gauss), None where its sensor does not answer: what the
        doctor calibrates with."""
        return tuple(None if sq.fault else sq.field for sq in self._squares)

    def sweep(self) -> None:
        """Read every sensor now (the doctor's calibration; a sweep on the clock's thread)."""
        self._sweep_due = False
        self.sweeps += 1
        self._stuck = ""
        for sq in self._squares:
            if self._closed:
                return
            if self._stuck:  # a bus held low for good: the others are not tried this sweep
                self._unknown(sq, self._stuck)
                continue
            self._read(sq)
        self._fault_changed()

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        if self._timer is not None:
            self._timer.cancel()
        self._listeners.clear()
        self._close_devices()

    # -- the INT line -------------------------------------------------------------------
    def _open_int(self, factory: Any) -> None:
        from gpiozero import DigitalInputDevice

        # Open drain, active low, the Pi's own pull-up (the breakouts add theirs).
        self._int = DigitalInputDevice(self.config.int_pin, pull_up=True, pin_factory=factory)
        self._int.when_activated = self._edge

    def _edge(self) -> None:
        """A sensor pulsed the line (any thread): one sweep on the clock's, however many
        pulses come before it runs."""
        self.edges += 1
        if not self._sweep_due:
            self._sweep_due = True
            self.clock.post(self._swept)

    def _swept(self) -> None:
        if not self._closed and self._sweep_due:
            self.sweep()

    def _check(self) -> None:
        """The slow check: a sensor that reset raised no edge; one that failed may answer."""
        self._timer = None
        if self._closed:
            return
        self.sweep()
        self._timer = self.clock.call_later(self.config.check_s, self._check)

    # -- one sensor -----------------------------------------------------------------------
    def _channel(self, sq: _Square) -> Any:
        mux, channel = chip.square_channel(self.config.channels[sq.square])
        return self._muxes[mux][channel]

    def _open_sensor(self, sq: _Square) -> None:
        from adafruit_tmag5273 import TMAG5273

        try:
            sq.device = TMAG5273(self._channel(sq), self.config.address)
            self._set_up(sq)
        except (OSError, ValueError, RuntimeError) as exc:
            self._failed(sq, exc)

    def _set_up(self, sq: _Square) -> None:
        """The sensor's registers for the wake-up and sleep mode, its thresholds for what its
        square holds, and its POR flag cleared (a reset sets it again)."""
        sleep = chip.SLEEP_MS.index(self.config.sleep_ms)
        thresholds = wake_thresholds(self._cal(sq), sq.field, sq.present)
        direction = chip.THR_BELOW if sq.present else 0
        registers = bytes([
            chip.DEVICE_CONFIG_1,
            chip.AVERAGE_32X << 2,
            chip.HYST_ABSOLUTE << 5 | chip.MODE_WAKE_SLEEP,
            chip.CHANNELS_XYZ << 4 | sleep,
            direction,
            *thresholds,
            0,
            chip.THRESHOLD_INTERRUPT | chip.INT_PULSED | chip.INT_THROUGH_PIN << 2,
        ])  # fmt: skip
        with sq.device.i2c_device as i2c:
            i2c.write(registers)
            i2c.write(bytes([chip.CONV_STATUS, chip.POR]))
        sq.set_up = True

    def _arm(self, sq: _Square) -> None:
        direction = chip.THR_BELOW if sq.present else 0
        thresholds = wake_thresholds(self._cal(sq), sq.field, sq.present)
        with sq.device.i2c_device as i2c:
            i2c.write(bytes([chip.SENSOR_CONFIG_2, direction, *thresholds]))

    def _read(self, sq: _Square) -> None:
        try:
            if sq.device is None:
                self._open_sensor(sq)
                if sq.device is None:
                    return
            elif not sq.set_up:
                self._set_up(sq)
            buffer = bytearray(7)
            with sq.device.i2c_device as i2c:
                i2c.write_then_readinto(bytes([chip.X_MSB_RESULT]), buffer)
            if buffer[6] & chip.POR:
                text = _("{sensor} reset: set up again")
                log.warning("%s", text.format(sensor=reworded(self._where(sq))))
                sq.set_up = False
                self._set_up(sq)
                return  # its next conversion is read at the next sweep
            self._answered(sq)
            x, y, z = struct.unpack(">hhh", buffer[:6])
            field = (x * chip.GAUSS_PER_COUNT, y * chip.GAUSS_PER_COUNT, z * chip.GAUSS_PER_COUNT)
            self._take(sq, field)
        except (OSError, ValueError, RuntimeError) as exc:
            self._failed(sq, exc)

    def _take(self, sq: _Square, field: Vector) -> None:
        was = sq.present
        now = self._cal(sq).present(field, was)
        sq.field = field
        # An empty square whose field passes its wake thresholds (a stray field, a marble
        # not yet over the threshold) is armed above what it reads, or it pulses each time.
        armed = wake_thresholds(self._cal(sq), self._cal(sq).empty, False)
        over = any(
            abs(f) >= t * chip.GAUSS_PER_THRESHOLD for f, t in zip(field, armed, strict=True)
        )
        rearm = now != was or (not now and over)
        sq.present = now
        if rearm:
            self._arm(sq)
        if now != was:
            when = self.clock.now()
            self.clock.post(functools.partial(self._tell, sq.square, now, when))

    def _tell(self, square: int, present: bool, when: float) -> None:
        for listener in list(self._listeners):
            listener(square, present, when)

    def _cal(self, sq: _Square) -> SquareCalibration:
        return self.calibration.squares[sq.square]

    # -- faults -------------------------------------------------------------------------
    def _where(self, sq: _Square) -> str:
        return self.config.where(SQUARE_NAMES[sq.square], sq.square)

    def _failed(self, sq: _Square, exc: BaseException) -> None:
        """A transfer with ``sq``'s sensor failed: the lock let go of, every multiplexer
        deselected (two channels open would put two sensors on one address), the bus
        cleared if it is stuck, and the square unknown with why."""
        self.bus.release()
        errno = getattr(exc, "errno", None)
        why = f"{type(exc).__name__}: {exc}"
        if errno in BUS_ERRNOS and not self._deselect_all():
            # Nine clocks at most once in RECOVER_S: on a Pi they take 0.2 s of pinctrl.
            due = self.clock.now() - self._recovered >= RECOVER_S
            cleared = due and self.bus.recover() and self._deselect_all()
            if due:
                self._recovered = self.clock.now()
            why = f"the I2C bus is held low ({why})" + ("; cleared" if cleared else "")
            if not cleared:
                self._stuck = why
        else:
            self._deselect_all()
        self._unknown(sq, why)

    def _unknown(self, sq: _Square, why: str) -> None:
        """``sq``'s square unknown (what it read is kept), its sensor to be set up again."""
        sq.set_up = False
        fault = R_("{sensor} does not answer ({reason})").format(sensor=self._where(sq), reason=why)
        if fault != sq.fault:
            log.warning("%s", reworded(fault))
        sq.fault = fault

    def _answered(self, sq: _Square) -> None:
        if sq.fault:
            log.info("%s", _("{sensor} answers again").format(sensor=reworded(self._where(sq))))
            sq.fault = ""

    def _deselect_all(self) -> bool:
        """Every multiplexer's channels off; whether they all answered."""
        ok = True
        for mux in getattr(self, "_muxes", []):
            try:
                while not self.bus.try_lock():
                    pass
                try:
                    self.bus.writeto(mux.address, b"\x00")
                finally:
                    self.bus.unlock()
            except OSError:
                ok = False
        return ok

    def _fault_changed(self) -> None:
        unknown = [sq for sq in self._squares if sq.fault]
        line = ""
        if unknown:
            names = ", ".join(SQUARE_NAMES[sq.square] for sq in unknown)
            line = f"square {names} unknown: {unknown[0].fault}"
        if line == self._told:
            return
        self._told = line
        if self.on_fault is not None:
            self.clock.post(functools.partial(self.on_fault, line))

    def _close_devices(self) -> None:
        if self._int is not None:
            self._int.close()
            self._int = None
        if self._own_bus:
            self.bus.deinit()
