"""A simulated board in a remote game, so two simulated boards play each other on one
machine (or across two): ``run --mock --remote mqtt://HOST:PORT/GAME --plays COLOUR``.

``RemoteMock`` is the simulated board (sim/harness.py's MockRun), its side of the game
(``RemoteGame``) and its MQTT link, on the running event loop: the tests drive two of them
on one loop. worlds.py runs one in real time (realtime.py).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Final

from orbito_hw.control.events import Event, EventListener
from orbito_hw.control.referee import Referee
from orbito_hw.control.settings import Settings
from orbito_hw.hw.interfaces import Backend
from orbito_hw.remote.game import RemoteGame
from orbito_hw.remote.link import Credentials, MqttLink
from orbito_hw.remote.protocol import BrokerUrl
from orbito_hw.rules.game import Colour
from orbito_hw.sim.harness import MockRun
from orbito_hw.sim.script import Command, parse_line

SETTLE: Final = 0.5  # seconds at the end of a script for the last messages to go out


class RemoteMock:
    """A simulated board playing ``plays`` in the game ``url`` names."""

    def __init__(
        self,
        url: BrokerUrl,
        plays: Colour,
        state_dir: str | Path | None = None,
        *,
        starts: Colour | None = None,
        board_id: str | None = None,
        backend: Backend = "sim",
        settings: Settings | None = None,
        seed: int | None = None,
        on_event: EventListener | None = None,
        on_boot: Callable[[Referee], None] | None = None,
        credentials: Credentials | None = None,
        publish_events: bool = False,
        retry: float = 1.0,
        wake: Callable[[], None] = lambda: None,
        keep_events: bool = True,
    ) -> None:
        assert url.game is not None
        # Every event kept, for the tests that read them; not in a world that runs for days
        # (the page and the prompt hear each event as it comes, through ``on_event``).
        self.keep_events = keep_events
        self.url, self.plays, self.retry, self.wake = url, plays, retry, wake
        # None: the install's own, made once in the state directory (a fresh temporary one
        # without --state-dir: an id per run), so that two simulated boards on one machine
        # are two boards to the broker; read again after each power cut, the same.
        self.board_id = board_id
        self.credentials = credentials
        self.publish_events = publish_events
        self.events: list[Event] = []
        self._on_event = on_event
        self._on_boot = on_boot
        base = settings or Settings()
        first = self.starts = starts or base.first
        self.game = self._new_game()
        self.run = MockRun(
            state_dir,
            replace(base, first=first, opponent=self.game.player),
            backend,
            self._event,
            seed=seed,
            on_boot=self._boot,
            keep_events=keep_events,
        )
        self.link: MqttLink | None = None

    def _new_game(self) -> RemoteGame:
        assert self.url.game is not None
        return RemoteGame(
            self.url.game,
            self.plays,
            self.starts,
            self.board_id,
            self._event,
            self.publish_events,
        )

    def _boot(self, referee: Referee) -> None:
        if self._on_boot is not None:
            self._on_boot(referee)
        self.game.attach(referee)

    def _event(self, event: Event) -> None:
        if self.keep_events:
            self.events.append(event)
        if self._on_event is not None:
            self._on_event(event)
        self.game.on_event(event)

    # --- the link ------------------------------------------------------------------------------
    def connect(self, loop: asyncio.AbstractEventLoop | None = None) -> None:
        """Join the game on the broker (on ``loop``, default the running one)."""
        self.link = MqttLink(self.game, self.url, self.credentials, self.retry, self.wake)
        self.link.start(loop)

    async def leave(self) -> None:
        if self.link is not None:
            await self.link.stop()
            self.link = None

    async def power_cut(self, back: bool = True) -> None:
        """The board loses power: the link goes without a word (the broker tells the other
        board), the controller restarts from its journal, and (``back``) joins again."""
        if self.link is not None:
            await self.link.cut()
        self.game = self._new_game()  # what it knew in memory is gone
        self.run.settings = replace(self.run.settings, opponent=self.game.player)
        self.run.power_cut()
        if back:
            self.connect()

    # --- the person at the board -------------------------------------------------------------
    def do(self, line: str) -> None:
        """One board-script command, as a person does it."""
        command = parse_line(line)
        assert command is not None, line
        self.command(command)

    def command(self, command: Command, first_command: bool = False) -> None:
        try:
            self.run.run(command, first_command=first_command)
        finally:
            self.wake()

    async def close(self) -> None:
        await self.leave()
        self.run.close()
