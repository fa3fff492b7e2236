"""``orbito-hw doctor``: a guided self-test of a board, part by part.

The doctor knows the board only through ``orbito_hw.hw.interfaces``, so the same checks
run on a real board (an asyncio loop and a person at the keyboard) and on the simulated
one (a virtual clock and a simulated person who does what each instruction says).

The checks are written as coroutines, but not asyncio ones: each ``await`` hands the
:class:`Runner` one thing to wait for (a sensor change, a press, the end of a ring move,
an answer, a pause), always with a timeout, and the runner resumes the check from a
callback on the board's clock. Nothing polls: on a real board the event loop sleeps until
a pin changes or a timer falls due.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Coroutine, Generator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Generic, Literal, Protocol, TypeVar

from orbito_hw.hw.interfaces import RGB, Board, Clock, MoveReport
from orbito_hw.rules.squares import (
    SQUARE_NAMES,
    SQUARES,
    Mask,
    parse_square,
    press,
    squares_of,
    unpress,
)
from orbito_hw.rules.words import counted

CHECKS: Final = ("leds", "sensors", "button", "rings")
"""The checks, in the order they run."""
ASKED_ONLY: Final = ("calibrate",)  # only when --only names it: doctor/calibrate.py

PLACES_PER_TURN: Final = 12
"""Places in one full revolution of the outer ring."""
BACK_SQUARE: Final = parse_square("a1")
"""Where the rings check has a marble put to see which way the rings turn back: on the
outer ring, a press takes it to b1, a turn back (a take-back) to a2."""
LED_COLOUR: Final[RGB] = (255, 255, 255)
STATUS_COLOUR: Final[RGB] = (0, 255, 0)
LED_TIME: Final = 0.6
"""Seconds each LED stays lit: long enough for a person to follow."""
SETTLE: Final = 0.2
"""Seconds a sensor reading must hold after a change before it is taken."""
RELEASE_TIMEOUT: Final = 10.0
LIFT_GRACE: Final = 3.0
"""Seconds given to lift a marble that no sensor saw."""
MOVE_MARGIN: Final = 10.0
"""Seconds past the planned time a ring move may take before the drive counts as dead."""

T = TypeVar("T")

Action = Literal[
    "put", "lift", "clear", "press", "watch", "hands-off", "watch-rings", "confirm-leds",
    "name-leds", "confirm-rings",
]  # fmt: skip
"""What a request asks of the person at the board (see ``Request``)."""


# --- what the doctor asks of the person at the board -----------------------------------
@dataclass(frozen=True)
class Request:
    """An instruction or a question for the person at the board.

    ``action`` says what is asked, so a simulated person can do it: "put", "lift" (a
    marble on/off ``square``), "clear" (every marble off), "press" (the button),
    "watch" (an LED lights: ``square``, or None for the status pixel), "hands-off",
    "watch-rings" (the rings are about to turn a full revolution),
    and for questions "confirm-leds", "name-leds", "confirm-rings".
    """

    action: Action
    text: str
    square: int | None = None
    colour: str | None = None  # the marble to put: "black" (by default) or "white"


class Person(Protocol):
    def tell(self, request: Request) -> None:
        """Show an instruction (a simulated person also carries it out)."""
        ...

    def ask(self, request: Request, answer: Callable[[str | None], None]) -> None:
        """Ask a question; ``answer`` gets the reply on the clock's thread, None when
        there is nobody to ask."""
        ...


# --- how the parts are named in the config ---------------------------------------------
PinnedPart = Literal["sensors", "button", "drive"]
"""A part that the gpio backend wires to the Pi's own pins."""
PINNED_PARTS: Final[tuple[PinnedPart, ...]] = ("sensors", "button", "drive")


class Pins(Protocol):
    """The BCM pins of the parts on the Pi's GPIOs (the gpio backend's ``GpioPins``)."""

    @property
    def squares(self) -> Mapping[int, int]: ...  # square -> pin

    @property
    def button(self) -> int: ...

    @property
    def step(self) -> int: ...

    @property
    def direction(self) -> int: ...

    @property
    def enable(self) -> int: ...

    @property
    def index(self) -> int: ...


@dataclass(frozen=True)
class Wiring:
    """The config keys (and pins, when known) that a fault points at. Built by ``of``, for
    a real board from its config and for the simulated one from its mock pins alike."""

    square_pins: tuple[int, ...] = ()
    button_pin: int | None = None
    step_pin: int | None = None
    dir_pin: int | None = None
    enable_pin: int | None = None
    index_pin: int | None = None
    lights_pin: int | None = None
    pixel_of: tuple[int, ...] = ()  # the strip index of each square's pixel
    status_pixel: int | None = None
    steps_per_place: int | None = None
    max_speed: float | None = None

    @classmethod
    def of(
        cls,
        pins: Pins | None = None,
        *,
        pinned: Collection[PinnedPart] = PINNED_PARTS,
        lights_pin: int | None = None,
        pixel_of: Sequence[int] = (),
        status_pixel: int | None = None,
        steps_per_place: int | None = None,
        max_speed: float | None = None,
    ) -> Wiring:
        """The wiring of a board whose ``pinned`` parts are on ``pins`` (no pins: none is);
        ``pixel_of`` is the strip index of each square's pixel (empty: not a strip)."""

        def on_pins(part: PinnedPart) -> Pins | None:
            return pins if part in pinned else None

        sensors, button, drive = on_pins("sensors"), on_pins("button"), on_pins("drive")
        return cls(
            square_pins=() if sensors is None else tuple(sensors.squares[s] for s in SQUARES),
            button_pin=None if button is None else button.button,
            step_pin=None if drive is None else drive.step,
            dir_pin=None if drive is None else drive.direction,
            enable_pin=None if drive is None else drive.enable,
            index_pin=None if drive is None else drive.index,
            lights_pin=lights_pin,
            pixel_of=tuple(pixel_of),
            status_pixel=status_pixel,
            steps_per_place=steps_per_place,
            max_speed=max_speed,
        )

    def sensor(self, square: int) -> str:
        key = f"sensors.pins.{SQUARE_NAMES[square]}"
        return f"{key} = {self.square_pins[square]}" if self.square_pins else key

    def pin(self, key: str, pin: int | None) -> str:
        return key if pin is None else f"{key} = {pin}"

    def pixel(self, square: int) -> str:
        where = f"strip pixel {self.pixel_of[square]}, " if self.pixel_of else ""
        return f"the pixel under {SQUARE_NAMES[square]} ({where}lights.order)"


# --- results --------------------------------------------------------------------------
@dataclass
class CheckResult:
    name: str
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    done: str = ""  # what was checked, for the summary

    @property
    def passed(self) -> bool:
        return not self.problems

    def verdict(self) -> str:
        if self.problems:
            return f"FAIL ({counted(len(self.problems), 'problem')})"
        return "PASS" + (f" ({'; '.join(self.notes)})" if self.notes else "")


# --- the machinery that waits ----------------------------------------------------------
class Pending(Generic[T]):
    """One thing a check waits for. ``arm`` starts the wait with the function that
    resumes the check; whichever of the thing and its timeout comes first wins."""

    def __init__(self, arm: Callable[[Callable[[T], None]], None]) -> None:
        self.arm = arm

    def __await__(self) -> Generator[Pending[Any], Any, T]:
        result: T = yield self
        return result


class Runner(Generic[T]):
    """Runs a doctor coroutine on a clock: each ``Pending`` it yields is armed, and the
    coroutine resumes, on the clock's thread, once the first of its outcomes arrives."""

    def __init__(self, clock: Clock, coro: Coroutine[Any, Any, T]) -> None:
        self.clock = clock
        self._coro = coro
        self.done = False
        self.result: T | None = None
        self.error: BaseException | None = None
        self._on_done: list[Callable[[], None]] = []

    def start(self, on_done: Callable[[], None] | None = None) -> None:
        if on_done is not None:
            self._on_done.append(on_done)
        self.clock.post(lambda: self._step(None))

    def _step(self, value: Any) -> None:
        try:
            pending = self._coro.send(value)
        except StopIteration as stop:
            self._finish(stop.value, None)
            return
        except BaseException as exc:  # a bug or a driver error: hand it to whoever waits
            self._finish(None, exc)
            return
        fired = False

        def resume(outcome: Any) -> None:
            nonlocal fired
            if not fired:
                fired = True
                self.clock.post(lambda: self._step(outcome))

        pending.arm(resume)

    def _finish(self, result: T | None, error: BaseException | None) -> None:
        self.result, self.error, self.done = result, error, True
        for callback in self._on_done:
            callback()


# --- the doctor -------------------------------------------------------------------------
class Doctor:
    def __init__(
        self,
        board: Board,
        person: Person,
        wiring: Wiring,
        out: Callable[[str], None],
        timeout: float = 30.0,
        calibrate: Callable[[Doctor, CheckResult], Coroutine[Any, Any, None]] | None = None,
    ) -> None:
        self.calibrate = calibrate
        self.board = board
        self.clock = board.clock
        self.person = person
        self.wiring = wiring
        self.out = out
        self.timeout = timeout
        # The interfaces cannot unsubscribe: one listener each, forwarding to the wait.
        self._square_wait: Callable[[tuple[int, bool]], None] | None = None
        self._button_wait: Callable[[bool], None] | None = None
        board.sensors.subscribe(self._on_square)
        board.button.subscribe(self._on_button)

    async def run(self, checks: tuple[str, ...] = CHECKS) -> list[CheckResult]:
        results = []
        for name in CHECKS + ASKED_ONLY:
            if name in checks:
                self.out(f"\n== {name} ==")
                result = CheckResult(name)
                await getattr(self, f"check_{name}")(result)
                self.out(f"{name}: {result.verdict()}")
                results.append(result)
        return results

    # --- waiting, always with a timeout ------------------------------------------------
    def _race(
        self, timeout: float, start: Callable[[Callable[[T], None]], None], expired: T
    ) -> Pending[T]:
        """Wait for what ``start`` arms, or ``timeout`` seconds, whichever comes first."""

        def arm(resume: Callable[[T], None]) -> None:
            timer = self.clock.call_later(timeout, lambda: resume(expired))

            def arrived(value: T) -> None:
                timer.cancel()
                resume(value)

            start(arrived)

        return Pending(arm)

    def sleep(self, seconds: float) -> Pending[None]:
        def arm(resume: Callable[[None], None]) -> None:
            self.clock.call_later(seconds, lambda: resume(None))

        return Pending(arm)

    def next_square(self, timeout: float) -> Pending[tuple[int, bool] | None]:
        """The next raw change of any square's sensor: (square, present), or None."""

        def start(arrived: Callable[[tuple[int, bool] | None], None]) -> None:
            self._square_wait = arrived

        return self._race(timeout, start, None)

    def next_button(self, timeout: float) -> Pending[bool | None]:
        def start(arrived: Callable[[bool | None], None]) -> None:
            self._button_wait = arrived

        return self._race(timeout, start, None)

    def _on_square(self, square: int, present: bool, when: float) -> None:
        wait, self._square_wait = self._square_wait, None
        if wait is not None:
            wait((square, present))

    def _on_button(self, pressed: bool, when: float) -> None:
        wait, self._button_wait = self._button_wait, None
        if wait is not None:
            wait(pressed)

    def move(self, places: int) -> Pending[MoveReport | None]:
        """Turn the rings; None when the drive never says it has stopped."""
        speed = self.wiring.max_speed or 1000.0
        limit = abs(places) * (self.wiring.steps_per_place or 1000) / speed + MOVE_MARGIN
        return self._race(limit, lambda done: self.board.drive.move(places, done), None)

    def home(self) -> Pending[MoveReport | None]:
        limit = 2 * (self.wiring.steps_per_place or 1000) / 100.0 + MOVE_MARGIN
        return self._race(limit, self.board.drive.home, None)

    def ask(self, request: Request) -> Pending[str | None]:
        return Pending(lambda resume: self.person.ask(request, resume))

    async def settled_change(self, timeout: float) -> int | None:
        """The sensors' reading once a change has held still, or None if none came."""
        if await self.next_square(timeout) is None:
            return None
        await self.sleep(SETTLE)
        return self.board.sensors.read()

    async def yes_or_no(self, request: Request) -> bool | None:
        while True:
            reply = await self.ask(request)
            if reply is None:
                return None
            word = reply.strip().lower()
            if word[:1] in ("y", "n"):
                return word.startswith("y")
            self.out("please answer y or n")

    def _fail(self, result: CheckResult, text: str) -> None:
        result.problems.append(text)
        self.out(f"  FAIL {text}")

    def _pass(self, text: str) -> None:
        self.out(f"  PASS {text}")

    async def check_calibrate(self, result: CheckResult) -> None:
        if self.calibrate is None:
            result.notes.append("presence sensors: nothing to calibrate (sensors.colour = false)")
            return
        await self.calibrate(self, result)

    # --- the LEDs ---------------------------------------------------------------------
    async def check_leds(self, result: CheckResult) -> None:
        lights = self.board.lights
        self.person.tell(Request("hands-off", "watch the board: each square lights in turn"))
        for square in SQUARES:
            frame: list[RGB | None] = [None] * 16
            frame[square] = LED_COLOUR
            lights.show(frame, None)
            self.person.tell(Request("watch", f"  {SQUARE_NAMES[square]} lit", square))
            await self.sleep(LED_TIME)
        lights.show([None] * 16, STATUS_COLOUR)
        self.person.tell(Request("watch", "  the status pixel lit", None))
        await self.sleep(LED_TIME)
        lights.show([None] * 16, None)
        result.done = "16 squares and the status pixel lit in turn"
        question = "did every square light in order, a1 to d4, then the status pixel? [y/n]"
        seen = await self.yes_or_no(Request("confirm-leds", question))
        if seen is None:
            result.notes.append("not confirmed by a person")
            self.out("  not confirmed by a person (no one to ask)")
        elif seen:
            self._pass("a person saw every LED light in order")
        else:
            await self._name_dark_leds(result)

    async def _name_dark_leds(self, result: CheckResult) -> None:
        question = "which squares stayed dark or lit out of turn? (e.g. c3 d4; status)"
        reply = await self.ask(Request("name-leds", question))
        named = (reply or "").replace(",", " ").split()
        squares = [SQUARE_NAMES.index(n) for n in named if n in SQUARE_NAMES]
        for square in squares:
            self._fail(
                result,
                f"{SQUARE_NAMES[square]} did not light in turn: check {self.wiring.pixel(square)} "
                "and the strip's joints there (a dead pixel darkens the ones after it too)",
            )
        if "status" in named:
            where = "lights.status_pixel"
            if self.wiring.status_pixel is not None:
                where += f" = {self.wiring.status_pixel}"
            self._fail(result, f"the status pixel did not light: check {where}")
        if not squares and "status" not in named:
            pin = self.wiring.pin("lights.pin", self.wiring.lights_pin)
            self._fail(
                result,
                f"the LEDs did not light in order: check {pin}, lights.order and "
                "lights.pixel_order",
            )

    # --- the square sensors -----------------------------------------------------------
    async def check_sensors(self, result: CheckResult) -> None:
        self.person.tell(Request("hands-off", "homing the rings so the pockets sit on the squares"))
        report = await self.home()
        if report is None or report.fault:
            reason = report.fault if report else "the drive did not answer"
            self._fail(result, f"cannot home the rings ({reason}): see the rings check")
            return
        baseline = await self._empty_board(result)
        for square in SQUARES:
            if not baseline >> square & 1:
                await self._check_square(result, square, baseline)
        result.done = "a marble put on and lifted off each square"

    async def _empty_board(self, result: CheckResult) -> int:
        """Have every marble taken off; the squares still reading one are reported."""
        reading = self.board.sensors.read()
        if reading:
            self.person.tell(Request("clear", "take every marble off the board"))
            deadline = self.clock.now() + self.timeout
            while reading and self.clock.now() < deadline:
                got = await self.settled_change(deadline - self.clock.now())
                reading = self.board.sensors.read() if got is None else got
        for square in squares_of(reading):
            self._fail(
                result,
                f"{SQUARE_NAMES[square]} reads a marble on an empty board: check "
                f"{self.wiring.sensor(square)} (stuck, or sensors.active is the wrong level)",
            )
        return reading

    async def _check_square(self, result: CheckResult, square: int, baseline: int) -> None:
        name, bit = SQUARE_NAMES[square], 1 << square
        self.person.tell(Request("put", f"put a marble on {name}", square))
        got = await self.settled_change(self.timeout)
        if got is None:
            self._fail(
                result,
                f"{name}: no sensor changed within {self.timeout:g} s: "
                f"check {self.wiring.sensor(square)}",
            )
        elif got ^ baseline == bit:
            self._pass(f"{name} ({self.wiring.sensor(square)})")
        else:
            self._fail(result, self._wrong_squares(square, got ^ baseline))
        self.person.tell(Request("lift", f"take the marble off {name}", square))
        if got is None or got == baseline:
            await self.sleep(LIFT_GRACE)  # nothing read the marble: nothing to see go
            return
        back = await self.settled_change(self.timeout)
        if back is None or back & bit & ~baseline:
            self._fail(
                result,
                f"{name} still reads a marble after it was lifted: check "
                f"{self.wiring.sensor(square)} and sensors.active",
            )

    def _wrong_squares(self, square: int, changed: int) -> str:
        name = SQUARE_NAMES[square]
        others = squares_of(changed & ~(1 << square))
        names = " ".join(SQUARE_NAMES[o] for o in others)
        if not others:
            return f"{name}: the sensor reads no marble: check {self.wiring.sensor(square)}"
        if changed >> square & 1:
            keys = ", ".join(self.wiring.sensor(o) for o in others)
            return f"put a marble on {name}: {names} changed too: check {keys} for a short"
        text = f"put a marble on {name}: got a change on {names} instead"
        if len(others) == 1:
            text += (
                f": sensors.pins.{name} and sensors.pins.{SQUARE_NAMES[others[0]]} may be swapped"
                f" (check {self.wiring.sensor(square)}, {self.wiring.sensor(others[0])})"
            )
        return text

    # --- the button -------------------------------------------------------------------
    async def check_button(self, result: CheckResult) -> None:
        pin = self.wiring.pin("button.pin", self.wiring.button_pin)
        result.done = "one press and release"
        if self.board.button.is_pressed:
            self._fail(
                result,
                f"the button reads pressed before anyone touched it: check {pin}, "
                "button.active and button.pull",
            )
            return
        self.person.tell(Request("press", "press the Orbito button once"))
        if not await self._button_goes(True, self.timeout):
            self._fail(result, f"no press within {self.timeout:g} s: check {pin}")
            return
        if not await self._button_goes(False, RELEASE_TIMEOUT):
            self._fail(
                result,
                f"the button did not come back up within {RELEASE_TIMEOUT:g} s: "
                f"check {pin} and button.active",
            )
            return
        self._pass(f"the button went down and up ({pin})")

    async def _button_goes(self, pressed: bool, timeout: float) -> bool:
        """Whether the button went down (or up) within ``timeout``. A press counts at once
        (a short press is over in 0.1 s); a release only once it holds, past any bounce."""
        deadline = self.clock.now() + timeout
        while self.clock.now() < deadline:
            if await self.next_button(deadline - self.clock.now()) == pressed:
                if pressed:
                    return True
                await self.sleep(SETTLE)
                if not self.board.button.is_pressed:
                    return True
        return False

    # --- the rings ---------------------------------------------------------------------
    def _drive_keys(self) -> str:
        w = self.wiring
        return ", ".join(
            (w.pin("drive.step_pin", w.step_pin), w.pin("drive.enable_pin", w.enable_pin))
        )

    async def check_rings(self, result: CheckResult) -> None:
        index = self.wiring.pin("drive.index_pin", self.wiring.index_pin)
        self.person.tell(
            Request(
                "watch-rings",
                f"hands off the rings: they turn one full revolution ({PLACES_PER_TURN} places)",
            )
        )
        report = await self.home()
        if report is None or report.fault:
            reason = report.fault if report else "the drive did not answer"
            self._fail(
                result,
                f"homing failed ({reason}): check {index} and drive.index_active, and that "
                f"the motor turns ({self._drive_keys()})",
            )
            return
        self.out(f"  homed ({report.steps} steps)")
        for place in range(1, PLACES_PER_TURN + 1):
            if await self._one_place(result, f"place {place}", index) is None:
                return
        result.done = f"{PLACES_PER_TURN} places, each checked against the index sensor"
        question = (
            f"did the rings turn counter-clockwise, stopping {PLACES_PER_TURN} times "
            "with the pockets on the squares? [y/n]"
        )
        seen = await self.yes_or_no(Request("confirm-rings", question))
        if seen is None:
            result.notes.append("the turning not confirmed by a person")
        elif not seen:
            spp = self.wiring.pin("drive.steps_per_place", self.wiring.steps_per_place)
            self._fail(
                result,
                f"the rings did not turn as they should: check drive.invert_direction, {spp} "
                f"and the index magnets ({index})",
            )
            return  # turning back tells nothing more while turning forward is wrong
        await self._turn_back(result, index)

    async def _turn_back(self, result: CheckResult, index: str) -> None:
        """One place back (clockwise, as a take-back turns them) and forward again, each
        checked against the index, with a marble on BACK_SQUARE to show the way: a DIR
        wire that never switches turns the rings forward when told to turn back, and the
        index sensor cannot tell the two apart."""
        name, bit = SQUARE_NAMES[BACK_SQUARE], 1 << BACK_SQUARE
        baseline = self.board.sensors.read()
        what = f"put a marble on {name}: it shows which way the rings turn back"
        self.person.tell(Request("put", what, BACK_SQUARE))
        got = await self.settled_change(self.timeout)
        marble = got is not None and got ^ baseline == bit
        if not marble:
            result.notes.append(f"the way back not seen: no sensor read the marble on {name}")
        back = await self._one_place(result, "back one place", index, places=-1)
        if back is not None and back.at_index:
            way_right = True
            if marble:
                await self.sleep(SETTLE)  # as for a hand's marble: the sensors settle
                way_right = self._way_back(result, baseline | bit)
            if way_right:
                await self._one_place(result, "forward again", index)
        await self._take_off(baseline, name)

    async def _take_off(self, baseline: Mask, name: str) -> None:
        """Have the marble put for the turn back taken off, wherever it ended up."""
        reading = self.board.sensors.read()
        if reading == baseline | 1 << BACK_SQUARE:
            self.person.tell(Request("lift", f"take the marble off {name}", BACK_SQUARE))
        else:
            self.person.tell(Request("clear", f"take the marble put on {name} off the board"))
        if reading != baseline:  # a sensor reads it: wait for the board as it was
            await self.settled_change(self.timeout)

    def _way_back(self, result: CheckResult, before: Mask) -> bool:
        """Whether the marbles went back a place, by the sensors; a fault names DIR when
        they went forward instead."""
        after = self.board.sensors.read()
        if after == unpress(before):
            self._pass(f"back one place: clockwise (the sensors read {_names(after)})")
            return True
        if after == press(before):
            dir_pin = self.wiring.pin("drive.dir_pin", self.wiring.dir_pin)
            self._fail(
                result,
                f"back one place turned the rings counter-clockwise (the sensors read "
                f"{_names(after)}): DIR does not switch: check {dir_pin} and its wire to the "
                "driver",
            )
            return False
        result.notes.append(
            f"the way back not seen: the sensors read {_names(after)}, "
            f"not {_names(unpress(before))}"
        )
        return True

    async def _one_place(
        self, result: CheckResult, label: str, index: str, places: int = 1
    ) -> MoveReport | None:
        """Turn ``places`` (one place, either way) and check it ended on the index, homing
        and reporting lost steps if not; the move's report, or None after a fault."""
        report = await self.move(places)
        if report is None or report.fault:
            reason = report.fault if report else "the drive did not answer"
            self._fail(result, f"{label}: {reason}: check {self._drive_keys()}")
            return None
        if report.at_index:
            self._pass(f"{label}: on the index ({report.steps} steps)")
            return report
        found = await self.home()
        if found is None or found.fault:
            reason = found.fault if found else "the drive did not answer"
            self._fail(
                result,
                f"{label} ended off the index and homing failed ({reason}): check {index}",
            )
            return None
        speed = "drive.max_speed"
        if self.wiring.max_speed is not None:
            speed += f" = {self.wiring.max_speed:g}"
        self._fail(
            result,
            f"{label} ended off the index: homing took {found.steps} steps to find it "
            f"(lost steps: check the motor current, {speed} and drive.acceleration)",
        )
        return report


def _names(mask: Mask) -> str:
    return " ".join(SQUARE_NAMES[s] for s in squares_of(mask)) or "no marble"


def summary(results: list[CheckResult]) -> list[str]:
    lines = ["", "== summary =="]
    for r in results:
        lines.append(f"{r.name}: {r.verdict()}" + (f": {r.done}" if r.done else ""))
        lines += [f"  - {p}" for p in r.problems]
    failed = [r.name for r in results if not r.passed]
    lines.append(f"failed: {', '.join(failed)}" if failed else "all checks passed")
    return lines


def parse_only(text: str) -> tuple[str, ...]:
    """``--only``'s comma list, checked; ValueError naming a check that does not exist."""
    names = tuple(n.strip() for n in text.split(",") if n.strip())
    bad = [n for n in names if n not in CHECKS + ASKED_ONLY]
    if bad or not names:
        shown = ", ".join(b if len(b) <= 40 else f"{b[:40]}... ({len(b)} characters)" for b in bad)
        what = f"no check called {shown}" if bad else "no check named"
        raise ValueError(f"{what} (the checks are {', '.join(CHECKS + ASKED_ONLY)})")
    return names
