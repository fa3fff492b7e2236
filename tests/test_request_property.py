"""Issue 34's properties of the set-up request channel.

- Writers, stops, starts, busy rings, the watch's events and its overflows in any order:
  each complete request is taken exactly once or reported superseded (by the writer that
  took its place), never torn, never lost; a writer killed mid-write leaves nothing taken.
- Writers and a taker racing on threads: the same accounting.
- Anything at the request's path (any bytes, any size, a FIFO, a symbolic link, a directory,
  a socket, another user's file): taken if it is a request, else moved aside intact and
  named in one printable line; never a wait.
"""

from __future__ import annotations

import os
import tempfile
import threading
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from orbito_hw.app.inbox import EVENT, IN_MOVED_TO, IN_Q_OVERFLOW, wanted
from orbito_hw.control.events import Event, Fault
from orbito_hw.control.guard import Guard
from orbito_hw.control.journal import Saved
from orbito_hw.control.requests import (
    MAX_BYTES,
    NAME,
    TAKING,
    Desk,
    Left,
    RequestError,
    SetupRequest,
    take_request,
    write_request,
)
from orbito_hw.rules.game import Colour, Position
from orbito_hw.rules.turn import Turn

from .common.request_files import KINDS, fingerprint, planted

pytestmark = pytest.mark.fuzz  # hundreds of examples: the long tier


def _record(turns: int) -> tuple[str, ...]:
    """A legal record of ``turns`` turns, white first (the first legal turn each time)."""
    position, tokens = Position.start(Colour.WHITE), []
    for _ in range(turns):
        turn = sorted(position.legal_turns(), key=Turn.notation)[0]
        tokens.append(turn.notation())
        position = position.play(turn)
    return tuple(tokens)


MOVES = _record(4)  # its first 1..4 turns: any of them can be set up
FIXTURES = HealthCheck.function_scoped_fixture  # a fresh directory is made in each example


class Referee:
    """The referee as the desk sees it: busy while the rings turn, its guard running what
    waited once a guarded call (the ring move's end) returns."""

    def __init__(self) -> None:
        self.guard = Guard(on_fault=self.fault, on_refusal=self.fault)
        self.saved = Saved(first=Colour.BLACK)
        self.busy = False
        self.healthy = True
        self.set: list[str | None] = []
        self.faults: list[str] = []

    def fault(self, reason: str) -> None:
        self.faults.append(reason)

    def set_up(self, first: Colour, tokens: list[str], next_game: bool | None = None,
               origin: str | None = None) -> None:  # fmt: skip
        assert not self.busy, "a set-up while the rings turn"
        self.set.append(origin)

    def set_up_again(self) -> None:
        self.set.append("journal")

    def tell(self, event: Event) -> None:
        assert isinstance(event, Fault)
        self.faults.append(event.reason)

    def rings(self, turning: bool) -> None:
        """The rings start or stop, as the drive's report reaches the referee: guarded."""
        self.guard.call("the ring move's report", lambda: setattr(self, "busy", turning))


def request(n: int) -> SetupRequest:
    return SetupRequest(Colour.WHITE, MOVES[: 1 + n % 4], origin=f"test:{n}")


STEP = ["write", "write", "write", "torn", "stop", "start", "busy", "free", "heard", "overflow"]
STEPS = st.lists(st.sampled_from(STEP), max_size=40)


def heard(kind: str) -> bytes:
    """What the kernel's watch reads: the request's name renamed in, or an overflow."""
    if kind == "overflow":
        return EVENT.pack(-1, IN_Q_OVERFLOW, 0, 0)
    name = NAME.encode().ljust(32, b"\0")
    return EVENT.pack(1, IN_MOVED_TO, 0, len(name)) + name


@settings(max_examples=150, deadline=None)
@given(STEPS)
def test_each_request_is_taken_once_or_reported_superseded(steps: list[str]) -> None:
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        referee = Referee()
        desk: Desk | None = Desk.attach(referee, folder)
        left: dict[str, Left] = {}
        taken: list[str | None] = []
        faults: list[str] = []
        for n, step in enumerate(steps):
            if step == "write":
                left[f"test:{n}"] = write_request(folder, request(n))
            elif step == "torn":  # a writer killed before its rename: its temporary file only
                (folder / f"{NAME}.tmp-99-{n:016x}").write_bytes(b'{"first": "wh')
            elif step == "stop" and desk is not None:
                desk = None  # the controller is gone; what is written waits for a start
            elif step == "start" and desk is None:
                taken += referee.set
                faults += referee.faults
                referee = Referee()
                referee.busy = True  # homing: the start's look is put off until it ends
                desk = Desk.attach(referee, folder)
            elif step in ("busy", "free") and desk is not None:
                referee.rings(step == "busy")
            elif step in ("heard", "overflow") and desk is not None and wanted(heard(step)):
                desk.look()
        if desk is None:  # at the end the board is started
            taken += referee.set
            faults += referee.faults
            referee = Referee()
            Desk.attach(referee, folder)
        else:
            referee.rings(False)  # and free
            desk.look()
        taken += referee.set
        faults += referee.faults
        assert faults == []  # never a torn read
        superseded = [lt.replaced.origin for lt in left.values() if lt.replaced is not None]
        assert len(taken) == len(set(taken)), "a request taken twice"
        assert len(superseded) == len(set(superseded)) and set(taken).isdisjoint(superseded)
        assert set(taken) | set(superseded) == set(left)  # never lost
        for origin, lt in left.items():
            assert lt.stands or origin in superseded
        assert not os.path.lexists(folder / NAME) and not os.path.lexists(folder / TAKING)


def test_writers_and_a_taker_racing_on_threads_lose_nothing(tmp_path: Path) -> None:
    lefts: list[Left] = []
    taken: list[SetupRequest] = []
    errors: list[BaseException] = []
    stop = threading.Event()

    def writer(first: int) -> None:
        try:
            for n in range(first, first + 60):
                lefts.append(write_request(tmp_path, request(n)))
        except BaseException as exc:
            errors.append(exc)

    def taker() -> None:
        try:
            while not stop.is_set():
                if (found := take_request(tmp_path)) is not None:
                    taken.append(found)
        except BaseException as exc:
            errors.append(exc)

    writers = [threading.Thread(target=writer, args=(k * 1000,)) for k in range(4)]
    taking = threading.Thread(target=taker)
    taking.start()
    for thread in writers:
        thread.start()
    for thread in writers:
        thread.join(60)
    stop.set()
    taking.join(60)
    if (last := take_request(tmp_path)) is not None:
        taken.append(last)
    assert errors == []
    got = [t.ticket for t in taken]
    superseded = [lt.replaced.ticket for lt in lefts if lt.replaced is not None]
    assert len(got) == len(set(got)) and len(superseded) == len(set(superseded))
    assert set(got).isdisjoint(superseded)
    assert set(got) | set(superseded) == {lt.ticket for lt in lefts} and len(lefts) == 240
    for lt in lefts:  # told it was superseded: it was, and never taken
        assert lt.stands or lt.ticket in superseded


# --- anything at the request's path -------------------------------------------------------------
SAID = {"fifo": "(a FIFO)", "symlink": "(a symbolic link)", "dangling": "(a symbolic link)",
        "directory": "(a directory)", "socket": "(a socket)", "huge": "larger than",
        "other owner": "owned by uid 4321"}  # fmt: skip


@settings(max_examples=120, deadline=None, suppress_health_check=[FIXTURES])
@given(
    st.sampled_from(KINDS),
    st.binary(max_size=512) | st.integers(MAX_BYTES - 2, MAX_BYTES + 2).map(lambda n: b"{" * n),
)
def test_anything_at_the_requests_path_is_taken_or_moved_aside_and_named(
    tmp_path_factory: pytest.TempPathFactory, kind: str, raw: bytes
) -> None:
    folder, before = planted(tmp_path_factory, kind, raw, MOVES)
    referee = Referee()
    Desk.attach(referee, folder)  # a start: it looks at once
    assert not os.path.lexists(folder / NAME) and not os.path.lexists(folder / TAKING)
    if referee.set:
        assert kind in ("bytes", "request") and referee.faults == []
        return
    (reason,) = referee.faults
    kept = folder / f"{NAME}.damaged-1"
    assert reason.isprintable() and reason.endswith(f"; kept as {kept}"), reason
    assert fingerprint(kept) == before  # moved, not changed
    assert SAID.get(kind, "was ignored") in reason


@settings(max_examples=60, deadline=None, suppress_health_check=[FIXTURES])
@given(st.sampled_from(KINDS), st.binary(max_size=256))
def test_a_writer_takes_the_place_of_anything_and_says_what(
    tmp_path_factory: pytest.TempPathFactory, kind: str, raw: bytes
) -> None:
    folder, before = planted(tmp_path_factory, kind, raw, MOVES)
    left = write_request(folder, request(1))
    assert left.stands
    mine = take_request(folder)
    assert mine is not None and mine.origin == "test:1"
    if left.replaced is not None:  # a whole request, superseded
        assert kind in ("bytes", "request", "other owner")
        return
    assert left.aside is not None and left.aside.isprintable()
    assert fingerprint(folder / f"{NAME}.damaged-1") == before


def test_a_request_claimed_before_a_power_cut_is_taken_at_the_next_start(tmp_path: Path) -> None:
    write_request(tmp_path, request(3))
    os.rename(tmp_path / NAME, tmp_path / TAKING)  # claimed, then the power went
    referee = Referee()
    Desk.attach(referee, tmp_path)
    assert referee.set == ["test:3"] and not os.path.lexists(tmp_path / TAKING)


def test_a_file_that_cannot_be_taken_is_told_once(tmp_path: Path) -> None:
    (tmp_path / NAME).write_bytes(b"\xff")
    (tmp_path / TAKING).mkdir()  # the claim cannot rename a file over a directory
    referee = Referee()
    desk = Desk.attach(referee, tmp_path)
    desk.look()
    desk.look()
    assert len(referee.faults) == 1 and "cannot take the set-up request" in referee.faults[0]
    with pytest.raises(RequestError):
        take_request(tmp_path)
