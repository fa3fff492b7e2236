"""A seat across the internet, its parts (issue 37): the committed MQTT bundle is the one
the lock pins; ``seat invite --broker`` makes a link whose fragment the page reads back
whatever the user and password hold; a seat's record (with ``kind``) is a board's record to
the protocol; and the page's rules (seat_rules.js, in Chromium) agree with the reference
rules on every turn of random games and on why a turn is refused."""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, quote, urlsplit

import pytest
from hypothesis import given
from hypothesis import strategies as st

from orbito_hw.remote.link import Credentials, with_url_login
from orbito_hw.remote.protocol import Record, parse_broker_url, parse_message
from orbito_hw.remote.seat_link import check_ws_url, seat_link
from orbito_hw.rules.game import Colour, Position
from orbito_hw.rules.squares import SQUARES, square_name
from orbito_hw.rules.turn import Turn

from .common.browser import marbles_of
from .common.cli import run
from .common.scripts import random_game

ROOT = Path(__file__).resolve().parents[1]
STATIC = ROOT / "orbito_hw" / "web" / "static"


# --- the bundle -------------------------------------------------------------------------------
def test_the_committed_bundle_is_the_one_the_lock_pins() -> None:
    """scripts/build-seat-bundle.sh writes the note; a bundle or a lock changed without it
    fails here (rebuild with the script and commit all three)."""
    lock = json.loads((ROOT / "web" / "bundle" / "package-lock.json").read_text())["packages"]
    package = json.loads((ROOT / "web" / "bundle" / "package.json").read_text())
    note = json.loads((STATIC / "vendor" / "mqtt.min.js.json").read_text())
    bundle = (STATIC / "vendor" / note["file"]).read_bytes()
    assert hashlib.sha256(bundle).hexdigest() == note["sha256"]
    assert (
        lock["node_modules/mqtt"]["version"] == note["mqtt"] == package["devDependencies"]["mqtt"]
    )
    assert lock["node_modules/mqtt"]["integrity"] == note["mqtt_integrity"]
    assert lock["node_modules/esbuild"]["version"] == note["esbuild"]
    assert package["devDependencies"]["esbuild"] == note["esbuild"]


def test_the_page_fetches_nothing_from_elsewhere() -> None:
    page = (STATIC / "seat_remote.html").read_text()
    for reference in ("http:", "https:", "//"):
        assert f'src="{reference}' not in page and f'href="{reference}' not in page


# --- the link ---------------------------------------------------------------------------------
def _fragment(link: str) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(urlsplit(link).fragment, keep_blank_values=True).items()}


@given(user=st.text(max_size=30), password=st.text(max_size=30))
def test_a_links_fragment_says_the_user_and_password_back_whatever_they_hold(
    user: str, password: str
) -> None:
    made = seat_link("https://club.example/orbito/seat_remote.html", "wss://club.example/mqtt",
                     "club-night", Colour.BLACK, user, password)  # fmt: skip
    said = _fragment(made.link)
    assert said == {"broker": "wss://club.example/mqtt", "game": "club-night",
                    "colour": "black", "seat": made.seat, "user": user,
                    "password": password}  # fmt: skip
    assert made.link.startswith("https://club.example/orbito/seat_remote.html#")


@pytest.mark.parametrize(
    "bad",
    [
        "mqtt://host:1883",
        "wss://",
        "wss://u:p@host/mqtt",
        "https://host/",
        "wss://host:99999/",
        "wss://host/mqtt?x=1",
        "host:8081",
    ],
)
def test_a_broker_that_is_not_a_websocket_address_is_refused(bad: str) -> None:
    with pytest.raises(ValueError, match=r"wss://|credentials|port|Port"):
        check_ws_url(bad)


def test_seat_invite_with_a_broker_prints_the_link(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    status, out, _err = run(capsys, "seat", "invite", "--state-dir", str(tmp_path), "--broker",
                            "wss://club.example:8081/mqtt", "--game", "club-night",
                            "--colour", "black", "--user", "club-night.black", "--password",
                            "s3cret&=", "--url", "http://orbito.local:8080", "--json")  # fmt: skip
    assert status == 0
    said = json.loads(out)
    assert said["link"].startswith("http://orbito.local:8080/static/seat_remote.html#")
    assert _fragment(said["link"]) == {
        "broker": "wss://club.example:8081/mqtt", "game": "club-night", "colour": "black",
        "seat": said["seat"], "user": "club-night.black", "password": "s3cret&=",
    }  # fmt: skip
    assert not (tmp_path / "seats.json").exists()  # nothing kept at the board for it
    status, _out, err = run(capsys, "seat", "invite", "--state-dir", str(tmp_path), "--broker",
                            "mqtt://club.example", "--game", "g")  # fmt: skip
    assert status == 2 and "mqtt://club.example" in err
    status, _out, err = run(capsys, "seat", "invite", "--state-dir", str(tmp_path),
                            "--config", str(tmp_path / "none.toml"),
                            "--broker", "wss://club.example/mqtt")  # fmt: skip
    assert status != 0


# --- a board's credentials in its broker's URL ---------------------------------------------------
LOGIN = st.text(st.characters(codec="utf-8"), max_size=20)


@given(user=LOGIN.filter(bool), password=LOGIN)
def test_a_broker_url_carries_any_user_and_password_and_never_says_the_password(
    user: str, password: str
) -> None:
    text = f"mqtts://{quote(user, safe='')}:{quote(password, safe='')}@broker.example/club"
    url = parse_broker_url(text)
    assert (url.user, url.password, url.host, url.port, url.game) == (
        user, password, "broker.example", 8883, "club"
    )  # fmt: skip
    assert str(url) == f"mqtts://{quote(user, safe='')}@broker.example:8883/club"
    assert "password" not in repr(url)
    login = with_url_login(url, Credentials())
    assert (login.user, login.password) == (user, password)
    given_apart = Credentials("config-user", "config-password")
    assert with_url_login(url, given_apart) == given_apart  # the config's win


def test_a_bad_broker_url_never_says_its_password() -> None:
    for bad in ("mqtts://u:hunter2@h:99999/g", "http://u:hunter2@h/g", "mqtts://:hunter2@h/g"):
        with pytest.raises(ValueError) as caught:
            parse_broker_url(bad)
        assert "hunter2" not in str(caught.value) and "***" in str(caught.value)


def test_a_seats_record_is_a_boards_record_to_the_protocol() -> None:
    """The page's hello carries ``"kind": "seat"``, a field a board does not read: the
    board cannot tell the seat from a board but by it."""
    board = Record("g", 1, "seat-1", Colour.WHITE, Colour.BLACK, ("a1", "c1"))
    obj = json.loads(board.to_bytes())
    seat = json.dumps({**obj, "kind": "seat"}).encode()
    assert parse_message("orbito-hw/g/white/record", seat) == board


# --- the page's rules against the reference --------------------------------------------------
def _position_js(position: Position) -> dict[str, Any]:
    result = position.result.value if position.result else None
    return {"marbles": marbles_of(position), "toMove": position.to_move.value,
            "extra": position.extra_presses, "result": result}  # fmt: skip


def test_the_pages_rules_agree_with_the_reference(browser: Any) -> None:
    rng = random.Random(37)
    games: list[dict[str, Any]] = []
    for _ in range(40):
        first, turns = random_game(rng)
        tokens = [t.notation() for t in turns]
        positions = [Position.start(first)]
        for turn in turns:
            positions.append(positions[-1].play(turn))
        # In each position, a few candidate turns: legal ones and random (often illegal) ones.
        tried = []
        for _position in positions[:-1]:
            for _ in range(4):
                place = rng.choice([None, *SQUARES])
                src, dst = rng.choice(SQUARES), rng.choice(SQUARES)
                turn = (
                    Turn(place, src, dst)
                    if place is not None and rng.random() < 0.5
                    else Turn(place)
                )
                if turn.move_from is not None and not turn.is_orthogonal_step:
                    turn = Turn(place)
                tried.append(turn.notation())
        games.append({"first": first.value, "turns": tokens, "tried": tried,
                      "positions": [_position_js(p) for p in positions]})  # fmt: skip
    page = browser.new_page()
    try:
        page.add_script_tag(content=(STATIC / "seat_rules.js").read_text())
        for game in games:
            got = page.evaluate(
                """(game) => {
                  const out = [startPosition(game.first)];
                  for (const token of game.turns) out.push(playTurn(out[out.length - 1], token));
                  return out.map((p) => ({marbles: p.marbles, toMove: p.toMove, extra: p.extra,
                                          result: p.result}));
                }""",
                game,
            )
            assert got == game["positions"]
            faults = page.evaluate(
                """(game) => {
                  let p = startPosition(game.first);
                  const out = [];
                  game.turns.forEach((token, i) => {
                    for (const t of game.tried.slice(4 * i, 4 * i + 4)) out.push(turnFault(p, t));
                    p = playTurn(p, token);
                  });
                  return out;
                }""",
                game,
            )
            position = Position.start(Colour(game["first"]))
            expected = []
            for i, token in enumerate(game["turns"]):
                for tried in game["tried"][4 * i : 4 * i + 4]:
                    expected.append(position._fault(Turn.from_notation(tried))[0])
                position = position.push_notation(token)
            # The same refusals; the page says "the game is over" without the result's words.
            assert [bool(f) for f in faults] == [bool(f) for f in expected]
            assert [f for f in faults if "over" not in f] == [
                f for f in expected if "over" not in f
            ]
    finally:
        page.close()
    assert square_name(0) == "a1"
