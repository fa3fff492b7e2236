"""The controller's journal: the game so far and the turn in progress, on disk.

Every write is atomic and durable (write a temporary file, fsync, rename over, fsync the
directory), so a power cut at any point leaves either the old or the new journal, never
a torn one. A damaged journal is moved aside, never deleted, and reported.
"""

from __future__ import annotations

import contextlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path

from orbito_hw.errors import OrbitoError
from orbito_hw.rules.game import Colour, Position, ReplayError, replay
from orbito_hw.rules.squares import is_square_name

FORMAT = 1
Touch = tuple[str, str]
"""("lift" | "put", square name): one debounced sensor change of the turn in progress."""


class JournalError(OrbitoError):
    """The journal on disk cannot be used; it has been moved aside."""


@dataclass
class Saved:
    game: int = 1
    first: Colour = Colour.BLACK
    turns: list[str] = field(default_factory=list)
    pending: str | None = None
    touches: list[Touch] = field(default_factory=list)

    def position(self) -> Position:
        """The position after the committed turns (the engine checks each one)."""
        return replay(self.first, self.turns)

    def to_json(self) -> dict[str, object]:
        return {
            "format": FORMAT,
            "game": self.game,
            "first": self.first.value,
            "turns": self.turns,
            "pending": self.pending,
            "touches": [list(t) for t in self.touches],
        }

    @classmethod
    def from_json(cls, data: object) -> Saved:
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise ValueError(f"not an orbito-hw journal of format {FORMAT}")
        game, turns, pending = data.get("game"), data.get("turns"), data.get("pending")
        touches = data.get("touches")
        if not isinstance(game, int) or game < 1:
            raise ValueError("bad game number")
        if not isinstance(turns, list) or not all(isinstance(t, str) for t in turns):
            raise ValueError("bad turn list")
        if pending is not None and not isinstance(pending, str):
            raise ValueError("bad pending turn")
        if not isinstance(touches, list) or not all(_is_touch(t) for t in touches):
            raise ValueError("bad turn in progress")
        saved = cls(game, Colour.parse(str(data.get("first"))), turns, pending)
        saved.touches = [(str(t[0]), str(t[1])) for t in touches]
        saved.position()  # a journal whose turns the rules refuse is damaged
        return saved


def _is_touch(t: object) -> bool:
    return (
        isinstance(t, list)
        and len(t) == 2
        and t[0] in ("lift", "put")
        and isinstance(t[1], str)
        and is_square_name(t[1])
    )


class Journal:
    NAME = "game.json"
    HISTORY = "games.jsonl"

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        self.directory = Path(directory)
        self.path = self.directory / self.NAME

    def load(self) -> Saved | None:
        """The saved game, None if there is none; JournalError (file moved aside) if damaged."""
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise JournalError(f"cannot read the journal {self.path}: {exc.strerror}") from None
        try:
            return Saved.from_json(json.loads(text))
        except (ValueError, ReplayError, OrbitoError) as exc:
            kept = self._move_aside()
            raise JournalError(
                f"the journal {self.path} is damaged ({exc}); kept as {kept}"
            ) from None

    def save(self, saved: Saved) -> None:
        self._write_atomic(self.path, json.dumps(saved.to_json(), separators=(",", ":")))

    def archive(self, saved: Saved, result: str | None) -> None:
        """Append a finished (or abandoned) game to the history, durably."""
        if not saved.turns:
            return
        line = json.dumps(
            {
                "game": saved.game,
                "first": saved.first.value,
                "moves": " ".join(saved.turns),
                "result": result,
            }
        )
        self.directory.mkdir(parents=True, exist_ok=True)
        with open(self.directory / self.HISTORY, "a", encoding="utf-8") as f:
            f.write(line + "\n")
            f.flush()
            os.fsync(f.fileno())

    def _move_aside(self) -> Path:
        n = 1
        while (kept := self.path.with_name(f"{self.NAME}.damaged-{n}")).exists():
            n += 1
        os.replace(self.path, kept)
        return kept

    def _write_atomic(self, path: Path, text: str) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp")
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
        fd = os.open(self.directory, os.O_RDONLY)
        try:
            with contextlib.suppress(OSError):  # some filesystems refuse a directory fsync
                os.fsync(fd)
        finally:
            os.close(fd)
