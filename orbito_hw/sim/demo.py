"""The demo game of ``orbito-hw run --mock``: the board plays black at level ``DEMO_LEVEL``
against a simulated casual person, who makes the board's turns as the LEDs show them; with
settings that have no board player, two opponents from the solution table, a strong one and a
casual one, play each other.

The players' turns become what hands would do (lifts, puts, hesitations, the press), so
the demo runs the real controller, not a shortcut; the board is drawn in the terminal after
every turn, its LEDs told in words as at the prompt, and a line says how the rings turned.
At a terminal it is paced for a person to read (``PAUSE`` after each board drawn; ``fast``
for none); on a pipe it is never paced, and its lines are the same.
"""

from __future__ import annotations

import random
import sys
import textwrap
import time
from collections.abc import Callable, Sequence
from typing import Final, TextIO

from orbito_hw.control.events import Event, GameOver, Rejected, TurnPlayed
from orbito_hw.control.led_words import view_words
from orbito_hw.control.players import BoardPlayer
from orbito_hw.control.referee import Referee
from orbito_hw.control.settings import Settings
from orbito_hw.errors import reader_gone
from orbito_hw.hw.interfaces import RGB, Backend, rgb_hex
from orbito_hw.lang import _, reworded
from orbito_hw.rules.game import Colour, Position
from orbito_hw.rules.squares import PRESS_FROM, Square, parse_square, square_name, squares_of
from orbito_hw.rules.turn import Turn
from orbito_hw.sim.harness import MockRun, board_player
from orbito_hw.sim.script import Command
from orbito_hw.solver.opponents import KEEP, parse_level

# The board's level in the default demo: strong, yet it now and then lets the person back in.
DEMO_LEVEL = "5"
CASUAL_SKILL: Final = 0.6
"""How often the demo's casual person finds a strong turn."""
PAUSE: Final = 1.5
"""Seconds a person at a terminal is given to read each board the demo draws."""


def turn_commands(turn: Turn, rng: random.Random, board: bool = False) -> list[Command]:
    """A turn as hands make it: the placement before or after the move, now and then a
    hesitation (a marble lifted and put straight back). The ``board``'s own turn is made as
    its LEDs show it, the move before the placement (the other order is refused)."""
    if turn.place is None:
        return [Command("press")]
    place = [Command("put", square=turn.place)]
    move: list[Command] = []
    if turn.move_from is not None and turn.move_to is not None:
        move = [Command("lift", square=turn.move_from), Command("put", square=turn.move_to)]
        if rng.random() < 0.2:  # lifted, thought better of it, put back, then moved anyway
            move = [
                Command("lift", square=turn.move_from),
                Command("put", square=turn.move_from),
                *move,
            ]
    placement_first = bool(move) and turn.place != turn.move_from and rng.random() < 0.5
    placement_first &= not board
    hands = place + move if placement_first else move + place
    return [*hands, Command("press")]


def _board_turn(run: MockRun) -> Turn:
    turn = run.referee.board_turn
    assert turn is not None, "the board shows no turn on its move"
    return turn


def paint(text: str, rgb: tuple[int, int, int], blinking: bool) -> str:
    """``text`` in the terminal's colour ``rgb`` (blinking when the LED blinks)."""
    blink = "\x1b[5m" if blinking else ""
    return f"\x1b[38;2;{rgb[0]};{rgb[1]};{rgb[2]}m{blink}{text}\x1b[0m"


def draw_board(run: MockRun, colour: bool, who: str | None = None) -> str:
    """The marbles on the simulated board, each lit square on its LED's colour, then every
    lit LED in words, as the prompt tells them (``who`` names the player whose turn the
    LEDs show)."""
    now = run.referee.snapshot()
    lit = view_words(now.view, now.palette, who)
    frame: list[RGB | None] = [None] * 16
    status = None
    for item in lit:
        if item.where == "status":
            status = item.colour
        else:
            frame[parse_square(item.where)] = item.colour
    rows = draw(run.physics.colour_at, frame, status, colour).splitlines()[:-1]
    for item in lit:
        text = item.text(now.palette)
        rows.append("    " + (paint(text, item.colour, item.blinking) if colour else text))
    if not lit:
        rows.append("    " + _("LEDs: dark"))
    return "\n".join(rows)


def rings_turned(position: Position) -> str:
    """The press's ring move, from the marbles where it left them: each marble's step, one
    place counter-clockwise along its ring (the one idea of Orbito a newcomer must get)."""
    steps = []
    for square in range(16):
        marble = position.colour_at(square)
        if marble is not None:
            glyph = "●" if marble is Colour.BLACK else "○"
            # a NO-BREAK SPACE: a step is never split over two lines (textwrap keeps it)
            steps.append(f"{glyph}\u00a0{square_name(PRESS_FROM[square])}→{square_name(square)}")
    text = _("the rings turned one place counter-clockwise: {steps}").format(
        steps=", ".join(steps) or _("no marble moved")
    )
    return "\n".join(textwrap.wrap(text, 80, subsequent_indent="    ")).replace("\u00a0", " ")


def draw(
    colour_at: Callable[[Square], Colour | None],
    frame: Sequence[RGB | None],
    status: RGB | None,
    colour: bool,
) -> str:
    """The marbles, each square as ``colour_at`` says; a lit square on its LED's colour in
    ``frame`` (or in brackets without colours), then the lit LEDs and the status pixel by
    name. The archive draws a game's last position the same way."""
    rows = []
    for rank in range(3, -1, -1):
        cells = ""
        for file in range(4):
            sq = rank * 4 + file
            glyph = {None: "·", Colour.BLACK: "●", Colour.WHITE: "○"}[colour_at(sq)]
            led = frame[sq]
            if led is None:
                cells += f" {glyph} "
            elif colour:
                cells += f"\x1b[48;2;{led[0]};{led[1]};{led[2]}m {glyph} \x1b[0m"
            else:
                cells += f"[{glyph}]"
        rows.append(f"  {rank + 1} {cells}")
    rows.append("     a  b  c  d")
    lit = [f"{square_name(sq)} {rgb_hex(c)}" for sq, c in enumerate(frame) if c is not None]
    rows.append(
        f"    LEDs: {', '.join(lit) or 'dark'}; status {rgb_hex(status) if status else 'dark'}"
    )
    return "\n".join(rows)


def show_board_turn(run: MockRun, colour: bool, say: Callable[..., None]) -> None:
    """The board's turn as the person sees it: the turn, and its LEDs in words."""
    say(_("the board shows its turn: {turn}").format(turn=_board_turn(run)),
        draw_board(run, colour))  # fmt: skip


def level_words(name: str) -> str:
    """A player of the demo in words: what its level means (``perfect``, ``1``..``5``,
    ``random``, and the demo's ``strong`` and ``casual``)."""
    if name in KEEP:
        return _("level {level}: the best turn {n} times in 100, else a mistake").format(
            level=name, n=round(KEEP[name] * 100)
        )
    words = {
        "perfect": _("perfect: the best turn every time"),
        "random": _("random: any legal turn"),
        "strong": _("strong: always a turn that keeps a won game won"),
        "casual": _("casual: a strong turn {n} times in 10, else any legal turn").format(
            n=round(CASUAL_SKILL * 10)
        ),
    }
    return words.get(name, name)


def _set_up(
    run: MockRun,
    players: dict[Colour, Callable[[Position], Turn]],
    names: dict[Colour, str],
    seed: int | None,
    say: Callable[..., None],
) -> BoardPlayer | None:
    """The position the board asks for, put on by the simulated person (a puzzle's): then
    the board plays the side it took on (``control/puzzle.py``), the person the other one
    perfectly; the board's player, or None."""
    from orbito_hw.control.setup import squares_asked
    from orbito_hw.solver.opponents import make_opponent

    target = run.referee.position
    say(f"the board asks for {target.board()} to be set up, {target.to_move} to play")
    on = run.physics.occupancy()
    for square in squares_of(on & ~target.occupied):
        run.run(Command("lift", square=square))
        run.physics.empty_hand()
    for square, marble in squares_asked(target):
        if not on >> square & 1:
            run.run(Command("put", square=square, colour=marble))
    board = run.referee.opponent
    person = make_opponent("perfect", seed=seed)
    for side in Colour:
        names[side], players[side] = _("the person (perfect play)"), person.choose
    if board is not None:
        names[board.colour] = _("the board")
        players[board.colour] = lambda position: _board_turn(run)
    mover = target.to_move
    say(_("set up: {colour} to play; {mover} against {other}").format(
        colour=colour_word(mover), mover=names[mover], other=names[mover.other]))  # fmt: skip
    return board


def colour_word(colour: Colour) -> str:
    return _("black") if colour is Colour.BLACK else _("white")


def run_demo(
    seed: int | None = None,
    out: TextIO | None = None,
    backend: Backend = "sim",
    settings: Settings | None = None,
    state_dir: str | None = None,
    listener: Callable[[Event], None] | None = None,
    on_boot: Callable[[Referee], None] | None = None,
    fast: bool = False,
    sleep: Callable[[float], None] = time.sleep,
    room: str = "dark",
) -> int:
    """A game against the board (black, at ``DEMO_LEVEL``) by default; with ``settings``, the
    board plays ``settings.opponent`` if any, else two opponents play each other. The
    simulated person makes the turns the board shows; each is drawn lit before it is made.
    ``state_dir`` keeps the journal (a fresh temporary directory when None); ``listener``
    hears every event and ``on_boot`` each start of the controller (the game archive).
    ``out`` a terminal: ``sleep(PAUSE)`` after each board drawn, unless ``fast``."""
    out = out or sys.stdout
    if settings is None:
        settings = Settings(opponent=board_player(parse_level(DEMO_LEVEL), Colour.BLACK, seed))
    rng = random.Random(seed)
    from orbito_hw.solver.opponents import make_opponent

    strong, casual = (
        make_opponent("strong", seed=seed),
        make_opponent("casual", seed=seed, skill=CASUAL_SKILL),
    )
    names = {Colour.BLACK: "strong", Colour.WHITE: "casual"}
    levels = dict(names)  # each side's level, for the opening lines
    players: dict[Colour, Callable[[Position], Turn]] = {
        Colour.BLACK: strong.choose,
        Colour.WHITE: casual.choose,
    }
    colour = out.isatty()
    paced = colour and not fast  # a person reads a terminal; a program reads a pipe at once
    stream = out

    def say(*lines: str) -> None:
        # A reader that has gone (| head -1) ends nothing: the rest goes nowhere, quietly.
        try:
            print(*lines, sep="\n", file=stream, flush=paced)
        except BrokenPipeError:
            reader_gone(stream)

    def pause() -> None:
        if paced:
            sleep(PAUSE)

    def on_event(event: Event) -> None:
        if listener is not None:
            listener(event)
        if isinstance(event, TurnPlayed):
            # The board is drawn once the turn's LEDs have settled (the loop below).
            say(_("turn {number}: {colour} {turn}").format(
                    number=event.number, colour=colour_word(event.colour), turn=event.turn),
                rings_turned(run.referee.position))  # fmt: skip
        elif isinstance(event, Rejected):
            say(_("refused: {reason}").format(reason=reworded(event.reason)))
        elif isinstance(event, GameOver):
            winner = event.result.winner
            who = (
                _("{colour} ({name}) wins").format(colour=colour_word(winner), name=names[winner])
                if winner is not None
                else _("a draw")
            )
            say(_("result: {who}").format(who=who), draw_board(run, colour))

    run = MockRun(state_dir, settings, parts=backend, on_event=on_event, seed=seed, on_boot=on_boot,
                  room=room)  # fmt: skip
    board = settings.opponent
    if board is not None:
        names[board.colour] = _("the board")
        levels[board.colour] = board.player.removeprefix("board:")
        players[board.colour] = lambda position: _board_turn(run)
    try:
        if run.referee.snapshot().saved.setting_up:  # a position asked for (run --mock --puzzle ID)
            board = _set_up(run, players, names, seed, say)
        else:
            first = rng.choice(list(Colour))
            # A state directory that holds a game: the demo starts the next one.
            run.run(Command("reset", colour=first), first_command=not run.referee.snapshot().turns)
            say(_("a demo game on the simulated board, {colour} first:").format(
                colour=colour_word(first)))  # fmt: skip
            for side in Colour:
                mine = board is not None and board.colour is side
                who = _("the board") if mine else _("a simulated person")
                level = level_words(levels[side])
                say(_("  {colour}: {who}, {level}").format(
                    colour=colour_word(side), who=who, level=level))  # fmt: skip
            if board is not None:
                say(_("the person makes the board's turns too, by hand, as its LEDs show them"))
            pause()
        run.wait_for_rings()
        while run.referee.position.result is None:
            position = run.referee.position
            mine = board is not None and position.to_move is board.colour
            if mine:
                show_board_turn(run, colour, say)
            else:
                say(draw_board(run, colour))
            pause()
            for command in turn_commands(players[position.to_move](position), rng, mine):
                run.run(command)
            run.wait_for_rings()  # the press counts on release: the rings may still turn
        run.finish()
    finally:
        run.close()
    return 0
