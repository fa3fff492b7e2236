"""The page's instruction line (web/instruction.py): one sentence for each state of the
board, from the referee's state, its light show's view and the events' memory; and the
glows (web/glows.py) that draw the lights as rings, with the move's arrow."""

from __future__ import annotations

import gettext
from dataclasses import replace
from typing import Any

from aiohttp.test_utils import TestClient

from orbito_hw import lang
from orbito_hw.control.events import (
    BlunderWarning,
    Fault,
    NewGame,
    PuzzleDone,
    Rejected,
    RemoteStatus,
    TakeBack,
    TakenBack,
)
from orbito_hw.control.lights import Palette, View
from orbito_hw.control.menu import CHOICES, Choice
from orbito_hw.control.referee import State
from orbito_hw.rules.game import Colour, Position, Result
from orbito_hw.rules.squares import parse_square
from orbito_hw.rules.turn import Turn
from orbito_hw.sim.harness import MockRun
from orbito_hw.web.glows import arrow, glows, kinds_of, legend, status_words
from orbito_hw.web.instruction import (
    SENTENCES,
    Memory,
    Situation,
    instruction,
    phase_of,
    players_text,
)

from .common.page import serve
from .common.wait import until_async

B, W = Colour.BLACK, Colour.WHITE
START_W = Position.start(W)


def sq(name: str) -> int:
    return parse_square(name)


def said(**fields: object) -> tuple[str, str]:
    situation = Situation(**{"state": State.WAITING.value, "position": START_W, **fields})  # type: ignore[arg-type]
    return instruction(situation)


def test_the_person_to_move_places_a_marble_then_presses() -> None:
    assert said(view=View("play", W)) == ("your-turn", "White to move: place a marble, then press")


def test_a_lifted_opponent_marble_is_put_on_a_neighbour_first() -> None:
    phase, text = said(state=State.TURN.value, view=View("play", W), hand=(B,))
    assert phase == "your-turn"
    assert text.startswith("White to move: put the black marble you lifted")


def test_a_new_game_on_a_board_still_full_asks_to_clear_it() -> None:
    _, text = said(state=State.TURN.value, view=View("play", W), on_board=("a1", "b2", "c3"))
    assert text == "Clear the board for the new game: take the marbles off a1, b2 and c3"


def test_a_full_board_asks_for_an_extra_press_in_words() -> None:
    full = Position(black=0x00FF, white=0xFF00, to_move=B, extra_presses=2)
    _, text = said(view=View("play", B), position=full)
    assert "just press" in text and "extra press 3 of 5" in text and "*" not in text


def test_the_boards_turn_says_the_move_then_the_place_then_press() -> None:
    turn = Turn.from_notation("c2-c3:b4")
    phase, text = said(view=View("play", B, board_turn=turn), opponent=B)
    assert phase == "board-turn"
    assert text == "The board's turn: move c2 to c3, then place a black marble on b4, then press"


def test_the_boards_extra_press_is_just_a_press() -> None:
    _, text = said(view=View("play", B, board_turn=Turn(None)), opponent=B)
    assert text == "The board's turn: just press (the board is full)"


def test_a_remote_players_turn_names_their_board_and_the_wait_before_it() -> None:
    turn = Turn.from_notation("a1")
    black = Position.start(B)
    _, text = said(view=View("play", B, board_turn=turn), opponent=B, opponent_by="remote",
                   position=black)  # fmt: skip
    assert text == "Black's board plays a1: place a black marble on a1, then press"
    phase, text = said(view=View("play", B), opponent=B, opponent_by="remote", position=black)
    assert phase == "waiting-remote" and text.startswith("Waiting for black's board")
    memory = Memory()
    memory.hear(RemoteStatus(1, "opponent-offline"))
    _, text = said(view=View("play", B), opponent=B, opponent_by="remote", position=black,
                   memory=memory)  # fmt: skip
    assert text == "Waiting for black's board: it is offline"


def test_a_correction_names_the_squares_to_fill_and_to_empty() -> None:
    view = View("correction", W, missing=((sq("b1"), B), (sq("c2"), W)))
    assert said(state=State.CORRECTION.value, view=view) == (
        "correction",
        "Put b1 (black) and c2 (white) back",
    )
    view = View("correction", W, missing=((sq("b1"), B),), extra=(sq("d4"),))
    _, text = said(state=State.CORRECTION.value, view=view)
    assert text == "Put b1 (black) back; take the marble off d4"
    _, text = said(state=State.CORRECTION.value, view=View("correction", W, extra=(0, 1)))
    assert text == "Take the marbles off a1 and b1"


def test_a_refused_press_says_why_and_which_squares() -> None:
    memory = Memory()
    memory.hear(Rejected(1, "only one marble may be placed in a turn, not 2", (0, 1)))
    view = View("refused", W, squares=(0, 1))
    phase, text = said(view=view, memory=memory)
    assert phase == "refused"
    assert text == (
        "Not accepted: only one marble may be placed in a turn, not 2. "
        "Fix the squares ringed red: a1 and b1"
    )


def test_a_take_back_names_the_turn_and_what_to_undo() -> None:
    memory = Memory()
    memory.hear(TakeBack(1, 3, Turn.from_notation("c2-c3:b4")))
    view = View("undo", W, missing=((sq("c2"), B),), extra=(sq("b4"), sq("c3")))
    phase, text = said(state=State.UNDOING.value, view=view, memory=memory)
    assert phase == "undo"
    assert text == (
        "Undo turn 3 (c2-c3:b4): take the marble off b4 and c3, then put black on c2 back"
    )
    memory.hear(TakenBack(1, 3, "..../..../..../....", W))
    assert memory.taking_back is None


def test_the_rings_turning_is_hands_off() -> None:
    assert said(state=State.ROTATING.value, view=View("rotating", W)) == (
        "rotating",
        "Hands off: the rings are turning",
    )
    _, text = said(state=State.TAKING_BACK.value, view=View("rotating", W))
    assert "turn back" in text
    assert said(state=State.STARTING.value, view=View("starting", W))[0] == "starting"


def test_a_hint_and_a_warning_in_words() -> None:
    view = View("hint", W, hint_turn=Turn.from_notation("a1"), value="win")
    phase, text = said(view=view)
    assert phase == "hint" and text.startswith("Hint for white: place a white marble on a1")
    memory = Memory()
    memory.hear(BlunderWarning(1, Turn.from_notation("a1"), "loss"))
    phase, text = said(view=View("warning", W, squares=(0,), value="loss"), memory=memory)
    assert phase == "warning"
    assert text.startswith("Careful: a1 turns your game into a loss. Press again")
    memory.hear(NewGame(2, W))
    assert memory.warned is None


def test_the_result_names_the_winner_and_the_line_or_a_draw() -> None:
    black_line = Position(black=0x000F, white=0x0030, to_move=W, result=Result.BLACK)
    _, text = said(state=State.GAME_OVER.value, view=View("result", None), position=black_line)
    assert text == "Black wins: a1 b1 c1 d1"
    draw = Position(black=0x00FF, white=0xFF00, to_move=W, extra_presses=5, result=Result.DRAW)
    _, text = said(state=State.GAME_OVER.value, view=View("result", None), position=draw)
    assert text.startswith("Draw")


def test_a_fault_says_what_to_do_an_unplugged_ring_controller_to_plug_it_in() -> None:
    memory = Memory()
    memory.hear(Fault(1, "the ring controller on /dev/ttyACM0 is gone (no answer for 3 s)"))
    phase, text = said(state=State.FAULT.value, view=View("fault"), memory=memory)
    assert phase == "fault"
    assert text.startswith("The ring controller is unplugged or silent: plug it back in")
    memory.hear(Fault(1, "homing took too long"))
    _, text = said(state=State.FAULT.value, view=View("fault"), memory=memory)
    assert text == "The board has stopped: homing took too long. Fix it, then press to try again"


def test_the_opponent_menu_in_words() -> None:
    _, text = said(view=View("menu", W, menu=CHOICES[1]))
    assert text.startswith("Opponent menu: the board plays")
    invite = Choice(colour=B, seat=True)  # the menu's last item, with the board's page on
    _, text = said(view=View("menu", W, menu=invite))
    assert text.startswith("Opponent menu: invite a player on a phone for black. Press")
    phase, text = said(view=View("menu", W, menu=replace(invite, made=True)))
    assert (phase, text) == ("menu", "A player is invited to play black: the link and its QR "
                             "code are on this page, and in the board's log")  # fmt: skip
    lit = glows(View("menu", W, menu=invite), Palette())
    assert sorted(lit) == ["a1", "a4", "d1", "d4"]
    assert lit["a1"]["meaning"] == "menu: invite a player on a phone for black"


def test_every_phase_has_a_sentence_and_the_table_is_keyed_by_phase() -> None:
    assert phase_of(Situation(State.WAITING.value, View("play", W), START_W)) == "your-turn"
    assert set(SENTENCES) >= {
        "your-turn", "board-turn", "waiting-remote", "correction", "refused", "undo", "hint",
        "warning", "result", "rotating", "starting", "fault", "menu",
    }  # fmt: skip


def test_who_plays_what_in_words() -> None:
    s = Situation(State.WAITING.value, None, START_W, opponent=B, level="3")
    assert players_text(s) == "White: you · Black: the board (level 3)"
    s = Situation(State.WAITING.value, None, START_W)
    assert players_text(s) == "White: a person · Black: a person"
    s = Situation(State.WAITING.value, None, START_W, opponent=W, level="perfect")
    assert players_text(s) == "White: the board (perfect play) · Black: you"


def test_a_glow_is_a_kind_a_colour_a_blink_and_words_and_a_move_has_an_arrow() -> None:
    palette = Palette()
    view = View("play", B, board_turn=Turn.from_notation("c2-c3:b4"))
    lit = glows(view, palette)
    assert {name: g["kind"] for name, g in lit.items()} == {"c2": "from", "c3": "to", "b4": "place"}
    # Nothing done yet: lift c2 now (blinking yellow); the put and the place wait, dimly.
    assert lit["c2"]["colour"] == "#ffc800" and lit["c2"]["blink"] is True
    assert lit["c2"]["step"] == "now" and lit["c2"]["meaning"] == "lift this marble"
    assert lit["b4"]["colour"] == "#001640" and lit["b4"]["blink"] is False  # blue, a quarter
    assert lit["b4"]["step"] == "waiting"
    assert lit["b4"]["meaning"] == "then place a black marble here"
    assert arrow(view) == ["c2", "c3"]
    assert arrow(View("play", B, board_turn=Turn.from_notation("b4"))) is None
    assert status_words(view, palette).startswith("the board's turn")
    correction = View("correction", W, missing=((0, B),), extra=(1,))
    assert kinds_of(correction) == {0: "back", 1: "fix"}
    assert [row["key"] for row in legend(palette)][:2] == ["black", "white"]


def test_a_marble_knocked_while_the_board_checks_itself_asks_for_it_off() -> None:
    """In the page's snapshot (what a reload shows): the board's check after the rings'
    move finds a marble it did not expect, and the line names the square to empty."""
    from orbito_hw.sim.script import parse_line

    from .common.page import serve

    async def test(client: Any, run: Any) -> None:
        run.run(parse_line("put a1"))
        run.finger(True)
        run.advance(0.05)
        run.finger(False)
        for _ in range(5000):
            if run.referee.state is State.VERIFYING:
                break
            run.advance(0.005)
        assert run.referee.state is State.VERIFYING
        run.physics.put(sq("b4"), W)  # knocked in while the rings settle
        run.wait_for_rings()
        snapshot = await (await client.get("/state")).json()
        assert snapshot["phase"] == "correction"
        assert snapshot["instruction"] == "Take the marble off b4"
        assert snapshot["glows"]["b4"]["kind"] == "fix"

    serve(test)


def test_a_set_up_names_the_marbles_to_put_on_colour_by_colour_and_those_to_take_off() -> None:
    view = View("setup", B, missing=((sq("a1"), B), (sq("c3"), B)), extra=(sq("b2"),),
                later=((sq("d4"), W),))  # fmt: skip
    phase, text = said(view=view)
    assert phase == "setup"
    assert text == (
        "Set the position up: put black on a1 and c3 (lit); then white on d4 (dim); "
        "take the marbles off b2 (blinking red)"
    )
    every = View("setup", B, missing=((sq("a1"), B), (sq("b1"), W)))  # a press: all lit
    assert said(view=every)[1] == "Set the position up: put black on a1, white on b1 (lit)"


def test_a_puzzle_says_its_goal_then_its_result() -> None:
    goal = "White to play and win in 3 turns"
    memory = Memory()
    _, text = said(view=View("play", W), goal=goal, memory=memory)
    assert text == f"Puzzle: {goal}. White to move: place a marble, then press"
    memory.hear(PuzzleDone(1, "X", True, 3))
    _, text = said(state=State.GAME_OVER.value, view=View("result", None), goal=goal,
                   memory=memory)  # fmt: skip
    assert text.startswith("Solved in 3 turns. ")
    memory.hear(PuzzleDone(1, "X", False, 1))
    _, text = said(view=View("play", W), goal=goal, memory=memory)
    assert text.startswith("Not solved: try again with a take-back, or a new puzzle. White")
    memory.hear(TakenBack(1, 8, "..../..../..../....", W))  # a new try: the goal again
    assert said(view=View("play", W), goal=goal, memory=memory)[1].startswith("Puzzle: ")
    assert not said(view=View("play", W), memory=memory)[1].startswith("Puzzle")  # no puzzle


def test_the_goal_is_read_off_the_games_origin() -> None:
    from orbito_hw.control.puzzle import goal_of
    from orbito_hw.solver.puzzles import shipped_puzzles

    puzzle = shipped_puzzles()[0]
    assert goal_of(f"puzzle:{puzzle.id}") == puzzle.goal()
    assert goal_of("archive:3:4") == goal_of(None) == goal_of("puzzle:NOTANID") == ""


# --- every sentence marked, a seat named as its player (issue 36) ---------------------------
class Marked(gettext.NullTranslations):
    """A catalogue that shows which sentences went through it: each one in ⟨...⟩."""

    def gettext(self, message: str) -> str:
        return f"⟨{message}⟩"

    def ngettext(self, msgid1: str, msgid2: str, n: int) -> str:
        return f"⟨{msgid1 if n == 1 else msgid2}⟩"


def every_phase() -> list[Situation]:
    """A situation for each row of SENTENCES (and a few sides of some rows)."""
    turn = Turn.from_notation("a1")
    black = Position.start(B)
    black_line = Position(black=0x000F, white=0x0030, to_move=W, result=Result.BLACK)
    draw = Position(black=0x00FF, white=0xFF00, to_move=W, extra_presses=5, result=Result.DRAW)
    full = Position(black=0x00FF, white=0xFF00, to_move=W)
    fault, warned, remote = Memory(), Memory(), Memory()
    fault.hear(Fault(1, "homing took too long"))
    warned.hear(BlunderWarning(1, turn, "loss"))
    remote.hear(RemoteStatus(1, "disconnected"))
    waiting = State.WAITING.value
    return [
        Situation(waiting, View("play", W), START_W),
        Situation(waiting, View("play", W), full),
        Situation(waiting, View("play", W), START_W, hand=(B,)),
        Situation(waiting, View("play", W), START_W, hand=(W,)),
        Situation(waiting, View("play", B), black, on_board=("a1", "b2")),
        Situation(waiting, View("play", B, board_turn=turn), black, opponent=B),
        Situation(waiting, View("play", B), black, opponent=B),
        Situation(waiting, View("play", B), black, opponent=B, opponent_by="remote", memory=remote),
        Situation(waiting, View("play", B), black, opponent=B, opponent_by="remote", seat=True),
        Situation(
            waiting,
            View("play", B),
            black,
            opponent=B,
            opponent_by="remote",
            seat=True,
            memory=remote,
        ),
        Situation(waiting, View("hint", W, hint_turn=turn, value="win"), START_W),
        Situation(waiting, View("warning", W, squares=(0,), value="loss"), START_W, memory=warned),
        Situation(State.GAME_OVER.value, View("result", None), black_line),
        Situation(State.GAME_OVER.value, View("result", None), draw),
        Situation(State.ROTATING.value, View("rotating", W), START_W),
        Situation(State.STARTING.value, View("starting", W), START_W),
        Situation(State.FAULT.value, View("fault"), START_W, memory=fault),
        Situation(State.FAULT.value, View("fault"), START_W),
        Situation(waiting, View("menu", W, menu=CHOICES[0]), START_W),
        Situation(waiting, View("menu", W, menu=CHOICES[1]), START_W),
        Situation(waiting, View("menu", W, menu=CHOICES[-1]), START_W),
        Situation(waiting, View("menu", W, menu=replace(CHOICES[-1], made=True)), START_W),
        Situation(waiting, View("play", W), START_W, goal="White to play and win in 1 turn"),
        Situation(State.TURN.value, View("discard", W), black),  # throw this game away?
        Situation(State.FAULT.value, View("discard", W), black),  # the question comes first
    ]


def test_every_sentence_of_the_page_goes_through_the_catalogue(monkeypatch: Any) -> None:
    # Each sentence, as a whole, is the translation of a marked message: no English is left
    # outside the catalogue's words (a French page read "White to move" before).
    monkeypatch.setattr(lang, "translation", lambda code, domain=lang.DOMAIN: Marked())
    for situation in every_phase():
        phase, text = instruction(situation)
        assert text.startswith("⟨") and text.endswith("⟩"), (phase, text)
        who = players_text(situation)
        assert who.startswith("⟨") and who.endswith("⟩"), who
        for part in who.split(" · "):
            assert part.count("⟨") >= 2, f"{part}: the player's words unmarked"


def test_a_seat_is_named_as_the_player_on_the_phone_not_a_board() -> None:
    turn = Turn.from_notation("a1")
    black = Position.start(B)
    seat = {"opponent": B, "opponent_by": "remote", "seat": True, "position": black}
    _, text = said(view=View("play", B, board_turn=turn), **seat)
    assert text == "The player on the phone plays a1: place a black marble on a1, then press"
    phase, text = said(view=View("play", B), **seat)
    assert phase == "waiting-remote"
    assert text == "Waiting for the player on the phone (black): choosing a turn"
    s = Situation(State.WAITING.value, None, black, opponent=B, opponent_by="remote", seat=True)
    assert players_text(s) == "White: you · Black: the player on the phone"


def test_the_page_names_a_seated_player_on_the_phone() -> None:
    async def test(client: TestClient[Any, Any], run: MockRun) -> None:
        answer = await client.post("/api/seat/invite", json={"colour": "white"})
        invited = await answer.json()
        state = await (await client.get("/state")).json()
        assert "the player on the phone" not in state["who"]  # invited, not seated yet
        assert (await client.get(f"/api/seat/{invited['token']}")).status == 200  # it sits
        state = await (await client.get("/state")).json()
        assert state["who"] == "White: the player on the phone · Black: you"
        assert (await client.post("/api/square/b1")).status == 200
        assert (await client.post("/api/press")).status == 200
        await until_async(lambda: list(run.referee.snapshot().saved.turns) == ["b1"], what="b1")
        state = await (await client.get("/state")).json()
        assert (
            state["instruction"] == "Waiting for the player on the phone (white): choosing a turn"
        )
        assert state["seat"] == "white"
        token = invited["token"]
        turn = await client.post(f"/api/seat/{token}/turn", json={"number": "2", "turn": "b4"})
        assert turn.status == 200
        state = await (await client.get("/state")).json()
        assert state["phase"] == "board-turn"
        assert state["instruction"].startswith("The player on the phone plays b4: ")
        assert state["status_text"].startswith("the player on the phone's turn"), state
        french = await (await client.get("/state?lang=fr")).json()
        assert french["seat"] == "white" and french["status_text"] != state["status_text"]

    serve(test)
