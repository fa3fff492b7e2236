"""The solution file, and answering questions from it. Pure Python: no NumPy needed to query.

File format (all integers little-endian):

- 16 bytes magic ``ORBITO-HW TABLE\\n``;
- u32 format version, u32 payload size in bytes;
- 32 bytes SHA-256 of the payload;
- the payload (one byte per position, see ``layout``) as one xz stream per table block, with
  fixed settings, so the same payload always gives the same file (no timestamps, no names).

Loading checks all of it: a foreign, damaged, truncated or outdated file is refused with a
message naming it, never read as a wrong answer.
"""

from __future__ import annotations

import hashlib
import lzma
import os
import struct
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from importlib import resources
from itertools import pairwise
from pathlib import Path
from typing import Final

from orbito_hw.errors import OrbitoError
from orbito_hw.rules.game import EXTRA_PRESSES, Colour, Position
from orbito_hw.rules.squares import BB_ADJACENT, BB_ALL, BB_SQUARES, has_line, press, squares_of
from orbito_hw.rules.turn import EXTRA_PRESS, Turn
from orbito_hw.solver.layout import (
    BLOCK_OFFSETS,
    DRAW_NOW,
    LOSS_NOW,
    NO_POSITION,
    TABLE_SIZE,
    WIN_NOW,
    Score,
    Value,
    decode,
    parent_byte,
    position_index,
)

MAGIC: Final = b"ORBITO-HW TABLE\n"
FORMAT_VERSION: Final = 1
_HEADER: Final = struct.Struct("<16sII32s")
_XZ_PRESET: Final = 6
DATA_FILE: Final = "solution.bin"


class SolutionError(OrbitoError, ValueError):
    """A solution file that cannot be used, or a question the table cannot answer."""


def pack(payload: bytes) -> bytes:
    """The file for a table payload: header, then the payload compressed deterministically,
    one xz stream per block of the table, compressed side by side on all cores (the streams
    do not depend on each other, so the file does not depend on the number of cores)."""
    header = _HEADER.pack(MAGIC, FORMAT_VERSION, len(payload), hashlib.sha256(payload).digest())
    edges = sorted({0, len(payload), *(o for o in BLOCK_OFFSETS if o < len(payload))})
    chunks = [payload[start:end] for start, end in pairwise(edges)]
    with ThreadPoolExecutor(max_workers=min(4, os.cpu_count() or 1)) as pool:
        streams = pool.map(_compress, chunks)  # lzma releases the GIL while it works
        return header + b"".join(streams)


def _compress(chunk: bytes) -> bytes:
    return lzma.compress(chunk, format=lzma.FORMAT_XZ, preset=_XZ_PRESET)


def unpack(data: bytes, source: str) -> bytes:
    """The payload of a solution file, checked; SolutionError naming ``source`` otherwise."""
    if len(data) < _HEADER.size or not data.startswith(MAGIC):
        raise SolutionError(f"{source} is not an orbito-hw solution table (bad magic)")
    _, version, size, digest = _HEADER.unpack_from(data)
    if version != FORMAT_VERSION:
        raise SolutionError(
            f"{source} has table format {version}, this orbito-hw reads format"
            f" {FORMAT_VERSION}: rebuild it with `orbito-hw solve`"
        )
    if size != TABLE_SIZE:
        raise SolutionError(f"{source} holds {size} positions, expected {TABLE_SIZE}")
    try:
        payload = lzma.decompress(data[_HEADER.size :], format=lzma.FORMAT_XZ)
    except lzma.LZMAError as exc:
        raise SolutionError(f"{source} is damaged: {exc}") from None
    if len(payload) != size or hashlib.sha256(payload).digest() != digest:
        raise SolutionError(f"{source} is damaged: its checksum does not match its contents")
    return payload


def shipped_path() -> Path:
    """Where the table shipped with the package lives."""
    return Path(str(resources.files("orbito_hw") / "data" / DATA_FILE))


@dataclass(frozen=True, slots=True)
class Analysis:
    """SPEC.md's analyse object: the value for the side to move and the perfect turns."""

    to_move: Colour
    value: Value
    best: tuple[str, ...]
    move: Turn
    plies: int

    def as_json(self) -> dict[str, object]:
        return {
            "to_move": self.to_move.value,
            "value": self.value.value,
            "best": list(self.best),
            "move": self.move.notation(),
            "plies": self.plies,
        }


def turns_before_press(position: Position) -> Iterator[tuple[Turn, int, int]]:
    """Every legal turn with the mover's and the opponent's marbles just before its press."""
    own = position.marbles(position.to_move)
    other = position.marbles(position.to_move.other)
    empty = BB_ALL & ~(own | other)
    if not empty:
        yield EXTRA_PRESS, own, other
        return
    for place in squares_of(empty):
        yield Turn(place), own | BB_SQUARES[place], other
    for src in squares_of(other):
        for dst in squares_of(BB_ADJACENT[src] & empty):
            moved = other ^ BB_SQUARES[src] ^ BB_SQUARES[dst]
            for place in squares_of(empty ^ BB_SQUARES[src] ^ BB_SQUARES[dst]):
                yield Turn(place, src, dst), own | BB_SQUARES[place], moved


class Solution:
    """The solved game: a value for every position, and the turns that keep it."""

    def __init__(self, payload: bytes) -> None:
        if len(payload) != TABLE_SIZE:
            raise SolutionError(f"a table has {TABLE_SIZE} entries, not {len(payload)}")
        self._table = payload

    @classmethod
    def load(cls, path: Path | str | None = None) -> Solution:
        source = Path(path) if path is not None else shipped_path()
        try:
            data = source.read_bytes()
        except OSError as exc:
            hint = " (build it with `orbito-hw solve`)" if path is None else ""
            raise SolutionError(
                f"cannot read solution table {source}: {exc.strerror}{hint}"
            ) from None
        return cls(unpack(data, str(source)))

    def entry(self, mover: int, other: int, extra_presses: int = 0) -> int:
        """The table byte of a position by masks (mover's marbles first)."""
        return self._table[position_index(mover, other, extra_presses)]

    def score(self, position: Position) -> Score:
        """Value and plies to the end for the side to move, with perfect play."""
        return decode(self._position_byte(position))

    def turn_bytes(self, position: Position) -> list[tuple[Turn, int]]:
        """Every legal turn with what it is worth to the mover (a table byte)."""
        self._position_byte(position)
        extra = position.extra_presses + 1 if position.is_full else 0
        out = []
        for turn, own, other in turns_before_press(position):
            own, other = press(own), press(other)
            out.append((turn, self._worth(own, other, extra)))
        return out

    def analyse(self, position: Position) -> Analysis:
        """SPEC.md's analysis: the value, every turn that keeps it, and the perfect turn."""
        expected = self._position_byte(position)
        turns = sorted(self.turn_bytes(position), key=lambda tb: tb[0].notation())
        top = max(byte for _, byte in turns)
        if top != expected:  # the table disagrees with itself: never answer from it
            raise SolutionError(f"the solution table is inconsistent at {position.board()}")
        value, plies = decode(top)
        best = tuple(t.notation() for t, byte in turns if byte >> 6 == top >> 6)
        move = next(t for t, byte in turns if byte == top)
        return Analysis(position.to_move, value, best, move, plies)

    def _worth(self, own: int, other: int, extra: int) -> int:
        own_line, other_line = has_line(own), has_line(other)
        if own_line or other_line:
            return DRAW_NOW if own_line and other_line else WIN_NOW if own_line else LOSS_NOW
        if extra >= EXTRA_PRESSES:
            return DRAW_NOW
        return parent_byte(self.entry(other, own, extra))

    def _position_byte(self, position: Position) -> int:
        if position.result is not None:
            raise SolutionError(f"the game is over ({_result_words(position)}): nothing to analyse")
        mover = position.marbles(position.to_move)
        other = position.marbles(position.to_move.other)
        try:
            byte = self.entry(mover, other, position.extra_presses)
        except ValueError as exc:
            raise SolutionError(
                f"position {position.board()} cannot arise in a game: {exc}"
            ) from None
        if byte == NO_POSITION:
            raise SolutionError(f"position {position.board()} has a line: the game is over")
        return byte


def _result_words(position: Position) -> str:
    winner = position.result.winner if position.result is not None else None
    return "drawn" if winner is None else f"{winner} won"


_loaded: dict[str, Solution] = {}


def shipped_solution() -> Solution:
    """The shipped table, loaded on first use and kept."""
    if "shipped" not in _loaded:
        _loaded["shipped"] = Solution.load()
    return _loaded["shipped"]
