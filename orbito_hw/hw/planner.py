"""Step timing for the ring drive, and the step train that every STEP/DIR stepper drive
shares (the simulated one and the gpio one).

The timing is the Pico firmware's own trapezoidal planner (``orbito_fw.planner``, which runs
on CPython too): a ring move ramps alike whichever of the Pi and the Pico makes the steps.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from orbito_fw.planner import MIN_ACCEL, US, Planner

from orbito_hw.hw.interfaces import Clock, FaultListener, MoveListener, MoveReport

MIN_ACCELERATION = MIN_ACCEL
"""Steps/s^2: a gentler start would take longer than the planner's intervals can hold."""


def step_delays(planner: Planner, steps: int) -> list[float]:
    """Seconds before each of a move's ``steps`` steps: speed up, cruise, slow down (the
    firmware's plan, whole microseconds)."""
    plan = planner.plan(steps)
    return [plan.interval(k) / US for k in range(steps)]


Finish = Callable[[int, bool], None]


class SteppedDrive:
    """A RingDrive that makes step pulses itself: moves ramp up and down, homing creeps
    on until the index sensor reads, at most one place and a quarter.

    Subclasses say how a step is made (``_pulse``), how the index reads and how the
    driver is powered. With ``realtime`` the step train runs on a thread of its own,
    since an event loop's timers jitter at kHz rates; otherwise each step is a timer on
    the clock (the simulated board's virtual clock).
    """

    def __init__(
        self,
        clock: Clock,
        steps_per_place: int,
        max_speed: float,
        acceleration: float,
        home_speed: float = 400.0,
        realtime: bool = False,
    ) -> None:
        self.clock = clock
        self.steps_per_place = steps_per_place
        self.max_speed = max_speed
        self.acceleration = acceleration
        self.planner = Planner(max_speed, acceleration)  # its speed-up, computed once
        self.back_planner = self.planner.backwards()  # take-backs turn slower (BACK_SHARE)
        self.home_speed = home_speed
        self.realtime = realtime
        self._moving = False
        self._stop = threading.Event()
        self.forward = True  # the way the move under way turns: True is counter-clockwise

    # --- what a subclass provides ---------------------------------------------------
    def _pulse(self) -> None:
        """One step, the way ``forward`` says (a driver with a DIR wire has set it in
        ``_energise``, before the first pulse)."""
        raise NotImplementedError

    def index_active(self) -> bool:
        raise NotImplementedError

    def _energise(self, on: bool) -> None:
        """Power the motor (ENABLE) and set the direction (``forward``) before a move; off
        after it."""

    # --- the RingDrive interface ------------------------------------------------------
    @property
    def moving(self) -> bool:
        return self._moving

    def move(self, places: int, done: MoveListener) -> None:
        """``places`` places; negative turns the rings back, clockwise, on the same ramp at
        the take-back's lower top speed (the firmware's ``BACK_SHARE``)."""
        planner = self.planner if places >= 0 else self.back_planner
        delays = step_delays(planner, abs(places) * self.steps_per_place)
        self._start(delays, places, done, until_index=False, forward=places >= 0)

    def home(self, done: MoveListener) -> None:
        if self.index_active():
            self.clock.post(lambda: done(MoveReport(0, 0, True)))
            return
        limit = self.steps_per_place + self.steps_per_place // 4
        self._start([1.0 / self.home_speed] * limit, 0, done, until_index=True, forward=True)

    def watch(self, on_fault: FaultListener) -> None:
        """Nothing to watch: the steps are made here, so every fault is a move's own."""

    def close(self) -> None:
        self._stop.set()
        self._moving = False

    # --- the step train -----------------------------------------------------------------
    def _start(
        self,
        delays: list[float],
        places: int,
        done: MoveListener,
        until_index: bool,
        forward: bool,
    ) -> None:
        self._moving = True
        self.forward = forward
        # DIR is set here, a whole first interval of the ramp (milliseconds) before the
        # first pulse: far past any driver's direction setup time (DRV8825: 650 ns).
        self._energise(True)

        def finish(made: int, found: bool) -> None:
            self._energise(False)
            self._moving = False
            fault = "" if found or not until_index else "the index sensor was not found"
            done(MoveReport(places, made, self.index_active(), fault))

        if self.realtime:
            args = (delays, until_index, finish)
            threading.Thread(target=self._pulse_thread, args=args, daemon=True).start()
        else:
            self._pulse_on_clock(delays, until_index, finish)

    def _pulse_on_clock(self, delays: list[float], until_index: bool, finish: Finish) -> None:
        made = 0

        def tick() -> None:
            nonlocal made
            self._pulse()
            made += 1
            if until_index and self.index_active():
                finish(made, True)
            elif made < len(delays) and self._moving:
                self.clock.call_later(delays[made], tick)
            else:
                finish(made, False)

        if delays:
            self.clock.call_later(delays[0], tick)
        else:
            self.clock.post(lambda: finish(0, False))

    def _pulse_thread(self, delays: list[float], until_index: bool, finish: Finish) -> None:
        made, found = 0, False
        due = time.perf_counter()
        for delay in delays:
            due += delay
            while (left := due - time.perf_counter()) > 0.002:
                time.sleep(left - 0.001)  # sleep most of the wait, spin the last millisecond
            while time.perf_counter() < due:
                pass
            if self._stop.is_set():
                break
            self._pulse()
            made += 1
            if until_index and self.index_active():
                found = True
                break
        self.clock.post(lambda: finish(made, found))
