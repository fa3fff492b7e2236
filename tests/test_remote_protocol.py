"""The remote game's messages and decisions, without a broker (remote/protocol.py)."""

from __future__ import annotations

import contextlib
import json
import random
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from orbito_hw.remote.protocol import (
    BUSY,
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
    TakeBackTo,
    decide,
    parse_broker_url,
    parse_message,
    topic,
)
from orbito_hw.rules.game import Colour
from orbito_hw.rules.turn import Turn

from .common.scripts import random_game

GAME = "g1"
B, W = Colour.BLACK, Colour.WHITE
RECORD_TOPIC = topic(GAME, B, "record")


def local(turns: tuple[str, ...] = (), **changes: object) -> Local:
    fields: dict[str, object] = dict(
        game=GAME,
        round=1,
        board="white-board",
        colour=W,
        first=B,
        turns=turns,
        takebacks=0,
        opponent="black-board",
    )
    fields.update(changes)
    return Local(**fields)  # type: ignore[arg-type]


def theirs(turns: tuple[str, ...] = (), **changes: object) -> Record:
    fields: dict[str, object] = dict(
        game=GAME, round=1, board="black-board", colour=B, first=B, turns=turns, takebacks=0
    )
    fields.update(changes)
    return Record(**fields)  # type: ignore[arg-type]


# --- parsing: whatever the bytes, a message or one MessageError -----------------------------------
@given(st.binary(max_size=600))
def test_any_bytes_give_a_message_or_a_message_error(payload: bytes) -> None:
    for kind in ("record", "online", "events"):
        with contextlib.suppress(MessageError):
            parse_message(topic(GAME, B, kind), payload)  # type: ignore[arg-type]


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=12,
)
KEYS = ["v", "game", "round", "board", "colour", "first", "number", "turns", "takebacks", "online"]


@given(st.dictionaries(st.sampled_from(KEYS), JSON), st.sampled_from(["record", "online"]))
def test_any_json_object_gives_a_message_or_a_message_error(
    obj: dict[str, object], kind: str
) -> None:
    good = json.loads(theirs(("a1",)).to_bytes())
    for mixed in (obj, {**good, **obj}):
        with contextlib.suppress(MessageError):
            parse_message(topic(GAME, B, kind), json.dumps(mixed).encode())  # type: ignore[arg-type]


@given(st.text(max_size=80))
def test_any_topic_is_ours_or_refused(text: str) -> None:
    with contextlib.suppress(MessageError):
        parse_message(text, b"{}")


@given(st.integers(0, 10_000))
def test_a_record_reads_back_as_itself(seed: int) -> None:
    first, turns = random_game(random.Random(seed))
    tokens = tuple(t.notation() for t in turns)
    for cut in (0, len(tokens) // 2, len(tokens)):
        record = Record(GAME, 3, "kitchen", W, first, tokens[:cut], 2)
        assert parse_message(topic(GAME, W, "record"), record.to_bytes()) == record


@pytest.mark.parametrize("busy", [*BUSY, "dancing"])
def test_a_records_busy_reads_back_and_changes_no_decision(busy: str) -> None:
    """``busy`` (optional in version 1) is said and read back, a newer board's word too; the
    record is the same game to the protocol: agreed with, shown, late, as without it."""
    record = theirs(("a1",), busy=busy)
    assert json.loads(record.to_bytes())["busy"] == busy
    read = parse_message(RECORD_TOPIC, record.to_bytes())
    assert isinstance(read, Record) and read.busy == busy and read == theirs(("a1",))
    assert decide(local(("a1",)), read) == Agree()
    assert decide(local(()), read) == Show(1, Turn.from_notation("a1"))


def test_a_record_without_busy_says_none_and_a_bad_busy_is_no_word() -> None:
    """An older board says nothing (and never reads a ``busy`` key); a value that is no short
    word reads as none, the record read all the same."""
    plain = theirs(("a1",))
    assert "busy" not in json.loads(plain.to_bytes())
    read = parse_message(RECORD_TOPIC, plain.to_bytes())
    assert isinstance(read, Record) and read.busy is None
    for bad in (3, None, "", "two words", "x" * 25, ["take-back"]):
        obj = {**json.loads(plain.to_bytes()), "busy": bad}
        read = parse_message(RECORD_TOPIC, json.dumps(obj).encode())
        assert isinstance(read, Record) and read.busy is None and read == plain, bad


def test_the_board_says_busy_while_it_takes_back_is_put_right_or_set_up() -> None:
    """remote/game.py's table: the take-back's two states, the correction and the set-up
    each have their word (BUSY's), and the states a turn is played in have none."""
    from orbito_hw.control.machine import State
    from orbito_hw.remote.game import BUSY_STATES

    assert BUSY_STATES[State.TAKING_BACK] == BUSY_STATES[State.UNDOING] == "take-back"
    assert set(BUSY_STATES.values()) == set(BUSY)
    assert not {State.WAITING, State.TURN, State.GAME_OVER} & set(BUSY_STATES)


def test_presence_reads_back() -> None:
    presence = Presence(GAME, W, "garden", False)
    assert parse_message(topic(GAME, W, "online"), presence.to_bytes()) == presence


@pytest.mark.parametrize(
    ("payload", "names"),
    [
        (b"\xff", "not UTF-8"),
        (b"[1]", "not a JSON object"),
        (b"x" * 5000, "more than 4096"),
        (json.dumps({"v": 2}).encode(), "version 2"),
        (theirs(("a1", "b1")).to_bytes(), "turn 2 ('b1') refused"),
        (theirs(("e9",)).to_bytes(), "turn 1 ('e9') refused"),
        (theirs((), game="other").to_bytes(), "for game 'other'"),
        (theirs((), colour=W).to_bytes(), "says it is for white"),
        (theirs((), board="a/b").to_bytes(), "is not a board id"),
        (theirs((), round=0).to_bytes(), "round 0 is out of range"),
        (theirs(("a1",)).to_bytes().replace(b'"number":1', b'"number":5'), "number 5 but 1"),
        (theirs((), round=True).to_bytes(), "round True is not int"),
    ],
)
def test_a_bad_record_is_named(payload: bytes, names: str) -> None:
    with pytest.raises(MessageError, match="record of black in g1") as caught:
        parse_message(RECORD_TOPIC, payload)
    assert names in str(caught.value)


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("orbito-hw/g1/black", "is not orbito-hw/GAME/COLOUR/KIND"),
        ("orbito-hw/g+/black/record", "is not a game name"),
        ("orbito-hw/g1/red/record", "'red' is not black or white"),
        ("orbito-hw/g1/black/turns", "'turns' is not one of record, online, events"),
    ],
)
def test_a_bad_topic_is_named(text: str, names: str) -> None:
    with pytest.raises(MessageError, match=names):
        parse_message(text, b"{}")


# --- deciding -------------------------------------------------------------------------------------
def test_the_other_boards_next_turn_is_shown() -> None:
    assert decide(local(), theirs(("a1",))) == Show(1, Turn.from_notation("a1"))


def test_the_same_record_is_agreement_and_an_older_one_is_late() -> None:
    assert decide(local(("a1", "b2")), theirs(("a1", "b2"))) == Agree()
    assert isinstance(decide(local(("a1", "b2")), theirs(("a1",))), Ignore)
    assert isinstance(decide(local(("a1",), round=2), theirs(("a1", "b2"))), Ignore)
    assert isinstance(decide(local((), takebacks=3), theirs(("a1",), takebacks=2)), Ignore)


def test_a_board_not_in_the_game_is_refused() -> None:
    assert isinstance(decide(local(), theirs(("a1",), board="intruder")), Refuse)
    claim = theirs(("a1",), colour=W, board="intruder")
    assert decide(local(), claim) == Refuse("board intruder claims white, this board's colour")
    assert isinstance(decide(local(), theirs((), game="other")), Refuse)


def test_the_first_board_seen_is_trusted_when_none_is_known() -> None:
    assert decide(local(opponent=None), theirs(("a1",), board="kitchen")) == Show(
        1, Turn.from_notation("a1")
    )


def test_a_turn_that_is_this_boards_to_make_is_a_disagreement() -> None:
    decision = decide(local(("a1",)), theirs(("a1", "b2")))
    assert decision == Disagree(
        "turn 2 (b2) is this board's to make, not the other board's (white plays here)"
    )


def test_where_the_records_differ_is_named() -> None:
    decision = decide(local(("a1", "b2")), theirs(("a1", "c3")))
    assert decision == Disagree("turn 2: this board has b2, the other board c3")
    far = decide(local(("a1",)), theirs(("a1", "b2", "c3")))
    assert isinstance(far, Disagree) and "turns 2..2 were never made here" in far.where


@pytest.mark.parametrize(
    ("mine", "their"),
    [
        (local(("a1", "b2")), theirs(("a1", "c3"))),  # a turn that differs
        (local(("a1",)), theirs(("a1", "b2", "c3"))),  # turns never made here
        (local(("a1",)), theirs(("a1", "b2"))),  # this board's turn, made over there
        (local((), colour=B, first=W), theirs(("a1",), colour=W, first=B)),  # who went first
        (local(), theirs(("a1",), colour=W, board="intruder")),  # a claim on this colour
    ],
)
def test_a_disagreement_or_a_refusal_is_said_in_french_whole(mine: Local, their: Record) -> None:
    """What decide() says is English data (the fault's reason, the log's), read back whole in
    the reader's language where a person reads it: no English word left of it."""
    from orbito_hw import lang

    decision = decide(mine, their)
    assert isinstance(decision, Disagree | Refuse), decision
    english = decision.where if isinstance(decision, Disagree) else decision.why
    with lang.speaking("fr"):
        said = lang.reworded(f"the boards disagree: {english}")
    assert said.startswith("les plateaux ne sont pas d'accord : ")
    assert not {"board", "this", "other", "turn", "first", "white", "black"} & set(
        said.replace("(", " ").replace(")", " ").split()
    ), said


def test_a_take_back_over_there_is_followed_here() -> None:
    assert decide(local(("a1", "b2", "c3")), theirs(("a1",), takebacks=2)) == TakeBackTo(1, 2)
    # taken back and played on since: back to where the records part, then the turn
    assert decide(local(("a1", "b2")), theirs(("a1", "c3"), takebacks=1)) == TakeBackTo(1, 1)


def test_a_new_round_or_a_new_first_player_is_followed() -> None:
    assert decide(local(("a1",)), theirs((), round=2, first=W)) == NewRound(2, W)
    assert decide(local(()), theirs((), first=W)) == NewRound(1, W)
    assert isinstance(decide(local(("a1",)), theirs(("a1",), first=W)), Disagree)


@given(st.integers(0, 10_000), st.data())
def test_records_of_one_game_never_refuse_and_show_only_the_next_turn(
    seed: int, data: st.DataObject
) -> None:
    """Any two records of the same game (a board at any point, the other at any point):
    shown only when the other is exactly one turn ahead on its own colour's turn."""
    _, turns = random_game(random.Random(seed), B)
    tokens = tuple(t.notation() for t in turns)
    here = data.draw(st.integers(0, len(tokens)))
    there = data.draw(st.integers(0, len(tokens)))
    decision = decide(local(tokens[:here]), theirs(tokens[:there]))
    assert not isinstance(decision, Refuse | TakeBackTo | NewRound)
    if isinstance(decision, Show):
        assert there == here + 1 and here % 2 == 0  # black's turns: 1, 3, ...
        assert decision.turn.notation() == tokens[here]
    elif there == here:
        assert decision == Agree()
    elif there < here:
        assert isinstance(decision, Ignore)


# --- the broker's address -------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "url"),
    [
        ("mqtt://127.0.0.1:1884/g1", BrokerUrl("127.0.0.1", 1884, False, "g1")),
        ("mqtts://broker.example/club", BrokerUrl("broker.example", 8883, True, "club")),
        ("mqtt://[::1]:1883/g1", BrokerUrl("::1", 1883, False, "g1")),
    ],
)
def test_a_broker_url_reads(text: str, url: BrokerUrl) -> None:
    assert parse_broker_url(text) == url


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("http://x/g", "is not mqtt://HOST[:PORT]/GAME"),
        ("mqtt://x:99999/g", "port '99999' is not 1..65535"),
        ("mqtt://x:1883", "names no game"),
        ("mqtt://x/a+b", "game 'a+b' must be"),
        ("mqtt://:1883/g", "no usable host name"),
    ],
)
def test_a_bad_broker_url_is_named(text: str, names: str) -> None:
    with pytest.raises(ValueError) as caught:
        parse_broker_url(text)
    assert names in str(caught.value)


# --- the config's [remote] ------------------------------------------------------------------------
SIM = '[backends]\nsensors = "sim"\nbutton = "sim"\ndrive = "sim"\nlights = "sim"\n'


def test_the_remote_table_reads_with_its_defaults() -> None:
    from orbito_hw.app.config import RemoteConfig, parse_config

    config = parse_config(
        SIM + '[remote]\nenabled = true\nbroker = "mqtts://b.example"\ngame = "g"\n'
        'plays = "white"\nca_file = "ca.pem"\n',
        base_dir=Path("/etc/orbito-hw"),
    )
    assert config.remote == RemoteConfig(
        enabled=True,
        broker="mqtts://b.example",
        game="g",
        plays=W,
        ca_file=Path("/etc/orbito-hw/ca.pem"),
    )
    assert parse_config(SIM).remote == RemoteConfig()  # off, and nothing needed


def test_every_bad_remote_key_is_named_at_once() -> None:
    from orbito_hw.app.config import parse_config
    from orbito_hw.errors import ConfigError

    text = (
        SIM + '[remote]\nenabled = true\nbroker = "http://x"\nplays = "red"\nboard_id = "a b"\n'
        'cert_file = "c.pem"\nfirst = "black"\n'
    )
    with pytest.raises(ConfigError) as caught:
        parse_config(text)
    message = str(caught.value)
    for names in (
        "remote.first: unknown key",
        "remote.broker: 'http://x' is not mqtt://",
        "remote.game: missing",
        "remote.plays: 'red' is not one of black, white",
        "remote.board_id: board_id 'a b' must be",
        "remote.cert_file: a client certificate needs both",
    ):
        assert names in message
