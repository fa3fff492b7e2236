"""A new game on two boards (through a real mosquitto, the ``broker`` fixture): black's
person starts it, white's board follows with the last game's marbles on it, and the first
turn of the new game lights there and is made, as in the hostile soak's games."""

from __future__ import annotations

import random
from pathlib import Path

from orbito_hw.control.events import BoardTurn, Rejected
from orbito_hw.mock.remote import RemoteMock
from orbito_hw.rules.game import Colour, Position
from orbito_hw.rules.squares import square_name
from orbito_hw.rules.turn import Turn
from orbito_hw.sim.demo import turn_commands

from .common.two_boards import (
    Broker,
    assert_records,
    game,
    play_turn,
    playing,
    scenario,
    told,
    until,
)


async def new_game_after(both: dict[Colour, RemoteMock], played: list[Turn]) -> Turn:
    """After ``played``, black's person starts a new game (their board cleared); white's
    board follows, the last game's marbles on it, which white's person lifts off (the white
    ones last); then black's first turn of the new game (not the old one's), made on both
    boards as it lights."""
    rng = random.Random(len(played))
    for number, turn in enumerate(played, 1):
        await play_turn(both, number, turn, rng)
    black, white = both[Colour.BLACK], both[Colour.WHITE]
    black.do("reset black")
    await until(lambda: white.run.referee.snapshot().turns == (), both)
    marbles = white.run.referee.snapshot().marbles
    for square in sorted(marbles, key=lambda sq: marbles[sq].colour is Colour.WHITE):
        white.do(f"lift {square_name(square)}")
    return await first_turn(both, played[0])


async def first_turn(both: dict[Colour, RemoteMock], old: Turn) -> Turn:
    """Black's first turn of a new game, another than the last game's ``old``: made on
    both boards as it lights, nothing refused."""
    first = next(t for t in sorted(Position.start(Colour.BLACK).legal_turns(), key=str)
                 if t != old)  # fmt: skip
    await play_turn(both, 1, first, random.Random(0))
    assert_records(both, Colour.BLACK, [first])
    assert not any(isinstance(e, Rejected) for b in both.values() for e in b.events)
    return first


def test_a_new_game_followed_on_a_full_board_is_cleared_and_played_there(
    broker: Broker, tmp_path: Path
) -> None:
    """White's person clears the last game's marbles off the board that followed black's
    new game, the white one last: it went into the hand, the page asked for it back ("put
    the white marble you lifted next to where it was"), and the simulated person put it
    down for black's first turn, refused. (The soak's way around it, a press on the
    cleared board, chose who starts instead: the boards disagreed, ~half its games.)"""
    _, turns = game(4)

    async def body() -> None:
        async with playing(broker, tmp_path) as both:
            await new_game_after(both, turns[:3])
            assert not both[Colour.WHITE].run.referee.snapshot().hand  # black's put took it

    scenario(body)


def test_the_other_boards_first_turn_of_the_last_game_is_not_shown_in_the_next(
    broker: Broker, tmp_path: Path
) -> None:
    """A game of one turn, then a new one: the same position again on white's board, where
    the old game's turn (arrived, made, never forgotten) was chosen again for the new game
    before the new game was heard, and lit instead of black's new first turn."""
    _, turns = game(4)

    async def body() -> None:
        async with playing(broker, tmp_path) as both:
            first = await new_game_after(both, turns[:1])
            told_turns = [e.turn for e in both[Colour.WHITE].events if isinstance(e, BoardTurn)]
            assert told_turns == [turns[0], first]

    scenario(body)


def test_a_turn_lit_and_never_made_is_not_shown_in_the_new_game_that_follows(
    broker: Broker, tmp_path: Path
) -> None:
    """Black's first turn lights on white's board; before white's person makes it, black's
    starts a new game, which white's board follows: the old turn, chosen again for the
    same position before the new game was heard, was lit instead of the new first turn."""
    _, turns = game(4)

    async def body() -> None:
        async with playing(broker, tmp_path) as both:
            black, white = both[Colour.BLACK], both[Colour.WHITE]
            for command in turn_commands(turns[0], random.Random(1)):
                black.command(command)
            await until(lambda: told(white, BoardTurn, number=1), both)
            black.do("reset black")
            await until(lambda: black.game.kept.round == white.game.kept.round == 2, both)
            assert white.run.referee.board_turn is None
            await first_turn(both, turns[0])

    scenario(body)
