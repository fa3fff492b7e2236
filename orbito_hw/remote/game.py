"""Two boards, two homes, one game: the referee's side of a remote game.

``RemoteGame`` sits between the referee and the broker, with no network of its own: the
other colour is a ``BoardPlayer`` (``by`` "remote") whose turn is the one the other board's
record adds (protocol.py decides), shown on the LEDs for the person here to make; every
turn, take-back and new game here publishes this board's record. ``MqttLink`` (link.py)
carries it to the broker.

Take-backs: holding the button takes back on this board as against the board (SPEC.md);
the record, with one more take-back counted, goes to the other board, which takes back
the same turns: its LEDs show what to undo, exactly as for a take-back of its own. A record
with fewer take-backs than this board has seen is late and ignored.

What this board knows of the game beyond the referee's journal (the round, the take-backs
counted, the other board's id, and its own id in the game) is kept in ``remote.json`` in the
state directory, written atomically, so a power cut resumes the game with the same record on
both boards.

A seat is the colour a board plays, held by the board's id (identity.py: its own, made once
per install). A board new to the game that finds its colour held by another id, online with
a record, stays out, says so, and tells the holder once (its hello, not retained, so the
broker keeps the holder's); the holder says it too, and the game goes on. A board that has
joined the game (restarted, reconnected) takes its own seat, whatever else is online.
"""

from __future__ import annotations

import json
import logging
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Final

from orbito_hw.control.events import (
    Event,
    EventListener,
    Fault,
    FirstChosen,
    NewGame,
    RemoteStatus,
    TakeBack,
    TakenBack,
    TurnPlayed,
)
from orbito_hw.control.led_words import colour_word
from orbito_hw.control.machine import State
from orbito_hw.control.players import BoardPlayer
from orbito_hw.control.referee import Referee
from orbito_hw.errors import echo
from orbito_hw.lang import R_, _, reworded
from orbito_hw.remote.identity import host_colour_id, own_board_id
from orbito_hw.remote.offers import Offers, is_offer_topic
from orbito_hw.remote.protocol import (
    NAME,
    Agree,
    Disagree,
    Ignore,
    Local,
    MessageError,
    NewRound,
    Presence,
    Record,
    Refuse,
    Show,
    Spectated,
    TakeBackTo,
    check_name,
    decide,
    parse_message,
    topic,
)
from orbito_hw.remote.seat_link import AwaySeats
from orbito_hw.rules.game import Colour, Position, replay
from orbito_hw.rules.turn import Turn

if TYPE_CHECKING:
    pass  # only in a remote game: importing the package stays light

log = logging.getLogger(__name__)

STATE_FILE: Final = "remote.json"
TAKE_BACK_RETRY: Final = 0.5  # seconds between looks while the board is not ready to take back
CLAIMS_WINDOW_S: Final = 10.0  # a claim on this board's colour is told at most once in it
BUSY_STATES: Final = {
    State.TAKING_BACK: "take-back", State.UNDOING: "take-back",
    State.CORRECTION: "correction", State.SETTING_UP: "setting-up",
}  # fmt: skip
"""The referee's states in which it takes no turn of the other side's for a while, as a
record's ``busy`` says them (protocol.BUSY): a take-back (the rings turning back, then the
turn undone by the LEDs), the board put right, set up. Each begins and ends with an event
(take-back and taken-back, correction and corrected, set-up and set-up-done), after which
the record is published again: what a record says is never left behind. The rings' turn
after a press is not said (the record has not the turn yet: the other side waits for the
board's person anyway), nor a fault (it may end with no event of its own)."""


# --- what this board keeps of the game ---------------------------------------------------------
@dataclass
class Kept:
    """remote.json: the round and take-backs of the game ``game``, the other board's id,
    and the referee's number for the game the round is played in."""

    game: str
    round: int = 1
    takebacks: int = 0
    opponent: str | None = None
    local_game: int | None = None
    # This board's id in the game: kept, so that the game goes on under it whatever becomes
    # of the install's id; None in a file from before it was kept (identity.py: the old
    # default, the host's name and the colour, was the id then).
    board: str | None = None
    # Whether this board has said its hello in the game: one that was refused a seat held
    # stays new to it, and is refused again after a restart (a file from before: it had).
    joined: bool = True

    @classmethod
    def load(cls, path: Path, game: str) -> Kept | None:
        """What the file keeps of ``game``; None if it keeps another game, nothing, or
        nothing usable (logged: the game starts afresh, the records then say where)."""
        try:
            obj = json.loads(path.read_bytes())
            kept = cls(**obj)
        except FileNotFoundError:
            return None
        except (OSError, ValueError, TypeError) as exc:
            text = _("{path} unusable ({reason}): the remote game starts afresh")
            log.warning("%s", text.format(path=path, reason=exc))
            return None
        if kept.board is not None and not (
            isinstance(kept.board, str) and NAME.fullmatch(kept.board)
        ):  # a hand's edit: read as a file from before the board's id was kept
            text = _("{path}: board {board} is not an id: ignored")
            log.warning("%s", text.format(path=path, board=echo(str(kept.board))))
            kept.board = None
        kept.joined = kept.joined is not False  # only a board refused a seat has not joined
        return kept if kept.game == game else None

    def save(self, path: Path) -> None:
        """Atomically and durably, as the journal writes."""
        text = json.dumps(self.__dict__)
        temporary = path.with_name(f".{path.name}.tmp")
        with temporary.open("w", encoding="utf-8") as file:
            file.write(text)
            file.flush()
            os.fsync(file.fileno())
        temporary.replace(path)


# --- refusals, told without a flood ---------------------------------------------------------------
REFUSALS_WINDOW_S: Final = 10.0
REFUSALS_TOLD: Final = 20
"""Refused messages told at warning in each window; past them they are counted, and the
next window's first warning says how many were refused meanwhile: a broker flooded with
forged records never floods the board's log."""


class Refusals:
    """The log of refused messages, at most ``REFUSALS_TOLD`` lines a window."""

    def __init__(self, logger: logging.Logger) -> None:
        self.logger = logger
        self.window = -REFUSALS_WINDOW_S
        self.told = 0
        self.quiet = 0

    def __call__(self, reason: str) -> None:
        """``reason``: why, a sentence in the board's language already."""
        now = time.monotonic()
        if now - self.window >= REFUSALS_WINDOW_S:
            if self.quiet:
                text = _("refused {n} more messages in {seconds}s")
                said = text.format(n=self.quiet, seconds=f"{REFUSALS_WINDOW_S:g}")
                self.logger.warning("%s", said)
            self.window, self.told, self.quiet = now, 0, 0
        if self.told < REFUSALS_TOLD:
            self.told += 1
            self.logger.warning("%s", _("refused: {reason}").format(reason=reason))
        else:
            self.quiet += 1
            self.logger.debug("refused: %s", reason)


# --- the game's logic on this board ------------------------------------------------------------
Publish = Callable[[str, bytes, bool], None]  # topic, payload, retained (QoS 1) or not (QoS 0)


@dataclass
class RemoteGame:
    """This board in the remote game ``game``, its person playing ``plays``."""

    game: str
    plays: Colour
    starts: Colour
    named: str | None  # the id the config (or --board-id) gives; None: the install's own
    emit: EventListener  # the run's event sink: the remote events and the disagreements
    publish_events: bool = False
    publish: Publish = field(default=lambda topic, payload, retained: None)
    referee: Referee | None = None
    connected: bool = False
    opponent_online: bool | None = None
    # Before this board joins: other boards that say they play its colour, online, and
    # those with a record of it. A board in both has the colour (a forged presence alone,
    # or a stale record alone, takes nothing).
    _rivals_online: set[str] = field(default_factory=set)
    _rival_records: set[str] = field(default_factory=set)
    last_record: Record | None = None  # the other board's latest record that was not refused
    opponent_kind: str = "board"  # what the other side's hello says it is: "seat", a page
    _arrived: tuple[Position, Turn] | None = None  # the other board's turn, in its position
    _follow_round: int | None = None
    _follow_back: TakeBackTo | None = None
    _postponed: bool = False
    _told: str | None = None  # the disagreement last told (told once, not per message)
    _fresh: bool = False  # this board has never played the game: the records are history
    _past_round: int = 0  # the newest round of the broker's records that are history here
    _busy_said: str | None = None  # the ``busy`` of the record last published
    _busy_due: bool = False  # a look at the referee's state is due, after the event heard

    def __post_init__(self) -> None:
        check_name(self.game, "game")
        if self.named is not None:
            check_name(self.named, "board id")
        # Known once attached (the state directory keeps them): this board's id in the game,
        # and the install's own, which makes the broker's client id.
        self.board_id = self.install_id = ""
        self._claim_told = -CLAIMS_WINDOW_S  # when a claim on this board's colour was told
        self.kept = Kept(self.game)
        self.refused = Refusals(log)
        self._stepping = False  # a take-back of the other board's under way here
        self.seats: AwaySeats | None = None  # the seats invited here (seat_link.py), once attached
        self.offers = Offers(self)  # asks across the board, a take-back or a draw (offers.py)
        # The other side may be a seat's page (a phone): its hello says so, and the words
        # name it "the player on the phone" rather than a board.
        self.player = BoardPlayer(
            self.plays.other, self._choose, "remote", "remote", seat=self._a_seat
        )

    @property
    def path(self) -> Path:
        """remote.json, beside the referee's journal."""
        assert self.referee is not None
        return self.referee.journal.directory / STATE_FILE

    # --- the referee -----------------------------------------------------------------------
    def attach(self, referee: Referee) -> None:
        """After each start of the controller (the journal read): carry on the game."""
        self.referee = referee
        self._arrived = None
        self._follow_back = None
        # A take-back of one turn only is the other board's (a hold here takes back two
        # against it), or one the other side asked and this board agreed to (offers.py): one
        # under way at the restart is still ours to finish.
        saved = referee.snapshot().saved
        self.offers.load()
        agreed = self.offers.kept.taking_back or saved.undo_to is not None
        self._stepping = saved.undo is not None and saved.undo_one and not agreed
        self._show_link()  # the status pixel says when the link is down
        self.seats = AwaySeats(referee.journal.directory)
        kept = Kept.load(self.path, self.game)
        own = own_board_id(referee.journal.directory)
        self.install_id = own.board_id
        self.board_id = self._id_in_game(kept, own.board_id)
        if own.warning:
            self._tell(Fault(saved.game, own.warning))
        if kept is None:  # a new remote game: it starts on an empty record
            self._fresh = True
            self.kept = Kept(self.game, local_game=saved.game, board=self.board_id,
                             joined=False)  # fmt: skip
            self._save()
            if saved.turns or saved.first is not self.starts:
                self._follow_round = 1
                referee.new_game(self.starts)
        else:
            self.kept = kept
            if kept.board != self.board_id:
                kept.board = self.board_id
                self._save()
            if kept.local_game != saved.game:  # a new game here, before a cut
                self._new_round(saved.game)
        self._publish_record()
        self.offers.attach()
        self._start_above()  # above the rounds the broker kept, for a board new to the game
        if self.last_record is not None:
            self._consider(self.last_record)

    def _id_in_game(self, kept: Kept | None, own: str) -> str:
        """The id this board plays the game under: the one named, else the one it has
        played the game under (the old default for a game begun before ids were kept, so
        that the other board still knows it), else the install's own."""
        if self.named is not None:
            return self.named
        if kept is None:
            return own
        return kept.board or host_colour_id(self.plays)

    def on_event(self, event: Event) -> None:
        """Every event of the referee (and this board's own remote events)."""
        if self.publish_events:
            payload = json.dumps(event.to_json()).encode()
            self.publish(topic(self.game, self.plays, "events"), payload, False)
        if self.referee is None:
            return
        if not self._busy_due:  # the state the event leads to: once the referee has gone there
            self._busy_due = True
            self.referee.clock.call_later(0, self._busy_changed)
        if isinstance(event, RemoteStatus | Fault):
            return
        self.offers.on_event(event)
        if isinstance(event, TakeBack):
            self._arrived = None  # the other side's turn shown is spent: a turn goes back
        elif isinstance(event, NewGame):
            self._new_round(event.game)
        elif isinstance(event, TakenBack):
            self._taken_back()
            return
        elif isinstance(event, TurnPlayed | FirstChosen):
            # The other board's turn, made here, is spent: kept, it would be offered again in
            # the next position like the one it arrived in (a new game's first).
            self._arrived = None
            self._fresh = False
            self._publish_record()
        if self._postponed and self.last_record is not None:
            self._consider(self.last_record)

    def _new_round(self, local_game: int) -> None:
        if self._follow_round is not None:
            self.kept.round, self._follow_round = self._follow_round, None
        elif local_game != self.kept.local_game:
            self.kept.round += 1  # a new game begun here: the other board follows
        self.kept.local_game = local_game
        self.kept.takebacks = 0
        self._arrived = None
        self._save()
        self._publish_record()

    def _a_seat(self) -> bool:
        """Whether the other side is a seat's page (its hello says ``"kind": "seat"``)."""
        return self.opponent_kind == "seat"

    def _choose(self, position: Position) -> Turn | None:
        """The other board's turn in ``position``: None until it has arrived."""
        if self._arrived is not None and self._arrived[0] == position:
            return self._arrived[1]
        return None

    def local(self) -> Local:
        assert self.referee is not None
        saved = self.referee.snapshot().saved
        return Local(
            self.game,
            self.kept.round,
            self.board_id,
            self.plays,
            saved.first,
            tuple(saved.turns),
            self.kept.takebacks,
            self.kept.opponent,
            self._busy(),
        )

    def record(self) -> Record:
        return self.local().record()

    def _busy(self) -> str | None:
        """What the board is doing instead of waiting for a turn, as the record says it."""
        return BUSY_STATES.get(self.referee.state) if self.referee is not None else None

    def _busy_changed(self) -> None:
        """The record published again when what the board is busy with changed (a take-back
        begun or done): a seat's page says it, and takes no click meanwhile."""
        self._busy_due = False
        if self.referee is not None and self._busy() != self._busy_said:
            self._publish_record()

    def _publish_record(self) -> None:
        if self.referee is not None:
            record = self.record()
            self._busy_said = record.busy
            self.publish(topic(self.game, self.plays, "record"), record.to_bytes(), True)

    def _save(self) -> None:
        try:
            self.kept.save(self.path)
        except OSError as exc:  # the journal holds the game: the records will say if it differs
            log.error("%s", _("cannot save {path}: {reason}").format(path=self.path, reason=exc))

    # --- the broker ----------------------------------------------------------------------------
    def hello(self) -> list[tuple[str, bytes]]:
        """What this board says (retained) each time it connects: online, and its record.
        Past the first hello, nothing the broker keeps is history here any more."""
        self._fresh = False
        if not self.kept.joined and self.referee is not None:
            self.kept.joined = True  # in the game: its seat is its own from now on
            self._save()
        presence = Presence(self.game, self.plays, self.board_id, True)
        said = [(topic(self.game, self.plays, "online"), presence.to_bytes())]
        if self.referee is not None:
            said.append((topic(self.game, self.plays, "record"), self.record().to_bytes()))
            said += [offer] if (offer := self.offers.message()) is not None else []
        return said

    def will(self) -> tuple[str, bytes]:
        """The broker says this when the board goes without a word (a power or network cut)."""
        presence = Presence(self.game, self.plays, self.board_id, False)
        return topic(self.game, self.plays, "online"), presence.to_bytes()

    def set_connected(self, connected: bool) -> None:
        """The link is up (the hello said) or down. The other board's presence read from
        the broker before the hello is told after "connected": until then this board is not
        in the game, and a turn played meanwhile reaches the other board only with it."""
        if connected != self.connected:
            self.connected = connected
            self._status("connected" if connected else "disconnected")
            if connected and self.opponent_online is not None:
                self._status("opponent-online" if self.opponent_online else "opponent-offline")

    def on_message(self, topic_text: str, payload: bytes, retained: bool = False) -> None:
        """A message from the broker: refused and logged unless it is the other board's.
        ``retained``: kept by the broker from before this board subscribed."""
        if is_offer_topic(topic_text):
            self.offers.on_message(topic_text, payload)
            return
        try:
            message = parse_message(topic_text, payload)
        except MessageError as exc:
            self.refused(reworded(str(exc)))
            return
        if isinstance(message, Spectated) or message.game != self.game:
            return
        if isinstance(message, Presence):
            self._presence(message)
        elif message.colour is self.plays and message.board != self.board_id:
            if self.connected:
                self._claimed(message.board)
            else:  # before the hello: a rival's record of this colour (is the colour held?)
                log.debug("board %s has a record of %s", message.board, self.plays)
                self._rival_records.add(message.board)
        elif retained and self._fresh and self._history(message):
            self._past_round = max(self._past_round, message.round)
            if self.referee is not None:
                self._start_above()
        else:
            self._consider(message)

    def _presence(self, presence: Presence) -> None:
        if presence.colour is self.plays:
            if presence.board == self.board_id:
                return
            if self.connected:
                self._claimed(presence.board, presence.online)
            elif presence.online:  # before the hello: who holds this colour
                log.debug("board %s is online as %s", presence.board, self.plays)
                self._rivals_online.add(presence.board)
            else:
                self._rivals_online.discard(presence.board)
            return
        if self.kept.opponent is not None and presence.board != self.kept.opponent:
            self.refused(_("board {board} is not in the game").format(board=presence.board))
            return
        if self._revoked(presence.board):
            return
        if presence.kind == "seat":
            self._heard(presence)
        if presence.board == self.kept.opponent:
            self.opponent_kind = presence.kind
        if presence.online != self.opponent_online:
            self.opponent_online = presence.online
            if self.connected:  # before the hello, told with "connected" (set_connected)
                self._status("opponent-online" if presence.online else "opponent-offline")

    @property
    def taken_by(self) -> str | None:
        """Another board that holds this board's colour, to a board new to the game: online,
        with a record of it. A board that has joined the game (remote.json) takes its own
        seat back whatever else is online: the other board knows it, not a newcomer."""
        if self.kept.joined:
            return None
        return min(self._rivals_online & self._rival_records, default=None)

    def refuse_taken(self) -> None:
        """This board came second to a colour another board plays: it stays out of the
        game and says so, once, in words (the fault: one line in the log; its lights show
        the link down)."""
        game = self.referee.snapshot().game if self.referee is not None else 1
        reason = (f"{self.plays} is already played in game {self.game} by board {self.taken_by}:"
                  " this board stays out (check [remote] plays)")  # fmt: skip
        self._tell(Fault(game, reason))

    def claim(self) -> tuple[str, bytes]:
        """What a board that stays out says, once and not retained: its hello, so that the
        board holding the colour hears the claim and says it, while the broker keeps the
        holder's own hello for the boards that come later."""
        presence = Presence(self.game, self.plays, self.board_id, True)
        return topic(self.game, self.plays, "online"), presence.to_bytes()

    def _claimed(self, board: str, asked: bool = True) -> None:
        """Another board says it plays this board's colour, here in the game: refused. A
        board asking (online) is told in words (a fault the players see, one line in the log);
        and this board's hello is said again, retained, in case the other's was kept (a board
        of an older orbito-hw, a newcomer's last will): the broker's is this board's again.
        Both at most once a window: a flood of claims is the refusals' log, throttled."""
        now = time.monotonic()
        recent = now - self._claim_told < CLAIMS_WINDOW_S
        if recent or not asked:
            text = _("board {board} says it plays {colour} here")
            self.refused(text.format(board=board, colour=colour_word(self.plays)))
        if recent:
            return  # told, and said again, a moment ago
        self._claim_told = now
        if asked:
            game = self.referee.snapshot().game if self.referee is not None else 1
            reason = (f"board {board} asked to play {self.plays} in game {self.game}, which "
                      f"this board ({self.board_id}) plays: refused, the game goes on")  # fmt: skip
            self._tell(Fault(game, reason))
        for topic_text, payload in self.hello():
            self.publish(topic_text, payload, True)

    def _status(self, state: str) -> None:
        self._show_link()
        game = self.referee.snapshot().game if self.referee is not None else 1
        self._tell(RemoteStatus(game, state))

    def _link_down(self) -> bool:
        return not self.connected or self.opponent_online is False

    def _show_link(self) -> None:
        """The status pixel taken over while the game's link is down (this board off the
        broker, or the other board offline): the fault colour steady (a hardware fault
        blinks it) over whatever the referee shows."""
        if self.referee is not None:
            down = self._link_down()
            self.referee.take_status(self.referee.snapshot().palette.fault if down else None)

    # --- deciding --------------------------------------------------------------------------
    def _consider(self, record: Record) -> None:
        if self.referee is None:
            self.last_record = record  # considered once the controller has started
            return
        if record.colour is not self.plays and self._revoked(record.board):
            return
        decision = decide(self.local(), record)
        if isinstance(decision, Refuse):
            self.refused(reworded(decision.why))
            return
        self.last_record = record
        if self.kept.opponent is None and record.colour is not self.plays:
            self.kept.opponent = record.board  # the other board, from now on
            self._save()
        if record.colour is not self.plays:
            self.opponent_kind = record.kind  # a board, or a seat's page
        self._postponed = False
        if isinstance(decision, Ignore):
            log.debug("ignored: %s", decision.why)
        elif isinstance(decision, Agree):
            if self._told is not None:
                log.info("%s", _("the boards agree again"))
            self._told = None
        elif isinstance(decision, Show):
            self._show(decision)
        elif isinstance(decision, TakeBackTo):
            self._follow_back = decision
            self._step_back()
        elif isinstance(decision, NewRound):
            self._start_round(decision, record)
        elif isinstance(decision, Disagree):
            self._disagree(decision.where)

    def _revoked(self, board: str) -> bool:
        """Whether ``board`` is a seat revoked at this board (``seat revoke``): its messages
        are refused, one line each in the log (throttled)."""
        if self.seats is None or not self.seats.is_revoked(self.game, board):
            return False
        self.refused(_("seat {seat} was revoked at this board (seat revoke)").format(seat=board))
        return True

    def _heard(self, presence: Presence) -> None:
        """A seat's page said hello (or its last will): kept for ``seat list``."""
        if self.seats is None:
            return
        try:
            self.seats.heard(presence.board, self.game, presence.colour, presence.online)
        except OSError as exc:  # the list only: the game goes on
            log.error("%s", _("cannot save {path}: {reason}").format(path=self.seats.path,
                                                                    reason=exc))  # fmt: skip

    def _history(self, record: Record) -> bool:
        """Whether the retained ``record`` is of an earlier play of this game's name, which
        this board never played: the other colour's, with turns."""
        return record.colour is not self.plays and bool(record.turns)

    def _start_above(self) -> None:
        """A board new to the game starts the round after the one the broker keeps: a
        finished or abandoned game of the same name never traps the next (the other board,
        if it is still on that round, follows to the new one as after a new game)."""
        if (
            self._past_round < self.kept.round
            or self.referee is None
            or self.referee.snapshot().turns
        ):
            return
        text = _(
            "game {game}: round {past} on the broker is history here; this board starts "
            "round {round}"
        )
        past = self._past_round
        log.info("%s", text.format(game=self.game, past=past, round=past + 1))
        self.kept.round = self._past_round + 1
        self.kept.takebacks = 0
        self._save()
        self._publish_record()

    def _show(self, show: Show) -> None:
        referee = self.referee
        assert referee is not None
        now = referee.snapshot()
        position = replay(now.first, list(now.turns))
        self._arrived = (position, show.turn)
        referee.offer()  # shown now, or when the board is still again

    def _start_round(self, new: NewRound, record: Record) -> None:
        referee = self.referee
        assert referee is not None
        if referee.busy:  # the rings turn: after them
            self._postponed = True
            return
        self._follow_round = new.round
        self._arrived = None  # a turn of the old round, unmade: the new game chooses without it
        # A new round: a new game (the one here archived); who starts: the same game again.
        referee.new_game(new.first, next_game=new.round != self.kept.round)
        if self._follow_round is None:  # it began: the round's record may hold turns
            self._consider(record)
        else:
            self._follow_round = None

    def _tell(self, event: Event) -> None:
        """This link's own events: through the referee once attached, so that every one of
        its listeners (the log, the archive, the web page, this game too) hears them."""
        if self.referee is not None:
            self.referee.tell(event)
        else:
            self.emit(event)

    def _disagree(self, where: str) -> None:
        if where != self._told:
            self._told = where
            log.error("%s", _("the boards disagree: {where}").format(where=reworded(where)))
            game = self.referee.snapshot().game if self.referee is not None else None
            self._tell(Fault(game, R_("the boards disagree: {where}").format(where=where)))

    # --- take-backs from the other board --------------------------------------------------------
    def _step_back(self) -> None:
        """Take back here, one turn at a time, down to the other board's record. Against
        a remote player the referee would take back the person's turn with the other
        board's: here each turn is taken back by itself, so nobody is made a player."""
        referee, wanted = self.referee, self._follow_back
        if referee is None or wanted is None:
            return
        if len(referee.snapshot().turns) <= wanted.turns:
            self._follow_back = None
            self.kept.takebacks = wanted.takebacks
            self._save()
            self._publish_record()
            if self.last_record is not None:
                self._consider(self.last_record)  # it may hold a turn played since
            return
        if not (referee.can_take_back and referee.board_as_it_stands):
            referee.clock.call_later(TAKE_BACK_RETRY, self._step_back)
            return
        self._stepping = True  # this take-back is the other board's, carried out here
        referee.take_back(single=True)  # one turn: the referee would take back two

    def _taken_back(self) -> None:
        referee = self.referee
        assert referee is not None
        self._arrived = None  # the other board's turn, if one was shown, is gone too
        if self._stepping:  # a take-back of the other board's, carried out here
            self._stepping = False
            self._step_back()
            referee.offer()
            return
        self.kept.takebacks += 1
        self._save()
        self._publish_record()
