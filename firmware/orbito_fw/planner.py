"""The trapezoidal step planner: speed up, cruise, slow down, in whole microseconds.

A move of ``n`` motor steps is ``n`` intervals; step ``k`` is made when interval ``k`` has
passed since step ``k - 1`` (or since the start). The speed-up follows constant
acceleration from rest exactly: step ``j`` falls at ``sqrt(2 j / accel)`` seconds, rounded
to the microsecond, so the rounding never adds up and the acceleration stays within its
bound up to the timer's 1 µs resolution. The cruise interval is ``ceil(1e6 / max_speed)``
whole microseconds, so the speed never exceeds the limit, and the slow-down is the
speed-up's mirror image. A move too short to reach the top speed turns round halfway.

The speed-up's intervals are computed once per configuration and kept in an
``array('H')`` (2 bytes a step), so a move costs no arithmetic beyond indexing on the Pico.
"""

import array
import math

US = 1000000.0
MAX_RAMP = 8000  # speed-up steps kept (2 bytes each); past it the ramp stops rising
MAX_INTERVAL = 65535  # the longest interval an array('H') holds: the slowest start
MIN_ACCEL = 466  # steps/s^2: the gentlest whole acceleration whose first step fits MAX_INTERVAL
# A take-back turns the rings at this share of the top speed. Backwards, the transfer bars
# climb their ramps half-way through the move, where a press has them at rest: the fingers'
# chamfers meet the holes' lead-ins at speed and must slide the cups over faster than they
# can go, and tip them (hardware/orbito_cad/models/physics.py, issue 45: cups lifted 0.4-0.6 mm
# at 40 %); at 20 % they stay within 0.2 mm (benchmarks/mechanism.py). A take-back of one
# place takes 2.6 s.
BACK_SHARE = 0.2


class Planner:
    """Step intervals for moves under one speed limit and one acceleration bound."""

    def __init__(self, max_speed: float, accel: float) -> None:
        if max_speed <= 0 or accel <= 0:
            raise ValueError("max_speed and accel must be positive")
        self.max_speed = max_speed
        self.accel = accel
        self.d_min = math.ceil(US / max_speed)
        if round(US * math.sqrt(2.0 / accel)) > MAX_INTERVAL:
            raise ValueError("acceleration too low: the first step would take over 65 ms")
        ramp = array.array("H")
        before = 0
        self.cruise = 0  # the cruise interval: d_min, unless MAX_RAMP came first
        while len(ramp) < MAX_RAMP:
            at = round(US * math.sqrt(2.0 * (len(ramp) + 1) / accel))
            if at - before < self.d_min:
                self.cruise = self.d_min  # the top speed is reached: cruise from here
                break
            ramp.append(at - before)
            before = at
        self.ramp = ramp
        if not self.cruise:
            self.cruise = ramp[-1]

    def plan(self, steps: int) -> "Plan":
        return Plan(self, steps)

    def backwards(self) -> "Planner":
        """The planner of a take-back: the same acceleration, BACK_SHARE of the speed."""
        return Planner(self.max_speed * BACK_SHARE, self.accel)


class Plan:
    """One move's intervals, by index: ``interval(k)`` for k = 0 .. steps - 1."""

    def __init__(self, planner: Planner, steps: int) -> None:
        if steps < 0:
            raise ValueError("a move has at least 0 steps")
        self.ramp = planner.ramp
        self.steps = steps
        self.up = min(len(self.ramp), steps // 2)  # speed-up steps, and as many down
        # Between them: the cruise, or for a short move one middle step at the next speed.
        self.middle = planner.cruise if self.up == len(self.ramp) else self.ramp[self.up]

    def interval(self, k: int) -> int:
        if k < self.up:
            return self.ramp[k]
        left = self.steps - 1 - k  # steps still to come after this one
        if left < self.up:
            return self.ramp[left]
        return self.middle
