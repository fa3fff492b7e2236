"""Spectators: ``Spectator`` lists the games on a broker and follows one live, from the
records and events their boards publish (the web page's watch list and stream)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from orbito_hw.errors import OrbitoError
from orbito_hw.lang import _
from orbito_hw.remote.link import (
    RETRY,
    Credentials,
    end_task,
    raw_payload,
    session,
    tls_context,
    with_url_login,
)
from orbito_hw.remote.protocol import (
    ALL_GAMES,
    NAME,
    BrokerUrl,
    MessageError,
    Presence,
    Record,
    game_filter,
    parse_message,
)
from orbito_hw.rules.game import Colour, replay

if TYPE_CHECKING:
    import aiomqtt  # only in a remote game: importing the package stays light

log = logging.getLogger(__name__)


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
        self.credentials = with_url_login(url, credentials or Credentials())
        self.games: dict[str, Seen] = {}
        self._task: asyncio.Task[None] | None = None
        self._stopping = False

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
        async with session(self._client()) as client:
            await client.subscribe(ALL_GAMES, qos=1)
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(listen):
                    async for message in client.messages:
                        self.take(str(message.topic), raw_payload(message.payload))
        return [self.games[name] for name in sorted(self.games)]

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._follow())

    async def _follow(self) -> None:
        import aiomqtt

        while not self._stopping:  # aiomqtt may turn a cancellation into its MqttError
            try:
                async with session(self._client()) as client:
                    await client.subscribe(game_filter(self.game) if self.game else ALL_GAMES)
                    async for message in client.messages:
                        self.take(str(message.topic), raw_payload(message.payload))
            except aiomqtt.MqttError as exc:
                if not self._stopping:
                    text = _("spectator: the broker {url}: {reason}")
                    log.warning("%s", text.format(url=self.url, reason=exc))
            if not self._stopping:
                await asyncio.sleep(RETRY)

    async def stop(self) -> None:
        """Stop following, within a few seconds whatever the broker does (``end_task``)."""
        self._stopping = True
        task, self._task = self._task, None
        if task is not None:
            await end_task(task, "a spectator")

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


class BrokerWatch:
    """The games on the broker at ``url`` as the web page's spectators see them (the page's
    ``Watch``): the list, each game with its board now, and one game followed live."""

    def __init__(self, url: BrokerUrl, credentials: Credentials | None = None) -> None:
        self.url = url
        self.credentials = credentials

    @property
    def host(self) -> str:
        return self.url.host

    def is_game_name(self, name: str) -> bool:
        return NAME.fullmatch(name) is not None

    async def list_games(self) -> list[dict[str, object]]:
        seen = await Spectator(self.url, credentials=self.credentials).list_games()
        return [watched(game) for game in seen]

    def follow(
        self, game: str, heard: Callable[[str, Colour, dict[str, object]], None]
    ) -> Spectator:
        return Spectator(self.url, game, heard, self.credentials)


def watched(seen: Seen) -> dict[str, object]:
    """A game on the broker for the watch page: what the spectator saw, and its board."""
    entry: dict[str, object] = seen.to_json()
    board = None
    if entry.get("first") in ("black", "white"):
        try:
            board = replay(Colour(str(entry["first"])), str(entry["moves"]).split()).board()
        except OrbitoError:
            board = None  # a record that is not a game was refused on the way; never shown
    return {**entry, "board": board}
