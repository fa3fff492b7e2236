"""orbito-hw doctor: the guided self-test finds each fault built into the simulated board
and names the config key at fault; the real-board path runs on an asyncio loop."""

from __future__ import annotations

import io
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from orbito_hw.app.config import load_config
from orbito_hw.app.run import doctor_board
from orbito_hw.cli import main
from orbito_hw.commands.doctor import ConsolePerson
from orbito_hw.doctor.checks import (
    CHECKS,
    CheckResult,
    Doctor,
    Request,
    Runner,
    parse_only,
    summary,
)
from orbito_hw.doctor.sim import Faults, MockDoctor, SimPerson, mock_doctor, run_mock
from orbito_hw.hw.interfaces import Board, Clock, SquareListener, SquareSensors
from orbito_hw.rules.squares import parse_square
from orbito_hw.sim.board import SimBoard, SimButton, SimDrive, SimLights, SimSensors, seen

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "config.example.toml"


def run(backend: str = "sim", faults: Faults | None = None) -> list[CheckResult]:
    return run_mock(backend=backend, faults=faults, out=lambda _: None)


def by_name(results: list[CheckResult]) -> dict[str, CheckResult]:
    return {r.name: r for r in results}


def examine(mock: MockDoctor, checks: tuple[str, ...], person: object = None) -> list[CheckResult]:
    """Run the doctor on a prepared simulated board (to reach parts run_mock hides)."""
    doctor = Doctor(mock.board, person or mock.person, mock.wiring, lambda _: None)
    runner = Runner(mock.clock, doctor.run(checks))
    runner.start()
    while not runner.done:
        due = mock.clock.next_due()
        assert due is not None, "the doctor waits for something that never comes"
        mock.clock.run_until(due)
    assert runner.error is None and runner.result is not None
    return runner.result


# --- a healthy board passes ---------------------------------------------------------------
@pytest.mark.parametrize("backend", ["sim", "gpio"])
def test_a_healthy_board_passes_every_check(backend: str) -> None:
    lines: list[str] = []
    results = run_mock(backend=backend, out=lines.append)
    assert [r.name for r in results] == list(CHECKS)
    assert all(r.passed and not r.notes for r in results), summary(results)
    text = "\n".join(lines)
    for name in ("a1", "c3", "d4"):
        assert f"put a marble on {name}" in text and f"take the marble off {name}" in text
        assert f"PASS {name} (sensors.pins.{name}" in text
    assert "press the Orbito button once" in text
    assert all(f"PASS place {n}: on the index" in text for n in range(1, 13))
    assert "did every square light in order, a1 to d4" in text


def test_the_gpio_backend_names_the_pins() -> None:
    lines: list[str] = []
    run_mock(backend="gpio", out=lines.append, checks=("sensors", "button"))
    text = "\n".join(lines)
    assert "PASS c3 (sensors.pins.c3 = 15)" in text  # gpio_sim's DEFAULT_PINS
    assert "(button.pin = 17)" in text


def test_only_runs_the_checks_asked_for_in_their_order() -> None:
    results = run_mock(checks=parse_only("rings,button"), out=lambda _: None)
    assert [r.name for r in results] == ["button", "rings"]
    with pytest.raises(ValueError, match="no check called lights"):
        parse_only("leds,lights")


# --- each fault is found and named ---------------------------------------------------------
@pytest.mark.parametrize("backend", ["sim", "gpio"])
def test_crossed_sensor_wires_are_reported_as_swapped(backend: str) -> None:
    results = by_name(run(backend, Faults.parse(["swap:c3,c4"])))
    assert results["leds"].passed and results["button"].passed and results["rings"].passed
    problems = results["sensors"].problems
    assert len(problems) == 2
    assert problems[0].startswith("put a marble on c3: got a change on c4 instead")
    assert "sensors.pins.c3 and sensors.pins.c4 may be swapped" in problems[0]
    assert problems[1].startswith("put a marble on c4: got a change on c3 instead")
    if backend == "gpio":
        assert "check sensors.pins.c3 = 15, sensors.pins.c4 = 21" in problems[0]


@pytest.mark.parametrize("backend", ["sim", "gpio"])
def test_lost_steps_are_reported_with_the_steps_homing_took(backend: str) -> None:
    results = by_name(run(backend, Faults(slip=40)))
    assert [r.name for r in results.values() if not r.passed] == ["rings"]
    (problem,) = results["rings"].problems
    assert problem.startswith("place 1 ended off the index: homing took 40 steps to find it")
    assert "drive.max_speed" in problem


@pytest.mark.parametrize("backend", ["sim", "gpio"])
def test_a_dead_led_is_named_by_the_person_who_saw_it(backend: str) -> None:
    results = by_name(run(backend, Faults(dead_led=parse_square("b2"))))
    assert [r.name for r in results.values() if not r.passed] == ["leds"]
    (problem,) = results["leds"].problems
    assert problem.startswith("b2 did not light in turn: check the pixel under b2")
    if backend == "gpio":
        assert "strip pixel 6, lights.order" in problem  # b2 is 7th along the serpentine


# --- the rings turn back (a take-back) --------------------------------------------------
def rings_lines(mock: MockDoctor, person: object = None) -> tuple[CheckResult, list[str]]:
    """The rings check alone on a prepared board, and every line it printed."""
    lines: list[str] = []
    doctor = Doctor(mock.board, person or mock.person, mock.wiring, lines.append)
    mock.person.out = lines.append
    runner = Runner(mock.clock, doctor.run(("rings",)))
    runner.start()
    while not runner.done:
        due = mock.clock.next_due()
        assert due is not None, "the doctor waits for something that never comes"
        mock.clock.run_until(due)
    assert runner.error is None and runner.result is not None
    (result,) = runner.result
    return result, lines


@pytest.mark.parametrize("backend", ["sim", "gpio"])
def test_the_rings_turn_back_one_place_clockwise_and_forward_again(backend: str) -> None:
    mock = mock_doctor(backend, out=lambda _: None)
    result, lines = rings_lines(mock)
    assert result.passed and not result.notes, result.problems
    after_question = lines[lines.index("> y") + 1 :]
    assert after_question == [
        "put a marble on a1: it shows which way the rings turn back",
        "  PASS back one place: on the index (200 steps)",
        "  PASS back one place: clockwise (the sensors read a2)",
        "  PASS forward again: on the index (200 steps)",
        "take the marble off a1",
        "rings: PASS",
    ]
    assert mock.physics.places == 12 and mock.physics.aligned
    assert mock.physics.occupancy() == 0  # the marble taken off again


@pytest.mark.parametrize("backend", ["sim", "gpio"])
def test_a_dir_that_never_switches_is_named_by_the_turn_back(backend: str) -> None:
    mock = mock_doctor(backend, out=lambda _: None)
    mock.physics.dir_stuck = True  # the driver's DIR wire is off: every step goes forward
    result, lines = rings_lines(mock)
    pin = "drive.dir_pin = 24" if backend == "gpio" else "drive.dir_pin"
    assert result.problems == [
        "back one place turned the rings counter-clockwise (the sensors read b1): DIR does "
        f"not switch: check {pin} and its wire to the driver"
    ]
    assert not any("forward again" in line for line in lines)  # no use going on
    assert "take the marble put on a1 off the board" in lines
    assert mock.physics.occupancy() == 0


def test_lost_steps_on_the_turn_back_are_reported_with_the_steps_homing_took() -> None:
    mock = mock_doctor("sim", out=lambda _: None)
    tell = mock.person.tell

    def stall_on_the_way_back(request: Request) -> None:
        if request.action == "put":
            mock.physics.slip = 40  # the next move, the one back, loses 40 steps
        tell(request)

    mock.person.tell = stall_on_the_way_back  # type: ignore[method-assign]
    result, lines = rings_lines(mock)
    (problem,) = result.problems
    # 160 steps back of 200, and homing goes on forward only: 160 steps to the place the
    # rings turned back from.
    assert problem.startswith("back one place ended off the index: homing took 160 steps")
    assert not any("clockwise (the sensors" in line for line in lines)  # homed: way unknown
    assert mock.physics.occupancy() == 0


def test_with_no_marble_seen_the_turn_back_is_checked_on_the_index_only() -> None:
    mock = mock_doctor("sim", out=lambda _: None)
    nobody = ConsolePerson(mock.clock, lambda _: None, can_ask=False)  # hands nothing
    result, _ = rings_lines(mock, nobody)
    assert result.passed and result.notes == [
        "the turning not confirmed by a person",
        "the way back not seen: no sensor read the marble on a1",
    ]
    assert mock.physics.places == 12 and mock.physics.aligned  # back and forward again


class DeadSensor:
    """Square sensors with one sensor that never reads anything."""

    def __init__(self, inner: SquareSensors, square: int) -> None:
        self.inner, self.square = inner, square

    def read(self) -> int:
        return self.inner.read() & ~(1 << self.square)

    def subscribe(self, listener: SquareListener) -> None:
        def forward(square: int, present: bool, when: float) -> None:
            if square != self.square:
                listener(square, present, when)

        self.inner.subscribe(forward)

    def close(self) -> None:
        self.inner.close()


def test_a_dead_sensor_times_out_naming_its_pin() -> None:
    mock = mock_doctor("gpio", out=lambda _: None)
    mock.board.sensors = DeadSensor(mock.board.sensors, parse_square("c3"))
    (result,) = examine(mock, ("sensors",))
    assert result.problems == ["c3: no sensor changed within 30 s: check sensors.pins.c3 = 15"]


def test_a_button_stuck_down_is_reported_before_asking_for_a_press() -> None:
    mock = mock_doctor("sim", out=lambda _: None)
    assert isinstance(mock.board.button, SimButton)
    mock.board.button.set(True)
    (result,) = examine(mock, ("button",))
    assert result.problems and "reads pressed before anyone touched it" in result.problems[0]


def test_a_button_nobody_presses_times_out() -> None:
    mock = mock_doctor("gpio", out=lambda _: None)
    mock.person.finger = lambda pressed: None  # the button's wire is cut
    (result,) = examine(mock, ("button",))
    assert result.problems == ["no press within 30 s: check button.pin = 17"]


def test_homing_that_never_finds_the_index_is_a_fault() -> None:
    mock = mock_doctor("sim", out=lambda _: None)
    mock.physics.steps = 50  # off the index, and the motor turns nothing
    mock.physics.slip = 10**6
    (result,) = examine(mock, ("rings",))
    assert result.problems == [
        "homing failed (the index sensor was not found): check drive.index_pin and "
        "drive.index_active, and that the motor turns (drive.step_pin, drive.enable_pin)"
    ]


def test_rings_that_never_turn_are_caught_by_the_person_watching() -> None:
    # The index reads aligned at every stop when the rings never leave it: only eyes see it.
    mock = mock_doctor("sim", out=lambda _: None)
    mock.physics.slip = 10**6
    (result,) = examine(mock, ("rings",))
    (problem,) = result.problems
    assert problem.startswith("the rings did not turn as they should")


def test_with_nobody_to_ask_the_leds_are_not_confirmed() -> None:
    mock = mock_doctor("sim", out=lambda _: None)
    person = ConsolePerson(mock.clock, lambda _: None, can_ask=False)
    person.tell = mock.person.tell
    leds, rings = examine(mock, ("leds", "rings"), person)
    assert leds.passed and leds.notes == ["not confirmed by a person"]
    assert rings.passed and rings.notes == ["the turning not confirmed by a person"]
    assert "not confirmed by a person" in leds.verdict()


def test_the_simulated_person_sees_what_the_strip_holds() -> None:
    mock = mock_doctor("gpio", out=lambda _: None)
    frame: list[tuple[int, int, int] | None] = [None] * 16
    frame[parse_square("d4")] = (255, 255, 255)
    mock.board.lights.show(frame, None)
    squares, status = seen(mock.board.lights)
    assert [i for i, c in enumerate(squares) if c] == [15] and status is None


# --- the command --------------------------------------------------------------------------
@pytest.mark.parametrize("backend", ["sim", "gpio"])
def test_doctor_mock_exits_0_on_a_healthy_board(
    backend: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["doctor", "--mock", "--backend", backend]) == 0
    out = capsys.readouterr().out
    assert out.rstrip().endswith("all checks passed")


def test_doctor_mock_exits_1_naming_each_fault(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["doctor", "--mock", "--backend", "gpio", "--config", str(EXAMPLE)]
    argv += ["--fault", "swap:a1,b1", "--fault", "slip:25", "--fault", "dead-led:d4"]
    assert main(argv) == 1
    out = capsys.readouterr().out
    assert "check sensors.pins.a1 = 5, sensors.pins.b1 = 6" in out  # the config's pins
    assert "homing took 25 steps" in out and "d4 did not light in turn" in out
    assert out.rstrip().endswith("failed: leds, sensors, rings")


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--only", "leds,wheels"], "--only: no check called wheels"),
        (["--mock", "--backend", "serial"], "--backend 'serial' is not one of: sim, gpio"),
        (["--mock", "--fault", "slip:-3"], "--fault slip:-3: expected a positive number"),
        (["--fault", "slip:3", "--config", str(EXAMPLE)], "--fault builds a fault"),
        (["--mock", "--config", str(EXAMPLE)], "--mock --config needs --backend gpio"),
        (["--mock", "--timeout", "0"], "--timeout 0: expected seconds"),
        (["--config", "/nonexistent/orbito.toml"], "cannot read the config file"),
    ],
)
def test_bad_input_exits_2_with_one_line(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["doctor", *argv])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_a_real_board_that_cannot_be_opened_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("gpiozero")
    with pytest.raises(SystemExit) as stop:
        main(["doctor", "--config", str(EXAMPLE), "--yes"])
    assert stop.value.code == 2
    err = capsys.readouterr().err  # off a Pi: no I2C bus for the reference board's sensors
    assert "the square sensors are missing" in err and "tmag: cannot open I2C bus 1" in err


# --- the real-board path: an asyncio loop, answers from stdin ------------------------------
class KeyboardAndHands:
    """Answers come from stdin (the console person); hands are the simulated person's."""

    def __init__(self, console: ConsolePerson, hands: SimPerson) -> None:
        self.console, self.hands = console, hands

    def tell(self, request: Request) -> None:
        self.hands.tell(request)

    def ask(self, request: Request, answer: Callable[[str | None], None]) -> None:
        self.console.ask(request, answer)


def test_the_real_board_path_runs_on_an_event_loop_and_reads_answers(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    physics = SimBoard(steps_per_place=20, sense_window=2)
    lines: list[str] = []
    built: list[Board] = []

    def open_board(config: object, clock: Clock) -> Board:
        physics.clock = clock
        button = SimButton(clock)
        board = Board(clock, SimSensors(physics), button, SimDrive(physics, clock), SimLights())
        built.append(board)
        return board

    def person(clock: Clock) -> KeyboardAndHands:
        hands = SimPerson(physics, clock, built[0].button.set, lambda: ([], None), lines.append)
        return KeyboardAndHands(ConsolePerson(clock, lines.append, can_ask=True), hands)

    monkeypatch.setattr(sys, "stdin", io.StringIO("maybe\nyes\n"))
    config = load_config(EXAMPLE)
    results = doctor_board(config, person, ("button", "rings"), 5.0, lines.append, open_board)
    assert [r.passed for r in results] == [True, True], summary(results)
    assert "please answer y or n" in lines
    assert physics.places == 12 and physics.aligned
    assert built[0].lights.frames_shown >= 1  # closed: dark


def test_a_board_without_leds_skips_the_led_check(tmp_path: Path) -> None:
    text = EXAMPLE.read_text().replace('lights = "neopixel"', 'lights = "none"')
    path = tmp_path / "config.toml"
    path.write_text(text)
    lines: list[str] = []
    physics = SimBoard()

    def open_board(config: object, clock: Clock) -> Board:
        physics.clock = clock
        return Board(
            clock, SimSensors(physics), SimButton(clock), SimDrive(physics, clock), SimLights()
        )

    results = doctor_board(
        load_config(path),
        lambda c: ConsolePerson(c, lines.append, False),
        ("leds",),
        1.0,
        lines.append,
        open_board,
    )
    assert results == [] and lines == ['leds: skipped (backends.lights = "none": no LEDs fitted)']


def test_the_doctor_knows_the_board_only_through_its_interfaces() -> None:
    import ast

    tree = ast.parse((ROOT / "orbito_hw" / "doctor" / "checks.py").read_text())
    imported = {
        (node.level, node.module)
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module != "__future__"
    }
    imported |= {
        (0, alias.name)
        for node in ast.walk(tree)
        if isinstance(node, ast.Import)
        for alias in node.names
    }
    package = {module for _, module in imported if module.startswith("orbito_hw")}
    assert package == {
        "orbito_hw.doctor.wiring",  # the config keys a fault names: rules.squares only
        "orbito_hw.hw.interfaces",
        "orbito_hw.lang",  # the words, in the reader's language
        "orbito_hw.rules.squares",
    }
    stdlib = {module for _, module in imported if not module.startswith("orbito_hw")}
    assert stdlib <= set(sys.stdlib_module_names) | {"collections.abc"}
