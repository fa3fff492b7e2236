"""The interactive prompt of ``run --mock --interactive`` (local, and in a remote game): a
small terminal app for a person. Board-script commands, a whole turn in the game's notation
(``c1-c2:a2``), ``undo``, ``new`` and ``hint`` (prompt_hands.py), plus ``help``, ``board``,
``clear``, ``quit`` and ``exit``; squares in any case; every event as a sentence; after each
change the board drawn with what its LEDs ask, in words (and in the terminal's colours when
it has them).

A program on a pipe (stdin or stdout not a terminal) gets what it always got: the events
as JSON lines (the contract of ``--events``), no prompt and no drawing; ``help`` and
``quit`` work there too.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import sys
import textwrap
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Final, TextIO

from orbito_hw.commands.prompt_hands import Whole, whole_of
from orbito_hw.errors import OrbitoError, echo
from orbito_hw.lang import N_, _, language
from orbito_hw.sim.demo import draw_board
from orbito_hw.sim.script import parse_line

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

    from orbito_hw.control.events import Event
    from orbito_hw.sim.harness import MockRun
    from orbito_hw.sim.script import Command

PROMPT: Final = "orbito> "

# (form, example, what it does): every command, each with an example to type. The one
# source of both ``help`` and the unknown-command message (``commands``).
HELP: Final = (
    (
        "TURN",
        "c1-c2:a2",
        N_("a whole turn in the game's notation (a2, c1-c2:a2, *), made and pressed"),
    ),
    ("undo", "undo", N_("take back the last turn, the marbles put back")),
    ("new [black|white]", "new white", N_("a new game, that colour first (else as this one)")),
    ("hint", "hint", N_("the best turn here, from the solved game")),
    ("lift SQ", "lift c1", N_("lift the marble on SQ into your hand")),
    (
        "put SQ [black|white]",
        "put c2",
        N_("put a marble on SQ: the one in your hand, else one of the side to move"),
    ),
    ("press", "press", N_("press the Orbito button: your turn, or a hint with hints on")),
    ("hold S", "hold 2.5", N_("hold the button S seconds: 2 takes back a turn")),
    ("wait S", "wait 1", N_("let S seconds pass")),
    ("bounce SQ", "bounce b2", N_("SQ's sensor chatters and settles back")),
    ("slip N", "slip 30", N_("the next ring move loses N motor steps")),
    ("power-cut", "power-cut", N_("the controller dies and restarts from its journal")),
    ("reset black|white", "reset white", N_("empty the board: a new game, that colour first")),
    (
        "setup COLOUR TOKENS",
        "setup black a1 b2",
        N_("a new game from the position the record reaches"),
    ),
    (
        "opponent LEVEL COLOUR|none",
        "opponent perfect white",
        N_("the board plays COLOUR at LEVEL (perfect, 5..1, random), or nobody"),
    ),
    ("hints on|off", "hints on", N_("hints and the blunder warning")),
    ("board", "board", N_("draw the board and its LEDs again")),
    ("clear", "clear", N_("clear the screen, then draw the board")),
    ("help", "help", N_("this list")),
    ("quit", "quit", N_("leave (exit and Ctrl-D too)")),
)
WIDTH: Final = 80
"""Columns ``help`` fits in."""
FRENCH: Final = {
    "annuler": "undo",
    "nouvelle": "new",
    "nouveau": "new",
    "conseil": "hint",
    "lever": "lift",
    "poser": "put",
    "appuyer": "press",
    "tenir": "hold",
    "attendre": "wait",
    "rebond": "bounce",
    "glisser": "slip",
    "coupure": "power-cut",
    "vider": "reset",
    "position": "setup",
    "adversaire": "opponent",
    "conseils": "hints",
    "plateau": "board",
    "effacer": "clear",
    "aide": "help",
    "quitter": "quit",
    "sortir": "exit",
    "noir": "black",
    "noirs": "black",
    "blanc": "white",
    "blancs": "white",
    "aucun": "none",
    "personne": "none",
    "parfait": "perfect",
    "hasard": "random",
    "oui": "on",
    "non": "off",
}
"""The prompt's words in French, beside the English ones (any language: a French player's
``annuler`` is never "unknown"): each the English word it stands for."""
ENGLISH_TO_FRENCH: Final = {
    english: french
    for french, english in FRENCH.items()
    if french not in ("nouveau", "noirs", "blancs", "personne", "sortir")
}


FRENCH_FORMS: Final = {
    "TURN": "TOUR",
    "SQ": "CASE",
    "COLOUR": "COULEUR",
    "LEVEL": "NIVEAU",
    "TOKENS": "TOURS",
}
"""The names in the forms, as the French help's sentences call them."""


def in_french(form: str) -> str:
    """A command's form (``opponent LEVEL COLOUR|none``) with its French words."""
    return re.sub(
        r"[\w-]+", lambda m: ENGLISH_TO_FRENCH.get(m[0], FRENCH_FORMS.get(m[0], m[0])), form
    )


class QuitError(OrbitoError, EOFError):
    """``quit`` or ``exit`` was typed: as the end of the input (never an error to report)."""


def commands() -> list[str]:
    """The command words, as ``help`` lists them (the first word of each form), in French
    when the prompt speaks it (the English ones are still understood)."""
    words = [form.split()[0] for form, _ex, _what in HELP]
    if language() == "fr":
        return [in_french(word) for word in words]
    return words


def unknown(word: str) -> str:
    """The refusal of a word that is no command: every command ``help`` lists."""
    return _("unknown command {word}: type {commands} (help says what each does)").format(
        word=echo(word), commands=", ".join(commands())
    )


def help_text() -> str:
    """Every command, its form, what it does and an example, within WIDTH columns (a form
    too long for its column on a line of its own)."""
    column = 20
    indent = " " * (column + 4)
    lines = [_("commands (one a line; # starts a comment; TURN as in a game record):")]
    french = language() == "fr"
    for form, example, what in HELP:
        if french:
            form, example = in_french(form), in_french(example)
        text = _(what)
        if example != form:  # kept on one line: NO-BREAK SPACEs, which textwrap keeps
            nbsp = "\u00a0"
            text = _("{what}; e.g. {example}").format(what=text, example=example)
            text = text.replace(f" {example}", f" {example}".replace(" ", nbsp))
        first = f"  {form.ljust(column)}  "
        if len(form) > column:
            lines.append(f"  {form}")
            first = indent
        lines += textwrap.wrap(text, WIDTH, initial_indent=first, subsequent_indent=indent,
                               break_on_hyphens=False)  # fmt: skip
    return "\n".join(lines).replace("\u00a0", " ")


class Prompt:
    """What a person at a terminal sees; ``person`` False: a program, JSON lines only.

    ``who`` names the player whose turns the LEDs show: "the board", or in a remote game
    the other person's board ("white's board")."""

    def __init__(self, out: TextIO, person: bool, colour: bool, who: str | None = None) -> None:
        self.out = out
        self.person = person
        self.colour = colour
        self.who = who

    def say(self, text: str) -> None:
        print(text, file=self.out, flush=True)

    def event(self, event: Event, seat: bool = False) -> None:
        """One event: a sentence for a person, a JSON line for a program (``seat``: the
        other side is a seat's page, a person on a phone)."""
        if self.person:
            from orbito_hw.app.logs import describe

            self.say(describe(event, seat)[1])
        else:
            from orbito_hw.commands import emit

            emit(event.to_json(), self.out)

    def interpret(
        self, text: str, number: int, run: MockRun | None = None
    ) -> Command | Whole | None:
        """What a typed line asks for: a board-script command, a whole-turn word (a turn in
        notation, ``undo``, ``new``, ``hint``: prompt_hands.py makes it), or None for one
        the prompt answers itself (``help``, ``board``, ``clear``, a blank line). Squares
        and words in any case (``put A2``). QuitError for ``quit``/``exit``, ValueError
        for a line that is not a command."""
        typed = text.split("#", 1)[0].lower().split()
        words = [FRENCH.get(word, word) for word in typed]
        if not words:
            return None
        word = words[0]
        if word in ("quit", "exit"):
            raise QuitError
        if word == "help":
            self.say(help_text())
            return None
        if word in ("board", "clear"):
            if word == "clear" and self.person:
                self.out.write("\x1b[H\x1b[2J")
            if run is not None:
                self.board(run)
            return None
        whole = whole_of(words)
        if whole is not None:
            return whole
        if word not in [form.split()[0] for form, _ex, _what in HELP]:
            raise ValueError(unknown(typed[0]))
        # A person's line has no number to be named by (a script's has: --events).
        return parse_line(" ".join(words), 0 if self.person else number)

    def board(self, run: MockRun) -> None:
        """The marbles, each lit square on its LED's colour, then every LED in words (the
        demo draws them the same way)."""
        if self.person:
            self.say(draw_board(run, self.colour, self.who))


def read_lines(prompt: Prompt) -> None:
    """Make stdin's lines editable with a history (readline) when a person types them."""
    if prompt.person:
        with contextlib.suppress(ImportError):  # a Python built without it: plain lines
            import readline  # noqa: F401  (input() edits lines and keeps a history with it)


def terminal() -> bool:
    """Whether a person sits at this terminal: stdin and stdout both a TTY."""
    return sys.stdin.isatty() and sys.stdout.isatty()


class RemotePrompt:
    """The prompt in a remote game (mock/worlds.py's ``Typed``): lines read by ``input()``
    on a thread of their own (readline's editing and history), while the event loop runs
    the board and the other board's turns come in. An event that arrives while the person
    is typing is printed above the prompt, the board drawn again, the typed text kept."""

    def __init__(self, prompt: Prompt, run: Callable[[], MockRun | None]) -> None:
        self.prompt = prompt
        self.run = run
        self.handling = False  # a typed line is being run: it draws the board itself
        self.changed = False  # the line typed ran a command: the board is drawn after it
        self._redraw: asyncio.TimerHandle | None = None

    def event(self, event: Event) -> None:
        run = self.run()
        opponent = run.referee.opponent if run is not None else None
        seat = opponent is not None and opponent.seat()  # the other side: a phone's page
        if not self.prompt.person or self.handling:
            self.prompt.event(event, seat)
            return
        self.prompt.out.write("\r\x1b[K")  # over the prompt and what is typed on it
        self.prompt.event(event, seat)
        if self._redraw is None:  # the board once for a burst of events
            loop = asyncio.get_running_loop()
            self._redraw = loop.call_later(0.2, self._draw_again)

    def _draw_again(self) -> None:
        self._redraw = None
        run = self.run()
        if run is not None and not self.handling:
            self.prompt.board(run)
            typed = ""
            with contextlib.suppress(ImportError):
                import readline

                typed = readline.get_line_buffer()
            self.prompt.out.write(PROMPT + typed)
            self.prompt.out.flush()

    def interpret(self, text: str, number: int) -> Command | None:
        self.changed = False
        run = self.run()
        command = self.prompt.interpret(text, number, run)
        if isinstance(command, Whole):
            if command.name != "hint" or run is None:
                # Made by hand on this board only: the other board's turns come in meanwhile.
                raise ValueError(_("in a remote game, make a turn by hand: lift, put, press"))
            from orbito_hw.commands.prompt_hands import hint

            self.prompt.say(hint(run))
            return None
        self.changed = command is not None  # help, board, clear: answered already
        return command

    def after(self) -> None:
        run = self.run()
        if run is not None and self.changed:
            self.prompt.board(run)
        self.handling = self.changed = False

    async def lines(self) -> AsyncIterator[str]:
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[str | None] = asyncio.Queue()
        handled = threading.Event()

        def read() -> None:
            while True:
                try:
                    line: str | None = input(PROMPT)
                except (EOFError, KeyboardInterrupt, OSError):
                    line = None
                loop.call_soon_threadsafe(queue.put_nowait, line)
                if line is None:
                    return
                handled.wait()  # the next prompt once the board is drawn
                handled.clear()

        # A daemon: a person who leaves by Ctrl-C leaves it blocked in input().
        threading.Thread(target=read, name="orbito-prompt", daemon=True).start()
        while (line := await queue.get()) is not None:
            self.handling = True
            yield line
            handled.set()
