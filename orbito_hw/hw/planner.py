"""Step timing for the ring drive: a trapezoidal speed profile."""

from __future__ import annotations


def trapezoid(steps: int, max_speed: float, acceleration: float) -> list[float]:
    """Delays before each of ``steps`` steps: accelerate, cruise, decelerate.

    Each delay is the time to cover that step at the speed the profile allows there,
    v = sqrt(2 a d) from the nearer end, capped at ``max_speed``.
    """
    delays = []
    for k in range(steps):
        from_end = min(k + 1, steps - k)
        speed = min(max_speed, (2.0 * acceleration * from_end) ** 0.5)
        delays.append(1.0 / speed)
    return delays
