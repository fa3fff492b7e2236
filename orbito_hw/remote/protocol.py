"""Two boards, one game, over an MQTT broker: the messages and what to do with them.

Pure logic, no network (link.py carries it over aiomqtt), so that it can be tested
on arbitrary bytes without a broker. Everything a board says lives under one topic prefix
per game, ``orbito-hw/GAME/COLOUR/KIND``, COLOUR the colour the board's person plays:

- ``record`` (QoS 1, retained): the board's record of the game, published after every
  turn it accepts, every take-back and every new game, and again on each connection. It
  carries the game's identity (``game`` name and ``round``, the game's number within the
  name), ``first``, every turn (``number`` is the last one's), the take-backs made so far
  and the board's id. Retained, so a board that was away catches up; the whole record, so
  a lost, doubled or late message changes nothing (each is compared with what this board
  holds: see ``decide``).
- ``online`` (QoS 1, retained): ``{"online": true}`` once connected; the broker publishes
  the board's last will, ``{"online": false}``, when it goes without a word.
- ``events`` (QoS 0, only with publishing on): the board's live events, SPEC.md's JSON,
  for spectators.
- ``offer`` (QoS 1, retained): a side's latest ask (a take-back, a draw) and its latest
  answer to the other side's: offers.py reads and writes it.

A board's record may carry ``"busy"`` (one of ``BUSY``) while its board cannot take the
other side's turn (a take-back under way, the board being put right or set up):
published again as it starts and ends, the record otherwise the same. Optional, in version 1:
a reader that does not know it ignores it, and a board compares records without it; a seat's
page says it (the board is undoing, the rings turn) and takes no click meanwhile.

A seat's page (a phone or a browser playing one colour, docs/seat.md) says the same, with
one more field, ``"kind": "seat"``: the board reads it only to name its player in words.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Final, Literal, TypeVar
from urllib.parse import quote, unquote

from orbito_hw.errors import IllegalTurnError, NotationError, OrbitoError, echo, shown
from orbito_hw.lang import R_
from orbito_hw.rules.game import Colour, Position, replay
from orbito_hw.rules.turn import Turn

PREFIX: Final = "orbito-hw"
VERSION: Final = 1  # of the messages: a board refuses what it cannot read
MAX_MESSAGE_BYTES: Final = 4096  # a whole record is under 400 bytes: more is not ours
MAX_TURNS: Final = 21  # 16 turns and 5 extra presses: the longest game (SPEC.md)
MAX_COUNT: Final = 1_000_000  # rounds and take-backs: whole numbers a board could reach
BUSY: Final = ("take-back", "correction", "setting-up")
"""What a record's ``busy`` says the board is doing instead of waiting for a turn: taking a
turn back (the rings turning back, or the person undoing it by the LEDs), asking for the
board to be put right, being set up to a position. A newer board's word not listed here
reads as busy all the same."""
PORTS: Final = {"mqtt": 1883, "mqtts": 8883}  # MQTT's registered ports, plain and TLS
NAME: Final = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
"""A game's name and a board's id: safe in a topic (no ``/``, ``+`` or ``#``) and in a file."""

T = TypeVar("T")
Kind = Literal["record", "online", "events"]
KINDS: Final[tuple[Kind, ...]] = ("record", "online", "events")


class MessageError(OrbitoError, ValueError):
    """A message from the broker that is not one of ours, or not usable: refused and logged."""


# --- the broker's address --------------------------------------------------------------------
@dataclass(frozen=True)
class BrokerUrl:
    """``mqtt://HOST:PORT/GAME`` (``mqtts://`` for TLS); the game is optional where the
    config names it apart. ``mqtts://USER:PASSWORD@HOST:PORT/GAME`` carries the board's
    credentials on the broker (percent-encoded, as in any URL); the password is never
    written out (``str``, ``repr``: logs and messages)."""

    host: str
    port: int
    tls: bool
    game: str | None = None
    user: str | None = None
    password: str | None = field(default=None, repr=False)

    def __str__(self) -> str:
        scheme = "mqtts" if self.tls else "mqtt"
        login = f"{quote(self.user, safe='')}@" if self.user is not None else ""
        return f"{scheme}://{login}{self.host}:{self.port}/{self.game or ''}"


def check_name(text: str, what: str) -> str:
    """``text`` if it is a usable game name or board id; else ValueError naming it."""
    if not NAME.fullmatch(text):
        raise ValueError(
            f"{what} {echo(text)} must be 1 to 64 letters, digits, '.', '_' or '-' "
            "(starting with a letter or digit)"
        )
    return text


def parse_broker_url(text: str, need_game: bool = True) -> BrokerUrl:
    """The broker (and game, and credentials) a URL names; ValueError naming the bad part
    (with the password, if any, masked)."""
    scheme, sep, rest = text.partition("://")
    where, _, game = rest.partition("/")
    login, at, where = where.rpartition("@")
    user = password = None
    if at:
        user_text, colon, password_text = login.partition(":")
        user, password = unquote(user_text), unquote(password_text) if colon else None
        rest = f"{quote(user, safe='')}{':***' if colon else ''}@{where}/{game}"
        text = f"{scheme}{sep}{rest}"  # what a message may say: the password masked
        if not user:
            raise ValueError(f"{echo(text)}: no user before the '@'")
    if not sep or scheme not in PORTS:
        raise ValueError(f"{echo(text)} is not mqtt://HOST[:PORT]/GAME (or mqtts:// for TLS)")
    host, colon, port_text = where.rpartition(":") if "]" not in where[-1:] else ("", "", "")
    if not colon:
        host, port_text = where, ""
    host = host.removeprefix("[").removesuffix("]")  # an IPv6 address in brackets
    if not host or any(c in host for c in "/@ ") or host != host.strip():
        raise ValueError(f"{echo(text)}: no usable host name")
    if port_text and not (port_text.isdigit() and 0 < int(port_text) < 65536):
        raise ValueError(f"{echo(text)}: port {echo(port_text)} is not 1..65535")
    port = int(port_text) if port_text else PORTS[scheme]
    if game:
        check_name(game, "game")
    elif need_game:
        raise ValueError(f"{echo(text)} names no game (mqtt://HOST:PORT/GAME)")
    return BrokerUrl(host, port, scheme == "mqtts", game or None, user, password)


# --- topics ------------------------------------------------------------------------------------
def topic(game: str, colour: Colour, kind: Kind) -> str:
    return f"{PREFIX}/{game}/{colour.value}/{kind}"


def game_filter(game: str) -> str:
    """What a board of ``game`` (or one of its spectators) subscribes to."""
    return f"{PREFIX}/{game}/+/+"


ALL_GAMES: Final = f"{PREFIX}/+/+/+"
"""What a spectator listing the games on a broker subscribes to."""


@dataclass(frozen=True)
class Address:
    game: str
    colour: Colour
    kind: Kind


def parse_topic(text: str) -> Address:
    parts = text.split("/")
    if len(parts) != 4 or parts[0] != PREFIX:
        raise MessageError(f"topic {echo(text)} is not {PREFIX}/GAME/COLOUR/KIND")
    _, game, colour, kind = parts
    if not NAME.fullmatch(game):
        raise MessageError(f"topic {echo(text)}: {echo(game)} is not a game name")
    if colour not in ("black", "white"):
        raise MessageError(f"topic {echo(text)}: {echo(colour)} is not black or white")
    for known in KINDS:
        if kind == known:
            return Address(game, Colour(colour), known)
    raise MessageError(f"topic {echo(text)}: {echo(kind)} is not one of {', '.join(KINDS)}")


# --- the messages ----------------------------------------------------------------------------
@dataclass(frozen=True)
class Record:
    """A board's record of the game: who it is, what it plays, and every turn that stands."""

    game: str
    round: int
    board: str
    colour: Colour  # the colour the publishing board's person plays
    first: Colour
    turns: tuple[str, ...] = ()
    takebacks: int = 0  # turns taken back in this round so far: a later record has more
    # "seat" for a seat's page (a phone or a browser, docs/seat.md), which says it in its
    # hello; "board" otherwise (a board does not say it). It names the player in words only:
    # a seat's record is a board's to the protocol.
    kind: str = field(default="board", compare=False)
    # What the board is busy with (one of BUSY; a newer board's own word kept as it is), None
    # when it waits for a turn or plays one: said to a seat's page, never compared.
    busy: str | None = field(default=None, compare=False)

    @property
    def number(self) -> int:
        """The number of the record's last turn (0: none yet)."""
        return len(self.turns)

    def position(self) -> Position:
        return replay(self.first, list(self.turns))

    def to_bytes(self) -> bytes:
        busy = {"busy": self.busy} if self.busy is not None else {}
        return _dump(
            {
                "v": VERSION,
                "game": self.game,
                "round": self.round,
                "board": self.board,
                "colour": self.colour.value,
                "first": self.first.value,
                "number": self.number,
                "turns": list(self.turns),
                "takebacks": self.takebacks,
                **busy,
            }
        )


@dataclass(frozen=True)
class Presence:
    """Whether a board is on the broker: ``online`` false is its last will (or its goodbye)."""

    game: str
    colour: Colour
    board: str
    online: bool
    kind: str = field(default="board", compare=False)  # "seat": a seat's page (as Record's)

    def to_bytes(self) -> bytes:
        return _dump({"v": VERSION, "board": self.board, "online": self.online})


@dataclass(frozen=True)
class Spectated:
    """A board's live event, as SPEC.md writes it, for spectators."""

    game: str
    colour: Colour
    event: dict[str, object]


Message = Record | Presence | Spectated


def _dump(obj: dict[str, object]) -> bytes:
    return json.dumps(obj, separators=(",", ":")).encode()


def parse_message(topic_text: str, payload: bytes) -> Message:
    """The message ``payload`` on ``topic_text`` says; MessageError naming what is wrong
    with it (never another exception, whatever the bytes): a record must be a legal game."""
    address = parse_topic(topic_text)
    where = f"{address.kind} of {address.colour} in {address.game}"
    obj = message_object(payload, where)
    if address.kind == "events":
        if not isinstance(obj.get("event"), str):
            raise MessageError(f"{where}: no event kind")
        return Spectated(address.game, address.colour, obj)
    if obj.get("v") != VERSION:
        raise MessageError(f"{where}: version {shown(obj.get('v'))}, not {VERSION}")
    board = _field(obj, "board", str, where)
    if not NAME.fullmatch(board):
        raise MessageError(f"{where}: board {echo(board)} is not a board id")
    if address.kind == "online":
        online = _field(obj, "online", bool, where)
        return Presence(address.game, address.colour, board, online, _kind(obj))
    return _record(obj, address, board, where)


def _busy(obj: dict[str, object]) -> str | None:
    """What the sender says it is busy with: a short word (BUSY's, or a newer board's of the
    same shape), else None (not said, or not a word: the record is read all the same)."""
    busy = obj.get("busy")
    return busy if isinstance(busy, str) and NAME.fullmatch(busy) and len(busy) <= 24 else None


def _kind(obj: dict[str, object]) -> str:
    """What the sender says it is: "seat" (a seat's page says so), else "board"."""
    return "seat" if obj.get("kind") == "seat" else "board"


def message_object(payload: bytes, where: str) -> dict[str, object]:
    """``payload`` as a JSON object, at most MAX_MESSAGE_BYTES of UTF-8; MessageError naming
    ``where`` otherwise (offers.py reads its messages with it too)."""
    if len(payload) > MAX_MESSAGE_BYTES:
        raise MessageError(f"{where}: {len(payload)} bytes, more than {MAX_MESSAGE_BYTES}")
    try:
        obj = json.loads(payload.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise MessageError(f"{where}: not UTF-8 (byte {exc.start})") from None
    except (ValueError, RecursionError) as exc:  # JSONDecodeError is a ValueError
        raise MessageError(f"{where}: not JSON ({shown(str(exc), 60)})") from None
    if not isinstance(obj, dict):
        raise MessageError(f"{where}: not a JSON object")
    return obj


def _field(obj: dict[str, object], key: str, kind: type[T], where: str) -> T:
    if key not in obj:
        raise MessageError(f"{where}: no {key}")
    value = obj[key]
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise MessageError(f"{where}: {key} {shown(value)} is not {kind.__name__}")
    return value


def _count(obj: dict[str, object], key: str, where: str, lo: int) -> int:
    value = _field(obj, key, int, where)
    if not lo <= value <= MAX_COUNT:
        raise MessageError(f"{where}: {key} {value} is out of range ({lo}..{MAX_COUNT})")
    return value


def _colour(obj: dict[str, object], key: str, where: str) -> Colour:
    text = _field(obj, key, str, where)
    if text not in ("black", "white"):
        raise MessageError(f"{where}: {key} {echo(text)} is not black or white")
    return Colour(text)


def _record(obj: dict[str, object], address: Address, board: str, where: str) -> Record:
    game = _field(obj, "game", str, where)
    if game != address.game:
        raise MessageError(f"{where}: says it is for game {echo(game)}")
    if _colour(obj, "colour", where) is not address.colour:
        raise MessageError(f"{where}: says it is for {obj['colour']}")
    turns = _field(obj, "turns", list, where)
    if len(turns) > MAX_TURNS or not all(isinstance(t, str) for t in turns):
        raise MessageError(f"{where}: turns is not a list of at most {MAX_TURNS} turns")
    record = Record(
        game,
        _count(obj, "round", where, 1),
        board,
        address.colour,
        _colour(obj, "first", where),
        tuple(str(t) for t in turns),
        _count(obj, "takebacks", where, 0),
        _kind(obj),
        _busy(obj),
    )
    if _count(obj, "number", where, 0) != record.number:
        raise MessageError(f"{where}: number {obj['number']} but {record.number} turns")
    _legal(record, where)
    return record


def _legal(record: Record, where: str) -> None:
    """A record is a game the rules allow, turn by turn: the first that is not is named."""
    position = Position.start(record.first)
    for number, token in enumerate(record.turns, 1):
        try:
            position = position.play(Turn.from_notation(token))
        except (NotationError, IllegalTurnError) as exc:
            why = exc.reason
            raise MessageError(f"{where}: turn {number} ({echo(token)}) refused: {why}") from None


# --- deciding ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Local:
    """What this board holds of the game: its identity and record."""

    game: str
    round: int
    board: str
    colour: Colour  # the colour this board's person plays
    first: Colour
    turns: tuple[str, ...]
    takebacks: int
    opponent: str | None  # the other board's id, once known (trusted from the first seen)
    busy: str | None = None  # what the board is doing instead of waiting for a turn (BUSY)

    def record(self) -> Record:
        return Record(
            self.game, self.round, self.board, self.colour, self.first, self.turns,
            self.takebacks, busy=self.busy,
        )  # fmt: skip


@dataclass(frozen=True)
class Ignore:
    """Nothing to do: a doubled or late message, or the other board catching up."""

    why: str


@dataclass(frozen=True)
class Refuse:
    """Not from the other board of this game: logged, never shown."""

    why: str


@dataclass(frozen=True)
class Agree:
    """The two boards hold the same record."""


@dataclass(frozen=True)
class Show:
    """The other board's turn ``number``: shown on the LEDs for the person here to make."""

    number: int
    turn: Turn


@dataclass(frozen=True)
class TakeBackTo:
    """The other board took turns back: take back here too, down to ``turns`` turns."""

    turns: int
    takebacks: int


@dataclass(frozen=True)
class NewRound:
    """The other board started the game's next round: start it here too."""

    round: int
    first: Colour


@dataclass(frozen=True)
class Disagree:
    """The records differ where neither board can tell which is right: ``where`` says it."""

    where: str


Decision = Ignore | Refuse | Agree | Show | TakeBackTo | NewRound | Disagree


_CLAIMS: Final = {
    Colour.BLACK: R_("board {board} claims black, this board's colour"),
    Colour.WHITE: R_("board {board} claims white, this board's colour"),
}
_FIRST: Final = {
    Colour.BLACK: R_("this board has black first, the other board white"),
    Colour.WHITE: R_("this board has white first, the other board black"),
}
_NOT_THEIRS: Final = {
    Colour.BLACK: R_("turn {number} ({turn}) is this board's to make, not the other board's "
                     "(black plays here)"),
    Colour.WHITE: R_("turn {number} ({turn}) is this board's to make, not the other board's "
                     "(white plays here)"),
}  # fmt: skip
"""The reasons decide() gives that name a colour: one sentence each (a colour changes the
French's words). Reasons are English data (a fault's, the log's), marked R_ for
lang.reworded where a person reads them."""


def decide(local: Local, message: Record) -> Decision:
    """What this board does with the other board's record ``message``."""
    if message.game != local.game:
        return Refuse(f"a record of game {echo(message.game)}, not {echo(local.game)}")
    if message.colour is local.colour:
        if message.board == local.board:
            return Ignore("this board's own record")
        return Refuse(_CLAIMS[local.colour].format(board=message.board))
    if local.opponent is not None and message.board != local.opponent:
        return Refuse(
            f"board {message.board} is not in the game ({message.colour} is {local.opponent})"
        )
    if message.round != local.round:
        if message.round < local.round:
            return Ignore(f"late: round {message.round}, this board plays {local.round}")
        return NewRound(message.round, message.first)
    return _same_round(local, message)


def _common(a: tuple[str, ...], b: tuple[str, ...]) -> int:
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    return n


def _same_round(local: Local, message: Record) -> Decision:
    mine, theirs = local.turns, message.turns
    common = _common(mine, theirs)
    if message.takebacks != local.takebacks:
        if message.takebacks < local.takebacks:
            return Ignore(f"late: {message.takebacks} take-backs, this board has seen more")
        # Newer: the other board took turns back (and may have played on since).
        if common < len(mine) or len(theirs) == len(mine):
            return TakeBackTo(common, message.takebacks)
    if message.first is not local.first:
        if not mine and not theirs:
            return NewRound(local.round, message.first)  # who starts, chosen over there
        return Disagree(_FIRST[local.first])
    if common < min(len(mine), len(theirs)):
        number = common + 1
        text = R_("turn {number}: this board has {turn}, the other board {other}")
        return Disagree(text.format(number=number, turn=mine[common], other=theirs[common]))
    if len(theirs) <= len(mine):
        if len(theirs) == len(mine):
            return Agree()
        return Ignore(f"late or behind: turn {len(theirs)}, this board is at {len(mine)}")
    if len(theirs) > len(mine) + 1:
        text = R_(
            "the other board is at turn {most}, this board at {number}: "
            "turns {next}..{wanted} were never made here"
        )
        most, number = len(theirs), len(mine)
        return Disagree(text.format(most=most, number=number, next=number + 1, wanted=most - 1))
    position = replay(local.first, list(mine))
    if position.to_move is local.colour:
        return Disagree(_NOT_THEIRS[local.colour].format(number=len(theirs), turn=theirs[-1]))
    return Show(len(theirs), Turn.from_notation(theirs[-1]))
