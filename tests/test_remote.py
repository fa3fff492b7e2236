"""Two simulated boards play each other through a real mosquitto (Debian's package),
started here on a free loopback port with its own config file and stopped after.

Each scenario ends with both boards' journals equal to the engine's replay of the game.
"""

from __future__ import annotations

import asyncio
import json
import logging
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from orbito_hw.control.events import (
    BoardTurn,
    Fault,
    GameOver,
    Rejected,
    RemoteStatus,
    TakeBack,
    TakenBack,
    TurnPlayed,
)
from orbito_hw.control.lights import Palette
from orbito_hw.mock.remote import RemoteMock
from orbito_hw.remote.protocol import Record, topic
from orbito_hw.remote.spectator import Spectator
from orbito_hw.rules.game import Colour, replay
from orbito_hw.rules.turn import Turn
from orbito_hw.sim.demo import turn_commands

from .common.needs import free_port, missing
from .common.scripts import undo_commands
from .common.two_boards import (
    GAME,
    Broker,
    assert_records,
    boards,
    close,
    game,
    join,
    play_turn,
    playing,
    scenario,
    told,
    until,
)

if TYPE_CHECKING:
    from orbito_hw.mock.realtime import RealTime
    from orbito_hw.web.server import WebServer


# --- whole games ---------------------------------------------------------------------------------
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_two_boards_play_a_whole_game_to_the_engines_result(
    broker: Broker, tmp_path: Path, seed: int
) -> None:
    rng, turns = game(seed)

    async def body() -> None:
        async with playing(broker, tmp_path) as both:
            for number, turn in enumerate(turns, 1):
                await play_turn(both, number, turn, rng)
            result = replay(Colour.BLACK, [t.notation() for t in turns]).result
            await until(lambda: all(told(b, GameOver) for b in both.values()), both)
            for board in both.values():
                over = [e for e in board.events if isinstance(e, GameOver)]
                assert [e.result for e in over] == [result]
            assert_records(both, Colour.BLACK, turns)

    scenario(body)


def test_a_press_before_the_other_boards_turn_arrives_is_refused(
    broker: Broker, tmp_path: Path
) -> None:
    async def body() -> None:
        async with playing(broker, tmp_path) as both:
            white = both[Colour.WHITE]
            white.do("put a1")  # black's turn, made at white's board before it came
            white.do("press")
            refusals = [e for e in white.events if isinstance(e, Rejected)]
            assert refusals and "wait for the other board's turn" in refusals[-1].reason
            assert white.run.referee.saved.turns == []

    scenario(body)


# --- the broker and the boards going away --------------------------------------------------------
def test_the_broker_restarted_mid_game_the_game_goes_on(broker: Broker, tmp_path: Path) -> None:
    rng, turns = game(4)

    async def body() -> None:
        async with playing(broker, tmp_path) as both:
            for number, turn in enumerate(turns[:3], 1):
                await play_turn(both, number, turn, rng)
            broker.stop()
            await until(
                lambda: all(told(b, RemoteStatus, state="disconnected") for b in both.values()),
                both,
            )
            # The status pixel says the link is down; the turn made meanwhile is journaled.
            black = both[Colour.BLACK]
            assert black.run.lights_frame()[1] == Palette().fault
            mover = both[Colour.BLACK].run.referee.position.to_move
            for command in turn_commands(turns[3], rng):
                both[mover].command(command)
            both[mover].run.wait_for_rings()
            assert both[mover].run.referee.saved.turns[-1] == turns[3].notation()
            broker.start()  # empty: no retained message survived
            await until(lambda: told(both[mover.other], BoardTurn, number=4), both)
            for command in turn_commands(turns[3], rng, board=True):
                both[mover.other].command(command)
            await until(lambda: all(told(b, TurnPlayed, number=4) for b in both.values()), both)
            for number, turn in enumerate(turns[4:], 5):
                await play_turn(both, number, turn, rng)
            assert_records(both, Colour.BLACK, turns)
            assert black.run.lights_frame()[1] != Palette().fault

    scenario(body)


def test_a_board_power_cut_and_back_resumes_with_the_same_record(
    broker: Broker, tmp_path: Path
) -> None:
    rng, turns = game(5)

    async def body() -> None:
        async with playing(broker, tmp_path) as both:
            for number, turn in enumerate(turns[:2], 1):
                await play_turn(both, number, turn, rng)
            black, white = both[Colour.BLACK], both[Colour.WHITE]
            for command in turn_commands(turns[2], rng):
                black.command(command)
            await until(lambda: told(white, BoardTurn, number=3), both)
            await white.power_cut(back=False)  # the turn shown, not made: shown again after
            await until(lambda: told(black, RemoteStatus, state="opponent-offline"), both)
            assert black.run.lights_frame()[1] == Palette().fault
            white.connect()
            await until(lambda: black.game.opponent_online is True, both)
            assert white.run.referee.board_turn == turns[2]
            for command in turn_commands(turns[2], rng, board=True):
                white.command(command)
            await until(lambda: told(black, TurnPlayed, number=3), both)
            await black.power_cut()  # waiting for white's turn
            for number, turn in enumerate(turns[3:], 4):
                await play_turn(both, number, turn, rng)
            assert_records(both, Colour.BLACK, turns)

    scenario(body)


# --- messages that must change nothing -----------------------------------------------------------
async def publish(broker: Broker, topic_text: str, payload: bytes) -> None:
    import aiomqtt

    async with aiomqtt.Client("127.0.0.1", broker.port, identifier="a-third-client") as client:
        await client.publish(topic_text, payload, qos=1)


def test_doubled_late_and_forged_messages_change_nothing(
    broker: Broker, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    rng, turns = game(6)

    async def body() -> None:
        async with playing(broker, tmp_path) as both:
            await play_turn(both, 1, turns[0], rng)
            old = both[Colour.BLACK].game.record()  # black's record after turn 1
            for number, turn in enumerate(turns[1:4], 2):
                await play_turn(both, number, turn, rng)
            black, white = both[Colour.BLACK], both[Colour.WHITE]
            now = black.game.record()
            shown = len([e for e in white.events if isinstance(e, BoardTurn)])
            where = topic(GAME, Colour.BLACK, "record")
            caplog.set_level(logging.WARNING, logger="orbito_hw.remote")
            await publish(broker, where, now.to_bytes())  # doubled
            await publish(broker, where, old.to_bytes())  # late
            # forged: a legal next turn for black from a board not in the game
            position = replay(Colour.BLACK, list(now.turns))
            next_turn = next(iter(position.legal_turns())).notation()
            forged = Record(
                GAME, 1, "intruder", Colour.BLACK, Colour.BLACK, (*now.turns, next_turn)
            )
            await publish(broker, where, forged.to_bytes())
            # illegal: the real board's id, a turn that is not even notation
            illegal = Record(GAME, 1, "black-board", Colour.BLACK, Colour.BLACK, (*now.turns, "zz"))
            await publish(broker, where, illegal.to_bytes())
            await publish(broker, where, b"\xff\x00 not json")
            await until(lambda: "(byte 0)" in caplog.text, both)
            await asyncio.sleep(0.2)
            assert len([e for e in white.events if isinstance(e, BoardTurn)]) == shown
            assert white.run.referee.board_turn is None
            assert "intruder is not in the game" in caplog.text
            assert "turn 5 ('zz') refused" in caplog.text
            for number, turn in enumerate(turns[4:], 5):
                await play_turn(both, number, turn, rng)
            assert_records(both, Colour.BLACK, turns)

    scenario(body)


# --- spectators ----------------------------------------------------------------------------------
def test_a_spectator_lists_the_games_and_follows_one(broker: Broker, tmp_path: Path) -> None:
    rng, turns = game(7)

    async def body() -> None:
        both = boards(broker, tmp_path)
        for board in both.values():
            board.game.publish_events = True
        seen: list[tuple[str, Colour, dict[str, object]]] = []
        follower = Spectator(broker.url(), GAME, lambda g, c, e: seen.append((g, c, e)))
        try:
            await join(both)
            follower.start()
            await asyncio.sleep(0.3)
            await play_turn(both, 1, turns[0], rng)
            games = await Spectator(broker.url()).list_games()
            assert [g.game for g in games] == [GAME]
            assert games[0].to_json()["moves"] == turns[0].notation()
            assert games[0].online == {Colour.BLACK: True, Colour.WHITE: True}
            await until(lambda: any(e.get("event") == "turn" for _, _, e in seen), both)
        finally:
            await follower.stop()
            await close(both)

    scenario(body)


# --- take-backs --------------------------------------------------------------------------------
async def undo(board: RemoteMock, number: int, turn: Turn, both: dict[Colour, RemoteMock]) -> None:
    """The person at ``board`` undoes turn ``number`` once its rings have turned back."""
    await until(lambda: told(board, TakeBack, number=number), both)
    board.run.wait_for_rings()
    for command in undo_commands(turn):
        board.command(command)
    await until(lambda: told(board, TakenBack, number=number), both)


def test_a_take_back_on_one_board_is_carried_out_on_both(broker: Broker, tmp_path: Path) -> None:
    rng, turns = game(8)

    async def body() -> None:
        async with playing(broker, tmp_path) as both:
            for number, turn in enumerate(turns[:3], 1):
                await play_turn(both, number, turn, rng)
            black, white = both[Colour.BLACK], both[Colour.WHITE]
            # White's move: white's person takes back black's turn 3 and their own turn 2.
            white.do("hold 2.5")
            await undo(white, 3, turns[2], both)
            await undo(white, 2, turns[1], both)
            # Black's board follows, one turn at a time, its LEDs showing what to undo.
            await undo(black, 3, turns[2], both)
            await undo(black, 2, turns[1], both)
            kept = [turns[0].notation()]
            await until(lambda: all(b.run.referee.saved.turns == kept for b in both.values()), both)
            assert black.game.kept.takebacks == white.game.kept.takebacks == 2
            # The game goes on from there, to its end.
            position = replay(Colour.BLACK, kept)
            rest: list[Turn] = []
            while position.result is None:
                rest.append(rng.choice(list(position.legal_turns())))
                position = position.play(rest[-1])
            for number, turn in enumerate(rest, 2):
                await play_turn(both, number, turn, rng)
            assert_records(both, Colour.BLACK, [turns[0], *rest])

    scenario(body)


def test_a_board_on_the_web_page_plays_in_the_remote_game(broker: Broker, tmp_path: Path) -> None:
    """`run --mock --web --remote URL --plays white --board-id page-board`: the page's board
    joins the game, as the id given, and the other board's turn reaches its page as a remote
    board-turn."""
    port = free_port()
    url = f"mqtt://127.0.0.1:{broker.port}/{GAME}"
    command = ["run", "--mock", "--web", "--port", str(port), "--remote", url, "--plays", "white",
               "--board-id", "page-board"]  # fmt: skip
    web = subprocess.Popen(
        [sys.executable, "-m", "orbito_hw", *command, "--state-dir", str(tmp_path / "web")],
        stderr=subprocess.PIPE,
    )
    try:
        state = wait_for_page(port)
        assert state is not None, "the page never answered"

        async def black_plays() -> None:
            black = RemoteMock(broker.url(), Colour.BLACK, tmp_path / "black", retry=0.1)
            black.connect()
            try:
                await until(
                    lambda: "opponent-online" in remote_states(black), {Colour.BLACK: black}
                )
                black.do("put a1")
                black.do("press")
                await until(lambda: black.run.referee.saved.turns == ["a1"], {Colour.BLACK: black})
                assert black.game.kept.opponent == "page-board"
            finally:
                await black.close()

        asyncio.run(black_plays())
        # The page's person makes the other board's turn here, clicking as SPEC.md says.
        click(port, "/api/square/a1")
        deadline = time.monotonic() + 15
        while page_turns(port) != ["a1"]:  # refused until the other board's turn is here
            assert time.monotonic() < deadline, "the page never showed the other board's turn"
            click(port, "/api/press")
            time.sleep(0.2)
    finally:
        web.terminate()
        assert web.wait(15) == 0, web.stderr.read().decode() if web.stderr else ""


def wait_for_page(port: int) -> dict[str, object] | None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/state", timeout=2) as answer:
                state: dict[str, object] = json.load(answer)
                return state
        except OSError:
            time.sleep(0.1)
    return None


def page_turns(port: int) -> list[object]:
    """The turns of the game as the page's board knows them."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/state", timeout=2) as answer:
        turns = json.load(answer).get("turns")
        return turns if isinstance(turns, list) else []


def click(port: int, path: str) -> None:
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=b"", method="POST")
    with urllib.request.urlopen(request, timeout=5) as answer:
        assert answer.status == 200


def remote_states(board: RemoteMock) -> set[str]:
    return {e.state for e in board.events if isinstance(e, RemoteStatus)}


def watching(
    broker: Broker, tmp_path: Path
) -> tuple[dict[Colour, RemoteMock], RealTime, WebServer]:
    """Two boards publishing their events, and a page watching the broker (the black
    board's: any board's page watches it): the boards, the page's clock and its server."""
    from orbito_hw.archive.reading import ArchiveReads
    from orbito_hw.mock.page import MockControls
    from orbito_hw.mock.realtime import RealTime
    from orbito_hw.remote.link import Credentials
    from orbito_hw.remote.spectator import BrokerWatch
    from orbito_hw.web.server import WebServer

    both = boards(broker, tmp_path)
    for board in both.values():
        board.game.publish_events = True
    watcher = both[Colour.BLACK].run
    clock = RealTime(watcher, asyncio.get_running_loop())
    server = WebServer(
        MockControls(watcher, clock),
        None,
        ArchiveReads(tmp_path),
        BrokerWatch(broker.url(), Credentials()),
    )
    return both, clock, server


def test_the_web_page_lists_the_brokers_games_and_follows_one_live(
    broker: Broker, tmp_path: Path
) -> None:
    """/api/watch: the games on the broker with their boards; /watch/events?game=G: the
    game's events live, as its boards publish them; a bad name is a 400."""
    from aiohttp.test_utils import TestClient, TestServer

    rng, turns = game(9)

    async def body() -> None:
        both, clock, server = watching(broker, tmp_path)
        try:
            await join(both)
            await play_turn(both, 1, turns[0], rng)
            async with TestClient(TestServer(server.app())) as client:
                listed = await (await client.get("/api/watch")).json()
                assert listed["available"]
                (entry,) = listed["games"]
                position = replay(Colour.BLACK, [turns[0].notation()])
                assert (entry["game"], entry["moves"]) == (GAME, turns[0].notation())
                assert entry["board"] == position.board()
                assert (await client.get("/watch/events?game=no/such")).status == 400
                assert (await client.get("/watch")).status == 200
                stream = await client.get(f"/watch/events?game={GAME}")
                assert stream.status == 200
                await asyncio.sleep(0.5)  # the spectator subscribes
                await play_turn(both, 2, turns[1], rng)
                seen: list[dict[str, object]] = []
                while not any(e.get("turn") == turns[1].notation() for e in seen):
                    line = await asyncio.wait_for(stream.content.readline(), 15)
                    if line.startswith(b"data: "):
                        seen.append(json.loads(line[6:]))
                played = [e for e in seen if e.get("event") == "turn"]
                assert played[0]["from"] in ("black", "white")
                stream.close()
        finally:
            clock.stop()
            await close(both)

    scenario(body)


def test_a_spectators_page_in_a_browser_follows_the_game_live(
    broker: Broker, tmp_path: Path
) -> None:
    """/watch?game=G in Debian's chromium: the game as the broker's records have it, then
    each turn as its board publishes it."""
    from aiohttp.test_utils import TestClient, TestServer

    from scripts.chromium import ARGS, CHROMIUM

    from .common.browser import marbles_of

    try:
        from playwright.async_api import async_playwright
    except ImportError:
        missing("playwright (the test extra)")
    if not CHROMIUM.exists():
        missing("chromium (apt-get install chromium)")
    rng, turns = game(11)
    tokens = [turn.notation() for turn in turns[:3]]
    count = "n => document.querySelectorAll('[data-turn]').length === n"
    marbles = "e => e.filter(x => x.dataset.marble).map(x => [x.dataset.square, x.dataset.marble])"

    async def body() -> None:
        both, clock, server = watching(broker, tmp_path)
        try:
            await join(both)
            await play_turn(both, 1, turns[0], rng)
            async with TestClient(TestServer(server.app())) as client, async_playwright() as pw:
                browser = await pw.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
                page = await browser.new_page()
                await page.goto(str(client.make_url(f"/watch?game={GAME}")))
                for number in range(1, len(tokens) + 1):
                    if number > 1:
                        await play_turn(both, number, turns[number - 1], rng)
                    await page.wait_for_function(count, arg=number, timeout=15_000)
                    shown = await page.eval_on_selector_all(
                        "[data-turn]", "e => e.map(x => x.dataset.turn)"
                    )
                    assert shown == tokens[:number]
                    expected = marbles_of(replay(Colour.BLACK, tokens[:number]))
                    assert (
                        dict(await page.eval_on_selector_all("[data-square]", marbles)) == expected
                    )
                    if number == 1:  # the records' game is drawn: now live
                        await page.wait_for_function(
                            "() => document.getElementById('watch-status').textContent === 'live'"
                        )
                        await asyncio.sleep(0.5)  # the spectator subscribes on the broker
                await browser.close()
        finally:
            clock.stop()
            await close(both)

    scenario(body)


def test_without_a_broker_the_watch_page_says_so() -> None:
    from aiohttp.test_utils import TestClient, TestServer

    from orbito_hw.archive.reading import ArchiveReads
    from orbito_hw.mock.page import MockControls
    from orbito_hw.mock.realtime import RealTime
    from orbito_hw.sim.harness import MockRun
    from orbito_hw.web.server import WebServer

    async def body() -> None:
        run = MockRun()
        clock = RealTime(run, asyncio.get_running_loop())
        server = WebServer(MockControls(run, clock), None, ArchiveReads(run.state_dir))
        try:
            async with TestClient(TestServer(server.app())) as client:
                assert (await (await client.get("/api/watch")).json())["available"] is False
                assert (await client.get("/watch/events?game=x")).status == 404
        finally:
            clock.stop()
            run.close()

    asyncio.run(body())


def test_a_colour_already_played_is_refused_on_the_board_that_came_second(
    broker: Broker, tmp_path: Path
) -> None:
    """A third board joining as white: it says, once, that white is taken and stays out;
    the white board says it refused it; the two boards of the game keep their link (no
    session handed back and forth) and play."""

    async def body() -> None:
        rng, turns = game(4)
        async with playing(broker, tmp_path) as both:
            marks = {colour: len(board.events) for colour, board in both.items()}
            second = RemoteMock(
                broker.url(), Colour.WHITE, tmp_path / "second", board_id="second-board",
                retry=0.1,
            )  # fmt: skip
            try:
                second.connect()
                white = both[Colour.WHITE]
                await until(lambda: told(second, Fault) and told(white, Fault, marks[Colour.WHITE]),
                            both)  # fmt: skip
                faults = [e for e in second.events if isinstance(e, Fault)]
                assert len(faults) == 1 and "already played" in faults[0].reason
                refusals = [e for e in white.events[marks[Colour.WHITE] :] if isinstance(e, Fault)]
                assert len(refusals) == 1
                assert refusals[0].reason.startswith("board second-board asked to play white")
                assert not told(both[Colour.BLACK], Fault, marks[Colour.BLACK])
                for colour, board in both.items():
                    assert not told(board, RemoteStatus, marks[colour], state="disconnected")
                await play_turn(both, 1, turns[0], rng)
            finally:
                await second.close()

    scenario(body)


def test_a_broker_that_never_answers_leaves_a_quiet_end(tmp_path: Path) -> None:
    """A listener that accepts and says nothing (no CONNACK): the run ends as it should,
    exit 0, and nothing is left behind to fail after the loop has closed."""
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(8)
    port = silent.getsockname()[1]
    script = tmp_path / "script.txt"
    script.write_text("put a1\nwait 1\n")
    try:
        url = f"mqtt://127.0.0.1:{port}/{GAME}"
        argv = ["run", "--mock", "--remote", url, "--plays", "white", "--events", str(script)]
        done = subprocess.run(
            [sys.executable, "-m", "orbito_hw", *argv], capture_output=True, text=True, timeout=60
        )
    finally:
        silent.close()
    assert done.returncode == 0, done.stderr
    for trace in ("Exception ignored", "Task was destroyed", "Traceback", "Event loop is closed"):
        assert trace not in done.stderr, done.stderr


def test_the_same_game_name_played_again_starts_afresh(broker: Broker, tmp_path: Path) -> None:
    """The README's two boards, a game of "kitchen" left after two turns, then two new
    boards (nothing kept of it) on the same name: the broker's records of the old game are
    history, the new boards agree on a new round and play it from the first turn."""

    async def body() -> None:
        rng, turns = game(5)
        async with playing(broker, tmp_path / "first") as both:
            for number, turn in enumerate(turns[:2], 1):
                await play_turn(both, number, turn, rng)
        rng, turns = game(6)
        async with playing(broker, tmp_path / "again") as both:
            for number, turn in enumerate(turns[:2], 1):
                await play_turn(both, number, turn, rng)
            for board in both.values():
                assert not [e for e in board.events if isinstance(e, Fault)]
                assert not [e for e in board.events if isinstance(e, BoardTurn) and e.number > 2]
            assert_records(both, Colour.BLACK, turns[:2])

    scenario(body)


def test_a_spectator_stopped_while_it_connects_leaves_no_descriptor_to_chance(
    broker: Broker, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A watch page closed while its broker connection is still being made (aiomqtt connects
    in a thread that a cancellation does not stop): the socket's callbacks, which the thread
    hands the loop late, never act on a closed descriptor, or on the socket that reuses its
    number, and the socket is closed once they have landed. The hostile soak saw 'add_reader
    ... Bad file descriptor' five times in 150 s; here the thread is slowed to make it sure."""
    import paho.mqtt.client as paho

    from orbito_hw.remote.spectator import Spectator

    opened: list[paho.Client] = []
    late = paho.Client._call_socket_open

    def slow_open(self: paho.Client, sock: object) -> None:
        opened.append(self)
        time.sleep(0.3)  # the socket is made; its callbacks reach the loop only now
        late(self, sock)

    monkeypatch.setattr(paho.Client, "_call_socket_open", slow_open)

    async def body() -> list[dict[str, object]]:
        faults: list[dict[str, object]] = []
        loop = asyncio.get_running_loop()
        loop.set_exception_handler(lambda _, context: faults.append(context))
        for _ in range(3):
            spectator = Spectator(broker.url(), GAME, lambda *_: None)
            spectator.start()
            for _ in range(500):
                if opened:
                    break
                await asyncio.sleep(0.01)
            await spectator.stop()  # in the thread's 0.3 s
            # The page's next socket takes the number the broker connection would free.
            with socket.socket() as neighbour:
                await asyncio.sleep(0.6)
                selector = loop._selector  # type: ignore[attr-defined]
                with pytest.raises(KeyError):
                    selector.get_key(neighbour.fileno())  # nobody reads the page's socket
            assert opened.pop()._sock is None  # closed once the thread was done
        return faults

    faults = asyncio.run(body())
    assert faults == []
