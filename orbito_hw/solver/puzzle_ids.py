"""A puzzle's ID: its game record itself, written short enough to type. No storage needed.

A record is its first colour and its turns. Each turn is written as its index among the
legal turns of the position it was played in, those sorted by notation (as ``analyse``
sorts ``best``), so a turn with L legal alternatives costs log2(L + 1) bits, not a token.
The indices are packed in a mixed radix: turn i is a digit in radix L_i + 1, the extra
value L_i marking the end of the record; the first colour is the lowest bit:

    N = colour + 2 * (d_0 + R_0 * (d_1 + R_1 * (... + R_(k-1) * end)))

N is written in Crockford's base 32 (digits and capitals without I, L, O and U; read
case-insensitively, ``O`` as 0, ``I`` and ``L`` as 1, hyphens ignored), without leading
zeros, then one check character. The check is a sum over GF(32) weighting each character by
a power of a primitive element, so any single mistyped character and any two characters
swapped (30 or fewer apart) give an ID that is refused, not another puzzle.

One record has exactly one ID, and an ID names at most one record: the decoding replays
the record and refuses trailing digits, leading zeros and a wrong check character.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from orbito_hw.errors import NotationError, OrbitoError, echo
from orbito_hw.rules.game import Colour, Position
from orbito_hw.rules.turn import Turn

ALPHABET: Final = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"  # Crockford's base 32
_VALUE: Final[dict[str, int]] = {c: i for i, c in enumerate(ALPHABET)} | {"O": 0, "I": 1, "L": 1}
MAX_ID_LENGTH: Final = 40  # a 21-ply record needs about 30; longer is no ID of ours
_GF_MODULUS: Final = 0b100101  # x^5 + x^2 + 1, primitive: x generates GF(32)'s 31 units
_GF_GENERATOR: Final = 0b00010


class PuzzleError(OrbitoError, ValueError):
    """A puzzle ID that is malformed or names no puzzle, or a puzzle request that cannot be
    met (plies no puzzle has). The message names the ID or the request."""


def ordered_turns(position: Position) -> list[Turn]:
    """The legal turns in the ID's fixed order: by notation, as ``analyse`` sorts them."""
    return sorted(position.legal_turns(), key=Turn.notation)


def encode(first: Colour, tokens: Sequence[str]) -> str:
    """The ID of the record (``first``, ``tokens``); PuzzleError for an illegal turn."""
    position = Position.start(first)
    digits: list[tuple[int, int]] = []  # (digit, radix)
    for number, token in enumerate(tokens, 1):
        legal = [turn.notation() for turn in ordered_turns(position)]
        try:
            index = legal.index(Turn.from_notation(token).notation())
        except (NotationError, ValueError):
            raise PuzzleError(f"turn {number} ({echo(token)}) is not legal: no ID") from None
        digits.append((index, len(legal) + 1))
        position = position.play(Turn.from_notation(token))
    end = len(ordered_turns(position))
    digits.append((end, end + 1))
    number = 0
    for digit, radix in reversed(digits):
        number = number * radix + digit
    number = number * 2 + (1 if first is Colour.WHITE else 0)
    body = _base32(number)
    return body + ALPHABET[_check(body)]


def decode(puzzle_id: str) -> tuple[Colour, tuple[str, ...]]:
    """The record an ID names: its first colour and its turn tokens; PuzzleError naming the
    ID if it is malformed."""
    text = puzzle_id.strip().upper().replace("-", "")
    if not 2 <= len(text) <= MAX_ID_LENGTH:
        raise PuzzleError(
            f"puzzle ID {echo(puzzle_id)} is malformed: 2 to {MAX_ID_LENGTH} characters"
        )
    bad = next((c for c in text if c not in _VALUE), None)
    if bad is not None:
        raise PuzzleError(
            f"puzzle ID {echo(puzzle_id)} is malformed: {echo(bad)} is not a base-32 character"
        )
    canonical = "".join(ALPHABET[_VALUE[c]] for c in text)
    body, check = canonical[:-1], canonical[-1]
    if ALPHABET[_check(body)] != check:
        raise PuzzleError(f"puzzle ID {echo(puzzle_id)} is mistyped: its check character is wrong")
    if len(body) > 1 and body[0] == "0":
        raise PuzzleError(f"puzzle ID {echo(puzzle_id)} is malformed: a leading zero")
    number = 0
    for c in body:
        number = number * 32 + _VALUE[c]
    first = Colour.WHITE if number & 1 else Colour.BLACK
    number >>= 1
    position = Position.start(first)
    tokens: list[str] = []
    while True:  # ends: a game is at most 21 turns, and a finished one has only the end mark
        legal = ordered_turns(position)
        number, digit = divmod(number, len(legal) + 1)
        if digit == len(legal):
            break
        tokens.append(legal[digit].notation())
        position = position.play_unchecked(legal[digit])
    if number:
        raise PuzzleError(f"puzzle ID {echo(puzzle_id)} names no game record: digits to spare")
    return first, tuple(tokens)


def _base32(number: int) -> str:
    digits = []
    while True:
        number, digit = divmod(number, 32)
        digits.append(ALPHABET[digit])
        if not number:
            return "".join(reversed(digits))


def _gf_multiply(a: int, b: int) -> int:
    """a * b in GF(32): carry-less multiplication reduced by the primitive polynomial."""
    product = 0
    while b:
        if b & 1:
            product ^= a
        b >>= 1
        a <<= 1
        if a & 0b100000:
            a ^= _GF_MODULUS
    return product


def _check(body: str) -> int:
    """The check character's value: sum (XOR) of value_i * g^(i + 1) over GF(32). A single
    change multiplies a non-zero difference by a unit; a swap of i and j (i - j not a multiple
    of 31) by g^i + g^j, also non-zero: either way the sum changes."""
    total, weight = 0, 1
    for c in body:
        weight = _gf_multiply(weight, _GF_GENERATOR)
        total ^= _gf_multiply(_VALUE[c], weight)
    return total
