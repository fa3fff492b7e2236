"""The ring controller: moves, homing, lost-step checks, square scanning and faults.

It never reads a clock: every call gets the time in microseconds (``now``), so the
Pico's main loop, the simulated microcontroller and the tests drive it alike. It touches
the hardware only through a port object with four methods:

- ``step(forward)``: one step pulse (direction set first, with its setup time):
  ``forward`` turns the rings counter-clockwise (a press), else clockwise (a take-back);
- ``enable(on)``: the driver's enable line;
- ``index_active()``: the index sensor, active when the rings sit exactly on the squares;
- ``read_squares()``: the 16 square sensors as a mask (bit n = square n);
- ``read_levels()``: on a colour board (setting ``analog``), the 16 linear hall sensors'
  outputs through the multiplexer, as ADC counts 0..65535 (a list, square n at n).

A colour board's levels are reported as they are, each time one moves by ``deadband``
counts from the last reported: the host classifies them with the board's calibration.

On any fault the motor stops at once, the fault is latched and reported, and every
move is refused until the host clears it; a cleared fault (like a fresh boot or a move
that lost steps) leaves the rings unhomed, and a move then needs a homing first.
"""

from .planner import Planner

IDLE = "idle"
MOVING = "move"
HOMING = "home"
FAULT = "fault"

# Fault codes: one word each, as they travel in the protocol.
HOME_NO_INDEX = "home_no_index"  # a whole place and the margin stepped without an index
HOME_TIMEOUT = "home_timeout"  # homing took longer than its time limit
INDEX_STUCK = "index_stuck"  # the index read active for a whole place of steps
WATCHDOG = "watchdog_reset"  # the hardware watchdog restarted the Pico
STOPPED = "stopped"  # the host asked for an emergency stop

# Refusals: the error word of an ERR reply (a latched fault refuses with FAULT, the state).
BUSY = "busy"  # a move or homing is under way
BAD_VALUE = "bad_value"  # a setting or a move the controller cannot carry out
NOT_HOMED = "not_homed"  # a move before the rings were homed
UNKNOWN_KEY = "unknown_key"  # a setting the controller does not have
UNKNOWN_COMMAND = "unknown_command"  # a command the device does not know

MAX_PLACES = 100  # the longest move either way, in places (a move of 0 ends at once)

DEFAULTS = {
    "spp": 200,  # motor steps per place (one press moves the rings one place)
    "speed": 2000,  # top speed, steps per second
    "accel": 8000,  # steps per second squared
    "home_speed": 400,  # constant homing speed, steps per second
    "home_margin": 20,  # extra steps allowed past one place when homing
    "home_ms": 3000,  # homing time limit
    "scan": 0,  # 1: scan the square sensors and report changes
    "scan_ms": 2,  # square scan period
    "debounce_ms": 20,  # a square must read the same this long before it counts
    "analog": 0,  # 1: the squares are linear hall sensors: report their levels (EV LV)
    "deadband": 256,  # ADC counts a level must move before it is reported again
}
LEVELS = 16
FULL_COUNT = 65535  # read_u16's top: the ADC's reference, the sensors' supply


class RingController:
    def __init__(self, port: "Port", reset_cause: str = "") -> None:
        self.port = port
        self.config = dict(DEFAULTS)
        self.planner = Planner(self.config["speed"], self.config["accel"])
        self.back_planner = self.planner.backwards()
        self.state = IDLE
        self.fault = WATCHDOG if reset_cause == "watchdog" else ""
        if self.fault:
            self.state = FAULT
        self.homed = False
        # The last operation: who asked (the command's sequence number) and how it ended.
        self.op = -1
        self.kind = ""
        self.places = 0  # negative: a move back, clockwise
        self.forward = True  # the way the motor turns in the move or homing under way
        self.steps = 0
        self.target = 0
        self.at_index = False
        self.mismatches = 0
        self._plan = self.planner.plan(0)
        self._due = 0
        self._started = 0
        self._index_run = 0
        # Square scanning with debounce.
        self.squares = 0  # the debounced mask
        self._raw = 0
        self._raw_since = [0] * 16
        self._next_scan = 0
        self.events: list[tuple[int, bool, int]] = []  # (square, present, time_us)
        self.levels = [-1] * LEVELS  # the levels last reported (-1: none yet)
        self.level_events: list[tuple[int, int, int]] = []  # (square, level, time_us)
        port.enable(False)

    # -- commands -------------------------------------------------------------------

    def configure(self, key: str, value: int) -> str:
        """Set one setting; returns an error word or "" when accepted."""
        if key not in DEFAULTS:
            return UNKNOWN_KEY
        if self.state in (MOVING, HOMING):
            return BUSY
        if value < 0 or (value == 0 and key not in ("scan", "home_margin", "analog")):
            return BAD_VALUE
        old = self.config[key]
        self.config[key] = value
        if key in ("speed", "accel"):
            try:
                self.planner = Planner(self.config["speed"], self.config["accel"])
                self.back_planner = self.planner.backwards()
            except ValueError:
                self.config[key] = old
                return BAD_VALUE
        if key == "spp":
            self.homed = False
        return ""

    def start_move(self, places: int, op: int, now: int) -> str:
        """Turn the rings ``places`` places, counter-clockwise; a negative ``places`` turns
        them back, clockwise, on the same ramp at a lower top speed (planner.BACK_SHARE).
        Returns an error word or "" once started."""
        if self.state == FAULT:
            return FAULT
        if self.state != IDLE:
            return BUSY
        if not self.homed:
            return NOT_HOMED
        if places < -MAX_PLACES or places > MAX_PLACES:
            return BAD_VALUE
        self._begin(MOVING, op, places, abs(places) * self.config["spp"], now)
        self._plan = (self.planner if places >= 0 else self.back_planner).plan(self.target)
        if self.target == 0:
            self._finish(now)
        else:
            self._due = now + self._plan.interval(0)
        return ""

    def start_home(self, op: int, now: int) -> str:
        """Step on until the index sensor is active (at once if it already is)."""
        if self.state == FAULT:
            return FAULT
        if self.state != IDLE:
            return BUSY
        self._begin(HOMING, op, 0, self.config["spp"] + self.config["home_margin"], now)
        if self.port.index_active():
            self._finish(now)
        else:
            self._due = now + self._home_interval()
        return ""

    def stop(self, reason: str = STOPPED) -> None:
        """Stop the motor at once and latch the fault ``reason``."""
        self.state = FAULT
        self.fault = reason
        self.homed = False
        self.port.enable(False)

    def clear(self) -> None:
        """Forget a latched fault; the rings must be homed before they move again."""
        if self.state == FAULT:
            self.state = IDLE
            self.fault = ""

    # -- time -------------------------------------------------------------------------

    def poll(self, now: int) -> int:
        """Do whatever is due at ``now``; returns when something is next due (µs)."""
        wake = now + 1000000
        if self.state == HOMING and now - self._started > self.config["home_ms"] * 1000:
            self.stop(HOME_TIMEOUT)
        if self.state in (MOVING, HOMING):
            if now >= self._due:
                self._step(now)
            if self.state == MOVING:
                wake = self._due
            elif self.state == HOMING:
                wake = min(self._due, self._started + self.config["home_ms"] * 1000 + 1)
        if self.config["scan"]:
            if now >= self._next_scan:
                self._scan(now)
                self._next_scan = now + self.config["scan_ms"] * 1000
            wake = min(wake, self._next_scan)
        return wake

    @property
    def busy(self) -> bool:
        return self.state in (MOVING, HOMING)

    # -- inside -----------------------------------------------------------------------

    def _begin(self, state: str, op: int, places: int, target: int, now: int) -> None:
        self.state = state
        self.op = op
        self.kind = state
        self.places = places
        self.forward = places >= 0  # homing (0 places) always steps forward
        self.steps = 0
        self.target = target
        self.at_index = False
        self.mismatches = 0
        self._index_run = 0
        self._started = now
        self.port.enable(True)

    def _home_interval(self) -> int:
        return max(1, 1000000 // self.config["home_speed"])

    def _step(self, now: int) -> None:
        port = self.port
        port.step(self.forward)
        self.steps += 1
        index = port.index_active()
        spp = self.config["spp"]
        self._index_run = self._index_run + 1 if index else 0
        if self._index_run >= spp > 1:
            self.stop(INDEX_STUCK)  # a sensor that never lets go cannot see lost steps
            return
        if self.state == HOMING:
            self._home_step(index, now)
            return
        if index != (self.steps % spp == 0):
            self.mismatches += 1  # the index came early or late: steps were lost
        if self.steps >= self.target:
            self._finish(now)
        else:
            # One step per call: when the loop ran late the move slows down, never
            # bunches its steps past the speed limit.
            self._due = max(self._due + self._plan.interval(self.steps), now)

    def _home_step(self, index: bool, now: int) -> None:
        if index:
            self._finish(now)
        elif self.steps >= self.target:
            self.stop(HOME_NO_INDEX)
        else:
            self._due = max(self._due + self._home_interval(), now)

    def _finish(self, now: int) -> None:
        self.at_index = bool(self.port.index_active())
        self.homed = self.at_index
        self.state = IDLE

    def _scan(self, now: int) -> None:
        if self.config["analog"]:
            self._scan_levels(now)
            return
        raw = self.port.read_squares() & 0xFFFF
        changed = raw ^ self._raw
        self._raw = raw
        debounce = self.config["debounce_ms"] * 1000
        for square in range(16):
            bit = 1 << square
            if changed & bit:
                self._raw_since[square] = now
            elif (raw ^ self.squares) & bit and now - self._raw_since[square] >= debounce:
                self.squares ^= bit
                self.events.append((square, bool(raw & bit), now))

    def _scan_levels(self, now: int) -> None:
        if self.busy:
            return  # a scan of 16 conversions would hold up the steps; the host reads after
        levels = self.port.read_levels()
        band = self.config["deadband"]
        for square in range(LEVELS):
            level = min(FULL_COUNT, max(0, levels[square]))
            last = self.levels[square]
            if last < 0 or level - last >= band or last - level >= band:
                self.levels[square] = level
                self.level_events.append((square, level, now))


TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover - MicroPython has no typing module
    from typing import Protocol

    class Port(Protocol):
        def step(self, forward: bool) -> None: ...
        def enable(self, on: bool) -> None: ...
        def index_active(self) -> bool: ...
        def read_squares(self) -> int: ...
        def read_levels(self) -> "list[int]": ...
