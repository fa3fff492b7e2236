"""Logs a builder can read: ``journalctl -u orbito-hw`` shows one line per turn, result,
refusal and fault, at a level that ``journalctl -p warning`` can filter on.

Under systemd, stderr is a stream to journald (``$JOURNAL_STREAM`` names it); journald reads a
leading ``<N>`` on a line as its syslog priority and stamps the time itself, so the lines carry
the priority and no timestamp. Anywhere else the lines are plain and timestamped.
"""

from __future__ import annotations

import json
import logging
import os
import sys
from collections.abc import Mapping
from typing import TextIO

log = logging.getLogger("orbito_hw")
events_log = logging.getLogger("orbito_hw.events")

# syslog(3) priorities, as journald reads them from a "<N>" prefix.
SYSLOG_PRIORITY = {
    logging.CRITICAL: 2,
    logging.ERROR: 3,
    logging.WARNING: 4,
    logging.INFO: 6,
    logging.DEBUG: 7,
}


def syslog_priority(levelno: int) -> int:
    """The syslog priority of a logging level (levels between two take the more urgent)."""
    for level in sorted(SYSLOG_PRIORITY, reverse=True):
        if levelno >= level:
            return SYSLOG_PRIORITY[level]
    return SYSLOG_PRIORITY[logging.DEBUG]


class JournalFormatter(logging.Formatter):
    """``<N>message``; every line of a multi-line record (a traceback) gets the prefix,
    because journald makes each line an entry of its own."""

    def __init__(self) -> None:
        super().__init__("%(message)s")

    def format(self, record: logging.LogRecord) -> str:
        prefix = f"<{syslog_priority(record.levelno)}>"
        return "\n".join(prefix + line for line in super().format(record).splitlines())


def stderr_is_journal(stream: TextIO, environ: Mapping[str, str]) -> bool:
    """True when ``stream`` is the journald stream systemd connected us to.

    ``$JOURNAL_STREAM`` is "DEVICE:INODE" of that stream; a child whose stderr was redirected
    elsewhere inherits the variable, so the stream itself is compared, as systemd.exec(5) asks.
    """
    expected = environ.get("JOURNAL_STREAM", "")
    if not expected:
        return False
    try:
        st = os.fstat(stream.fileno())
    except (OSError, ValueError, AttributeError):
        return False
    return expected == f"{st.st_dev}:{st.st_ino}"


def parse_level(level: str | int) -> int:
    """A logging level from a number or a name ("info", "WARNING"); ValueError names it."""
    if isinstance(level, int):
        return level
    value = logging.getLevelName(level.strip().upper())
    if not isinstance(value, int):
        raise ValueError(f"unknown log level {level!r} (debug, info, warning, error)")
    return value


def setup_logging(
    level: str | int = "info",
    stream: TextIO | None = None,
    environ: Mapping[str, str] | None = None,
) -> logging.Handler:
    """Send the package's logs to ``stream`` (stderr) in the journal's or a terminal's form.

    Calling it again replaces the handler it installed before, so tests and restarts do
    not double every line.
    """
    out = sys.stderr if stream is None else stream
    env = os.environ if environ is None else environ
    handler = logging.StreamHandler(out)
    if stderr_is_journal(out, env):
        handler.setFormatter(JournalFormatter())
    else:
        handler.setFormatter(
            logging.Formatter("%(asctime)s %(levelname)-7s %(message)s", "%Y-%m-%d %H:%M:%S")
        )
    for old in [h for h in log.handlers if getattr(h, "_orbito_hw", False)]:
        log.removeHandler(old)
    handler._orbito_hw = True  # type: ignore[attr-defined]
    log.addHandler(handler)
    log.setLevel(parse_level(level))
    log.propagate = False
    return handler


def _squares(value: object) -> str:
    if isinstance(value, list) and value:
        return " ".join(str(square) for square in value)
    return "(none)"


def _lines(value: object) -> str:
    if isinstance(value, list) and value:
        return ", ".join(_squares(line) for line in value)
    return "no line"


def describe(event: Mapping[str, object]) -> tuple[int, str]:
    """One human line for a controller event, and the level it deserves.

    KeyError for an event that lacks a field its kind needs.
    """
    kind = event.get("event")
    game = f"game {event['game']}" if "game" in event else "board"
    if kind == "turn":
        text = (
            f"{game} turn {event['number']}: {event['colour']} {event['turn']} -> {event['board']}"
        )
        return logging.INFO, text
    if kind == "rejected":
        return (
            logging.WARNING,
            f"{game}: refused ({event['reason']}) squares {_squares(event.get('squares'))}",
        )
    if kind == "correction":
        return (
            logging.WARNING,
            f"{game}: board does not match, check squares {_squares(event.get('squares'))}",
        )
    if kind == "corrected":
        return logging.INFO, f"{game}: board matches again, play on"
    if kind == "result":
        winner = event["result"]
        outcome = "draw" if winner == "draw" else f"{winner} wins"
        return logging.INFO, f"{game} over: {outcome} ({_lines(event.get('lines'))})"
    if kind == "fault":
        return logging.ERROR, f"{game}: fault: {event['reason']}"
    return logging.DEBUG, f"{game}: event {json.dumps(dict(event), sort_keys=True)}"


class EventLogger:
    """A listener for the controller's JSON event dicts: one log line each.

    It never raises: a malformed event is logged as such and the game goes on.
    """

    def __init__(self, logger: logging.Logger | None = None) -> None:
        self.logger = logger or events_log

    def __call__(self, event: Mapping[str, object]) -> None:
        try:
            level, text = describe(event)
        except KeyError as exc:
            level, text = logging.WARNING, f"malformed event (no {exc}): {dict(event)!r}"
        self.logger.log(level, "%s", text)
