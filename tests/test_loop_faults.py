"""One exception policy for the event loop (issue 11, defect 6).

Nothing from outside reaches the referee unchecked: a square event for a square that does not
exist (or a ``present``, a ``pressed``, a time, a ring move's report that make no sense) is
refused as a fault and never enters the model; the game goes on. An exception escaping any
callback (a listener, a timer, a backend's posted callback) is an internal error: a fault
event, the status pixel in the fault colour, nothing saved after it (the journal's bytes stay
as they were), and no more watchdog pings, so that systemd restarts the service. The same on
the virtual clock (the harness: ``run --mock --events`` exits 1, one line, no traceback) and
on a real asyncio loop (app/run.py on gpiozero's mock pins).
"""

from __future__ import annotations

import asyncio
import io
import logging
import math
import os
import signal
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import redirect_stderr, redirect_stdout, suppress
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from gpiozero.pins.mock import MockFactory
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import orbito_hw.app.run as app_run
from orbito_hw.app import devices as app_devices
from orbito_hw.app.config import BackendsConfig, load_config
from orbito_hw.app.service import Service
from orbito_hw.cli import main
from orbito_hw.control.correction import Corrections
from orbito_hw.control.events import Event, Fault
from orbito_hw.control.guard import (
    BoundaryError,
    check_flag,
    check_mask,
    check_report,
    check_square,
    check_time,
    named,
)
from orbito_hw.control.lights import Palette
from orbito_hw.control.reading import TurnReader
from orbito_hw.control.referee import Referee, State
from orbito_hw.hw.clock import VirtualClock
from orbito_hw.hw.interfaces import (
    RGB,
    Board,
    Button,
    ButtonListener,
    MoveListener,
    MoveReport,
    RingDrive,
    SquareListener,
    SquareSensors,
)
from orbito_hw.rules.game import Colour, Position
from orbito_hw.rules.squares import parse_square, square_name
from orbito_hw.sim.board import SimError, SimLights
from orbito_hw.sim.harness import ControllerFailedError, MockRun
from orbito_hw.sim.script import parse_script
from orbito_hw.sim.world import SimParts

from .common.systemd import FakeSystemd

EXAMPLE = Path(__file__).resolve().parent.parent / "config.example.toml"
FAULT_COLOUR = Palette().fault
OPENING = "reset white\nput b1\npress\n"  # white b1, the rings carry it to c1


# --- taps: a hostile backend under every real one ------------------------------------------
@dataclass
class Taps:
    """What the referee subscribed to the board's parts, so a test can send it anything a
    backend might (a square 16, a ``present`` of 1...), and a way to spoil the next ring
    move's report."""

    squares: list[SquareListener] = field(default_factory=list)
    buttons: list[ButtonListener] = field(default_factory=list)
    spoil_report: Callable[[MoveReport], object] | None = None

    def square(self, square: object, present: object, when: object = 1.0) -> None:
        for listener in list(self.squares):
            listener(square, present, when)  # type: ignore[arg-type]

    def button(self, pressed: object, when: object = 1.0) -> None:
        for listener in list(self.buttons):
            listener(pressed, when)  # type: ignore[arg-type]


class TappedSensors:
    def __init__(self, sensors: SquareSensors, taps: Taps) -> None:
        self.sensors, self.taps = sensors, taps

    def read(self) -> int:
        return self.sensors.read()

    def subscribe(self, listener: SquareListener) -> None:
        self.taps.squares.append(listener)
        self.sensors.subscribe(listener)

    def close(self) -> None:
        self.sensors.close()


class TappedButton:
    def __init__(self, button: Button, taps: Taps) -> None:
        self.button, self.taps = button, taps

    def subscribe(self, listener: ButtonListener) -> None:
        self.taps.buttons.append(listener)
        self.button.subscribe(listener)

    @property
    def is_pressed(self) -> bool:
        return self.button.is_pressed

    def close(self) -> None:
        self.button.close()


class TappedDrive:
    def __init__(self, drive: RingDrive, taps: Taps) -> None:
        self.drive, self.taps = drive, taps

    def _spoilt(self, done: MoveListener) -> MoveListener:
        def report(sane: MoveReport) -> None:
            spoil, self.taps.spoil_report = self.taps.spoil_report, None
            done(sane if spoil is None else spoil(sane))  # type: ignore[arg-type]

        return report

    def move(self, places: int, done: MoveListener) -> None:
        self.drive.move(places, self._spoilt(done))

    def home(self, done: MoveListener) -> None:
        self.drive.home(self._spoilt(done))

    def watch(self, on_fault: Callable[[str], None]) -> None:
        watch = getattr(self.drive, "watch", None)
        if watch is not None:
            watch(on_fault)

    @property
    def moving(self) -> bool:
        return self.drive.moving

    def close(self) -> None:
        self.drive.close()


@pytest.fixture
def taps(monkeypatch: pytest.MonkeyPatch) -> Taps:
    """Every board the harness boots gets its sensors, button and drive tapped."""
    tapped = Taps()
    boot_board = SimParts.board

    def board(parts: SimParts) -> Board:
        tapped.squares.clear()  # a power cut: the dead controller's listeners are gone
        tapped.buttons.clear()
        b = boot_board(parts)
        return Board(
            b.clock,
            TappedSensors(b.sensors, tapped),
            TappedButton(b.button, tapped),
            TappedDrive(b.drive, tapped),
            b.lights,
        )

    monkeypatch.setattr(SimParts, "board", board)
    return tapped


def journal_bytes(run: MockRun) -> dict[str, bytes]:
    """Every file of the state directory, by name, with its bytes."""
    return {p.name: p.read_bytes() for p in sorted(run.state_dir.iterdir()) if p.is_file()}


def faults(events: list[dict[str, object]]) -> list[str]:
    return [str(e["reason"]) for e in events if e["event"] == "fault"]


def statuses(run: MockRun, seconds: float = 1.2) -> set[RGB | None]:
    """The colours the status pixel shows over ``seconds`` (a blink shows two)."""
    seen: set[RGB | None] = set()
    for _ in range(round(seconds / 0.05)):
        seen.add(run.lights_frame()[1])
        run.clock.advance(0.05)
    return seen


# --- the checks at the boundary --------------------------------------------------------------
@pytest.mark.parametrize("bad", [16, -1, 99, "a1", None, 2.0, True, False, 10**100, [3]])
def test_a_square_that_is_not_one_is_refused_by_name(bad: object) -> None:
    with pytest.raises(BoundaryError, match="does not exist") as caught:
        check_square(bad)
    assert len(str(caught.value)) < 120  # named, never copied whole
    assert [check_square(sq) for sq in (0, 15)] == [0, 15]


def test_flags_times_masks_and_reports_are_checked() -> None:
    assert check_flag(True, "present") is True
    for bad_flag in (1, 0, None, "yes"):
        with pytest.raises(BoundaryError, match="present"):
            check_flag(bad_flag, "present")
    assert check_time(3) == 3.0
    for bad_time in (math.nan, math.inf, "1.0", None, True):
        with pytest.raises(BoundaryError, match="time"):
            check_time(bad_time)
    assert check_mask(0xFFFF) == 0xFFFF
    for bad_mask in (-1, 1 << 16, "0", None):
        with pytest.raises(BoundaryError, match="reading"):
            check_mask(bad_mask)
    assert check_report(MoveReport(1, 200, True)) == MoveReport(1, 200, True)
    back = MoveReport(-1, 200, True)  # a take-back turns the rings back: negative places
    assert check_report(back) == back
    assert check_report(MoveReport(1, 0, False, "x" * 10_000)).fault.endswith("...")
    for bad_report in (
        None,
        (1, 200, True, ""),
        MoveReport(1, -5, True),
        MoveReport(1.5, 0, True),  # type: ignore[arg-type]
        MoveReport(1, 200, 1),  # type: ignore[arg-type]
        MoveReport(1, 200, True, None),  # type: ignore[arg-type]
    ):
        with pytest.raises(BoundaryError):
            check_report(bad_report)


def test_a_refused_value_is_named_short_whatever_it_is() -> None:
    class Unshowable:
        def __repr__(self) -> str:
            raise RuntimeError("no")

    assert named(10**10_000) == "an int of 33220 bits"  # its repr alone would raise
    assert named("x" * 10**6).endswith("...") and len(named("x" * 10**6)) < 50
    assert "cannot be shown" in named(Unshowable())


def test_the_model_takes_no_square_that_does_not_exist() -> None:
    reader = TurnReader(Position.start(Colour.WHITE))
    reader.sense(parse_square("b1"), True)
    before = (dict(reader.marbles), list(reader.hand))
    for bad in (16, -1, 99, True, "a1"):
        with pytest.raises(ValueError, match="not a square"):
            reader.sense(bad, True)  # type: ignore[arg-type]
        with pytest.raises(ValueError, match="not a square"):
            reader.sense(bad, False)  # type: ignore[arg-type]
    assert (dict(reader.marbles), list(reader.hand)) == before
    assert reader.turn().notation() == "b1"  # still a model that works


# --- the defect: a square event for a square that does not exist ------------------------------
# Every kind of value on the simulated board's own parts; the defect itself on each backend.
NOT_SQUARES = [("sim", bad) for bad in (16, -1, "c3", None, 3.0, 10**30)] + [
    (backend, bad) for backend in ("gpio", "serial") for bad in (16, -1)
]


@pytest.mark.parametrize(("backend", "bad"), NOT_SQUARES)
def test_a_square_that_does_not_exist_is_a_fault_and_the_game_goes_on(
    taps: Taps, backend: str, bad: object
) -> None:
    run = MockRun(parts=backend)  # type: ignore[arg-type]
    try:
        run.run_script(parse_script("reset white\n"))
        model, saved = dict(run.referee.model), journal_bytes(run)
        for present in (True, False):
            taps.square(bad, present, run.clock.now())
            run.advance(0.5)
        assert len(faults(run.events)) == 2
        assert "does not exist" in faults(run.events)[0]
        assert dict(run.referee.model) == model  # the bad square never entered the model
        assert journal_bytes(run) == saved
        assert run.referee.healthy and run.referee.state is State.WAITING
        run.run_script(parse_script("put b1\npress\nlift c1\nput c2\nput a2\npress\n"))
        turns = [e["turn"] for e in run.events if e["event"] == "turn"]
        assert turns == ["b1", "c1-c2:a2"]  # later good events are still refereed
    finally:
        run.close()


@pytest.mark.parametrize(
    ("send", "words"),
    [
        (lambda t: t.square(3, 1), "present 1, not True or False"),
        (lambda t: t.square(3, None), "present None"),
        (lambda t: t.square(3, True, math.nan), "time nan"),
        (lambda t: t.square(3, True, "now"), "time 'now'"),
        (lambda t: t.button(1), "pressed 1"),
        (lambda t: t.button(True, math.inf), "time inf"),
    ],
)
def test_events_that_make_no_sense_are_refused_and_change_nothing(
    taps: Taps, send: Callable[[Taps], None], words: str
) -> None:
    run = MockRun()
    try:
        run.run_script(parse_script(OPENING + "put a2\n"))
        model, saved = dict(run.referee.model), journal_bytes(run)
        send(taps)
        run.advance(3.0)  # past the new-game hold time too
        assert any(words in reason for reason in faults(run.events)), run.events
        assert dict(run.referee.model) == model and journal_bytes(run) == saved
        run.run_script(parse_script("press\n"))
        assert [e["turn"] for e in run.events if e["event"] == "turn"] == ["b1", "a2"]
    finally:
        run.close()


def test_a_ring_report_that_makes_no_sense_is_a_hardware_fault_a_press_retries(
    taps: Taps,
) -> None:
    run = MockRun()
    try:
        run.run_script(parse_script(OPENING + "put a2\n"))
        taps.spoil_report = lambda report: replace(report, steps=-5)
        run.run(parse_script("press\n")[0])
        run.wait_for_rings()  # the press counts on release: the move may still be under way
        assert any("the ring drive sent steps -5" in r for r in faults(run.events))
        assert run.referee.state is State.FAULT and run.referee.healthy
        assert FAULT_COLOUR in statuses(run)
        run.run_script(parse_script("press\n"))  # retry: home, look, carry on
        assert [e["turn"] for e in run.events if e["event"] == "turn"] == ["b1", "a2"]
        assert run.referee.state is State.WAITING
    finally:
        run.close()


def test_a_report_that_is_no_report_at_all_is_a_fault_too(taps: Taps) -> None:
    run = MockRun()
    try:
        run.run_script(parse_script(OPENING + "put a2\n"))
        taps.spoil_report = lambda report: "done!"
        run.run(parse_script("press\n")[0])
        run.wait_for_rings()
        assert any("'done!' instead of a move report" in r for r in faults(run.events))
        assert run.referee.state is State.FAULT and run.referee.healthy
    finally:
        run.close()


# --- an exception inside: the virtual clock ---------------------------------------------------
def boom(*args: object, **kwargs: object) -> None:
    raise RuntimeError("boom")


@dataclass
class FaultWatch:
    """An event listener that keeps the state directory's bytes as they were when the
    referee stopped (its fault event), to compare with what is there later."""

    run: MockRun | None = None
    at_fault: dict[str, bytes] | None = None
    events: list[Event] = field(default_factory=list)

    def __call__(self, event: Event) -> None:
        self.events.append(event)
        run = self.run
        if isinstance(event, Fault) and run is not None and not run.referee.healthy:
            self.at_fault = self.at_fault or journal_bytes(run)  # a refused input is no stop


def watched_run() -> tuple[MockRun, FaultWatch]:
    watch = FaultWatch()
    run = MockRun(on_event=watch)
    watch.run = run
    return run, watch


@pytest.mark.parametrize(
    ("target", "method", "script", "where"),
    [
        # a square event's listener (a lift of c1 reaches the model after the debounce)
        (TurnReader, "sense", "lift c1\n", "the timer Debouncer._raw_change"),
        (Referee, "_referee_press", "put a2\npress\n", "the button event"),
        (Referee, "_moved", "put a2\npress\n", "the ring move's report"),
        # the settle timer after the ring move (its commit of the turn raises)
        (Referee, "_commit", "put a2\npress\n", "the timer Referee._verify"),
        # a new game from a hold on the empty board (the game's one marble lifted: the
        # first hold asks to throw the game away, the second agrees, control/discard.py)
        (Referee, "new_game", "lift c1\nhold 3\nhold 3\n", "the timer Referee._on_hold"),
    ],
    ids=["square listener", "button listener", "drive report", "settle timer", "hold timer"],
)
def test_an_exception_in_a_callback_stops_the_referee_and_shows_the_fault(
    target: type, method: str, script: str, where: str
) -> None:
    run, watch = watched_run()
    try:
        run.run_script(parse_script(OPENING))
        with (
            mock.patch.object(target, method, boom),
            pytest.raises(ControllerFailedError) as caught,
        ):
            run.run_script(parse_script(script))
        assert str(caught.value).startswith(f"internal error in {where}: RuntimeError: boom")
        reasons = faults(run.events)
        assert len(reasons) == 1 and "RuntimeError: boom" in reasons[0]
        assert "test_loop_faults.py" in reasons[0]  # where it was raised, for the log
        assert not run.referee.healthy and run.referee.state is State.FAULT
        assert watch.at_fault is not None
        seen = statuses(run)
        assert FAULT_COLOUR in seen and seen <= {FAULT_COLOUR, None}  # blinking
        # Nothing gets in any more, so nothing is saved: not a square, a press or a game.
        run.physics.put(parse_square("d4"), Colour.BLACK)
        run.finger(True)
        run.advance(0.2)
        run.finger(False)
        run.advance(3.0)
        with pytest.raises(ControllerFailedError):
            run.run_script(parse_script("reset black\n"))
        assert journal_bytes(run) == watch.at_fault
        assert len(faults(run.events)) == 1
    finally:
        run.close()


def test_an_exception_escaping_an_unguarded_timer_is_the_same_fault() -> None:
    from orbito_hw.control.lights import LightShow

    run, watch = watched_run()
    try:
        run.run_script(parse_script("reset white\nput b1\nput b2\n"))
        with mock.patch.object(LightShow, "_tick", boom), pytest.raises(ControllerFailedError):
            run.run_script(parse_script("press\n"))  # a refusal blinks: the tick raises
        reasons = faults(run.events)
        assert len(reasons) == 1 and "internal error in the timer" in reasons[0]
        assert "RuntimeError: boom" in reasons[0]
        assert not run.referee.healthy and journal_bytes(run) == watch.at_fault
    finally:
        run.close()


def test_a_virtual_clock_hands_exceptions_to_its_handler_and_runs_on() -> None:
    clock = VirtualClock()
    ran: list[str] = []
    caught: list[tuple[Exception, object]] = []
    clock.call_later(1.0, lambda: boom())
    clock.call_later(2.0, lambda: ran.append("later"))
    with pytest.raises(RuntimeError, match="boom"):  # no handler: up through advance
        clock.advance(1.5)
    clock.call_later(0.5, boom)
    clock.set_exception_handler(lambda exc, callback: caught.append((exc, callback)))
    clock.advance(5.0)
    assert ran == ["later"] and len(caught) == 1 and caught[0][1] is boom


def test_run_events_exits_1_with_one_line_and_the_fault_event(tmp_path: Path) -> None:
    script = tmp_path / "game.txt"
    script.write_text(OPENING + "lift c1\nput c2\n")
    out, err = io.StringIO(), io.StringIO()
    with (
        mock.patch.object(TurnReader, "sense", boom),
        redirect_stdout(out),
        redirect_stderr(err),
        pytest.raises(SystemExit) as exited,
    ):
        main(["run", "--mock", "--events", str(script), "--state-dir", str(tmp_path / "s")])
    assert exited.value.code == 1
    lines = err.getvalue().splitlines()
    assert len(lines) == 1 and lines[0].startswith("orbito-hw: the controller failed: internal")
    assert "Traceback" not in err.getvalue()
    assert '"event": "fault"' in out.getvalue().splitlines()[-1]


# --- the watchdog: fed only while the referee can work -----------------------------------------
def test_pings_stop_while_the_health_check_fails_and_come_back_with_it(tmp_path: Path) -> None:
    import asyncio

    path = str(tmp_path / "notify")
    fake = FakeSystemd(path)
    service = Service(environ={"NOTIFY_SOCKET": path, "WATCHDOG_USEC": "100000"})
    health = {"ok": True}
    marks: dict[str, float] = {}

    async def main_() -> None:
        loop = asyncio.get_running_loop()
        service.start(loop, healthy=lambda: health["ok"])
        await asyncio.sleep(0.3)
        health["ok"], marks["sick"] = False, time.monotonic()
        await asyncio.sleep(0.5)
        assert service.starved
        health["ok"], marks["well"] = True, time.monotonic()
        await asyncio.sleep(0.3)
        service.stop()

    asyncio.run(main_())
    pings = [at for at, text in fake.close() if text == "WATCHDOG=1"]
    before = [at for at in pings if at < marks["sick"]]
    during = [at for at in pings if marks["sick"] + 0.01 < at < marks["well"]]
    after = [at for at in pings if at > marks["well"]]
    assert len(before) >= 2 and during == [] and len(after) >= 2, pings


def test_a_health_check_that_raises_counts_as_sick(tmp_path: Path) -> None:
    import asyncio

    path = str(tmp_path / "notify")
    fake = FakeSystemd(path)
    service = Service(environ={"NOTIFY_SOCKET": path, "WATCHDOG_USEC": "100000"})

    async def main_() -> None:
        service.start(asyncio.get_running_loop(), healthy=lambda: bool(boom()))
        await asyncio.sleep(0.3)
        service.stop()

    asyncio.run(main_())
    assert "WATCHDOG=1" not in fake.texts()
    fake.close()


# --- an exception inside: the real asyncio loop (app/run.py on mock pins) -----------------------
class RecordingLights(SimLights):
    """SimLights that keep every status pixel colour shown, with the time."""

    def __init__(self) -> None:
        super().__init__()
        self.statuses: list[tuple[float, RGB | None]] = []

    def show(self, frame: Any, status: RGB | None = None) -> None:
        super().show(frame, status)
        self.statuses.append((time.monotonic(), status))


@dataclass
class RealBoard:
    lights: RecordingLights
    systemd: FakeSystemd
    state: Path
    faults: list[tuple[float, str]]


@pytest.fixture
def real_board(
    tmp_path: Path, mock_pins: MockFactory, monkeypatch: pytest.MonkeyPatch
) -> Iterator[tuple[RealBoard, Callable[[Callable[[], None]], int]]]:
    """run_board on gpio mock pins, a status pixel that records, a fake systemd with a
    0.2 s watchdog, and the fault lines of the journal's log; ``play(player)`` runs the
    board while ``player`` (on a thread) plays, then SIGTERM."""
    base = load_config(EXAMPLE)
    config = replace(
        base,
        board=replace(base.board, state_dir=tmp_path / "state"),
        backends=BackendsConfig(sensors="gpio", button="gpio", drive="gpio", lights="none"),
        sensors=replace(base.sensors, colour=False),  # hall switches: presence only
    )
    notify = str(tmp_path / "notify")
    systemd = FakeSystemd(notify)
    monkeypatch.setenv("NOTIFY_SOCKET", notify)
    monkeypatch.setenv("WATCHDOG_USEC", "200000")
    monkeypatch.setenv("WATCHDOG_PID", str(os.getpid()))
    lights = RecordingLights()
    # The "none" lights: a status pixel that records instead.
    monkeypatch.setattr(app_devices, "open_lights", lambda config: lights)
    seen: list[tuple[float, str]] = []

    class FaultLines(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            if "fault" in record.getMessage():
                seen.append((time.monotonic(), record.getMessage()))

    handler = FaultLines(logging.ERROR)
    logging.getLogger("orbito_hw.events").addHandler(handler)
    board = RealBoard(lights, systemd, tmp_path / "state", seen)
    index = mock_pins.pin(config.drive.index_pin)

    def play(player: Callable[[], None]) -> int:
        def person() -> None:
            threading.Event().wait(0.2)
            index.drive_low()  # homing finds the index magnet
            threading.Event().wait(0.3)
            player()
            os.kill(os.getpid(), signal.SIGTERM)

        threading.Thread(target=person, daemon=True).start()
        return app_run.run_board(config)

    try:
        yield board, play
    finally:
        logging.getLogger("orbito_hw.events").removeHandler(handler)
        systemd.close()


def state_bytes(state: Path) -> dict[str, object]:
    """The state directory's files byte for byte; the game archive by what it holds (SQLite
    folds its write-ahead log into the file when it closes: the same games in other bytes)."""
    from orbito_hw.archive.store import NAME, Archive

    files: dict[str, object] = {
        p.name: p.read_bytes()
        for p in sorted(state.iterdir())
        if p.is_file() and not p.name.startswith(NAME)
    }
    archive = Archive.read(state)
    try:
        files[NAME] = [
            (g.as_json(), [t.as_json() for t in archive.turns(g.id)], archive.refusals(g.id))
            for g in archive.games()
        ]
    finally:
        archive.close()
    return files


def assert_stopped_and_shown(board: RealBoard, words: str) -> None:
    messages = board.systemd.close()
    texts = [text for _, text in messages]
    assert texts[0] == "READY=1" and texts[-1] == "STOPPING=1"
    assert len(board.faults) == 1 and words in board.faults[0][1], board.faults
    at_fault = board.faults[0][0]
    assert any(t.startswith("STATUS=fault: internal error") for t in texts), texts
    pings = [at for at, text in messages if text == "WATCHDOG=1"]
    assert any(at < at_fault for at in pings), "fed while the referee worked"
    # 0.1 s between pings and 0.8 s of play after the fault: unstopped, some 8 would come.
    assert [at for at in pings if at > at_fault + 0.25] == [], "no pings after the fault"
    shown = {status for at, status in board.lights.statuses if at >= at_fault}
    assert FAULT_COLOUR in shown  # the status pixel blinks the fault colour


def test_an_exception_in_a_square_listener_on_the_real_loop(
    real_board: tuple[RealBoard, Callable[[Callable[[], None]], int]],
    mock_pins: MockFactory,
) -> None:
    board, play = real_board
    config = load_config(EXAMPLE)
    a1 = mock_pins.pin(config.sensors.pins[0])
    before: dict[str, dict[str, bytes]] = {}

    def player() -> None:
        before["state"] = state_bytes(board.state)
        a1.drive_low()  # a marble on a1: the listener raises
        threading.Event().wait(0.8)  # four watchdog periods

    with mock.patch.object(TurnReader, "sense", boom):
        assert play(player) == 0
    assert_stopped_and_shown(board, "internal error in the timer Debouncer._raw_change")
    assert state_bytes(board.state) == before["state"]


def test_an_exception_escaping_a_backends_callback_on_the_real_loop(
    real_board: tuple[RealBoard, Callable[[Callable[[], None]], int]],
    mock_pins: MockFactory,
) -> None:
    from orbito_hw.hw.gpio import GpioSensors

    board, play = real_board
    config = load_config(EXAMPLE)
    a1 = mock_pins.pin(config.sensors.pins[0])
    before: dict[str, dict[str, bytes]] = {}

    def player() -> None:
        before["state"] = state_bytes(board.state)
        a1.drive_low()  # the gpio backend's posted callback raises, outside any guard
        threading.Event().wait(0.8)

    with mock.patch.object(GpioSensors, "_tell", boom):
        assert play(player) == 0
    assert_stopped_and_shown(board, "internal error in the event loop (Exception in callback")
    assert state_bytes(board.state) == before["state"]


# --- hypothesis: anything a backend sends, an exception anywhere ---------------------------------
RAISERS = [
    (TurnReader, "sense"),
    (TurnReader, "turn"),
    (Referee, "_on_square"),
    (Referee, "_on_button"),
    (Referee, "_press"),
    (Referee, "_moved"),
    (Referee, "_check_move"),
    (Referee, "_verify"),
    (Referee, "_commit"),
    (Referee, "draw"),
    (Corrections, "check"),
    (Referee, "_refuse"),
]
VALUES = st.one_of(
    st.integers(-3, 20),
    st.integers(),
    st.booleans(),
    st.none(),
    st.floats(allow_nan=True),
    st.text(max_size=3),
)
ACTIONS = st.lists(
    st.one_of(
        st.tuples(st.just("send"), VALUES, VALUES),
        st.tuples(st.just("touch"), st.integers(0, 15), st.booleans()),
        st.tuples(st.just("touch"), st.integers(0, 15), st.booleans()),
        st.tuples(st.just("press"), st.none(), st.none()),
        st.tuples(st.just("place"), st.integers(0, 15), st.none()),
        st.tuples(st.just("wait"), st.floats(0.0, 1.0), st.none()),
    ),
    min_size=8,
    max_size=40,
)


@dataclass
class Raiser:
    """A method that raises at its ``at``-th call once armed: after the controller has
    booted (``start()`` is called by the controller's owner, not from the loop, and its
    exceptions go to that owner)."""

    real: Callable[..., Any]
    at: int
    armed: bool = False
    calls: int = 0

    def method(self) -> Callable[..., Any]:
        def method(*args: Any, **kwargs: Any) -> Any:
            if self.armed:
                self.calls += 1
                if self.calls == self.at:
                    raise RuntimeError(f"injected at call {self.at}")
            return self.real(*args, **kwargs)

        return method


@settings(
    max_examples=120,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(actions=ACTIONS, raiser=st.sampled_from(RAISERS), at_call=st.integers(1, 6))
def test_any_stream_and_any_exception_end_in_play_or_one_fault(
    taps: Taps,
    actions: list[tuple[str, Any, Any]],
    raiser: tuple[type, str],
    at_call: int,
) -> None:
    """Whatever a backend sends and wherever an exception is raised: never a traceback (only
    ControllerFailedError leaves the harness), never a square that does not exist in the model,
    and after an internal error nothing is saved."""
    target, name = raiser
    raiser = Raiser(getattr(target, name), at_call)
    with mock.patch.object(target, name, raiser.method()):
        run, watch = watched_run()
        try:
            raiser.armed = True
            with suppress(ControllerFailedError):
                run.run_script(parse_script("reset white\n"))
                for kind, a, b in actions:
                    play(run, taps, kind, a, b)
                run.finish()
            assert all(sq in range(16) for sq in run.referee.model)
            if run.referee.healthy:
                assert not any("internal error" in r for r in faults(run.events))
                return
            assert watch.at_fault is not None and run.referee.state is State.FAULT
            assert sum("internal error" in r for r in faults(run.events)) == 1
            for kind, a, b in actions[:5]:  # more of everything: nothing comes in, or is saved
                with suppress(ControllerFailedError):
                    play(run, taps, kind, a, b)
            run.advance(3.0)
            assert journal_bytes(run) == watch.at_fault
        finally:
            run.close()


def play(run: MockRun, taps: Taps, kind: str, a: Any, b: Any) -> None:
    if kind == "send":
        taps.square(a, b, run.clock.now())
        run.advance(0.1)
    elif kind == "touch":
        held = run.physics.occupancy() >> a & 1
        try:
            if b and not held:
                run.physics.put(a, Colour.WHITE)
            elif not b and held:
                run.physics.lift(a)
        except SimError:  # what no hand can do (the rings are turning): not the test's point
            pass
        run.advance(0.3)
    elif kind == "press":
        run.run(parse_script("press\n")[0])
    elif kind == "place":  # a turn: a marble on the first empty square from ``a``, a press
        free = [sq for sq in (*range(a, 16), *range(a)) if not run.physics.occupancy() >> sq & 1]
        for command in parse_script(f"put {square_name(free[0])}\npress\n") if free else []:
            run.run(command)
    else:
        run.advance(a)
    run.check_controller()


def test_a_guests_callback_that_fails_never_stops_the_referee(
    caplog: pytest.LogCaptureFixture,
) -> None:
    # The page and the broker link are guests on the controller's loop: aiomqtt schedules
    # loop.add_reader(fd, its_callback) for a socket a spectator has already closed (EBADF,
    # seen in the hostile soak), aiohttp may fail in a callback of its own. One log line;
    # the referee plays on. The referee's own callbacks still stop it (the tests above).
    from orbito_hw.app.run import _loop_error

    failed: list[str] = []
    referee = mock.Mock(fail=lambda where, exc: failed.append(where))

    def theirs() -> None: ...

    theirs.__module__ = "aiomqtt.client"

    def ours() -> None: ...

    loop = asyncio.new_event_loop()
    try:
        for callback, args in [(loop.add_reader, (17, theirs)), (theirs, ())]:
            handle = loop.call_soon(callback, *args)
            context = {"message": "Exception in callback", "exception": OSError(9, "EBADF"),
                       "handle": handle}  # fmt: skip
            _loop_error(referee, loop, context)
            handle.cancel()
        assert failed == []
        assert "Exception in callback: OSError: [Errno 9] EBADF" in caplog.text
        handle = loop.call_soon(ours)
        _loop_error(referee, loop, {"message": "m", "exception": ValueError(), "handle": handle})
        handle.cancel()
        assert failed == ["the event loop (m)"]
    finally:
        loop.close()


def test_a_pulse_thread_that_posts_after_the_loop_closed_is_quiet() -> None:
    """A stop during a ring move: the loop closes while the step-pulse thread still runs; its
    last word (the move's report) is dropped, never an exception in the thread."""
    import asyncio
    import threading

    from orbito_hw.hw.clock import LoopClock

    loop = asyncio.new_event_loop()
    clock = LoopClock(loop)
    heard: list[str] = []
    loop.close()
    errors: list[BaseException] = []

    def pulse_thread() -> None:
        try:
            clock.post(lambda: heard.append("moved"))
        except BaseException as exc:  # what the thread would die of
            errors.append(exc)

    thread = threading.Thread(target=pulse_thread)
    thread.start()
    thread.join()
    assert errors == [] and heard == []
