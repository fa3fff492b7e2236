"""What is left to do now: the steps of a guided flow, each done, now or waiting.

Whenever the board asks a person to do something with their hands (make the board's own
turn, or a remote board's; put a refused turn right; put a knocked board right; set a
position up; undo a turn taken back), the referee's part for it computes one ``Guide``
from the game and from what the lifts, puts and sensors left on the board. The light show
(lights.py), the LEDs in words (led_words.py), the page's glows and instruction line
(web/glows.py, web/instruction.py) only render it: the LEDs, the prompt and the page say
the same thing, and it follows the hands.

A step is one action on one square (or the press): lift the marble here, put it here,
place a marble of a colour here, take this marble off, put one back, swap it, undo what
was done here. A step done goes dark; the steps to do now light at full (blinking where
the flow blinks); the steps after them light dimly; the status pixel blinks once the press
is the one step left. docs/gestures.md says what each light means.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Literal

from orbito_hw.rules.game import Colour, Position
from orbito_hw.rules.squares import SQUARES, Square
from orbito_hw.rules.turn import Turn

Flow = Literal["board-turn", "hint", "refused", "correction", "undo", "setup"]
"""The guided flows: the board's turn (or a remote board's), a hint shown like it, a press
refused, a correction, a take-back's undoing, a set-up."""
Action = Literal["lift", "put", "place", "take-off", "put-back", "swap", "undo", "press"]
"""``lift`` the marble here (a move's first half); ``put`` it here (``origin``: where it
came from); ``place`` a ``colour`` marble here; ``take-off`` this marble; ``put-back`` a
``colour`` marble here; ``swap`` the ``seen`` marble here for a ``colour`` one; ``undo``
what was done here (a refused press); ``press`` the button."""
Progress = Literal["done", "now", "waiting"]
FIXES: frozenset[str] = frozenset({"take-off", "put-back", "swap", "undo"})
"""The actions that put something right rather than make the turn: done first."""


@dataclass(frozen=True, slots=True)
class Step:
    """One thing to do by hand: an ``Action`` on one square (or the press), and whether
    it is done, to do now, or waiting for a step before it."""

    action: Action
    square: Square | None = None  # None: the button
    colour: Colour | None = None  # the colour that goes here (place, put, put-back, swap)
    progress: Progress = "now"
    origin: Square | None = None  # "put": the square the marble was lifted from
    seen: Colour | None = None  # "swap", "undo", "take-off": the colour read here, if told

    @property
    def done(self) -> bool:
        return self.progress == "done"


@dataclass(frozen=True, slots=True)
class Guide:
    """The steps of one guided flow, in the order they are to be done; ``colour`` is the
    colour whose turn is made (the board's), or the set-up's colour to put on now."""

    flow: Flow
    steps: tuple[Step, ...]
    colour: Colour | None = None

    def left(self) -> tuple[Step, ...]:
        """The steps not done yet, in order."""
        return tuple(step for step in self.steps if not step.done)

    def shown(self) -> dict[Square, Step]:
        """Each square's step to show: its first step not done (a square done is dark)."""
        out: dict[Square, Step] = {}
        for step in self.steps:
            if step.square is not None and not step.done and step.square not in out:
                out[step.square] = step
        return dict(sorted(out.items()))

    def squares(self, actions: Iterable[str] | None = None) -> tuple[Square, ...]:
        """The squares with a step left (of ``actions`` only, if given), lowest first."""
        wanted = None if actions is None else set(actions)
        return tuple(
            sq for sq, step in self.shown().items() if wanted is None or step.action in wanted
        )

    @property
    def fixes(self) -> tuple[Step, ...]:
        """The steps left that put something wrong right."""
        return tuple(step for step in self.left() if step.action in FIXES)

    @property
    def press_now(self) -> bool:
        """Whether the press is the one step left."""
        left = self.left()
        return len(left) == 1 and left[0].action == "press"


def _ordered(fixes: list[Step], turn: list[Step]) -> tuple[Step, ...]:
    """The fixes now; the turn's first step not done now if nothing is to be fixed, the
    rest waiting; the press once all else is done."""
    out = [replace(step, progress="now") for step in fixes]
    first = not fixes
    for step in turn:
        if step.done:
            out.append(step)
            continue
        out.append(replace(step, progress="now" if first else "waiting"))
        first = False
    return tuple(out)


def board_turn(
    position: Position,
    turn: Turn,
    now: Mapping[Square, Colour] | None = None,
    flow: Flow = "board-turn",
) -> Guide:
    """The board's ``turn`` (its colour: ``position``'s to move) as far as the board made it
    so far: ``now`` the colour on each square that holds a marble, as the lifts and puts
    left it (None: as ``position`` has it, nothing done).

    The rules make the move before the place: lift the opponent marble, put it on its
    square, place the board's marble, press. A square that holds what neither the turn's
    start nor its next steps allow (a marble put elsewhere, the marble placed before the
    move) is a fix, done first."""
    mover = position.to_move
    if now is None:
        now = {sq: c for sq in SQUARES if (c := position.colour_at(sq)) is not None}
    src, dst, place = turn.move_from, turn.move_to, turn.place
    moved = position.colour_at(src) if src is not None else None
    lifted = src is None or now.get(src) is not moved
    put = src is None or (lifted and dst is not None and now.get(dst) is moved)
    # Placed once the moved marble has left its square (before: the place came first,
    # which the board's turn refuses); a marble that then went astray does not undo it.
    placed = place is not None and lifted and now.get(place) is mover
    allowed: dict[Square, set[Colour | None]] = {}
    if src is not None and dst is not None:
        allowed[src] = {moved, None}
        allowed[dst] = {None, moved} if lifted else {None}
    if place is not None:
        allowed[place] = allowed.get(place, {position.colour_at(place)}) | (
            {mover} if lifted else set()
        )
    fixes = _fixes(position, now, allowed)
    steps: list[Step] = []
    if src is not None and dst is not None:
        steps.append(Step("lift", src, moved, "done" if lifted else "now"))
        steps.append(Step("put", dst, moved, "done" if put else "now", origin=src))
    if place is not None:
        steps.append(Step("place", place, mover, "done" if placed else "now"))
    steps.append(Step("press"))
    return Guide(flow, _ordered(fixes, steps), mover)


def _fixes(
    position: Position, now: Mapping[Square, Colour], allowed: Mapping[Square, set[Colour | None]]
) -> list[Step]:
    """What is wrong on each square: it holds what ``allowed`` (else the position) does not."""
    out = []
    for sq in SQUARES:
        have, start = now.get(sq), position.colour_at(sq)
        if have in allowed.get(sq, {start}):
            continue
        if have is None:
            out.append(Step("put-back", sq, start))
        elif start is None or sq in allowed:
            out.append(Step("take-off", sq, seen=have))
        else:
            out.append(Step("swap", sq, start, seen=have))
    return out


def refused(
    squares: Iterable[Square],
    seen: Mapping[Square, Colour],
    turn_guide: Guide | None = None,
) -> Guide:
    """A press refused: undo what was done on each of ``squares`` (the colour ``seen``
    there, on sensors that tell colours), then, on the board's move, the rest of its turn
    (``turn_guide``) waiting."""
    at_fault = tuple(squares)
    fixes = [Step("undo", sq, seen=seen.get(sq)) for sq in at_fault]
    if turn_guide is None:
        return Guide("refused", tuple(fixes))
    rest = [s for s in turn_guide.steps if s.square not in at_fault or s.action not in FIXES]
    others = [s for s in rest if s.action in FIXES]
    turn = [s for s in rest if s.action not in FIXES]
    return Guide("refused", _ordered(fixes + others, turn), turn_guide.colour)


def correction(
    missing: Iterable[tuple[Square, Colour]],
    extra: Iterable[Square],
    seen: Mapping[Square, Colour],
) -> Guide:
    """A board that does not match: each marble to put back (or, a marble of the other
    colour there, to swap), each to take off; any order, all now."""
    steps = [
        Step("swap", sq, c, seen=seen[sq]) if sq in seen else Step("put-back", sq, c)
        for sq, c in missing
    ]
    steps += [Step("take-off", sq) for sq in extra]
    return Guide("correction", tuple(sorted(steps, key=_square)))


def setup(
    now: Iterable[tuple[Square, Colour]],
    later: Iterable[tuple[Square, Colour]],
    extra: Iterable[Square],
    colour: Colour | None,
) -> Guide:
    """A set-up: the marbles of ``colour`` to put on now, the other colour's after them,
    the marbles to take off."""
    steps = [Step("take-off", sq) for sq in extra]
    steps += [Step("place", sq, c) for sq, c in now]
    steps += [Step("place", sq, c, "waiting") for sq, c in later]
    return Guide("setup", tuple(steps), colour)


def undo(target: Position, now: Mapping[Square, Colour], flow: Flow = "undo") -> Guide:
    """A take-back's undoing, from the marbles as the lifts and puts left them to
    ``target``: each marble that must go is taken off first, the marbles to put back wait
    until then (the one to put back may be one of those taken off: the moved marble).
    ``flow`` "refused": a take-back refused until the turn half made is undone."""
    off, back = [], []
    for sq in SQUARES:
        have, want = now.get(sq), target.colour_at(sq)
        if have is not None and have is not want:
            off.append(Step("take-off", sq, seen=have))
            if want is not None:
                back.append(Step("put-back", sq, want, "waiting"))
        elif have is None and want is not None:
            back.append(Step("put-back", sq, want, "waiting" if off else "now"))
    if off:
        back = [replace(step, progress="waiting") for step in back]
    return Guide(flow, tuple(off + back), target.to_move)


def _square(step: Step) -> int:
    return -1 if step.square is None else step.square


def fresh(turn: Turn, colour: Colour, flow: Flow) -> Guide:
    """``turn`` for ``colour`` with nothing of it done (no position: no fix to find)."""
    steps: list[Step] = []
    if turn.move_from is not None and turn.move_to is not None:
        steps.append(Step("lift", turn.move_from, colour.other))
        steps.append(Step("put", turn.move_to, colour.other, origin=turn.move_from))
    if turn.place is not None:
        steps.append(Step("place", turn.place, colour))
    steps.append(Step("press"))
    return Guide(flow, _ordered([], steps), colour)
