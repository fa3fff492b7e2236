"""The trapezoidal planner: the exact step count, never over the speed limit, the
acceleration within its bound, and not needlessly slow."""

from __future__ import annotations

import itertools
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st
from orbito_fw.planner import MAX_RAMP, Planner

SPEED = st.integers(50, 40000)
ACCEL = st.integers(500, 2000000)  # gentler starts take over 65 ms a step
STEPS = st.integers(0, 4000)


def intervals(planner: Planner, steps: int) -> list[int]:
    plan = planner.plan(steps)
    return [plan.interval(k) for k in range(steps)]


def acceleration(d_prev: int, d_next: int) -> float:
    """Speed change between two intervals over the time between their midpoints: the
    exact acceleration of a constant-acceleration motion (measured independently of the
    planner)."""
    return abs(1e6 / d_next - 1e6 / d_prev) / ((d_next + d_prev) / 2e6)


def bound(d1: int, d2: int, accel: float) -> float:
    """``accel``, plus what rounding each step time to the microsecond can add: each
    interval is within 1 µs of the ideal one, which moves each speed by at most
    1e6 / (d (d - 1))."""
    rounding = 2e12 * (1 / (d1 * (d1 - 1)) + 1 / (d2 * (d2 - 1))) / (d1 + d2)
    return accel * (d1 + d2 + 2) / (d1 + d2) * (1 + 1e-9) + rounding


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
        assert acceleration(prev, nxt) <= bound(prev, nxt, accel)
    if times:  # from rest, the first step is no faster than constant acceleration allows
        assert times[0] >= math.sqrt(2 / accel) * 1e6 - 1


@given(SPEED, ACCEL, STEPS)
def test_a_move_speeds_up_cruises_and_slows_down_symmetrically(
    speed: int, accel: int, steps: int
) -> None:
    times = intervals(Planner(speed, accel), steps)
    assert times == times[::-1]
    half = times[: (steps + 1) // 2]
    # Faster and faster up to the middle (give or take the microsecond of rounding).
    assert all(b <= a + 1 for a, b in itertools.pairwise(half))
    assert not half or half[-1] <= half[0]


@pytest.mark.parametrize(("speed", "accel", "steps"), [(2000, 8000, 1200), (4000, 20000, 600)])
def test_a_move_is_nearly_as_quick_as_the_ideal_trapezoid(
    speed: int, accel: int, steps: int
) -> None:
    total = sum(intervals(Planner(speed, accel), steps)) / 1e6
    ramp = speed * speed / (2 * accel)
    ideal = steps / speed + speed / accel if steps >= 2 * ramp else 2 * math.sqrt(steps / accel)
    # Step times are the ideal ones rounded to the microsecond: no drift either way.
    assert ideal - 2e-6 <= total <= ideal * 1.001 + 2e-6
    top = min(intervals(Planner(speed, accel), steps))
    assert (top == math.ceil(1e6 / speed)) == (steps >= 2 * ramp)  # cruises when it can


def test_an_acceleration_too_low_for_the_interval_counter_is_refused() -> None:
    with pytest.raises(ValueError, match="acceleration too low"):
        Planner(1000, 400)  # the first step would take 71 ms


@pytest.mark.parametrize(("speed", "accel"), [(4000, 8000), (10000, 20000), (50000, 4000000)])
def test_high_speeds_are_reached_even_with_gentle_acceleration(speed: int, accel: int) -> None:
    """1 µs steps of the timer must not stall the speed-up below the top speed."""
    planner = Planner(speed, accel)
    assert planner.ramp[-1] <= math.ceil(1e6 / speed) + 1
    ideal = speed * speed / (2 * accel)  # steps to the top at constant acceleration
    assert abs(len(planner.ramp) - ideal) <= 0.03 * ideal + 2  # 1 µs is 5 % of 20 µs


def test_a_ramp_cut_short_by_its_memory_cap_cruises_where_it_stopped() -> None:
    planner = Planner(40000, 500)  # the top speed is 1.6 million steps away
    assert len(planner.ramp) == MAX_RAMP
    times = intervals(planner, 3 * MAX_RAMP)
    assert times[MAX_RAMP : 2 * MAX_RAMP] == [planner.ramp[-1]] * MAX_RAMP
    for prev, nxt in itertools.pairwise(times):
        assert acceleration(prev, nxt) <= bound(prev, nxt, 500)
