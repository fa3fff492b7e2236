"""Logs for journalctl: syslog priorities when stderr is journald's stream, plain lines
otherwise, and one readable line per controller event."""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import TextIO

import pytest

from orbito_hw.app.logs import EventLogger, describe, parse_level, setup_logging, syslog_priority


@pytest.fixture
def stream(tmp_path: Path) -> Iterator[TextIO]:
    with open(tmp_path / "stderr", "w+") as out:
        yield out
    package, root = logging.getLogger("orbito_hw"), logging.getLogger()
    package.handlers.clear()
    package.propagate = True
    for handler in [h for h in root.handlers if getattr(h, "_orbito_hw", False)]:
        root.removeHandler(handler)
    root.setLevel(logging.WARNING)


def journal_env(out: TextIO) -> dict[str, str]:
    st = os.fstat(out.fileno())
    return {"JOURNAL_STREAM": f"{st.st_dev}:{st.st_ino}"}


def written(out: TextIO) -> list[str]:
    out.flush()
    out.seek(0)
    return out.read().splitlines()


def test_under_journald_lines_carry_the_syslog_priority(stream: TextIO) -> None:
    setup_logging("debug", stream=stream, environ=journal_env(stream))
    log = logging.getLogger("orbito_hw.test")
    log.info("game 1 turn 1: white b1 -> ..../..../..../..W.")
    log.warning("refused")
    log.error("fault")
    log.debug("detail")
    assert written(stream) == [
        "<6>game 1 turn 1: white b1 -> ..../..../..../..W.",
        "<4>refused",
        "<3>fault",
        "<7>detail",
    ]


def test_every_line_of_a_traceback_keeps_its_priority(stream: TextIO) -> None:
    setup_logging("info", stream=stream, environ=journal_env(stream))
    try:
        raise RuntimeError("ring stuck")
    except RuntimeError:
        logging.getLogger("orbito_hw").exception("drive failed")
    lines = written(stream)
    assert len(lines) > 2 and all(line.startswith("<3>") for line in lines)
    assert lines[0] == "<3>drive failed" and lines[-1] == "<3>RuntimeError: ring stuck"


def test_a_journal_stream_that_is_not_our_stderr_gives_plain_lines(stream: TextIO) -> None:
    # A child whose stderr was redirected inherits JOURNAL_STREAM; it must not write "<6>".
    setup_logging("info", stream=stream, environ={"JOURNAL_STREAM": "1:2"})
    logging.getLogger("orbito_hw").info("game 2: board matches again, play on")
    [line] = written(stream)
    assert re.fullmatch(
        r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d INFO    game 2: board matches again, play on", line
    ), line


def test_the_level_filters_and_setup_twice_does_not_double_lines(stream: TextIO) -> None:
    setup_logging("warning", stream=stream, environ={})
    setup_logging("warning", stream=stream, environ={})
    log = logging.getLogger("orbito_hw")
    log.info("not shown")
    log.warning("shown once")
    lines = written(stream)
    assert len(lines) == 1 and lines[0].endswith("WARNING shown once")


def test_levels_parse_by_name_and_bad_ones_are_named() -> None:
    assert parse_level("Info") == logging.INFO and parse_level(10) == logging.DEBUG
    with pytest.raises(ValueError, match="'loud'"):
        parse_level("loud")
    assert syslog_priority(logging.CRITICAL) == 2 and syslog_priority(25) == 6


@pytest.mark.parametrize(
    ("event", "level", "text"),
    [
        (
            {
                "event": "turn",
                "game": 1,
                "number": 3,
                "colour": "white",
                "turn": "c1-c2:a2",
                "board": "..../..W./..../B...",
            },
            logging.INFO,
            "game 1 turn 3: white c1-c2:a2 -> ..../..W./..../B...",
        ),
        (
            {
                "event": "rejected",
                "game": 1,
                "reason": "c1-c3 is not a step",
                "squares": ["c1", "c3"],
            },
            logging.WARNING,
            "game 1: refused (c1-c3 is not a step) squares c1 c3",
        ),
        (
            {"event": "correction", "game": 2, "squares": ["b2"]},
            logging.WARNING,
            "game 2: board does not match, check squares b2",
        ),
        ({"event": "corrected", "game": 2}, logging.INFO, "game 2: board matches again, play on"),
        (
            {
                "event": "result",
                "game": 1,
                "result": "black",
                "lines": [["a1", "b2", "c3", "d4"]],
                "leds": {"a1": "#000000"},
            },
            logging.INFO,
            "game 1 over: black wins (a1 b2 c3 d4)",
        ),
        (
            {"event": "result", "game": 3, "result": "draw", "lines": []},
            logging.INFO,
            "game 3 over: draw (no line)",
        ),
        (
            {"event": "fault", "reason": "homing timed out"},
            logging.ERROR,
            "board: fault: homing timed out",
        ),
        (
            {"event": "hello", "game": 4},
            logging.DEBUG,
            'game 4: event {"event": "hello", "game": 4}',
        ),
    ],
)
def test_each_event_is_one_line_at_its_level(
    event: dict[str, object], level: int, text: str
) -> None:
    assert describe(event) == (level, text)


def test_the_event_logger_logs_and_never_raises(caplog: pytest.LogCaptureFixture) -> None:
    listener = EventLogger()
    with caplog.at_level(logging.DEBUG, logger="orbito_hw"):
        listener({"event": "fault", "reason": "lost link to the Pico"})
        listener({"event": "turn", "game": 1})  # malformed: no number, colour, ...
    [fault, malformed] = caplog.records
    assert (fault.levelno, fault.getMessage()) == (
        logging.ERROR,
        "board: fault: lost link to the Pico",
    )
    assert malformed.levelno == logging.WARNING
    assert malformed.getMessage().startswith("malformed event (no 'number')")
