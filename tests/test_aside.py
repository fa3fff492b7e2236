"""One way to set a damaged file aside (orbito_hw/aside.py): the request, the calibration and
the archive each called a copy of their own before (issue 35)."""

from __future__ import annotations

import os
from pathlib import Path

from orbito_hw import aside
from orbito_hw.archive import store
from orbito_hw.control import request_file
from orbito_hw.hw import calibration_file


def test_the_three_callers_share_the_one_function() -> None:
    assert request_file.set_aside is aside.set_aside
    for module in (calibration_file, store):
        assert "set_aside" in module.move_aside.__code__.co_names


def test_a_file_goes_to_the_first_free_name_and_nothing_is_replaced(tmp_path: Path) -> None:
    damaged = tmp_path / "calibration.json"
    (tmp_path / "calibration.json.damaged-1").write_text("kept before")
    damaged.write_text("{")
    assert calibration_file.move_aside(damaged) == tmp_path / "calibration.json.damaged-2"
    assert (tmp_path / "calibration.json.damaged-1").read_text() == "kept before"
    assert not damaged.exists()


def test_a_database_and_its_companions_go_to_the_same_free_number(tmp_path: Path) -> None:
    db = tmp_path / "games.sqlite3"
    for tail in ("", "-wal", "-shm"):
        Path(f"{db}{tail}").write_text(tail or "db")
    Path(f"{db}.damaged-1-wal").write_text("an old WAL alone takes number 1")
    kept = store.move_aside(db)
    assert kept == tmp_path / "games.sqlite3.damaged-2"
    assert [Path(f"{kept}{tail}").read_text() for tail in ("", "-wal", "-shm")] == [
        "db",
        "-wal",
        "-shm",
    ]
    assert not os.path.lexists(db)


def test_any_kind_of_file_is_set_aside_beside_another_name(tmp_path: Path) -> None:
    taking = tmp_path / "taking"
    taking.mkdir()  # a directory where a request's file should be
    kept = request_file.set_aside(taking, tmp_path / "setup-request.json")
    assert kept == tmp_path / "setup-request.json.damaged-1" and kept.is_dir()
