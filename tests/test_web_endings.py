"""The page's resign, draw, next puzzle and words, without a browser: each goes through the
referee (control/ending.py), so the journal's history and the archive keep the result."""

from __future__ import annotations

import json
import random
import urllib.request
from pathlib import Path
from typing import Any

from aiohttp.test_utils import TestClient

from orbito_hw.control.journal import Journal
from orbito_hw.control.settings import Settings
from orbito_hw.rules.game import Colour
from orbito_hw.sim.harness import MockRun, board_player
from orbito_hw.sim.script import parse_line
from orbito_hw.solver.opponents import parse_level
from scripts.page_game import api, play_one, state, wait_for

from .common.browser import board, free_port
from .common.page import serve

CODE = "sesame2024"


def play(run: MockRun, *lines: str) -> None:
    for line in lines:
        command = parse_line(line)
        assert command is not None
        run.run(command)
        run.wait_for_rings()


def history(state_dir: Path) -> list[dict[str, Any]]:
    path = state_dir / Journal.HISTORY
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def test_resign_against_the_board_ends_the_game_in_the_archive(tmp_path: Path) -> None:
    with board(free_port(), "--opponent", "3:black", "--state-dir", str(tmp_path)) as url:
        play_one(url, random.Random(1))  # the board's first turn, made as it asks
        assert api(url, "resign") == {"ok": True}
        wait_for(url, lambda s: s["game"] == 2 and not s["turns"], "the next game")
        with urllib.request.urlopen(url + "api/games", timeout=10) as answer:
            games = json.loads(answer.read())["games"]
        resigned = [g for g in games if g["result"] is not None]
        assert [(g["result"], g["turns"], g["black"]) for g in resigned] == [
            ("black", 1, "board:3")
        ]
        assert state(url)["players"]["black"] == "board:3", "the board plays on"
    assert [(g["game"], g["result"]) for g in history(tmp_path)] == [(1, "black")]


def test_resign_names_a_persons_colour_and_a_draw_is_between_people(tmp_path: Path) -> None:
    async def test(client: TestClient[Any, Any], run: MockRun) -> None:
        play(run, "put b2", "press")
        no_code = await client.post("/api/resign", json={})
        assert no_code.status == 403
        headers = {"X-Orbito-Code": CODE}
        answer = await client.post("/api/resign", json={"colour": "white"}, headers=headers)
        assert answer.status == 409 and "board:3" in (await answer.json())["error"]
        answer = await client.post("/api/draw", json={}, headers=headers)
        assert answer.status == 409 and "takes no draw" in (await answer.json())["error"]
        answer = await client.post("/api/resign", json={}, headers=headers)
        assert answer.status == 200
        assert run.referee.saved.game == 2 and not run.referee.saved.turns
        assert [(g["game"], g["result"]) for g in history(run.state_dir)] == [(1, "white")]

    opponent = board_player(parse_level("3"), Colour.WHITE, 1)
    serve(test, code=CODE, referee=Settings(opponent=opponent), state_dir=tmp_path)


def test_a_draw_agreed_by_two_people_is_kept_once(tmp_path: Path) -> None:
    async def test(client: TestClient[Any, Any], run: MockRun) -> None:
        answer = await client.post("/api/draw", json={})
        assert answer.status == 200
        assert run.referee.saved.game == 1, "no turn yet: the same game again"
        play(run, "put b2", "press", "put a1", "press")
        answer = await client.post("/api/draw", json={})
        assert answer.status == 200, await answer.text()
        assert [(g["result"], g["moves"]) for g in history(run.state_dir)] == [("draw", "b2 a1")]
        assert (await client.post("/api/draw", json={"x": "y"})).status == 200
        assert len(history(run.state_dir)) == 1, "a game with no turn is no game kept"

    serve(test, state_dir=tmp_path)


def test_the_next_puzzle_is_set_up_and_its_goal_told(tmp_path: Path) -> None:
    async def test(client: TestClient[Any, Any], run: MockRun) -> None:
        before = await (await client.get("/api/puzzle")).json()
        assert before == {"id": None, "goal": None, "solved": None, "plies": None}
        assert (await client.post("/api/next-puzzle", json={})).status == 403
        answer = await client.post("/api/next-puzzle", json={"code": CODE})
        assert answer.status == 200, await answer.text()
        puzzle = await (await client.get("/api/puzzle")).json()
        assert puzzle["id"] and "to play and win in" in puzzle["goal"]
        assert puzzle["solved"] is None
        assert run.referee.saved.setting_up

    serve(test, code=CODE, state_dir=tmp_path)


def test_the_page_words_in_the_browsers_language_or_the_pages_choice() -> None:
    async def test(client: TestClient[Any, Any], run: MockRun) -> None:
        french = await (
            await client.get("/api/words", headers={"Accept-Language": "fr-CA,fr;q=0.9,en;q=0.5"})
        ).json()
        assert french["lang"] == "fr" and french["languages"] == ["en", "fr"]
        assert french["words"]["New game"] == "Nouvelle partie"
        chosen = await (
            await client.get("/api/words?lang=en", headers={"Accept-Language": "fr"})
        ).json()
        assert chosen["reasons"] == [] and chosen["words"] == {}
        assert (chosen["lang"], chosen["languages"]) == ("en", ["en", "fr"])
        # The board's reasons (English data) with their French, for the page's inWords().
        reasons = dict(french["reasons"])
        occupied = "{square} is occupied; a marble is placed on an empty square"
        assert reasons[occupied] == "{square} est occupée ; une bille se pose sur une case vide"
        odd = await (
            await client.get("/api/words?lang=xx", headers={"Accept-Language": "fr"})
        ).json()
        assert odd["lang"] == "fr"

    serve(test)


def test_a_puzzle_from_the_page_solved_is_told_solved(tmp_path: Path) -> None:
    from orbito_hw.control.puzzle import defend, puzzle_id
    from orbito_hw.control.setup import squares_asked
    from orbito_hw.rules.squares import square_name
    from orbito_hw.sim.demo import turn_commands
    from orbito_hw.solver.puzzles import find_puzzle
    from orbito_hw.solver.table import shipped_solution

    async def test(client: TestClient[Any, Any], run: MockRun) -> None:
        assert (await client.post("/api/next-puzzle", json={})).status == 200
        found = puzzle_id(run.referee.saved.origin)
        assert found is not None
        puzzle = find_puzzle(found)
        play(run, *(f"put {square_name(sq)} {c}" for sq, c in squares_asked(puzzle.position())))
        position, table, rng = puzzle.position(), shipped_solution(), random.Random(2)
        while position.result is None:  # the person wins as fast as can be, the board defends
            mine = position.to_move is puzzle.to_move
            turn = table.analyse(position).move if mine else defend(position)
            play(run, *(c.text() for c in turn_commands(turn, rng, not mine)))
            position = position.play(turn)
        told = await (await client.get("/api/puzzle")).json()
        assert told == {"id": puzzle.id, "goal": puzzle.goal(), "solved": True,
                        "plies": puzzle.plies}  # fmt: skip

    serve(test, state_dir=tmp_path)
