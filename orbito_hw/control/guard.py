"""One exception policy at the referee's boundary: nothing from outside reaches it unchecked,
and nothing that goes wrong inside it goes unseen.

Every way into the referee passes a ``Guard``: the square and button events, the ring
drive's reports and every timer it sets (``Guard.board`` wraps the board's parts, so each
callback the referee hands a part is guarded wherever the referee hands it over).

- Arguments are checked before they reach the model. A square event for a square that does
  not exist, a ``present`` or ``pressed`` that is not a bool, a time that is not a finite
  number: the event is dropped and refused as a fault the players hear of (``on_refusal``),
  and the referee plays on with its model unchanged. A ring drive's report that makes no
  sense becomes a report of a hardware fault, which the referee already knows how to show
  (and a press retries: the rings home and the board is checked again).
- An exception escaping the referee's code is an internal error. The model may be half
  changed, so the referee can no longer be trusted: the guard reports the fault once
  (``on_fault``: the fault event, the status pixel), turns ``healthy`` off, and from then on
  lets nothing in (no event, no timer, no new game), so nothing is saved over the journal
  as the error left it. The service stops feeding systemd's watchdog while ``healthy`` is
  off (app/service.py), and the restart carries on from that journal.

The event loop under the referee has its own handler for whatever escapes elsewhere (a
backend's posted callback, the light show's timers): app/run.py for asyncio, the harness for
the virtual clock. Both hand the exception to ``Guard.fail``: one policy, one fault.
"""

from __future__ import annotations

import functools
import logging
import math
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Concatenate, ParamSpec, Protocol, TypeVar

from orbito_hw.errors import ECHO_LIMIT, OrbitoError
from orbito_hw.hw.interfaces import (
    Board,
    Button,
    ButtonListener,
    Clock,
    ColourSensors,
    FaultListener,
    Health,
    HealthChannel,
    HealthListener,
    Lights,
    MoveListener,
    MoveReport,
    RingDrive,
    SquareListener,
    SquareSensors,
    TimerHandle,
    reread_colours,
)
from orbito_hw.lang import R_, _, reworded
from orbito_hw.rules.squares import BB_ALL, SQUARES, Mask, Square

log = logging.getLogger(__name__)

P = ParamSpec("P")

REASON_LIMIT = 200
"""Characters of an outside text (an exception's message, a drive's fault) kept in a fault
event: enough to name the problem, never a megabyte copied into every log line."""
VALUE_LIMIT = ECHO_LIMIT
"""Characters of a refused value quoted back in a fault's reason: as much as any message
of the package quotes of its input."""


class BoundaryError(OrbitoError, ValueError):
    """A value from outside the referee (a part of the board, a backend) that it refuses."""


# --- the checks: each returns the value, or raises BoundaryError naming it --------------------
def named(value: object) -> str:
    """``value`` as a fault's reason quotes it: short, and never raising itself."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 64:
        return f"an int of {value.bit_length()} bits"  # repr of a huge int may itself raise
    try:
        text = repr(value)
    except Exception:  # a repr that fails is a value we refuse all the same
        return f"a {type(value).__name__} that cannot be shown"
    return text if len(text) <= VALUE_LIMIT else f"{text[:VALUE_LIMIT]}..."


def cut(text: str, limit: int = REASON_LIMIT) -> str:
    """``text`` on one line, at most ``limit`` characters."""
    line = " ".join(text.split())
    return line if len(line) <= limit else line[:limit] + "..."


def check_square(value: object) -> Square:
    # isinstance(True, int) holds: a bool is no square.
    if isinstance(value, bool) or not isinstance(value, int) or value not in SQUARES:
        raise BoundaryError(f"square {named(value)}, which does not exist (0..15)")
    return value


def check_flag(value: object, what: str) -> bool:
    if not isinstance(value, bool):
        raise BoundaryError(f"{what} {named(value)}, not True or False")
    return value


def check_time(value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise BoundaryError(f"time {named(value)}, not a finite number of seconds")
    return float(value)


def check_mask(value: object) -> Mask:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= BB_ALL:
        raise BoundaryError(f"reading {named(value)}, not a mask of the 16 squares")
    return value


def check_count(value: object, what: str, signed: bool = False) -> int:
    """A whole number, 0 or more (``signed``: of either sign, as a move's places are: a
    take-back turns the rings back)."""
    if isinstance(value, bool) or not isinstance(value, int) or (value < 0 and not signed):
        kind = "a whole number" if signed else "a count (0 or more)"
        raise BoundaryError(f"{what} {named(value)}, not {kind}")
    return value


def check_report(value: object) -> MoveReport:
    """A ring move's report with sane fields; its fault text cut to REASON_LIMIT."""
    if not isinstance(value, MoveReport):
        raise BoundaryError(f"{named(value)} instead of a move report")
    if not isinstance(value.fault, str):
        raise BoundaryError(f"fault {named(value.fault)}, not a text")
    return MoveReport(
        check_count(value.places, "places", signed=True),
        check_count(value.steps, "steps"),
        check_flag(value.at_index, "at_index"),
        cut(value.fault),
    )


def describe(exc: BaseException) -> str:
    """An exception in one line: its type, its message cut short, and where it was raised
    (file, line and function of the innermost frame), for the journal's log."""
    try:
        message = cut(str(exc))
    except Exception:
        message = "(a message that cannot be shown)"
    frames = traceback.extract_tb(exc.__traceback__)
    where = f" ({Path(frames[-1].filename).name}:{frames[-1].lineno} in {frames[-1].name})"
    return f"{type(exc).__name__}: {message}" + (where if frames else "")


# --- the guard -------------------------------------------------------------------------------
class Guard:
    """Runs the referee's callbacks under the policy above.

    ``on_fault(reason)`` shows an internal error (once: the referee is stopped after it);
    ``on_refusal(reason)`` reports an input refused at the boundary (the referee plays on).
    """

    def __init__(self, on_fault: Callable[[str], None], on_refusal: Callable[[str], None]) -> None:
        self._on_fault = on_fault
        self._on_refusal = on_refusal
        self.healthy = True
        self.failure: str | None = None  # the reason of the internal error, once there is one
        self._depth = 0  # guarded calls running now, one inside another
        self._more = False  # whether an error came after the one that stopped the referee
        # Called, each under the guard, once the outermost guarded call has returned: the
        # referee has done what it was doing (a ring move ends in such a call), so what was
        # put off while it was busy looks again then (requests.py's Desk), with no timer.
        self.afterwards: list[Callable[[], None]] = []
        self._settling = False

    def call(self, where: str, run: Callable[[], None]) -> None:
        """Run ``run`` (a callback named ``where``, like "the square event") under the policy.

        A guarded call inside another (a ring drive that reports at once, within the call
        that asked it to move) lets its exception through: the outermost guard stops the
        whole callback, so no line of the referee runs after the error."""
        if not self.healthy:
            log.debug("%s dropped: the referee has stopped after an internal error", where)
            return
        if self._depth:
            run()
            return
        self._depth += 1
        try:
            run()
        except Exception as exc:
            self.fail(where, exc)
        finally:
            self._depth -= 1
        self._settled()

    def _settled(self) -> None:
        """Each ``afterwards`` callback, under the guard; not again for the guarded calls
        they make themselves (a request taken sets a position up)."""
        if self._settling or not self.afterwards:
            return
        self._settling = True
        try:
            for callback in list(self.afterwards):
                self.call("a look put off while the referee was busy", callback)
        finally:
            self._settling = False

    def wrap(self, where: str, callback: Callable[P, None]) -> Callable[P, None]:
        """``callback``, guarded: what the referee hands a part of the board or a timer."""

        def guarded(*args: P.args, **kwargs: P.kwargs) -> None:
            self.call(where, lambda: callback(*args, **kwargs))

        return guarded

    def fail(self, where: str, exc: BaseException) -> None:
        """An exception escaped ``where``: stop the referee and show the fault, once."""
        reason = R_("internal error in {where}: {error}").format(where=where, error=describe(exc))
        if isinstance(exc, OrbitoError) and isinstance(exc, OSError):
            # The system refused (a full disk, a card gone read-only): no bug, no code to
            # name; the board stops, and the service starts it again until it can go on.
            reason = R_("{reason}: the board stops until it can go on").format(reason=cut(str(exc)))
        log.debug("traceback of the %s", reason, exc_info=exc)  # --log-level debug shows it
        if not self.healthy:
            # Once: a timer that fails on every tick must not flood the log until the restart.
            level = logging.DEBUG if self._more else logging.ERROR
            log.log(level, "%s", _("after the stop: {reason}").format(reason=reworded(reason)))
            self._more = True
            return
        self.healthy = False
        self.failure = reason
        try:
            self._on_fault(reason)
        except Exception as shown:  # the fault must still reach the log and the watchdog
            text = _("{reason}; showing the fault failed too: {error}")
            log.error("%s", text.format(reason=reworded(reason), error=describe(shown)))

    def refuse(self, source: str, problem: BoundaryError) -> None:
        """An input refused at the boundary: dropped before the model, reported as a fault."""
        self._on_refusal(f"{source} sent {problem}; it was ignored")

    def board(self, board: Board) -> GuardedBoard:
        """A view of ``board`` whose parts check what they report and guard every callback
        handed to them; the clock guards every timer. Closing stays with ``board``'s owner."""
        drive = CheckedDrive(board.drive, self)
        health = DriveHealth(drive) if board.health is None else CheckedHealth(board.health, self)
        return GuardedBoard(
            GuardedClock(board.clock, self),
            checked_sensors(board.sensors, self),
            CheckedButton(board.button, self),
            drive,
            board.lights,
            health,
        )


@dataclass(frozen=True)
class GuardedBoard:
    """The board's parts as the referee sees them through its guard (not a ``Board``: it
    wires nothing and closes nothing)."""

    clock: Clock
    sensors: SquareSensors
    button: Button
    drive: RingDrive
    lights: Lights
    health: HealthChannel


class Guarded(Protocol):
    guard: Guard


G = TypeVar("G", bound=Guarded)


def guarded(
    where: str,
) -> Callable[[Callable[Concatenate[G, P], None]], Callable[Concatenate[G, P], None]]:
    """A method of an object with a ``guard``, run under it: for the entry points that are
    called directly rather than handed to a part (``Referee.new_game``)."""

    def decorate(method: Callable[Concatenate[G, P], None]) -> Callable[Concatenate[G, P], None]:
        def run(self: G, /, *args: P.args, **kwargs: P.kwargs) -> None:
            self.guard.call(where, lambda: method(self, *args, **kwargs))

        functools.update_wrapper(run, method)  # its name and docstring
        return run

    return decorate


def timer_name(callback: Callable[..., None]) -> str:
    """A timer's callback as a fault names it: ``the timer Referee._verify`` (the method a
    lambda was written in, for a lambda)."""
    name = getattr(callback, "__qualname__", None) or type(callback).__name__
    return f"the timer {str(name).split('.<locals>', 1)[0]}"


class GuardedClock:
    """The board's clock, every timer guarded."""

    def __init__(self, clock: Clock, guard: Guard) -> None:
        self.clock = clock
        self.guard = guard

    def now(self) -> float:
        return self.clock.now()

    def call_later(self, delay: float, callback: Callable[[], None]) -> TimerHandle:
        return self.clock.call_later(delay, self.guard.wrap(timer_name(callback), callback))

    def post(self, callback: Callable[[], None]) -> None:
        self.clock.post(self.guard.wrap(timer_name(callback), callback))


class CheckedSensors:
    """The square sensors: each event checked before it goes on, each reading checked."""

    source = "the square sensors"

    def __init__(self, sensors: SquareSensors, guard: Guard) -> None:
        self.sensors = sensors
        self.guard = guard

    def read(self) -> Mask:
        # Called inside the referee's own code: a bad reading stops the callback it is in.
        return check_mask(self.sensors.read())

    def subscribe(self, listener: SquareListener) -> None:
        def checked(square: object, present: object, when: object) -> None:
            try:
                args = (check_square(square), check_flag(present, "present"), check_time(when))
            except BoundaryError as problem:
                return self.guard.refuse(self.source, problem)
            listener(*args)

        self.sensors.subscribe(self.guard.wrap("the square event", checked))

    def close(self) -> None:
        self.sensors.close()


class CheckedColourSensors(CheckedSensors):
    """Sensors that tell colours: each pair of colour masks checked too (two masks of
    squares, no square both black and white)."""

    def __init__(self, sensors: ColourSensors, guard: Guard) -> None:
        super().__init__(sensors, guard)
        self.colour_sensors = sensors

    def colours(self) -> tuple[Mask, Mask]:
        value = self.colour_sensors.colours()
        if not isinstance(value, tuple) or len(value) != 2:
            raise BoundaryError(f"colours {named(value)}, not a pair of masks (black, white)")
        black, white = check_mask(value[0]), check_mask(value[1])
        if black & white:
            raise BoundaryError(f"colours {named(value)}: a square read both black and white")
        return black, white

    def reread(self) -> None:
        """The colours read afresh (where they are read only when asked); what changed comes
        as events, checked like any."""
        reread_colours(self.colour_sensors)


def checked_sensors(sensors: SquareSensors, guard: Guard) -> CheckedSensors:
    """The sensors behind the guard, telling colours if they do."""
    if isinstance(sensors, ColourSensors):
        return CheckedColourSensors(sensors, guard)
    return CheckedSensors(sensors, guard)


class CheckedButton:
    """The Orbito button: each event checked before it goes on."""

    source = "the button"

    def __init__(self, button: Button, guard: Guard) -> None:
        self.button = button
        self.guard = guard

    def subscribe(self, listener: ButtonListener) -> None:
        def checked(pressed: object, when: object) -> None:
            try:
                args = (check_flag(pressed, "pressed"), check_time(when))
            except BoundaryError as problem:
                return self.guard.refuse(self.source, problem)
            listener(*args)

        self.button.subscribe(self.guard.wrap("the button event", checked))

    @property
    def is_pressed(self) -> bool:
        return check_flag(self.button.is_pressed, "is_pressed")

    def close(self) -> None:
        self.button.close()


class CheckedDrive:
    """The ring drive: each report checked; one that makes no sense is a hardware fault."""

    source = "the ring drive"

    def __init__(self, drive: RingDrive, guard: Guard) -> None:
        self.drive = drive
        self.guard = guard

    def move(self, places: int, done: MoveListener) -> None:
        self.drive.move(places, self._checked("the ring move's report", done))

    def home(self, done: MoveListener) -> None:
        self.drive.home(self._checked("the homing's report", done))

    def _checked(self, where: str, done: MoveListener) -> Callable[[object], None]:
        def checked(report: object) -> None:
            try:
                sane = check_report(report)
            except BoundaryError as problem:
                # The move's end is what takes the referee out of "rotating": it must come,
                # as the fault it is (a press retries: the rings home, the board is checked).
                sane = MoveReport(0, 0, False, fault=f"{self.source} sent {problem}")
            done(sane)

        return self.guard.wrap(where, checked)

    def watch(self, on_fault: FaultListener) -> None:
        def checked(fault: object) -> None:
            # A word that is not a text is itself a fault of the drive's.
            text = cut(fault) if isinstance(fault, str) else f"{self.source} sent {named(fault)}"
            on_fault(text)

        self.drive.watch(self.guard.wrap("the ring drive's fault report", checked))

    @property
    def moving(self) -> bool:
        return check_flag(self.drive.moving, "moving")

    def close(self) -> None:
        self.drive.close()


class CheckedHealth:
    """The board's health as its supervisor holds it (``hw/health.py``), each word guarded
    and its fault line one line of at most ``REASON_LIMIT`` characters, as a drive's is."""

    def __init__(self, health: HealthChannel, guard: Guard) -> None:
        self.health = health
        self.guard = guard

    def now(self) -> Health:
        return checked_health(self.health.now())

    def watch(self, listener: HealthListener) -> None:
        def checked(health: Health) -> None:
            listener(checked_health(health))

        self.health.watch(self.guard.wrap("the board's health report", checked))


def checked_health(health: Health) -> Health:
    """``health``, its fault line cut to one line of ``REASON_LIMIT`` characters: a reason
    from outside (a library's message) must not flood every log line. The referee reads
    only the line; a line cut stands for the whole board."""
    line = cut(health.fault)
    return health if line == health.fault else Health(failing=(("board", line),))


class DriveHealth:
    """The health of a board without a supervisor (the simulated board, the doctor's): its
    parts are all there, and its ring drive's word between moves is all that can fail."""

    def __init__(self, drive: CheckedDrive) -> None:
        self.drive = drive
        self._health = Health()

    def now(self) -> Health:
        return self._health

    def watch(self, listener: HealthListener) -> None:
        def heard(fault: str) -> None:
            self._health = Health(failing=(("drive", fault),) if fault else ())
            listener(self._health)

        self.drive.watch(heard)  # checked and guarded there
