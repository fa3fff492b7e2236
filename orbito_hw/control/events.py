"""What the referee tells the world: one small frozen value per event.

Listeners (the logs, the service's status line, the demo, the harness) read the fields;
``to_json()`` writes SPEC.md's JSON object, keys in SPEC.md's order (``event``, ``game``,
then the event's own fields), which ``run --mock --events`` prints byte for byte.
``from_json`` reads such an object back, for consumers of the JSON lines.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import ClassVar

from orbito_hw.control.lights import Palette
from orbito_hw.control.lights import result_frame as result_leds  # what a result means
from orbito_hw.hw.interfaces import RGB, parse_rgb, rgb_hex
from orbito_hw.rules.game import Colour, Result
from orbito_hw.rules.squares import line_names, mask_of, parse_square, square_name
from orbito_hw.rules.squares import squares_of as _squares_of
from orbito_hw.rules.turn import Turn

Json = dict[str, object]


@dataclass(frozen=True)
class TurnPlayed:
    """A turn (or an extra press) accepted and its ring move made; ``board`` is the
    position after the move, in SPEC.md's POSITION form."""

    kind: ClassVar[str] = "turn"
    game: int
    number: int
    colour: Colour
    turn: Turn
    board: str

    def to_json(self) -> Json:
        return {
            "event": self.kind,
            "game": self.game,
            "number": self.number,
            "colour": self.colour.value,
            "turn": self.turn.notation(),
            "board": self.board,
        }


@dataclass(frozen=True)
class Rejected:
    """A press refused: why, and the squares at fault (lowest first). ``seen``: the colour
    read on each square at fault that holds a marble, from sensors that tell colours (none
    otherwise; the JSON's ``seen`` only then)."""

    kind: ClassVar[str] = "rejected"
    game: int
    reason: str
    squares: tuple[int, ...] = ()
    seen: tuple[tuple[int, Colour], ...] = ()

    def to_json(self) -> Json:
        return {"event": self.kind, "game": self.game, "reason": self.reason, **_square_names(self)}


@dataclass(frozen=True)
class Correction:
    """The board stopped matching what the referee expects: these squares differ (missing,
    extra, or a marble of the other colour). ``seen`` as for ``Rejected``."""

    kind: ClassVar[str] = "correction"
    game: int
    squares: tuple[int, ...] = ()
    seen: tuple[tuple[int, Colour], ...] = ()

    def to_json(self) -> Json:
        return {"event": self.kind, "game": self.game, **_square_names(self)}


@dataclass(frozen=True)
class Corrected:
    """The board matches again: play on."""

    kind: ClassVar[str] = "corrected"
    game: int

    def to_json(self) -> Json:
        return {"event": self.kind, "game": self.game}


@dataclass(frozen=True)
class GameOver:
    """The game ended (SPEC.md's ``result`` event): the winning lines as square masks (in
    the order the JSON lists them), and ``leds``, the colour each lit square shows for the
    result, lowest square first."""

    kind: ClassVar[str] = "result"
    game: int
    result: Result
    lines: tuple[int, ...] = ()
    leds: tuple[tuple[int, RGB], ...] = ()

    @classmethod
    def of(cls, game: int, result: Result, lines: tuple[int, ...], palette: Palette) -> GameOver:
        """The event for ``result``, its LEDs worked out from the palette and the lines."""
        leds = tuple(sorted(result_leds(result, lines, palette).items()))
        return cls(game, result, tuple(sorted(lines, key=_line_key)), leds)

    def to_json(self) -> Json:
        return {
            "event": self.kind,
            "game": self.game,
            "result": self.result.value,
            "lines": line_names(list(self.lines)),
            "leds": {square_name(sq): rgb_hex(colour) for sq, colour in self.leds},
        }


@dataclass(frozen=True)
class NewGame:
    """A new game began, ``first`` to move."""

    kind: ClassVar[str] = "new-game"
    game: int
    first: Colour

    def to_json(self) -> Json:
        return {"event": self.kind, "game": self.game, "first": self.first.value}


@dataclass(frozen=True)
class Discard:
    """A new game by a hold would throw the game in progress away (control/discard.py): the
    LEDs ``asked`` first; a second hold ``agreed`` (the ``new-game`` event follows), else the
    question was ``cancelled`` for ``reason`` ("press", "marble", "timeout", "moved-on",
    "new-game") and the game goes on. ``number``: the turns the game has had on this board."""

    kind: ClassVar[str] = "discard"
    STATES: ClassVar[tuple[str, ...]] = ("asked", "agreed", "cancelled")
    REASONS: ClassVar[tuple[str, ...]] = ("press", "marble", "timeout", "moved-on", "new-game")
    game: int
    state: str
    number: int
    reason: str = ""

    def to_json(self) -> Json:
        out: Json = {"event": self.kind, "game": self.game, "state": self.state}
        out["number"] = self.number
        if self.reason:  # a question cancelled: why
            out["reason"] = self.reason
        return out


@dataclass(frozen=True)
class FirstChosen:
    """Before the first turn, a press on the empty board made ``colour`` the one to start."""

    kind: ClassVar[str] = "first"
    game: int
    colour: Colour

    def to_json(self) -> Json:
        return {"event": self.kind, "game": self.game, "colour": self.colour.value}


@dataclass(frozen=True)
class BoardTurn:
    """The board, playing ``colour``, shows its turn ``number`` on the LEDs for a person to
    make for it (an extra press: ``*``, the person presses); ``by`` says who chose it."""

    kind: ClassVar[str] = "board-turn"
    game: int
    number: int
    colour: Colour
    turn: Turn
    by: str = "board"

    def to_json(self) -> Json:
        return {
            "event": self.kind,
            "game": self.game,
            "number": self.number,
            "colour": self.colour.value,
            "turn": self.turn.notation(),
            "by": self.by,
        }


@dataclass(frozen=True)
class Hint:
    """Hints on, a press before any marble was touched: the best turn for ``colour`` (the
    ``move`` of ``analyse``) and what it is worth ("win", "draw" or "loss")."""

    kind: ClassVar[str] = "hint"
    game: int
    colour: Colour
    turn: Turn
    value: str

    def to_json(self) -> Json:
        return {
            "event": self.kind,
            "game": self.game,
            "colour": self.colour.value,
            "turn": self.turn.notation(),
            "value": self.value,
        }


@dataclass(frozen=True)
class BlunderWarning:
    """Hints on, a press whose turn throws the value away: held back; ``value`` is what the
    position is worth to the mover after it ("draw" or "loss"). A second press plays it."""

    kind: ClassVar[str] = "warning"
    game: int
    turn: Turn
    value: str

    def to_json(self) -> Json:
        return {
            "event": self.kind,
            "game": self.game,
            "turn": self.turn.notation(),
            "value": self.value,
        }


@dataclass(frozen=True)
class OpponentChosen:
    """The opponent menu (a gesture at the empty board) chose who plays: ``player`` is
    "person" for two people or "board:LEVEL" with the board's ``colour``."""

    kind: ClassVar[str] = "opponent"
    game: int
    player: str
    colour: Colour | None = None

    def to_json(self) -> Json:
        colour = self.colour.value if self.colour is not None else None
        return {"event": self.kind, "game": self.game, "player": self.player, "colour": colour}


@dataclass(frozen=True)
class TakeBack:
    """A take-back began: turn ``number`` (``turn``, the last that stands) is taken back;
    the rings turn back one place and the LEDs show what to undo."""

    kind: ClassVar[str] = "takeback"
    game: int
    number: int
    turn: Turn

    def to_json(self) -> Json:
        return {
            "event": self.kind,
            "game": self.game,
            "number": self.number,
            "turn": self.turn.notation(),
        }


@dataclass(frozen=True)
class TakenBack:
    """The board shows the position before turn ``number`` again (``board``, in SPEC.md's
    POSITION form, ``to_move`` to play): the turn is gone from the game."""

    kind: ClassVar[str] = "taken-back"
    game: int
    number: int
    board: str
    to_move: Colour

    def to_json(self) -> Json:
        return {
            "event": self.kind,
            "game": self.game,
            "number": self.number,
            "board": self.board,
            "to_move": self.to_move.value,
        }


@dataclass(frozen=True)
class Asked:
    """A player asks the other side for ``what`` (``"take-back"``, ``"draw"``) in the
    position after ``number`` turns: a player away (a seat, the other board) a take-back or
    a draw, the person at the board a draw (control/asks.py). ``Answered`` follows."""

    kind: ClassVar[str] = "ask"
    game: int
    what: str
    colour: Colour  # who asks
    number: int

    def to_json(self) -> Json:
        return {
            "event": self.kind,
            "game": self.game,
            "what": self.what,
            "colour": self.colour.value,
            "number": self.number,
        }


@dataclass(frozen=True)
class Answered:
    """The ask of ``colour`` for ``what`` answered: ``agreed``, or refused and ``reason``
    says why (by the other side, or because the game went on before an answer)."""

    kind: ClassVar[str] = "answer"
    game: int
    what: str
    colour: Colour  # who asked
    agreed: bool
    reason: str = ""

    def to_json(self) -> Json:
        return {
            "event": self.kind,
            "game": self.game,
            "what": self.what,
            "colour": self.colour.value,
            "agreed": self.agreed,
            "reason": self.reason,
        }


@dataclass(frozen=True)
class SetupAsked:
    """The board asks for a position to be set up (SPEC.md's ``setup`` event): ``squares``
    every square that must hold a marble, with its colour (lowest square first); the others
    must be empty. ``to_move`` plays next once it is there."""

    kind: ClassVar[str] = "setup"
    game: int
    squares: tuple[tuple[int, Colour], ...]
    to_move: Colour

    def to_json(self) -> Json:
        return {
            "event": self.kind,
            "game": self.game,
            "squares": {square_name(sq): colour.value for sq, colour in self.squares},
            "to_move": self.to_move.value,
        }


@dataclass(frozen=True)
class SetupDone:
    """The sensors read exactly the squares asked for: play goes on from ``board`` (SPEC.md's
    POSITION), ``to_move`` to play turn ``number`` (the record's turns + 1)."""

    kind: ClassVar[str] = "setup-done"
    game: int
    board: str
    to_move: Colour
    number: int

    def to_json(self) -> Json:
        return {
            "event": self.kind,
            "game": self.game,
            "board": self.board,
            "to_move": self.to_move.value,
            "number": self.number,
        }


@dataclass(frozen=True)
class PuzzleDone:
    """A puzzle's try ended (``control/puzzle.py``): ``solved`` when the person won within
    the puzzle's plies; ``plies`` the plies played from the set-up position to that end."""

    kind: ClassVar[str] = "puzzle"
    game: int
    puzzle: str
    solved: bool
    plies: int

    def to_json(self) -> Json:
        return {
            "event": self.kind,
            "game": self.game,
            "id": self.puzzle,
            "solved": self.solved,
            "plies": self.plies,
        }


@dataclass(frozen=True)
class Fault:
    """The board cannot go on by itself (homing failed, the journal is unreadable...).

    ``game`` is None for a fault read from a source that names no game."""

    kind: ClassVar[str] = "fault"
    game: int | None
    reason: str

    def to_json(self) -> Json:
        head: Json = {"event": self.kind}
        if self.game is not None:
            head["game"] = self.game
        return {**head, "reason": self.reason}


@dataclass(frozen=True)
class RemoteStatus:
    """How the link of a remote game stands (SPEC.md's ``remote`` event, remote/game.py):
    this board ``connected`` to the broker or ``disconnected`` from it, the other board
    ``opponent-online`` or ``opponent-offline``."""

    kind: ClassVar[str] = "remote"
    STATES: ClassVar[tuple[str, ...]] = (
        "connected",
        "disconnected",
        "opponent-online",
        "opponent-offline",
    )
    game: int
    state: str

    def to_json(self) -> Json:
        return {"event": self.kind, "game": self.game, "state": self.state}


Event = (
    TurnPlayed
    | Rejected
    | Correction
    | Corrected
    | GameOver
    | NewGame
    | Discard
    | FirstChosen
    | BoardTurn
    | Hint
    | BlunderWarning
    | OpponentChosen
    | TakeBack
    | TakenBack
    | Asked
    | Answered
    | SetupAsked
    | SetupDone
    | PuzzleDone
    | Fault
    | RemoteStatus
)
EventListener = Callable[[Event], None]


def _line_key(line: int) -> list[str]:
    """Where a line comes in SPEC.md's list of lines (``line_names``' order)."""
    return sorted(square_name(sq) for sq in _squares_of(line))


def _square_names(event: Rejected | Correction) -> Json:
    names: Json = {"squares": [square_name(sq) for sq in event.squares]}
    if event.seen:  # sensors that tell colours only: presence-only events stay as they were
        names["seen"] = {square_name(sq): colour.value for sq, colour in event.seen}
    return names


# --- reading the JSON back -----------------------------------------------------------


def from_json(obj: Mapping[str, object]) -> Event | None:
    """The event a JSON object describes; None for a kind this module does not know
    (SPEC.md: consumers ignore those). KeyError names a missing field, ValueError a bad one.
    A result without ``leds`` or a fault without ``game`` reads as having none."""
    read = _READERS.get(str(obj.get("event")))
    return read(obj) if read is not None else None


def _int(obj: Mapping[str, object], key: str) -> int:
    value = obj[key]
    if not isinstance(value, int) or isinstance(value, bool):
        raise ValueError(f"{key} {value!r} is not a whole number")
    return value


def _str(obj: Mapping[str, object], key: str) -> str:
    value = obj[key]
    if not isinstance(value, str):
        raise ValueError(f"{key} {value!r} is not text")
    return value


def _bool(obj: Mapping[str, object], key: str) -> bool:
    value = obj[key]
    if not isinstance(value, bool):
        raise ValueError(f"{key} {value!r} is not true or false")
    return value


def _list(obj: Mapping[str, object], key: str) -> list[object]:
    value = obj[key]
    if not isinstance(value, list):
        raise ValueError(f"{key} {value!r} is not a list")
    return value


def _square_list(value: object) -> tuple[int, ...]:
    if not isinstance(value, list) or not all(isinstance(name, str) for name in value):
        raise ValueError(f"{value!r} is not a list of squares")
    return tuple(parse_square(name) for name in value)


def _leds(value: object) -> tuple[tuple[int, RGB], ...]:
    if not isinstance(value, Mapping):
        raise ValueError(f"leds {value!r} is not an object of squares and colours")
    return tuple(sorted((parse_square(str(sq)), parse_rgb(str(c))) for sq, c in value.items()))


def _setup_squares(value: object, key: str = "squares") -> tuple[tuple[int, Colour], ...]:
    if not isinstance(value, Mapping):
        raise ValueError(f"{key} {value!r} is not an object of squares and colours")
    return tuple(sorted((parse_square(str(sq)), Colour.parse(str(c))) for sq, c in value.items()))


def _seen(o: Mapping[str, object]) -> tuple[tuple[int, Colour], ...]:
    return _setup_squares(o.get("seen", {}), "seen")


def _remote_state(o: Mapping[str, object]) -> str:
    state = _str(o, "state")
    if state not in RemoteStatus.STATES:
        raise ValueError(f"state {state!r} is not one of {', '.join(RemoteStatus.STATES)}")
    return state


def _discard(o: Mapping[str, object]) -> Discard:
    state, reason = _str(o, "state"), str(o.get("reason", ""))
    if state not in Discard.STATES:
        raise ValueError(f"state {state!r} is not one of {', '.join(Discard.STATES)}")
    if reason and reason not in Discard.REASONS:
        raise ValueError(f"reason {reason!r} is not one of {', '.join(Discard.REASONS)}")
    return Discard(_int(o, "game"), state, _int(o, "number"), reason)


def _turn(o: Mapping[str, object]) -> TurnPlayed:
    return TurnPlayed(
        _int(o, "game"),
        _int(o, "number"),
        Colour.parse(_str(o, "colour")),
        Turn.from_notation(_str(o, "turn")),
        _str(o, "board"),
    )


def _game_over(o: Mapping[str, object]) -> GameOver:
    lines = tuple(mask_of(_square_list(line)) for line in _list(o, "lines"))
    result = Result(_str(o, "result"))
    return GameOver(_int(o, "game"), result, lines, _leds(o.get("leds", {})))


_READERS: dict[str, Callable[[Mapping[str, object]], Event]] = {
    TurnPlayed.kind: _turn,
    Rejected.kind: lambda o: Rejected(
        _int(o, "game"), _str(o, "reason"), _square_list(o["squares"]), _seen(o)
    ),
    Correction.kind: lambda o: Correction(_int(o, "game"), _square_list(o["squares"]), _seen(o)),
    Corrected.kind: lambda o: Corrected(_int(o, "game")),
    GameOver.kind: _game_over,
    NewGame.kind: lambda o: NewGame(_int(o, "game"), Colour.parse(_str(o, "first"))),
    Discard.kind: _discard,
    FirstChosen.kind: lambda o: FirstChosen(_int(o, "game"), Colour.parse(_str(o, "colour"))),
    BoardTurn.kind: lambda o: BoardTurn(
        _int(o, "game"),
        _int(o, "number"),
        Colour.parse(_str(o, "colour")),
        Turn.from_notation(_str(o, "turn")),
        _str(o, "by"),
    ),
    Hint.kind: lambda o: Hint(
        _int(o, "game"),
        Colour.parse(_str(o, "colour")),
        Turn.from_notation(_str(o, "turn")),
        _str(o, "value"),
    ),
    BlunderWarning.kind: lambda o: BlunderWarning(
        _int(o, "game"), Turn.from_notation(_str(o, "turn")), _str(o, "value")
    ),
    OpponentChosen.kind: lambda o: OpponentChosen(
        _int(o, "game"),
        _str(o, "player"),
        Colour.parse(_str(o, "colour")) if o.get("colour") is not None else None,
    ),
    TakeBack.kind: lambda o: TakeBack(
        _int(o, "game"), _int(o, "number"), Turn.from_notation(_str(o, "turn"))
    ),
    TakenBack.kind: lambda o: TakenBack(
        _int(o, "game"), _int(o, "number"), _str(o, "board"), Colour.parse(_str(o, "to_move"))
    ),
    Asked.kind: lambda o: Asked(
        _int(o, "game"), _str(o, "what"), Colour.parse(_str(o, "colour")), _int(o, "number")
    ),
    Answered.kind: lambda o: Answered(
        _int(o, "game"),
        _str(o, "what"),
        Colour.parse(_str(o, "colour")),
        _bool(o, "agreed"),
        _str(o, "reason"),
    ),
    SetupAsked.kind: lambda o: SetupAsked(
        _int(o, "game"), _setup_squares(o["squares"]), Colour.parse(_str(o, "to_move"))
    ),
    SetupDone.kind: lambda o: SetupDone(
        _int(o, "game"), _str(o, "board"), Colour.parse(_str(o, "to_move")), _int(o, "number")
    ),
    PuzzleDone.kind: lambda o: PuzzleDone(
        _int(o, "game"), _str(o, "id"), _bool(o, "solved"), _int(o, "plies")
    ),
    Fault.kind: lambda o: Fault(_int(o, "game") if "game" in o else None, _str(o, "reason")),
    RemoteStatus.kind: lambda o: RemoteStatus(_int(o, "game"), _remote_state(o)),
}
