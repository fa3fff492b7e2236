"""The trapezoidal planner: the exact step count, never over the speed limit, the
acceleration within its bound, and not needlessly slow."""

from __future__ import annotations

import itertools
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st
from orbito_fw.planner import MAX_INTERVAL, Planner

SPEED = st.integers(50, 40000)
ACCEL = st.integers(500, 2000000)  # slower starts take over 65 ms a step
STEPS = st.integers(0, 4000)


def intervals(planner: Planner, steps: int) -> list[int]:
    plan = planner.plan(steps)
    return [plan.interval(k) for k in range(steps)]


def acceleration(d_prev: int, d_next: int) -> float:
    """Speed change between two intervals over the time between their midpoints: the
    exact acceleration of a constant-acceleration motion (measured independently of the
    planner's own check)."""
    return abs(1e6 / d_next - 1e6 / d_prev) / ((d_next + d_prev) / 2e6)


@given(SPEED, ACCEL, STEPS)
def test_the_step_count_is_exact(speed: int, accel: int, steps: int) -> None:
    assert len(intervals(Planner(speed, accel), steps)) == steps


@given(SPEED, ACCEL, STEPS)
def test_the_speed_never_exceeds_the_limit(speed: int, accel: int, steps: int) -> None:
    for d in intervals(Planner(speed, accel), steps):
        assert 1e6 / d <= speed


@given(SPEED, ACCEL, STEPS)
def test_the_acceleration_stays_within_its_bound(speed: int, accel: int, steps: int) -> None:
    times = intervals(Planner(speed, accel), steps)
    for prev, nxt in itertools.pairwise(times):
        assert acceleration(prev, nxt) <= accel * (1 + 1e-9)
    if times:  # from rest, the first step is no faster than constant acceleration allows
        assert times[0] >= math.sqrt(2 / accel) * 1e6 - 1


@given(SPEED, ACCEL, STEPS)
def test_a_move_speeds_up_cruises_and_slows_down_symmetrically(
    speed: int, accel: int, steps: int
) -> None:
    times = intervals(Planner(speed, accel), steps)
    assert times == times[::-1]
    half = times[: (steps + 1) // 2]
    assert half == sorted(half, reverse=True)  # faster and faster up to the middle


@pytest.mark.parametrize(("speed", "accel", "steps"), [(2000, 8000, 1200), (4000, 20000, 600)])
def test_a_move_is_nearly_as_quick_as_the_ideal_trapezoid(
    speed: int, accel: int, steps: int
) -> None:
    total = sum(intervals(Planner(speed, accel), steps)) / 1e6
    ramp = speed * speed / (2 * accel)
    ideal = steps / speed + speed / accel if steps >= 2 * ramp else 2 * math.sqrt(steps / accel)
    # Whole microseconds, each rounded up, cost a few per cent; never more than 8.
    assert ideal <= total <= ideal * 1.08
    top = min(intervals(Planner(speed, accel), steps))
    assert (top == math.ceil(1e6 / speed)) == (steps >= 2 * ramp)  # cruises when it can


def test_a_start_speed_too_slow_for_the_interval_counter_is_refused() -> None:
    with pytest.raises(ValueError, match="start speed"):
        Planner(1000, 1000, start_speed=1e6 / (MAX_INTERVAL + 10))
