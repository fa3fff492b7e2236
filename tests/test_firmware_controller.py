"""The ring controller on explicit time: moves, homing and its limits, lost steps,
faults that stop the motor and refuse moves, debounced square events."""

from __future__ import annotations

import itertools

import pytest
from orbito_fw import selfcheck
from orbito_fw.controller import (
    FAULT,
    HOME_NO_INDEX,
    HOME_TIMEOUT,
    IDLE,
    INDEX_STUCK,
    STOPPED,
    WATCHDOG,
    RingController,
)

from .common.standin_rings import StandInRings


class StuckIndex(StandInRings):
    def index_active(self) -> bool:
        return self.pulses > 0  # fine at rest, then stuck on


def controller(spp: int = 50, **settings: int) -> tuple[RingController, StandInRings]:
    rings = StandInRings(spp)
    ctl = RingController(rings)
    for key, value in {"spp": spp, **settings}.items():
        assert ctl.configure(key, value) == ""
    return ctl, rings


def run(ctl: RingController, now: int = 0) -> int:
    """Poll as a main loop would, jumping to each wake-up; returns the end time."""
    while True:
        wake = ctl.poll(now)
        if not ctl.busy:
            return now
        now = max(now, wake)


def homed(ctl: RingController) -> int:
    assert ctl.start_home(1, 0) == ""
    return run(ctl)


def test_the_self_checks_pass_under_cpython() -> None:
    assert selfcheck.run() == "orbito_fw self-checks passed"


@pytest.mark.parametrize("places", [1, 2, 5])
def test_a_move_makes_exactly_its_steps_and_ends_on_the_index(places: int) -> None:
    ctl, rings = controller()
    now = homed(ctl)
    assert ctl.start_move(places, 2, now) == ""
    run(ctl, now)
    assert rings.pulses == rings.position == places * 50
    assert (ctl.state, ctl.steps, ctl.at_index, ctl.mismatches) == (IDLE, places * 50, True, 0)


def test_the_steps_follow_the_planned_timing() -> None:
    ctl, rings = controller(speed=1000, accel=20000)
    now = homed(ctl)
    ctl.start_move(2, 2, now)
    stamps = []
    while ctl.busy:
        before = rings.pulses
        wake = ctl.poll(now)
        if rings.pulses > before:
            stamps.append(now)
        now = max(now, wake)
    gaps = [b - a for a, b in itertools.pairwise(stamps)]
    plan = ctl.planner.plan(100)
    assert gaps == [plan.interval(k) for k in range(1, 100)]
    assert min(gaps) == 1000  # 1000 steps/s at the top, never faster


def step_stamps(places: int) -> tuple[list[int], StandInRings]:
    """When each step of a move of ``places`` is made, from a homed start at 0 µs."""
    ctl, rings = controller(speed=1000, accel=20000)
    now = homed(ctl)
    assert ctl.start_move(places, 2, now) == ""
    stamps = []
    while ctl.busy:
        before = rings.pulses
        wake = ctl.poll(now)
        if rings.pulses > before:
            stamps.append(now)
        now = max(now, wake)
    assert ctl.at_index and ctl.mismatches == 0
    return stamps, rings


@pytest.mark.parametrize("places", [1, 3])
def test_a_move_back_turns_clockwise_on_the_same_ramp_slower(places: int) -> None:
    """A take-back speeds up as a press does, to BACK_SHARE of the top speed: backwards, the
    bars climb their ramps mid-move, and at full speed the ramps throw them into the cups."""
    from orbito_fw.planner import BACK_SHARE

    ahead, _ = step_stamps(places)
    back, rings = step_stamps(-places)
    assert len(back) == len(ahead)
    # the same ramp up to the slower top speed...
    slow = next(i for i in range(1, len(back)) if back[i] - back[i - 1] != ahead[i] - ahead[i - 1])
    assert back[:slow] == ahead[:slow]
    top = min(b - a for a, b in itertools.pairwise(ahead))
    top_back = min(b - a for a, b in itertools.pairwise(back))
    assert top_back == pytest.approx(top / BACK_SHARE, rel=0.02)
    assert rings.position == -places * 50 == -rings.pulses  # ...every step clockwise


def test_a_move_of_more_than_100_places_either_way_is_refused() -> None:
    ctl, rings = controller()
    now = homed(ctl)
    assert [ctl.start_move(p, 2, now) for p in (101, -101, 10**6, -(10**6))] == ["bad_value"] * 4
    assert ctl.start_move(-100, 3, now) == ""
    run(ctl, now)
    assert rings.position == -100 * 50 and ctl.places == -100


def test_a_late_main_loop_slows_the_move_but_never_bunches_steps() -> None:
    ctl, rings = controller()
    now = homed(ctl)
    ctl.start_move(1, 2, now)
    late = now + 10**6  # the loop was stuck for a second
    ctl.poll(late)
    assert rings.pulses == 1  # one step, not the whole backlog
    run(ctl, late)
    assert rings.pulses == 50


def test_a_move_needs_homing_first() -> None:
    ctl, rings = controller()
    assert ctl.start_move(1, 1, 0) == "not_homed"
    assert rings.pulses == 0


def test_homing_steps_to_the_next_index() -> None:
    ctl, rings = controller()
    rings.position = 13
    homed(ctl)
    assert (rings.position, ctl.steps, ctl.at_index, ctl.homed) == (50, 37, True, True)


def test_homing_on_the_index_makes_no_step() -> None:
    ctl, rings = controller()
    homed(ctl)
    assert rings.pulses == 0 and ctl.homed


def test_homing_without_an_index_gives_up_after_a_place_and_the_margin() -> None:
    ctl, rings = controller(home_margin=7, home_ms=100000)
    rings.position, rings.spp = 1, 10**6  # the index sensor never answers
    homed(ctl)
    assert (ctl.state, ctl.fault) == (FAULT, HOME_NO_INDEX)
    assert rings.pulses == 57


def test_homing_has_a_time_limit() -> None:
    ctl, rings = controller(home_speed=10, home_ms=1000)  # 10 steps/s: 50 steps take 5 s
    rings.position = 1
    now = homed(ctl)
    assert (ctl.state, ctl.fault) == (FAULT, HOME_TIMEOUT)
    assert now == 1_000_001 and rings.pulses == 10


def test_lost_steps_are_seen_against_the_index() -> None:
    ctl, rings = controller()
    now = homed(ctl)
    rings.slip = 3
    ctl.start_move(2, 2, now)
    now = run(ctl, now)
    assert rings.pulses == 100 and rings.position == 97
    assert not ctl.at_index and ctl.mismatches > 0 and not ctl.homed
    assert ctl.start_move(1, 3, now) == "not_homed"  # home first: the rings are off a place
    ctl.start_home(4, now)
    run(ctl, now)
    assert rings.position == 100 and ctl.homed


def test_an_index_sensor_stuck_active_is_a_fault() -> None:
    rings = StuckIndex(50)
    ctl = RingController(rings)
    ctl.configure("spp", 50)
    now = homed(ctl)
    ctl.start_move(3, 2, now)
    run(ctl, now)
    assert (ctl.state, ctl.fault) == (FAULT, INDEX_STUCK)
    assert rings.pulses == 1 + 50  # homing, then one place of steps, not three
    assert not rings.enabled


def test_a_fault_stops_the_motor_and_refuses_moves_until_cleared_and_homed() -> None:
    ctl, rings = controller()
    now = homed(ctl)
    ctl.start_move(4, 2, now)
    for _ in range(20):
        now = ctl.poll(now)
    ctl.stop()
    assert (ctl.state, ctl.fault, rings.enabled) == (FAULT, STOPPED, False)
    pulses = rings.pulses
    ctl.poll(now + 10**6)
    assert rings.pulses == pulses  # the motor stays stopped
    assert ctl.start_move(1, 3, now) == "fault" and ctl.start_home(4, now) == "fault"
    ctl.clear()
    assert ctl.start_move(1, 5, now) == "not_homed"
    assert ctl.start_home(6, now) == ""


def test_a_watchdog_restart_comes_up_faulted() -> None:
    rings = StandInRings(50)
    ctl = RingController(rings, reset_cause="watchdog")
    assert (ctl.state, ctl.fault) == (FAULT, WATCHDOG)
    assert ctl.start_home(1, 0) == "fault"


def test_settings_are_checked() -> None:
    ctl, _rings = controller()
    assert ctl.configure("warp", 1) == "unknown_key"
    assert ctl.configure("speed", 0) == "bad_value"
    ctl.start_home(1, 0)
    ctl.poll(0)
    ctl.configure("spp", 49)  # a new gear ratio: the rings are no longer known homed
    assert not ctl.homed


def test_square_changes_are_debounced_and_reported_once() -> None:
    ctl, rings = controller(scan=1, scan_ms=2, debounce_ms=20)
    now = 0
    timeline = {0: 0b1, 10_000: 0b11, 12_000: 0b01, 14_000: 0b11, 16_000: 0b01}  # a2 bounces
    timeline |= {100_000: 0b101, 200_000: 0b100}
    events = []
    while now < 300_000:
        if now in timeline:
            rings.squares = timeline[now]
        ctl.poll(now)
        events += ctl.events
        ctl.events.clear()
        now += 1000
    assert [(sq, on) for sq, on, _t in events] == [(0, True), (2, True), (0, False)]
    assert [t for _sq, _on, t in events] == [20_000, 120_000, 220_000]
    assert ctl.squares == 0b100
