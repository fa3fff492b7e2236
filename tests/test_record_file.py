"""The seats' files (hw/files.RecordFile, under web/seat_book.py's SeatBook and
remote/seat_link.py's AwaySeats): private, read again only when changed, and a damaged file
is no record, told once in the log and left as it is."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from orbito_hw.remote.seat_link import AwaySeats
from orbito_hw.rules.game import Colour
from orbito_hw.web.seat_book import SeatBook


@pytest.mark.parametrize("book", [SeatBook, AwaySeats])
@settings(suppress_health_check=[HealthCheck.function_scoped_fixture], max_examples=40)
@given(noise=st.binary(max_size=200) | st.sampled_from([b"{}", b'{"seats": 3}', b"[]"]))
def test_a_damaged_file_is_no_record_told_and_left_as_it_is(
    book: type[SeatBook | AwaySeats], noise: bytes, tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:  # fmt: skip
    kept = book(tmp_path)
    kept.path.write_bytes(noise)
    caplog.clear()
    with caplog.at_level(logging.WARNING):
        assert kept.read() == []
    assert [r.getMessage().startswith(f"{kept.path} unusable (") for r in caplog.records] == [True]
    assert kept.path.read_bytes() == noise  # nothing damaged is overwritten


def test_a_book_is_read_again_only_once_it_changed(tmp_path: Path) -> None:
    book = SeatBook(tmp_path)
    assert book.changed() is None  # none there: no change from none
    made = book.invite(Colour.WHITE)
    assert book.path.stat().st_mode & 0o777 == 0o600
    assert book.changed() == [made]
    assert book.changed() is None
    book.path.unlink()
    assert book.changed() == []
