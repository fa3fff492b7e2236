"""A board's identity that is its own (issue 34, item 8): an id made once per install and kept
in the state directory, the broker's client id made from it, and a seat held by it.

The id file is data: any bytes in it give a usable id, and a damaged file is moved aside,
never deleted. Against a real mosquitto (conftest.py's broker): a third board joining as a colour
held (`run --mock --remote ... --plays black`, as the issue has it) is refused in words on
both sides and the game goes on; boards on one host name are boards of their own; a board
restarted on its state directory takes its own seat back, its old session with it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from orbito_hw.control.events import BoardTurn, Fault, NewGame, RemoteStatus, TurnPlayed
from orbito_hw.mock.remote import RemoteMock
from orbito_hw.remote.identity import ID_FILE, OwnId, host_colour_id, own_board_id
from orbito_hw.remote.protocol import NAME, BrokerUrl, Presence, topic
from orbito_hw.rules.game import Colour

from .common.two_boards import (
    GAME,
    Broker,
    assert_records,
    close,
    game,
    join,
    play_turn,
    scenario,
    told,
    until,
)

B, W = Colour.BLACK, Colour.WHITE
NOWHERE = BrokerUrl("127.0.0.1", 1, False, GAME)  # for boards that never connect
IDS = st.from_regex(NAME, fullmatch=True).map(str.encode)


def folders(root: Path, *names: str) -> list[Path]:
    made = [root / name for name in names]
    for folder in made:
        folder.mkdir()
    return made


# --- the id file -------------------------------------------------------------------------------
def test_an_id_is_made_once_and_kept(tmp_path: Path) -> None:
    one, other = folders(tmp_path, "one", "other")
    first = own_board_id(one)
    assert first.warning == ""
    assert NAME.fullmatch(first.board_id)
    assert (one / ID_FILE).read_text() == first.board_id + "\n"
    assert own_board_id(one) == first  # read again: the same, said nothing
    assert own_board_id(other).board_id != first.board_id  # another install, another id


def test_the_id_is_not_the_host_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two Pis left as raspberrypi: two ids, each readable in a log."""
    monkeypatch.setattr(socket, "gethostname", lambda: "raspberrypi")
    made = {own_board_id(folder).board_id for folder in folders(tmp_path, "a", "b")}
    assert len(made) == 2
    assert all(re.fullmatch(r"raspberrypi-[0-9a-f]{12}", board) for board in made)


@settings(max_examples=200, deadline=None)
@given(
    data=st.binary(max_size=300)
    | IDS
    | IDS.map(lambda i: i + b"\n")  # as the board writes it
    | st.lists(IDS, min_size=2, max_size=3).map(b"\n".join)
)
def test_any_bytes_in_the_id_file_give_a_usable_id_and_nothing_is_lost(data: bytes) -> None:
    with tempfile.TemporaryDirectory() as folder:
        state = Path(folder)
        (state / ID_FILE).write_bytes(data)
        own = own_board_id(state)
        assert NAME.fullmatch(own.board_id)
        text = data.decode("latin-1")
        if NAME.fullmatch(text.removesuffix("\n")):  # one id on one line: taken as it is
            assert own == OwnId(text.removesuffix("\n"))
            assert [p.name for p in state.iterdir()] == [ID_FILE]
            assert (state / ID_FILE).read_bytes() == data
        else:  # moved aside as it was, a new id made, kept and said
            kept = state / f"{ID_FILE}.damaged-1"
            assert kept.read_bytes() == data
            assert (state / ID_FILE).read_text() == own.board_id + "\n"
            assert f"this board's id file {state / ID_FILE} is damaged (" in own.warning
            assert own.warning.endswith(f"; kept as {kept}; this board is now {own.board_id}")
            assert own_board_id(state) == OwnId(own.board_id)  # the new one from now on


def test_each_damaged_id_file_is_kept_beside_the_last(tmp_path: Path) -> None:
    for n, data in enumerate((b"\xff\xfe", b"two\nlines\n"), 1):
        (tmp_path / ID_FILE).write_bytes(data)
        assert f"kept as {tmp_path / f'{ID_FILE}.damaged-{n}'}" in own_board_id(tmp_path).warning
        assert (tmp_path / f"{ID_FILE}.damaged-{n}").read_bytes() == data


def test_a_directory_that_cannot_keep_the_id_gives_one_for_the_run(tmp_path: Path) -> None:
    not_a_directory = tmp_path / "file"
    not_a_directory.write_text("")
    own = own_board_id(not_a_directory)
    assert NAME.fullmatch(own.board_id)
    assert f"cannot keep this board's id in {not_a_directory / ID_FILE}" in own.warning
    assert own.warning.endswith(f"{own.board_id} for this run only")


# --- the id on a board -------------------------------------------------------------------------
def test_a_damaged_id_file_is_a_fault_the_players_see(tmp_path: Path) -> None:
    (tmp_path / ID_FILE).write_text("not an id!\n")
    board = RemoteMock(NOWHERE, B, tmp_path)
    try:
        (fault,) = [e.reason for e in board.events if isinstance(e, Fault)]
        assert "is damaged ('not an id!' is not an id)" in fault
        assert fault.endswith(f"this board is now {board.game.board_id}")
        assert (tmp_path / f"{ID_FILE}.damaged-1").read_text() == "not an id!\n"
    finally:
        board.run.close()


def test_the_board_plays_as_its_own_id_or_the_one_named(tmp_path: Path) -> None:
    mine, named_dir = folders(tmp_path, "mine", "named")
    own = own_board_id(mine).board_id
    board = RemoteMock(NOWHERE, B, mine)
    named = RemoteMock(NOWHERE, W, named_dir, board_id="kitchen")
    try:
        assert board.game.board_id == board.game.install_id == own
        # Named: the hello says the name; the client id is still the install's own.
        assert named.game.board_id == "kitchen"
        assert named.game.install_id == own_board_id(named_dir).board_id != own
        kept = json.loads((named_dir / "remote.json").read_text())
        assert (kept["board"], kept["joined"]) == ("kitchen", False)  # no hello said yet
    finally:
        board.run.close()
        named.run.close()


@pytest.mark.parametrize("kept_board", [None, 123, "not an id!"])
def test_a_game_begun_before_boards_had_their_own_ids_goes_on_under_the_old_one(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, kept_board: object
) -> None:
    """An upgrade mid-game: remote.json from before keeps no id of the board's (it was the
    host's name and the colour): the game goes on under that one, the other board knows it.
    A board id there that is not one (a hand's edit) is said, and read as none."""
    old: dict[str, object] = {
        "game": GAME, "round": 3, "takebacks": 0, "opponent": "x-white", "local_game": 1
    }  # fmt: skip
    if kept_board is not None:
        old["board"] = kept_board
    (tmp_path / "remote.json").write_text(json.dumps(old))
    board = RemoteMock(NOWHERE, B, tmp_path)
    try:
        assert ("is not an id: ignored" in caplog.text) is (kept_board is not None)
        assert board.game.board_id == host_colour_id(B)
        assert board.game.install_id == own_board_id(tmp_path).board_id  # the client id's
        kept = json.loads((tmp_path / "remote.json").read_text())
        assert (kept["board"], kept["joined"]) == (host_colour_id(B), True)
        assert board.game.taken_by is None  # it had joined: its seat is its own
    finally:
        board.run.close()


# --- against a real broker ---------------------------------------------------------------------
def own_boards(broker: Broker, root: Path) -> dict[Colour, RemoteMock]:
    """The two boards of a game on their own ids (none named), as boards are by default."""
    return {c: RemoteMock(broker.url(), c, root / c.value, retry=0.1) for c in Colour}


async def read_events(stream: asyncio.StreamReader, into: list[dict[str, object]]) -> None:
    async for line in stream:
        into.append(json.loads(line))


def test_an_intruder_on_a_colour_held_is_refused_in_words_and_the_game_goes_on(
    broker: Broker, tmp_path: Path
) -> None:
    """Item 8: two boards play two turns; a third `run --mock --remote ... --plays black`
    (no --state-dir, on the same host) joins. It stays out and says so; the black board says
    it refused it; nobody starts a new game or sees a turn that was not made; the two boards
    keep their sessions, and the game goes on."""
    rng, turns = game(12)
    script = tmp_path / "intruder.txt"
    script.write_text("wait 60\n")  # ended once both sides have said it
    url = f"mqtt://127.0.0.1:{broker.port}/{GAME}"
    argv = ["run", "--mock", "--remote", url, "--plays", "black", "--events", str(script)]

    async def body() -> None:
        both = own_boards(broker, tmp_path)
        black, white = both[B], both[W]
        said: list[dict[str, object]] = []
        try:
            await join(both)
            for number, turn in enumerate(turns[:2], 1):
                await play_turn(both, number, turn, rng)
            marks = {c: len(b.events) for c, b in both.items()}
            intruder = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "orbito_hw", *argv,
                stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            )  # fmt: skip
            assert intruder.stdout is not None and intruder.stderr is not None
            reader = asyncio.create_task(read_events(intruder.stdout, said))
            try:
                await until(
                    lambda: (
                        any(e["event"] == "fault" for e in said) and told(black, Fault, marks[B])
                    ),
                    both,
                    timeout=60,
                )
            finally:
                with contextlib.suppress(ProcessLookupError):
                    intruder.terminate()
                code = await intruder.wait()
                await reader
            assert code == 0, (await intruder.stderr.read()).decode()
            # The intruder: one fault, in words; it never joined.
            assert [e["reason"] for e in said if e["event"] == "fault"] == [
                f"black is already played in game {GAME} by board {black.game.board_id}: "
                "this board stays out (check [remote] plays)"
            ]
            assert not [e for e in said if e.get("state") == "connected"]
            # The black board: one fault, in words, naming the intruder by its own id.
            (refusal,) = [e.reason for e in black.events[marks[B] :] if isinstance(e, Fault)]
            claim = re.fullmatch(
                rf"board (\S+) asked to play black in game {GAME}, which this board "
                rf"\({black.game.board_id}\) plays: refused, the game goes on",
                refusal,
            )
            assert claim is not None, refusal
            assert claim[1] not in (black.game.board_id, white.game.board_id, host_colour_id(B))
            # Nothing else: no new game, no turn shown or made, no session lost, no fault.
            assert not told(white, Fault, marks[W])
            for colour, board in both.items():
                later = board.events[marks[colour] :]
                assert not [e for e in later if isinstance(e, NewGame | BoardTurn | TurnPlayed)]
                assert not told(board, RemoteStatus, marks[colour], state="disconnected")
                assert board.game.kept.round == 1
            assert_records(both, B, turns[:2])
            await play_turn(both, 3, turns[2], rng)
            assert_records(both, B, turns[:3])
        finally:
            await close(both)

    scenario(body)


def test_boards_on_one_host_name_are_boards_of_their_own(
    broker: Broker, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every Pi left as raspberrypi: the two boards of a game play as two, and a third on
    that host name joining as white is a third board, refused, not the white one."""
    monkeypatch.setattr(socket, "gethostname", lambda: "raspberrypi")
    rng, turns = game(13)

    async def body() -> None:
        both = own_boards(broker, tmp_path)
        third = RemoteMock(broker.url(), W, tmp_path / "third", retry=0.1)
        try:
            await join(both)
            await play_turn(both, 1, turns[0], rng)
            ids = {board.game.board_id for board in (*both.values(), third)}
            assert len(ids) == 3
            assert all(board_id.startswith("raspberrypi-") for board_id in ids)
            marks = {c: len(b.events) for c, b in both.items()}
            third.connect()
            # The refusal is the links' (on the loop): the boards' clocks need not run.
            await until(lambda: told(third, Fault) and told(both[W], Fault, marks[W]), both)
            (stays_out,) = [e.reason for e in third.events if isinstance(e, Fault)]
            assert f"already played in game {GAME} by board {both[W].game.board_id}" in stays_out
            (refusal,) = [e.reason for e in both[W].events[marks[W] :] if isinstance(e, Fault)]
            assert refusal.startswith(f"board {third.game.board_id} asked to play white")
            assert not told(both[B], Fault, marks[B])
            for colour, board in both.items():
                assert not told(board, RemoteStatus, marks[colour], state="disconnected")
            # Refused, it stays new to the game: refused again after a restart.
            assert json.loads((tmp_path / "third" / "remote.json").read_text())["joined"] is False
            await play_turn(both, 2, turns[1], rng)
            assert_records(both, B, turns[:2])
        finally:
            await third.close()
            await close(both)

    scenario(body)


async def old_session(
    broker: Broker, client_id: str, board_id: str, online: asyncio.Event, taken: asyncio.Event
) -> None:
    """A board's session as the broker may hold it after the board lost its network: online
    on the board's client id until the broker gives it up, or the board takes it back."""
    import aiomqtt

    where = topic(GAME, B, "online")
    will = aiomqtt.Will(where, Presence(GAME, B, board_id, False).to_bytes(), qos=1, retain=True)
    client = aiomqtt.Client("127.0.0.1", broker.port, identifier=client_id, will=will, keepalive=60)
    try:
        async with client:
            await client.publish(where, Presence(GAME, B, board_id, True).to_bytes(), 1, True)
            await client.subscribe("orbito-hw-test/nothing")
            online.set()
            async for _ in client.messages:
                pass
    except aiomqtt.MqttError:
        taken.set()  # the broker dropped it: a client with its id connected
    finally:
        dropped = client._disconnected  # aiomqtt's: its error read, or said at the exit
        if dropped.done() and not dropped.cancelled():
            dropped.exception()


def test_a_board_restarted_on_its_state_directory_takes_its_own_seat_back(
    broker: Broker, tmp_path: Path
) -> None:
    """The black board restarts (a power cut) while the broker still holds its old session,
    online: the same id, read again from its state directory, takes the session and the seat
    back, refused by nobody, and the game goes on from its journal."""
    rng, turns = game(14)

    async def body() -> None:
        both = own_boards(broker, tmp_path)
        black, white = both[B], both[W]
        online, taken = asyncio.Event(), asyncio.Event()
        ghost: asyncio.Task[None] | None = None
        try:
            await join(both)
            for number, turn in enumerate(turns[:2], 1):
                await play_turn(both, number, turn, rng)
            assert black.link is not None
            board_id, client_id = black.game.board_id, black.link.client_id
            await black.power_cut(back=False)
            ghost = asyncio.create_task(old_session(broker, client_id, board_id, online, taken))
            await until(online.is_set, both)
            marks = {c: len(b.events) for c, b in both.items()}
            black.connect()  # the controller back from its journal, the id from its file
            await until(lambda: taken.is_set() and black.game.connected, both)
            assert (black.game.board_id, black.link.client_id) == (board_id, client_id)
            assert black.game.taken_by is None
            assert not told(black, Fault, marks[B]) and not told(white, Fault, marks[W])
            await play_turn(both, 3, turns[2], rng)
            assert_records(both, B, turns[:3])
        finally:
            if ghost is not None:
                ghost.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await ghost
            await close(both)

    scenario(body)
