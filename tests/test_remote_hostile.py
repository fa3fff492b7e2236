"""A board in a remote game under whatever a broker delivers: any bytes, any JSON, on every
topic of the game, retained or live, from any colour. The board logs and refuses what is
not the other board's record, and plays on: the other board's real turn still lights here,
is made and refereed. No broker is needed to deliver bytes; the board's side of the game is
the real one (RemoteMock: the simulated board, its referee and its RemoteGame)."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from orbito_hw.mock.remote import RemoteMock
from orbito_hw.remote.protocol import BrokerUrl, Record, topic
from orbito_hw.rules.game import Colour

GAME = "hostile"
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=15,
)
KEYS = ["v", "game", "round", "board", "colour", "first", "number", "turns", "takebacks", "online"]
PAYLOADS = st.one_of(
    st.binary(max_size=300),
    st.builds(lambda v: json.dumps(v).encode(), JSON),
    st.builds(
        lambda d: json.dumps({"v": 1, "game": GAME, **d}).encode(),
        st.dictionaries(st.sampled_from(KEYS), JSON),
    ),
)
MESSAGES = st.lists(
    st.tuples(
        st.sampled_from(["record", "online", "events", "x"]),
        st.sampled_from(["black", "white", "red"]),
        PAYLOADS,
        st.booleans(),
    ),
    max_size=15,
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(messages=MESSAGES)
def test_any_messages_then_the_other_boards_turn_is_still_refereed(
    messages: list[tuple[str, str, bytes, bool]],
) -> None:
    with tempfile.TemporaryDirectory() as state:
        url = BrokerUrl("127.0.0.1", 1883, False, GAME)
        white = RemoteMock(url, Colour.WHITE, Path(state), board_id="white-board")
        try:
            for kind, colour, payload, retained in messages:
                white.game.on_message(f"orbito-hw/{GAME}/{colour}/{kind}", payload, retained)
            real = Record(GAME, 1, "black-board", Colour.BLACK, Colour.BLACK, ("a1",))
            white.game.on_message(topic(GAME, Colour.BLACK, "record"), real.to_bytes())
            white.run.advance(0.5)
            assert white.run.referee.board_turn is not None
            assert white.run.referee.board_turn.notation() == "a1"
            white.do("put a1")
            white.do("press")
            white.run.wait_for_rings()
            assert white.run.referee.saved.turns == ["a1"]
        finally:
            white.run.close()
