"""The trapezoidal step planner: speed up, cruise, slow down, in whole microseconds.

A move of ``n`` motor steps is a list of ``n`` intervals; step ``k`` is made when
interval ``k`` has passed since step ``k - 1`` (or since the start). The intervals are
whole microseconds, as a hardware timer counts them, and are built so that the limits
hold for the intervals actually used, not only for an ideal curve:

- speed: every interval is at least ``ceil(1e6 / max_speed)``;
- acceleration: the speed over one interval (1e6 / d) changes from one interval to the
  next by at most ``accel`` times the time between their midpoints, the exact measure
  for a constant acceleration.

The speed-up ramp is computed once per configuration (greedy: each interval is the
shortest one the acceleration bound allows) and the slow-down is its mirror image, so a
move costs no arithmetic beyond indexing on the Pico.
"""

import array
import math

US = 1000000.0
MAX_RAMP = 8000  # ramp entries kept (2 bytes each)
MAX_INTERVAL = 65535  # the longest interval an array('H') holds: the slowest start


def accel_ok(d_prev: int, d_next: int, accel: float) -> bool:
    """Whether going from interval ``d_prev`` to ``d_next`` (microseconds) keeps the
    change of speed within ``accel`` (steps per second squared)."""
    dv = abs(US / d_next - US / d_prev)
    return dv <= accel * (d_next + d_prev) / (2.0 * US) * (1.0 + 1e-9)


def next_interval(d_prev: int, d_min: int, accel: float) -> int:
    """The shortest interval after ``d_prev`` that the acceleration bound allows.

    Solves ``U/d - U/p = a (d + p) / 2U`` for ``d``: a quadratic ``A d^2 + B d - U = 0``.
    """
    a_coef = accel / (2.0 * US)
    b_coef = accel * d_prev / (2.0 * US) + US / d_prev
    root = (-b_coef + math.sqrt(b_coef * b_coef + 4.0 * a_coef * US)) / (2.0 * a_coef)
    d = max(d_min, math.ceil(root))
    while d < d_prev and not accel_ok(d_prev, d, accel):
        d += 1  # floating point put the root a hair too low
    return min(d, d_prev)


class Planner:
    """Step intervals for moves under one speed limit and one acceleration bound."""

    def __init__(self, max_speed: float, accel: float, start_speed: float = 0.0) -> None:
        if max_speed <= 0 or accel <= 0:
            raise ValueError("max_speed and accel must be positive")
        self.max_speed = max_speed
        self.accel = accel
        self.d_min = math.ceil(US / max_speed)
        # From rest at constant acceleration the first step takes sqrt(2 / a) seconds.
        first = US / start_speed if start_speed > 0 else US * math.sqrt(2.0 / accel)
        d = max(self.d_min, math.ceil(first))
        if d > MAX_INTERVAL:
            raise ValueError("start speed too low: first step over 65 ms")
        ramp = array.array("H", [d])
        while d > self.d_min and len(ramp) < MAX_RAMP:
            d = next_interval(d, self.d_min, accel)
            ramp.append(d)
        self.ramp = ramp  # the speed-up; its last entry is the cruise interval or faster ramp cut

    def plan(self, steps: int) -> "Plan":
        return Plan(self.ramp, steps)

    def duration_us(self, steps: int) -> int:
        plan = self.plan(steps)
        return sum(plan.interval(k) for k in range(steps))


class Plan:
    """One move's intervals, by index: ``interval(k)`` for k = 0 .. steps - 1."""

    def __init__(self, ramp: "array.array[int]", steps: int) -> None:
        if steps < 0:
            raise ValueError("a move has at least 0 steps")
        self.ramp = ramp
        self.steps = steps
        # Up for `up` steps, down for `steps - up`: the ramp, its cruise, its mirror.
        self.up = min((steps + 1) // 2, len(ramp))

    def interval(self, k: int) -> int:
        ramp = self.ramp
        if k < self.up:
            return ramp[k]
        left = self.steps - 1 - k  # steps still to come after this one
        if left < self.up:
            # Mirror of the ramp; when the move is too short to reach the top, the peak
            # repeats (up then down from the same entry), which keeps the bound.
            return ramp[min(left, self.up - 1)]
        return ramp[self.up - 1]
