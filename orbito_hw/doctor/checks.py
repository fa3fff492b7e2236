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

from collections.abc import Callable, Coroutine, Generator
from dataclasses import dataclass, field
from typing import Any, Final, Generic, Literal, Protocol, TypeVar

from orbito_hw.doctor.wiring import PINNED_PARTS as PINNED_PARTS
from orbito_hw.doctor.wiring import PinnedPart as PinnedPart
from orbito_hw.doctor.wiring import Pins as Pins
from orbito_hw.doctor.wiring import Wiring as Wiring
from orbito_hw.hw.interfaces import RGB, Board, Clock, MoveReport
from orbito_hw.lang import N_, _, ngettext
from orbito_hw.rules.squares import (
    SQUARE_NAMES,
    SQUARES,
    Mask,
    parse_square,
    press,
    squares_of,
    unpress,
)

CHECKS: Final = ("leds", "sensors", "button", "rings")
"""The checks, in the order they run."""
ASKED_ONLY: Final = ("calibrate",)  # only when --only names it: doctor/calibrate.py
ANSWERS: Final = N_("[y/n]")
"""The answers a question takes, yes first, in the reader's letters (French: ``[o/n]``)."""
PASSED: Final = N_("PASS")
FAILED: Final = N_("FAIL")

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
            n = len(self.problems)
            problems = ngettext("{n} problem", "{n} problems", n).format(n=n)
            return f"{_(FAILED)} ({problems})"
        return _(PASSED) + (f" ({'; '.join(self.notes)})" if self.notes else "")


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
                self.out(_("{check}: {verdict}").format(check=name, verdict=result.verdict()))
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
            word = reply.strip().lower()[:1]
            yes, no = answers()
            if word in (yes, "y"):  # y as well: a builder's English habit is never refused
                return True
            if word in (no, "n"):
                return False
            self.out(_("please answer {yes} or {no}").format(yes=yes, no=no))

    def _fail(self, result: CheckResult, text: str, **values: object) -> None:
        """A problem: ``text`` (a sentence in the reader's language) filled in with ``values``."""
        text = text.format(**values) if values else text
        result.problems.append(text)
        self.out(f"  {_(FAILED)} {text}")

    def _pass(self, text: str, **values: object) -> None:
        self.out(f"  {_(PASSED)} {text.format(**values) if values else text}")

    async def check_calibrate(self, result: CheckResult) -> None:
        if self.calibrate is None:
            text = _("presence sensors: nothing to calibrate (sensors.colour = false)")
            result.notes.append(text)
            return
        await self.calibrate(self, result)

    # --- the LEDs ---------------------------------------------------------------------
    async def check_leds(self, result: CheckResult) -> None:
        lights = self.board.lights
        self.person.tell(Request("hands-off", _("watch the board: each square lights in turn")))
        for square in SQUARES:
            frame: list[RGB | None] = [None] * 16
            frame[square] = LED_COLOUR
            lights.show(frame, None)
            lit = _("{square} lit").format(square=SQUARE_NAMES[square])
            self.person.tell(Request("watch", f"  {lit}", square))
            await self.sleep(LED_TIME)
        lights.show([None] * 16, STATUS_COLOUR)
        self.person.tell(Request("watch", "  " + _("the status pixel lit"), None))
        await self.sleep(LED_TIME)
        lights.show([None] * 16, None)
        result.done = _("16 squares and the status pixel lit in turn")
        question = _("did every square light in order, a1 to d4, then the status pixel?")
        question += " " + _(ANSWERS)
        seen = await self.yes_or_no(Request("confirm-leds", question))
        if seen is None:
            result.notes.append(_("not confirmed by a person"))
            self.out("  " + _("not confirmed by a person (no one to ask)"))
        elif seen:
            self._pass(_("a person saw every LED light in order"))
        else:
            await self._name_dark_leds(result)

    async def _name_dark_leds(self, result: CheckResult) -> None:
        question = _("which squares stayed dark or lit out of turn? (e.g. c3 d4; status)")
        reply = await self.ask(Request("name-leds", question))
        named = (reply or "").replace(",", " ").split()
        squares = [SQUARE_NAMES.index(n) for n in named if n in SQUARE_NAMES]
        for square in squares:
            text = _(
                "{square} did not light in turn: check {pixel} and the strip's joints there "
                "(a dead pixel darkens the ones after it too)"
            )
            self._fail(result, text, square=SQUARE_NAMES[square], pixel=self.wiring.pixel(square))
        if "status" in named:
            where = "lights.status_pixel"
            if self.wiring.status_pixel is not None:
                where += f" = {self.wiring.status_pixel}"
            self._fail(result, _("the status pixel did not light: check {key}"), key=where)
        if not squares and "status" not in named:
            pin = self.wiring.pin("lights.pin", self.wiring.lights_pin)
            text = _(
                "the LEDs did not light in order: check {pin}, lights.order and lights.pixel_order"
            )
            self._fail(result, text, pin=pin)

    # --- the square sensors -----------------------------------------------------------
    async def check_sensors(self, result: CheckResult) -> None:
        homing = _("homing the rings so the pockets sit on the squares")
        self.person.tell(Request("hands-off", homing))
        report = await self.home()
        if report is None or report.fault:
            reason = report.fault if report else _("the drive did not answer")
            text = _("cannot home the rings ({reason}): see the rings check")
            self._fail(result, text, reason=reason)
            return
        baseline = await self._empty_board(result)
        for square in SQUARES:
            if not baseline >> square & 1:
                await self._check_square(result, square, baseline)
        result.done = _("a marble put on and lifted off each square")

    async def _empty_board(self, result: CheckResult) -> int:
        """Have every marble taken off; the squares still reading one are reported."""
        reading = self.board.sensors.read()
        if reading:
            self.person.tell(Request("clear", _("take every marble off the board")))
            deadline = self.clock.now() + self.timeout
            while reading and self.clock.now() < deadline:
                got = await self.settled_change(deadline - self.clock.now())
                reading = self.board.sensors.read() if got is None else got
        for square in squares_of(reading):
            text = _(
                "{square} reads a marble on an empty board: check {sensor} "
                "(stuck, or sensors.active is the wrong level)"
            )
            self._fail(result, text, square=SQUARE_NAMES[square], sensor=self.wiring.sensor(square))
        return reading

    async def _check_square(self, result: CheckResult, square: int, baseline: int) -> None:
        name, bit = SQUARE_NAMES[square], 1 << square
        sensor = self.wiring.sensor(square)
        self.person.tell(Request("put", _("put a marble on {square}").format(square=name), square))
        got = await self.settled_change(self.timeout)
        if got is None:
            text = _("{square}: no sensor changed within {seconds} s: check {sensor}")
            self._fail(result, text, square=name, seconds=f"{self.timeout:g}", sensor=sensor)
        elif got ^ baseline == bit:
            self._pass(f"{name} ({sensor})")
        else:
            self._fail(result, self._wrong_squares(square, got ^ baseline))
        self.person.tell(
            Request("lift", _("take the marble off {square}").format(square=name), square)
        )
        if got is None or got == baseline:
            await self.sleep(LIFT_GRACE)  # nothing read the marble: nothing to see go
            return
        back = await self.settled_change(self.timeout)
        if back is None or back & bit & ~baseline:
            text = _(
                "{square} still reads a marble after it was lifted: "
                "check {sensor} and sensors.active"
            )
            self._fail(result, text, square=name, sensor=sensor)

    def _wrong_squares(self, square: int, changed: int) -> str:
        name = SQUARE_NAMES[square]
        others = squares_of(changed & ~(1 << square))
        names = " ".join(SQUARE_NAMES[o] for o in others)
        sensor = self.wiring.sensor(square)
        if not others:
            text = _("{square}: the sensor reads no marble: check {sensor}")
            return text.format(square=name, sensor=sensor)
        if changed >> square & 1:
            keys = ", ".join(self.wiring.sensor(o) for o in others)
            text = _("put a marble on {square}: {others} changed too: check {keys} for a short")
            return text.format(square=name, others=names, keys=keys)
        if len(others) == 1:
            text = _(
                "put a marble on {square}: got a change on {other} instead: sensors.pins.{square} "
                "and sensors.pins.{other} may be swapped (check {sensor}, {other_sensor})"
            )
            other = SQUARE_NAMES[others[0]]
            return text.format(
                square=name, other=other, sensor=sensor, other_sensor=self.wiring.sensor(others[0])
            )
        text = _("put a marble on {square}: got a change on {others} instead")
        return text.format(square=name, others=names)

    # --- the button -------------------------------------------------------------------
    async def check_button(self, result: CheckResult) -> None:
        pin = self.wiring.pin("button.pin", self.wiring.button_pin)
        result.done = _("one press and release")
        if self.board.button.is_pressed:
            text = _(
                "the button reads pressed before anyone touched it: check {pin}, "
                "button.active and button.pull"
            )
            self._fail(result, text, pin=pin)
            return
        self.person.tell(Request("press", _("press the Orbito button once")))
        if not await self._button_goes(True, self.timeout):
            text = _("no press within {seconds} s: check {pin}")
            self._fail(result, text, seconds=f"{self.timeout:g}", pin=pin)
            return
        if not await self._button_goes(False, RELEASE_TIMEOUT):
            text = _(
                "the button did not come back up within {seconds} s: check {pin} and button.active"
            )
            self._fail(result, text, seconds=f"{RELEASE_TIMEOUT:g}", pin=pin)
            return
        self._pass(_("the button went down and up ({pin})"), pin=pin)

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
        places = PLACES_PER_TURN
        text = _("hands off the rings: they turn one full revolution ({places} places)")
        self.person.tell(Request("watch-rings", text.format(places=places)))
        report = await self.home()
        if report is None or report.fault:
            reason = report.fault if report else _("the drive did not answer")
            text = _(
                "homing failed ({reason}): check {index} and drive.index_active, and that "
                "the motor turns ({keys})"
            )
            self._fail(result, text, reason=reason, index=index, keys=self._drive_keys())
            return
        self.out("  " + _("homed ({steps} steps)").format(steps=report.steps))
        for place in range(1, places + 1):
            label = _("place {place}").format(place=place)
            if await self._one_place(result, label, index) is None:
                return
        text = _("{places} places, each checked against the index sensor")
        result.done = text.format(places=places)
        question = _(
            "did the rings turn counter-clockwise, stopping {places} times "
            "with the pockets on the squares?"
        ).format(places=places)
        question += " " + _(ANSWERS)
        seen = await self.yes_or_no(Request("confirm-rings", question))
        if seen is None:
            result.notes.append(_("the turning not confirmed by a person"))
        elif not seen:
            spp = self.wiring.pin("drive.steps_per_place", self.wiring.steps_per_place)
            text = _(
                "the rings did not turn as they should: check drive.invert_direction, {steps} "
                "and the index magnets ({index})"
            )
            self._fail(result, text, steps=spp, index=index)
            return  # turning back tells nothing more while turning forward is wrong
        await self._turn_back(result, index)

    async def _turn_back(self, result: CheckResult, index: str) -> None:
        """One place back (clockwise, as a take-back turns them) and forward again, each
        checked against the index, with a marble on BACK_SQUARE to show the way: a DIR
        wire that never switches turns the rings forward when told to turn back, and the
        index sensor cannot tell the two apart."""
        name, bit = SQUARE_NAMES[BACK_SQUARE], 1 << BACK_SQUARE
        baseline = self.board.sensors.read()
        what = _("put a marble on {square}: it shows which way the rings turn back").format(
            square=name
        )
        self.person.tell(Request("put", what, BACK_SQUARE))
        got = await self.settled_change(self.timeout)
        marble = got is not None and got ^ baseline == bit
        if not marble:
            text = _("the way back not seen: no sensor read the marble on {square}")
            result.notes.append(text.format(square=name))
        back = await self._one_place(result, _("back one place"), index, places=-1)
        if back is not None and back.at_index:
            way_right = True
            if marble:
                await self.sleep(SETTLE)  # as for a hand's marble: the sensors settle
                way_right = self._way_back(result, baseline | bit)
            if way_right:
                await self._one_place(result, _("forward again"), index)
        await self._take_off(baseline, name)

    async def _take_off(self, baseline: Mask, name: str) -> None:
        """Have the marble put for the turn back taken off, wherever it ended up."""
        reading = self.board.sensors.read()
        if reading == baseline | 1 << BACK_SQUARE:
            text = _("take the marble off {square}").format(square=name)
            self.person.tell(Request("lift", text, BACK_SQUARE))
        else:
            text = _("take the marble put on {square} off the board").format(square=name)
            self.person.tell(Request("clear", text))
        if reading != baseline:  # a sensor reads it: wait for the board as it was
            await self.settled_change(self.timeout)

    def _way_back(self, result: CheckResult, before: Mask) -> bool:
        """Whether the marbles went back a place, by the sensors; a fault names DIR when
        they went forward instead."""
        after = self.board.sensors.read()
        if after == unpress(before):
            self._pass(
                _("back one place: clockwise (the sensors read {squares})"), squares=_names(after)
            )
            return True
        if after == press(before):
            dir_pin = self.wiring.pin("drive.dir_pin", self.wiring.dir_pin)
            text = _(
                "back one place turned the rings counter-clockwise (the sensors read {squares}): "
                "DIR does not switch: check {pin} and its wire to the driver"
            )
            self._fail(result, text, squares=_names(after), pin=dir_pin)
            return False
        text = _("the way back not seen: the sensors read {squares}, not {expected}")
        result.notes.append(text.format(squares=_names(after), expected=_names(unpress(before))))
        return True

    async def _one_place(
        self, result: CheckResult, label: str, index: str, places: int = 1
    ) -> MoveReport | None:
        """Turn ``places`` (one place, either way) and check it ended on the index, homing
        and reporting lost steps if not; the move's report, or None after a fault."""
        report = await self.move(places)
        if report is None or report.fault:
            reason = report.fault if report else _("the drive did not answer")
            text = _("{label}: {reason}: check {keys}")
            self._fail(result, text, label=label, reason=reason, keys=self._drive_keys())
            return None
        if report.at_index:
            self._pass(_("{label}: on the index ({steps} steps)"), label=label, steps=report.steps)
            return report
        found = await self.home()
        if found is None or found.fault:
            reason = found.fault if found else _("the drive did not answer")
            text = _("{label} ended off the index and homing failed ({reason}): check {index}")
            self._fail(result, text, label=label, reason=reason, index=index)
            return None
        speed = "drive.max_speed"
        if self.wiring.max_speed is not None:
            speed += f" = {self.wiring.max_speed:g}"
        text = _(
            "{label} ended off the index: homing took {steps} steps to find it "
            "(lost steps: check the motor current, {speed} and drive.acceleration)"
        )
        self._fail(result, text, label=label, steps=found.steps, speed=speed)
        return report


def answers() -> tuple[str, str]:
    """The letters for yes and no in the reader's language (ANSWERS: ``[y/n]``, ``[o/n]``)."""
    yes, _slash, no = _(ANSWERS).strip("[]").partition("/")
    return yes.strip().lower() or "y", no.strip().lower() or "n"


def _names(mask: Mask) -> str:
    return " ".join(SQUARE_NAMES[s] for s in squares_of(mask)) or _("no marble")


def summary(results: list[CheckResult]) -> list[str]:
    lines = ["", "== " + _("summary") + " =="]
    for r in results:
        line = _("{check}: {verdict}").format(check=r.name, verdict=r.verdict())
        lines.append(_("{line}: {done}").format(line=line, done=r.done) if r.done else line)
        lines += [f"  - {p}" for p in r.problems]
    failed = [r.name for r in results if not r.passed]
    if failed:
        lines.append(_("failed: {checks}").format(checks=", ".join(failed)))
    else:
        lines.append(_("all checks passed"))
    return lines


def parse_only(text: str) -> tuple[str, ...]:
    """``--only``'s comma list, checked; ValueError naming a check that does not exist."""
    names = tuple(n.strip() for n in text.split(",") if n.strip())
    bad = [n for n in names if n not in CHECKS + ASKED_ONLY]
    if bad or not names:
        shown = ", ".join(b if len(b) <= 40 else f"{b[:40]}... ({len(b)} characters)" for b in bad)
        what = _("no check called {names}").format(names=shown) if bad else _("no check named")
        text = _("{what} (the checks are {checks})")
        raise ValueError(text.format(what=what, checks=", ".join(CHECKS + ASKED_ONLY)))
    return names
