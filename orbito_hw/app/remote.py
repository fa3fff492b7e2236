"""Two boards, two homes, one game: the referee's side of a remote game, and its MQTT link.

``RemoteGame`` sits between the referee and the broker, with no network of its own: the
other colour is a ``BoardPlayer`` (``by`` "remote") whose turn is the one the other board's
record adds (remote_protocol.py decides), shown on the LEDs for the person here to make;
every turn, take-back and new game here publishes this board's record. ``MqttLink``
carries it over aiomqtt on the controller's own event loop (no thread, no process), and
reconnects on its own. ``Spectator`` lists the games on a broker and follows one.

Take-backs: holding the button takes back on this board as against the board (SPEC.md);
the record, with one more take-back counted, goes to the other board, which takes back
the same turns: its LEDs show what to undo, exactly as for a take-back of its own. A record
with fewer take-backs than this board has seen is late and ignored.

What this board knows of the game beyond the referee's journal (the round, the take-backs
counted, the other board's id) is kept in ``remote.json`` in the state directory, written
atomically, so a power cut resumes the game with the same record on both boards.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import socket
import ssl
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Final

from orbito_hw.app.remote_protocol import (
    ALL_GAMES,
    Agree,
    BrokerUrl,
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
    game_filter,
    parse_broker_url,
    parse_message,
    topic,
)
from orbito_hw.control.events import (
    Event,
    EventListener,
    Fault,
    FirstChosen,
    NewGame,
    RemoteStatus,
    TakenBack,
    TurnPlayed,
)
from orbito_hw.control.referee import BoardPlayer, Referee
from orbito_hw.hw.interfaces import RGB, Frame, Lights
from orbito_hw.rules.game import Colour, Position, replay
from orbito_hw.rules.turn import Turn

if TYPE_CHECKING:
    import aiomqtt  # only in a remote game: importing the package stays light

    from orbito_hw.app.config import RemoteConfig

log = logging.getLogger(__name__)

STATE_FILE: Final = "remote.json"
RETRY: Final = 1.0  # seconds between two attempts to reach the broker
KEEPALIVE: Final = 10  # seconds: the broker gives up on a silent board (its will) after 1.5x
TAKE_BACK_RETRY: Final = 0.5  # seconds between looks while the board is not ready to take back
OUTBOX: Final = 1000  # messages waiting for the broker; past it spectator events are dropped


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
            log.warning("%s unusable (%s): the remote game starts afresh", path, exc)
            return None
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


# --- the status pixel: the other board offline ----------------------------------------------------
class LinkLights:
    """The board's lights with the status pixel taken over while the game's link is down
    (this board off the broker, or the other board offline): it shows the fault colour
    steady (a hardware fault blinks it) over whatever the referee shows."""

    def __init__(self, inner: Lights, colour: RGB) -> None:
        self.inner = inner
        self.colour = colour
        self.down = False
        self._last: tuple[Frame, RGB | None] | None = None

    def show(self, frame: Frame, status: RGB | None = None) -> None:
        self._last = (frame, status)
        self.inner.show(frame, self.colour if self.down else status)

    def shown(self) -> tuple[list[RGB | None], RGB | None]:
        return self.inner.shown()

    def close(self) -> None:
        self.inner.close()

    def set_down(self, down: bool) -> None:
        if down != self.down:
            self.down = down
            if self._last is not None:
                self.show(*self._last)


# --- the game's logic on this board ------------------------------------------------------------
Publish = Callable[[str, bytes, bool], None]  # topic, payload, retained (QoS 1) or not (QoS 0)


@dataclass
class RemoteGame:
    """This board in the remote game ``game``, its person playing ``plays``."""

    game: str
    plays: Colour
    starts: Colour
    board_id: str
    emit: EventListener  # the run's event sink: the remote events and the disagreements
    publish_events: bool = False
    publish: Publish = field(default=lambda topic, payload, retained: None)
    referee: Referee | None = None
    connected: bool = False
    opponent_online: bool | None = None
    last_record: Record | None = None  # the other board's latest record that was not refused
    _arrived: tuple[Position, Turn] | None = None  # the other board's turn, in its position
    _follow_round: int | None = None
    _follow_back: TakeBackTo | None = None
    _postponed: bool = False
    _told: str | None = None  # the disagreement last told (told once, not per message)
    _lights: LinkLights | None = None

    def __post_init__(self) -> None:
        check_name(self.game, "game")
        check_name(self.board_id, "board id")
        self.kept = Kept(self.game)
        self._stepping = False  # a take-back of the other board's under way here
        self.player = BoardPlayer(self.plays.other, self._choose, "remote", "remote")

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
        # against it): one under way at the restart is still ours to finish.
        self._stepping = referee.saved.undo is not None and referee.saved.undo_one
        inner = referee.show.lights
        if isinstance(inner, LinkLights):
            inner = inner.inner
        self._lights = LinkLights(inner, referee.settings.palette.fault)
        referee.show.lights = self._lights  # the status pixel says when the link is down
        self._lights.set_down(self._link_down())
        kept = Kept.load(self.path, self.game)
        if kept is None:  # a new remote game: it starts on an empty record
            self.kept = Kept(self.game, local_game=referee.saved.game)
            self._save()
            if referee.saved.turns or referee.saved.first is not self.starts:
                self._follow_round = 1
                referee.new_game(self.starts)
        else:
            self.kept = kept
            if kept.local_game != referee.saved.game:  # a new game here, before a cut
                self._new_round(referee.saved.game)
        self._publish_record()
        if self.last_record is not None:
            self._consider(self.last_record)

    def on_event(self, event: Event) -> None:
        """Every event of the referee (and this board's own remote events)."""
        if self.publish_events:
            payload = json.dumps(event.to_json()).encode()
            self.publish(topic(self.game, self.plays, "events"), payload, False)
        if self.referee is None or isinstance(event, RemoteStatus | Fault):
            return
        if isinstance(event, NewGame):
            self._new_round(event.game)
        elif isinstance(event, TakenBack):
            self._taken_back()
            return
        elif isinstance(event, TurnPlayed | FirstChosen):
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

    def _choose(self, position: Position) -> Turn | None:
        """The other board's turn in ``position``: None until it has arrived."""
        if self._arrived is not None and self._arrived[0] == position:
            return self._arrived[1]
        return None

    def local(self) -> Local:
        assert self.referee is not None
        saved = self.referee.saved
        return Local(
            self.game,
            self.kept.round,
            self.board_id,
            self.plays,
            saved.first,
            tuple(saved.turns),
            self.kept.takebacks,
            self.kept.opponent,
        )

    def record(self) -> Record:
        return self.local().record()

    def _publish_record(self) -> None:
        if self.referee is not None:
            self.publish(topic(self.game, self.plays, "record"), self.record().to_bytes(), True)

    def _save(self) -> None:
        try:
            self.kept.save(self.path)
        except OSError as exc:  # the journal holds the game: the records will say if it differs
            log.error("cannot save %s: %s", self.path, exc)

    # --- the broker ----------------------------------------------------------------------------
    def hello(self) -> list[tuple[str, bytes]]:
        """What this board says (retained) each time it connects: online, and its record."""
        presence = Presence(self.game, self.plays, self.board_id, True)
        said = [(topic(self.game, self.plays, "online"), presence.to_bytes())]
        if self.referee is not None:
            said.append((topic(self.game, self.plays, "record"), self.record().to_bytes()))
        return said

    def will(self) -> tuple[str, bytes]:
        """The broker says this when the board goes without a word (a power or network cut)."""
        presence = Presence(self.game, self.plays, self.board_id, False)
        return topic(self.game, self.plays, "online"), presence.to_bytes()

    def set_connected(self, connected: bool) -> None:
        if connected != self.connected:
            self.connected = connected
            self._status("connected" if connected else "disconnected")

    def on_message(self, topic_text: str, payload: bytes) -> None:
        """A message from the broker: refused and logged unless it is the other board's."""
        try:
            message = parse_message(topic_text, payload)
        except MessageError as exc:
            log.warning("refused: %s", exc)
            return
        if isinstance(message, Spectated) or message.game != self.game:
            return
        if isinstance(message, Presence):
            self._presence(message)
        else:
            self._consider(message)

    def _presence(self, presence: Presence) -> None:
        if presence.colour is self.plays:
            if presence.board != self.board_id:
                log.warning("refused: board %s says it plays %s here", presence.board, self.plays)
            return
        if self.kept.opponent is not None and presence.board != self.kept.opponent:
            log.warning("refused: board %s is not in the game", presence.board)
            return
        if presence.online != self.opponent_online:
            self.opponent_online = presence.online
            self._status("opponent-online" if presence.online else "opponent-offline")

    def _status(self, state: str) -> None:
        if self._lights is not None:
            self._lights.set_down(self._link_down())
        game = self.referee.saved.game if self.referee is not None else 1
        self._tell(RemoteStatus(game, state))

    def _link_down(self) -> bool:
        return not self.connected or self.opponent_online is False

    # --- deciding --------------------------------------------------------------------------
    def _consider(self, record: Record) -> None:
        if self.referee is None:
            self.last_record = record  # considered once the controller has started
            return
        decision = decide(self.local(), record)
        if isinstance(decision, Refuse):
            log.warning("refused: %s", decision.why)
            return
        self.last_record = record
        if self.kept.opponent is None and record.colour is not self.plays:
            self.kept.opponent = record.board  # the other board, from now on
            self._save()
        self._postponed = False
        if isinstance(decision, Ignore):
            log.debug("ignored: %s", decision.why)
        elif isinstance(decision, Agree):
            if self._told is not None:
                log.info("the boards agree again")
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

    def _show(self, show: Show) -> None:
        referee = self.referee
        assert referee is not None
        position = replay(referee.saved.first, referee.saved.turns)
        self._arrived = (position, show.turn)
        referee.offer()  # shown now, or when the board is still again

    def _start_round(self, new: NewRound, record: Record) -> None:
        referee = self.referee
        assert referee is not None
        if referee.busy:  # the rings turn: after them
            self._postponed = True
            return
        self._follow_round = new.round
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
            log.error("the boards disagree: %s", where)
            game = self.referee.saved.game if self.referee is not None else None
            self._tell(Fault(game, f"the boards disagree: {where}"))

    # --- take-backs from the other board --------------------------------------------------------
    def _step_back(self) -> None:
        """Take back here, one turn at a time, down to the other board's record. Against
        a remote player the referee would take back the person's turn with the other
        board's: here each turn is taken back by itself, so nobody is made a player."""
        referee, wanted = self.referee, self._follow_back
        if referee is None or wanted is None:
            return
        if len(referee.saved.turns) <= wanted.turns:
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


# --- the MQTT link -----------------------------------------------------------------------------
@dataclass(frozen=True)
class Credentials:
    """How this board proves itself to the broker: a user and password, and/or a client
    certificate; ``ca_file`` the authority for the broker's certificate (TLS only)."""

    user: str | None = None
    password: str | None = None
    ca_file: Path | None = None
    cert_file: Path | None = None
    key_file: Path | None = None

    @classmethod
    def of(cls, config: RemoteConfig) -> Credentials:
        """The credentials ``[remote]`` gives."""
        return cls(config.user, config.password, config.ca_file, config.cert_file, config.key_file)


def tls_context(url: BrokerUrl, credentials: Credentials) -> ssl.SSLContext | None:
    """The TLS context for an ``mqtts://`` broker: the system's authorities unless a
    ``ca_file`` is named; the client certificate if one is."""
    if not url.tls:
        return None
    context = ssl.create_default_context(
        cafile=str(credentials.ca_file) if credentials.ca_file else None
    )
    if credentials.cert_file is not None:
        key = str(credentials.key_file) if credentials.key_file else None
        context.load_cert_chain(str(credentials.cert_file), key)
    return context


class MqttLink:
    """``game`` on the broker at ``url``: connects, says hello, passes the messages on, and
    reconnects after a loss, all on the running event loop."""

    def __init__(
        self,
        game: RemoteGame,
        url: BrokerUrl,
        credentials: Credentials | None = None,
        retry: float = RETRY,
        after: Callable[[], None] = lambda: None,
    ) -> None:
        self.game = game
        self.after = after  # after each message (the simulated board's clock catches up)
        self.url = url
        self.credentials = credentials or Credentials()
        self.retry = retry
        self._outbox: asyncio.Queue[tuple[str, bytes, bool]] = asyncio.Queue(OUTBOX)
        self._client: aiomqtt.Client | None = None
        self._task: asyncio.Task[None] | None = None
        self._stopping = False
        self.sent = 0
        game.publish = self.publish

    def publish(self, topic_text: str, payload: bytes, retained: bool) -> None:
        """Queue a message for the broker (while away, the records wait: the hello on the
        next connection says the latest; spectator events past OUTBOX are dropped)."""
        try:
            self._outbox.put_nowait((topic_text, payload, retained))
        except asyncio.QueueFull:
            log.warning("the broker is away: a message for %s dropped", topic_text)

    def start(self, loop: asyncio.AbstractEventLoop | None = None) -> asyncio.Task[None]:
        """Run on ``loop`` (default: the running one)."""
        loop = loop or asyncio.get_running_loop()
        self._task = loop.create_task(self._run(), name="mqtt link")
        return self._task

    async def _run(self) -> None:
        import aiomqtt  # only in a remote game

        while not self._stopping:
            try:
                async with self._make_client() as client:
                    self._client = client
                    await self._session(client)
            except aiomqtt.MqttError as exc:
                if not self._stopping:
                    log.warning("the broker %s: %s (again in %gs)", self.url, exc, self.retry)
            except (OSError, ssl.SSLError) as exc:
                log.warning("the broker %s: %s (again in %gs)", self.url, exc, self.retry)
            finally:
                self._client = None
                self.game.set_connected(False)
            if not self._stopping:
                await asyncio.sleep(self.retry)

    def _make_client(self) -> aiomqtt.Client:
        import aiomqtt

        will_topic, will_payload = self.game.will()
        c = self.credentials
        return aiomqtt.Client(
            self.url.host,
            self.url.port,
            identifier=f"orbito-hw-{self.game.game}-{self.game.plays}",
            username=c.user,
            password=c.password,
            will=aiomqtt.Will(will_topic, will_payload, qos=1, retain=True),
            keepalive=KEEPALIVE,
            tls_context=tls_context(self.url, c),
            timeout=10,
        )

    async def _session(self, client: aiomqtt.Client) -> None:
        await client.subscribe(game_filter(self.game.game), qos=1)
        while not self._outbox.empty():  # records: said again below, as they stand now;
            self._outbox.get_nowait()  # spectator events from while away: gone
        for topic_text, payload in self.game.hello():
            await client.publish(topic_text, payload, qos=1, retain=True)
        self.game.set_connected(True)
        sender = asyncio.get_running_loop().create_task(self._send(client))
        try:
            async for message in client.messages:
                payload = message.payload
                raw = payload if isinstance(payload, bytes) else str(payload).encode()
                self.game.on_message(str(message.topic), raw)
                self.after()
        finally:
            sender.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await sender

    async def _send(self, client: aiomqtt.Client) -> None:
        while True:
            topic_text, payload, retained = await self._outbox.get()
            await client.publish(topic_text, payload, qos=1 if retained else 0, retain=retained)
            self.sent += 1

    async def stop(self) -> None:
        """Leave the game: say so (retained), then disconnect."""
        self._stopping = True
        client = self._client
        if client is not None:
            presence = Presence(self.game.game, self.game.plays, self.game.board_id, False)
            topic_text = topic(self.game.game, self.game.plays, "online")
            with contextlib.suppress(Exception):
                await client.publish(topic_text, presence.to_bytes(), qos=1, retain=True)
        await self._end()

    async def cut(self) -> None:
        """The board goes without a word (tests: a power or network cut): the connection
        is dropped under the client, so the broker publishes the board's will."""
        self._stopping = True
        client = self._client
        if client is not None:
            sock = client._client.socket()  # paho's: there is no public way to be rude
            if isinstance(sock, socket.socket):
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)
        await self._end()

    async def _end(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
            self._task = None


# --- spectators --------------------------------------------------------------------------------
@dataclass
class Seen:
    """A game on the broker as a spectator sees it: its boards, online or not, and the
    newest record either board published."""

    game: str
    online: dict[Colour, bool] = field(default_factory=dict)
    record: Record | None = None

    def to_json(self) -> dict[str, object]:
        record = self.record
        return {
            "game": self.game,
            "online": {c.value: on for c, on in sorted(self.online.items(), key=str)},
            "round": record.round if record else None,
            "first": record.first.value if record else None,
            "moves": " ".join(record.turns) if record else "",
            "number": record.number if record else 0,
        }


def _newer(old: Record | None, new: Record) -> bool:
    if old is None:
        return True
    return (new.round, new.takebacks, new.number) >= (old.round, old.takebacks, old.number)


class Spectator:
    """The games on a broker (``game`` None) or one game, followed live: ``games`` as they
    stand, and ``on_event(game, colour, event)`` for each live event a board publishes
    (publishing on). The web page's API: ``await Spectator(url).list_games()`` for the list,
    ``Spectator(url, game, on_event).start()`` to follow one."""

    def __init__(
        self,
        url: BrokerUrl,
        game: str | None = None,
        on_event: Callable[[str, Colour, dict[str, object]], None] | None = None,
        credentials: Credentials | None = None,
    ) -> None:
        self.url = url
        self.game = game
        self.on_event = on_event
        self.credentials = credentials or Credentials()
        self.games: dict[str, Seen] = {}
        self._task: asyncio.Task[None] | None = None

    def take(self, topic_text: str, payload: bytes) -> None:
        try:
            message = parse_message(topic_text, payload)
        except MessageError as exc:
            log.debug("spectator: refused: %s", exc)
            return
        seen = self.games.setdefault(message.game, Seen(message.game))
        if isinstance(message, Presence):
            seen.online[message.colour] = message.online
        elif isinstance(message, Record):
            if _newer(seen.record, message):
                seen.record = message
        elif self.on_event is not None:
            self.on_event(message.game, message.colour, message.event)

    async def list_games(self, listen: float = 0.5) -> list[Seen]:
        """The games whose boards left a record or presence on the broker (retained),
        gathered for ``listen`` seconds."""
        async with self._client() as client:
            await client.subscribe(ALL_GAMES, qos=1)
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(listen):
                    async for message in client.messages:
                        self.take(str(message.topic), _raw(message.payload))
        return [self.games[name] for name in sorted(self.games)]

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._follow())

    async def _follow(self) -> None:
        import aiomqtt

        while True:
            try:
                async with self._client() as client:
                    await client.subscribe(game_filter(self.game) if self.game else ALL_GAMES)
                    async for message in client.messages:
                        self.take(str(message.topic), _raw(message.payload))
            except aiomqtt.MqttError as exc:
                log.warning("spectator: the broker %s: %s", self.url, exc)
            await asyncio.sleep(RETRY)

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    def _client(self) -> aiomqtt.Client:
        import aiomqtt

        c = self.credentials
        return aiomqtt.Client(
            self.url.host,
            self.url.port,
            username=c.user,
            password=c.password,
            tls_context=tls_context(self.url, c),
            timeout=10,
        )


def _raw(payload: object) -> bytes:
    return payload if isinstance(payload, bytes) else str(payload).encode()


def board_id_for(plays: Colour) -> str:
    """This board's id when the config names none: the host's name and the colour."""
    host = "".join(c if c.isalnum() or c in "._-" else "-" for c in socket.gethostname())
    return f"{host.strip('.-_')[:50] or 'board'}-{plays}"


def remote_game(config: RemoteConfig, emit: EventListener) -> tuple[RemoteGame, MqttLink]:
    """The board's remote game from ``[remote]`` (enabled, so broker and game are set):
    its side of the game and the link, to start on the controller's loop."""
    assert config.broker is not None and config.game is not None
    url = replace(parse_broker_url(config.broker, need_game=False), game=config.game)
    board_id = config.board_id or board_id_for(config.plays)
    game = RemoteGame(config.game, config.plays, config.starts, board_id, emit)
    game.publish_events = config.publish_events
    return game, MqttLink(game, url, Credentials.of(config))
