"""One reconnect policy per part (issue 35): when a part that went, or never came, is tried
next (hw/reconnect.py), on a clock the tests advance.

The Pico had two: its serial link's, inside a request (a Pico pulled mid-move) and between
requests, each starting again at the shortest wait; a request that gave up left the idle
link to start the schedule over. Now both go through the link's one ``Reconnect``.
"""

from __future__ import annotations

import threading

import pytest

from orbito_hw.hw.reconnect import Reconnect
from orbito_hw.hw.serial_link import Hello, LinkError, LinkSettings, SerialLink


class FakeTime:
    """A clock that moves only when waited on or told to."""

    def __init__(self) -> None:
        self.t = 0.0

    def now(self) -> float:
        return self.t

    def wait(self, seconds: float, stop: threading.Event) -> bool:
        self.t += max(0.0, seconds)
        return stop.is_set()


def test_the_wait_doubles_to_its_cap_and_starts_again_once_the_part_is_back() -> None:
    clock = FakeTime()
    policy = Reconnect(1.0, 8.0, clock)
    policy.lost()
    waits = [policy.remaining()]
    for _ in range(5):
        clock.t = policy.next_try
        assert policy.due()
        policy.failed()
        waits.append(policy.remaining())
    assert waits == [1.0, 2.0, 4.0, 8.0, 8.0, 8.0]
    policy.lost()  # a second word of the same loss: the schedule goes on
    assert policy.remaining() == 8.0
    policy.succeeded()
    policy.lost()
    assert policy.remaining() == 1.0


def test_a_pico_pulled_mid_request_is_tried_on_one_schedule_until_it_is_back(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    clock = FakeTime()
    settings = LinkSettings(read_timeout=0.0, reconnect_timeout=20.0)
    link = SerialLink("/dev/pico-pulled", settings, reconnect=Reconnect(1.0, 8.0, clock))
    tries: list[float] = []
    back_at = 45.0  # the cable put back then

    def attempt() -> Hello:
        tries.append(clock.t)
        if clock.t < back_at:
            raise OSError("no such port")
        return Hello(2, "0.2.1", "boot-1", "-")

    def transact(seq: int, words: list[str]) -> list[str]:
        raise OSError("the port went away")  # the cable pulled under the request

    monkeypatch.setattr(link, "_attempt", attempt)
    monkeypatch.setattr(link, "_transact", transact)
    with pytest.raises(LinkError, match="could not reconnect in 20 s"):
        link.request("STAT")
    assert link.lost
    while link.lost:  # the idle link: each poll when the policy says a try is due
        clock.t = link.reconnect.next_try
        link.poll_events()
    # One schedule from the pull to the Pico back: the request's tries, then the idle
    # link's, the wait never starting over at the first.
    assert tries == [1.0, 3.0, 7.0, 15.0, 23.0, 31.0, 39.0, 47.0]
    assert link.reconnects == 1
    link._lose("pulled again")  # back, then gone again: the first wait once more
    assert link.reconnect.remaining() == 1.0


def test_a_pico_whose_set_up_fails_is_set_up_again_when_the_policy_says(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Before, a set-up that failed (the Pico answering nonsense) was tried again every
    # 0.1 s, a schedule of its own beside the link's.
    from orbito_hw.hw.clock import VirtualClock
    from orbito_hw.hw.serial_backend import SerialRingDrive
    from orbito_hw.sim.board import SimBoard
    from orbito_hw.sim.pico import FakePico
    from orbito_hw.sim.world import SimRings

    from .common.wait import until

    clock = FakeTime()
    policy = Reconnect(1.0, 8.0, clock)
    quick = LinkSettings(heartbeat=0.05)  # the idle worker looks round often
    with FakePico(SimRings(SimBoard())) as pico:
        drive = SerialRingDrive(VirtualClock(), pico.path, link_settings=quick, reconnect=policy)
        try:
            set_up = drive._setup
            tries: list[float] = []
            polls: list[int] = []
            poll_events = drive.link.poll_events

            def nonsense() -> None:
                tries.append(clock.t)
                raise LinkError("the ring controller answered CFG with 'OK PING'")

            def poll() -> None:
                polls.append(1)
                poll_events()

            monkeypatch.setattr(drive.link, "poll_events", poll)
            monkeypatch.setattr(drive, "_setup", nonsense)
            drive._need_setup = True  # as after a reconnect
            until(lambda: tries == [0.0], what="the first try, at once")
            seen = len(polls)
            until(lambda: len(polls) >= seen + 5, what="the worker idling")
            assert tries == [0.0]  # not again before the policy's wait
            assert drive.fault == "the ring controller answered CFG with 'OK PING'"
            clock.t = policy.next_try
            assert clock.t == 2.0  # the wait after a failed try: twice the first
            until(lambda: len(tries) == 2, what="the second try, when due")
            monkeypatch.setattr(drive, "_setup", set_up)  # the Pico makes sense again
            clock.t = policy.next_try
            until(lambda: drive.fault == "", what="the Pico set up")
            assert not policy.gone and policy.wait == 1.0
        finally:
            drive.close()
