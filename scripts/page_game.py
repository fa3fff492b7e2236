"""A game on ``run --mock --web`` driven through its API, as the page's clicks do: the
browser tests (tests/test_web_pages.py) and the screenshot script (screenshots.py) both
bring the board to the states they look at with these.

Only the standard library and orbito_hw's rules: the board runs in its own process.
"""

from __future__ import annotations

import json
import random
import time
import urllib.error
import urllib.request
from typing import Any

from orbito_hw.rules.game import Colour, Position, replay
from orbito_hw.rules.squares import square_name
from orbito_hw.rules.turn import Turn

WAIT_S = 10.0

WATCHED = {
    "available": True,
    "games": [
        {"game": "kitchen", "online": {"black": True, "white": False}, "round": 1,
         "first": "black", "moves": "b2 a1", "number": 2, "board": "..../..../.B../W...",
         "to_move": "black", "result": None, "lines": []},
        {"game": "garden-table-long-name", "online": {"black": True, "white": True},
         "round": 1, "first": "white", "moves": "", "number": 9,
         "board": "BBBB/W.W./.W../....", "to_move": None, "result": "black",
         "lines": [["a4", "b4", "c4", "d4"]]},
    ],
}  # fmt: skip
"""Two games as a broker shows them (/api/watch), for the watch page's cards: the browser
tests and the screenshots both answer the page with them (a script never imports a test)."""


def api(url: str, path: str, fields: dict[str, str] | None = None) -> dict[str, Any]:
    """POST a control (``square/b2``, ``press``...); the answer, or the refusal's JSON."""
    body = json.dumps(fields or {}).encode()
    headers = {"Content-Type": "application/json"}
    request = urllib.request.Request(url + "api/" + path, body, headers)
    try:
        with urllib.request.urlopen(request, timeout=WAIT_S) as answer:
            result: dict[str, Any] = json.loads(answer.read())
    except urllib.error.HTTPError as exc:
        result = json.loads(exc.read())
    return result


def state(url: str) -> dict[str, Any]:
    with urllib.request.urlopen(url + "state", timeout=WAIT_S) as answer:
        snapshot: dict[str, Any] = json.loads(answer.read())
    return snapshot


def wait_for(url: str, test: Any, what: str) -> dict[str, Any]:
    """The first snapshot ``test`` accepts, within WAIT_S."""
    end = time.monotonic() + WAIT_S
    while True:
        snapshot = state(url)
        if test(snapshot):
            return snapshot
        if time.monotonic() > end:
            raise TimeoutError(f"the board never showed {what}: {snapshot['instruction']}")
        time.sleep(0.05)


def position_of(snapshot: dict[str, Any]) -> Position:
    return replay(Colour(snapshot["first"]), snapshot["turns"])


def squares_of(turn: Turn) -> list[str]:
    """The squares clicked to make ``turn``: the move's two, then the place."""
    squares = [turn.move_from, turn.move_to, turn.place]
    return [square_name(sq) for sq in squares if sq is not None]


def make(url: str, turn: Turn, press: bool = True) -> None:
    """Make ``turn`` on the simulated board with the page's clicks; then press."""
    for name in squares_of(turn):
        api(url, f"square/{name}")
    if press:
        api(url, "press", {"action": "click"})


def asked(snapshot: dict[str, Any]) -> Turn:
    """The turn the board asks for: its move's arrow, then the square its glows ask to
    place on (the square the move left may be the place: lit "lift this" first)."""
    kinds = {glow["kind"]: name for name, glow in snapshot["glows"].items()}
    if snapshot["arrow"]:
        start, end = snapshot["arrow"]
        # The square the move leaves is lit "lift this" until lifted (control/guide.py), so
        # a place there shows no "place" light yet: no other square's means that one.
        return Turn.from_notation(f"{start}-{end}:{kinds.get('place', start)}")
    if "place" not in kinds:
        return Turn(None)
    return Turn.from_notation(kinds["place"])


def a_turn(position: Position, rng: random.Random) -> Turn:
    return rng.choice(sorted(position.legal_turns(), key=lambda t: t.notation()))


def play_one(url: str, rng: random.Random) -> dict[str, Any]:
    """One turn, whoever's it is (the board's as it asks, the person's at random); the
    snapshot once it stands."""
    snapshot = state(url)
    count = len(snapshot["turns"])
    turn = asked(snapshot) if snapshot["phase"] == "board-turn" else None
    make(url, turn or a_turn(position_of(snapshot), rng))
    return wait_for(url, lambda s: len(s["turns"]) > count and s["phase"] != "rotating", "a turn")


def play_to_end(url: str, seed: int) -> dict[str, Any]:
    rng = random.Random(seed)
    snapshot = state(url)
    while snapshot["result"] is None:
        snapshot = play_one(url, rng)
    return snapshot
