"""``doctor --only calibrate``: the colour board's squares measured empty, with a black
marble and with a white one, on the simulated board's hall sensors (the simulated person
puts the marbles), saved to the state directory; a square that cannot be told apart is
named and nothing is saved."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from orbito_hw.cli import main
from orbito_hw.doctor.calibrate import calibrator
from orbito_hw.doctor.checks import CheckResult, Doctor, Runner
from orbito_hw.doctor.sim import MockDoctor, mock_doctor, run_mock
from orbito_hw.hw.calibration_file import CALIBRATION_NAME, load_calibration
from orbito_hw.hw.hall import SquareLevels
from orbito_hw.rules.squares import parse_square


def calibrate(mock: MockDoctor, state_dir: Path | None) -> CheckResult:
    doctor = Doctor(
        mock.board,
        mock.person,
        mock.wiring,
        lambda _: None,
        30.0,
        calibrator(mock.gauges, state_dir),
    )
    runner = Runner(mock.clock, doctor.run(("calibrate",)))
    runner.start()
    while not runner.done:
        due = mock.clock.next_due()
        assert due is not None
        mock.clock.run_until(due)
    assert runner.error is None and runner.result is not None
    (result,) = runner.result
    mock.board.close()
    return result


@pytest.mark.parametrize("backend", ["sim", "gpio"])
def test_calibration_measures_each_squares_levels_and_saves_them(
    backend: str, tmp_path: Path
) -> None:
    results = run_mock(("calibrate",), backend, out=lambda _: None, state_dir=tmp_path)  # type: ignore[arg-type]
    assert [r.verdict() for r in results] == ["PASS"]
    loaded = load_calibration(tmp_path)
    assert loaded.calibrated and loaded.warning == ""
    truth = mock_doctor(backend).physics.hall  # type: ignore[arg-type]  # the same seed
    assert truth is not None
    for measured, real in zip(loaded.calibration.squares, truth.levels, strict=True):
        for got, want in ((measured.empty, real.empty), (measured.black, real.black)):
            assert got == pytest.approx(want, abs=3.0)  # 8 scans of 1.5 G noise
        assert measured.white == pytest.approx(real.white, abs=3.0)


def test_a_square_whose_colours_cannot_be_told_apart_is_named_and_nothing_saved(
    tmp_path: Path,
) -> None:
    mock = mock_doctor("sim", out=lambda _: None)
    hall = mock.physics.hall
    assert hall is not None
    c3 = parse_square("c3")
    clear = SquareLevels(empty=0.0, black=250.0, white=-250.0)
    weak = SquareLevels(empty=0.0, black=85.0, white=-250.0)  # seen, but not clear of noise
    hall.levels = tuple(weak if sq == c3 else clear for sq in range(16))
    hall.noise_rms = 8.0
    result = calibrate(mock, tmp_path)
    assert not result.passed and len(result.problems) == 1
    assert result.problems[0].startswith("c3: black and white cannot be told apart")
    assert "nothing saved" in " ".join(result.notes)
    assert not (tmp_path / CALIBRATION_NAME).exists()


def test_magnets_the_other_way_round_name_the_sensitivitys_sign(tmp_path: Path) -> None:
    mock = mock_doctor("sim", out=lambda _: None)
    hall = mock.physics.hall
    assert hall is not None
    hall.levels = tuple(  # type: ignore[assignment]  # levels no SquareLevels allows
        SimpleNamespace(empty=lv.empty, black=lv.white, white=lv.black) for lv in hall.levels
    )
    result = calibrate(mock, tmp_path)
    assert result.problems == [
        "every black marble reads below empty and every white above: the magnets face the "
        "other way; make analog.mv_per_gauss negative and calibrate again"
    ]


def test_a_marble_never_seen_names_the_square_and_its_mux_input(tmp_path: Path) -> None:
    mock = mock_doctor("sim", out=lambda _: None)
    hall = mock.physics.hall
    assert hall is not None
    dead = SquareLevels(empty=0.0, black=1.0, white=-1.0)  # a sensor that reads nothing
    hall.levels = (dead, *hall.levels[1:])
    result = calibrate(mock, tmp_path)
    assert result.problems[0].startswith("a1: no black marble read within 30 s")
    assert "multiplexer input C0" in result.problems[0]


def test_presence_sensors_have_nothing_to_calibrate() -> None:
    assert calibrator(object(), None) is None


def test_doctor_mock_calibrates_from_the_command_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["doctor", "--mock", "--only", "calibrate"]) == 0
    out = capsys.readouterr().out
    assert "put a black marble on c3" in out and "put a white marble on d4" in out
    assert "calibrate: PASS" in out
