"""The MQTT link of a remote game: ``MqttLink`` carries a ``RemoteGame``'s records over
aiomqtt on the controller's own event loop (no thread, no process), and reconnects on its
own; aiomqtt is imported only when a link starts, so importing the package stays light.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
import ssl
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Final

from orbito_hw.lang import _
from orbito_hw.remote.game import RemoteGame
from orbito_hw.remote.protocol import (
    BrokerUrl,
    Presence,
    game_filter,
    topic,
)

if TYPE_CHECKING:
    import aiomqtt  # only in a remote game: importing the package stays light

log = logging.getLogger(__name__)

RETRY: Final = 1.0  # seconds between two attempts to reach the broker
KEEPALIVE: Final = 10  # seconds: the broker gives up on a silent board (its will) after 1.5x
RETAINED_S: Final = 0.5  # seconds for the game's retained messages before the hello
OUTBOX: Final = 1000  # messages waiting for the broker; past it spectator events are dropped
STOP_S: Final = 2.0  # seconds a client may take to leave the broker when stopped, per try


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


def with_url_login(url: BrokerUrl, credentials: Credentials) -> Credentials:
    """``credentials``, with the user and password the URL carries where they name none
    (``mqtts://USER:PASSWORD@HOST/GAME``: a command line with no config)."""
    if credentials.user is not None or url.user is None:
        return credentials
    return replace(credentials, user=url.user, password=url.password)


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
        self.credentials = with_url_login(url, credentials or Credentials())
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
            text = _("the broker is away: a message for {topic} dropped")
            log.warning("%s", text.format(topic=topic_text))

    def start(self, loop: asyncio.AbstractEventLoop | None = None) -> asyncio.Task[None]:
        """Run on ``loop`` (default: the running one)."""
        loop = loop or asyncio.get_running_loop()
        self._task = loop.create_task(self._run(), name="mqtt link")
        return self._task

    async def _run(self) -> None:
        import aiomqtt  # only in a remote game

        while not self._stopping:
            try:
                async with session(self._make_client()) as client:
                    self._client = client
                    await self._session(client)
            except aiomqtt.MqttError as exc:
                if not self._stopping:
                    log.warning("%s", _broker_away(self.url, exc, self.retry))
            except (OSError, ssl.SSLError) as exc:
                log.warning("%s", _broker_away(self.url, exc, self.retry))
            finally:
                self._client = None
                self.game.set_connected(False)
            if not self._stopping:
                await asyncio.sleep(self.retry)

    @property
    def client_id(self) -> str:
        """One MQTT session per install, whatever id the board is given: a second client on
        an id takes the session over (the broker drops the first), so two boards on one
        would drop each other, and a newcomer would take a board's seat as its own. The
        same board restarted takes its own session back from the broker at once."""
        assert self.game.install_id, "the game is attached first: its state directory keeps it"
        return f"orbito-hw-{self.game.install_id}-{self.game.game}"

    def _make_client(self) -> aiomqtt.Client:
        import aiomqtt

        will_topic, will_payload = self.game.will()
        c = self.credentials
        return aiomqtt.Client(
            self.url.host,
            self.url.port,
            identifier=self.client_id,
            username=c.user,
            password=c.password,
            will=aiomqtt.Will(will_topic, will_payload, qos=1, retain=True),
            keepalive=KEEPALIVE,
            tls_context=tls_context(self.url, c),
            timeout=10,
        )

    async def _session(self, client: aiomqtt.Client) -> None:
        await client.subscribe(game_filter(self.game.game), qos=1)
        await self._read_retained(client)
        if self.game.taken_by is not None:  # this board came second: it stays out
            self.game.refuse_taken()
            claim_topic, claim = self.game.claim()  # the holder hears it; the broker keeps
            await client.publish(claim_topic, claim, qos=1, retain=False)  # the holder's hello
            self._stopping = True
            return  # a clean goodbye: the broker forgets this board's will
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
                self.game.on_message(str(message.topic), raw, bool(message.retain))
                self.after()
        finally:
            sender.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await sender

    async def _read_retained(self, client: aiomqtt.Client) -> None:
        """The game's retained messages, before this board says hello: whether its colour
        is already played by another board online (``game.taken_by``). They are waited for,
        then taken from the queue as they stand (no read is ever cut off mid-way: a message
        in flight would be lost)."""
        await asyncio.sleep(RETAINED_S)
        for _queued in range(len(client.messages)):
            message = await anext(client.messages)  # queued already: at once
            self.game.on_message(str(message.topic), raw_payload(message.payload),
                                 bool(message.retain))  # fmt: skip
            self.after()

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
        task, self._task = self._task, None
        if task is not None:
            await end_task(task, "the broker link")


async def end_task(task: asyncio.Task[None], what: str) -> None:
    """Cancel ``task`` and wait for it, ``STOP_S`` at a time: a client stuck in a goodbye
    the broker never answers (aiomqtt awaits the disconnect with no bound) is cancelled again
    there, so that stopping never hangs, and what it holds is let go (``session``)."""
    for _attempt in range(3):
        task.cancel()
        done, _pending = await asyncio.wait({task}, timeout=STOP_S)
        if done:
            if not task.cancelled():
                task.exception()  # retrieved: a failure on the way out is no news
            return
    text = _("{what} did not stop within {seconds} s")
    log.warning("%s", text.format(what=what, seconds=f"{3 * STOP_S:g}"))


def _broker_away(url: object, exc: Exception, retry: float) -> str:
    text = _("the broker {url}: {reason} (again in {seconds} s)")
    return text.format(url=url, reason=exc, seconds=f"{retry:g}")


@contextlib.asynccontextmanager
async def session(client: aiomqtt.Client) -> AsyncIterator[aiomqtt.Client]:
    """``async with client``, and after it, however it ended, what the client leaves
    behind closed while the loop still runs (``_abandon``)."""
    connected = _connect_watched(client)
    try:
        async with client:
            yield client
    finally:
        if connected is None or connected.done():
            await _abandon(client)
        else:
            # Stopped while aiomqtt's connect still runs in its executor thread: that thread
            # will hand the loop the new socket's descriptor (add_reader, add_writer, the
            # timer task). Closing the socket before those land would let them act on a
            # closed descriptor, or on whatever socket reuses its number (the page's, the
            # journal's). The leftovers are closed once the thread is done, after them.
            connected.add_done_callback(lambda _done: _close_leftovers(client))


def _connect_watched(client: aiomqtt.Client) -> asyncio.Future[None] | None:
    """A future done once aiomqtt's blocking connect (``_client_connect``, run in an executor
    thread that a cancellation does not stop) has returned, told through the loop after
    every callback the thread queued. None if this aiomqtt has no such method."""
    connect = getattr(client, "_client_connect", None)
    if connect is None:
        return None
    loop = asyncio.get_running_loop()
    returned: asyncio.Future[None] = loop.create_future()

    def settle() -> None:
        if not returned.done():
            returned.set_result(None)

    def connect_then_tell() -> None:
        try:
            connect()
        finally:
            with contextlib.suppress(RuntimeError):  # the loop closed meanwhile: nothing to do
                loop.call_soon_threadsafe(settle)

    client._client_connect = connect_then_tell  # type: ignore[method-assign]
    return returned


async def _abandon(client: aiomqtt.Client) -> None:
    """What a client leaves behind once it is done, above all when it was stopped while it
    connected (a broker that accepts and never answers) or after a disconnect it could not
    make gracefully: paho's socket and aiomqtt's timer task, which would fail after the
    loop has closed ("Event loop is closed", "Task was destroyed but it is pending"). Both
    are closed here, on the running loop."""
    task = _close_leftovers(client)
    if task is not None:
        with contextlib.suppress(BaseException):
            await task


def _close_leftovers(client: aiomqtt.Client) -> asyncio.Task[None] | None:
    """Close paho's socket and cancel aiomqtt's timer task; the task, to wait for.
    aiomqtt has no public way to do it: the names are looked up, and a version without them
    leaves nothing to close. The connection's loss is read too: a link stopped just as it
    was dropped (a cut) leaves it unread, and asyncio would say so at the exit."""
    paho = getattr(client, "_client", None)
    with contextlib.suppress(Exception):
        getattr(paho, "_reset_sockets", lambda: None)()
    lost = getattr(client, "_disconnected", None)
    if isinstance(lost, asyncio.Future) and lost.done() and not lost.cancelled():
        lost.exception()
    task = getattr(client, "_misc_task", None)
    if isinstance(task, asyncio.Task) and not task.done():
        task.cancel()
        return task
    return None


def raw_payload(payload: object) -> bytes:
    return payload if isinstance(payload, bytes) else str(payload).encode()
