"""``run``: the board controller; ``--mock`` runs it on the simulated board."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from orbito_hw.commands import UsageError, emit, fail, input_lines
from orbito_hw.hw.interfaces import BACKENDS, Backend  # the names only: no driver is imported
from orbito_hw.hw.light_front import ROOMS  # the room lights' names: no driver either
from orbito_hw.lang import _, reworded

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

    from orbito_hw.archive.recorder import Recorder
    from orbito_hw.control.events import Event, EventListener
    from orbito_hw.control.referee import Referee
    from orbito_hw.control.requests import SetupRequest
    from orbito_hw.control.settings import Settings
    from orbito_hw.remote.protocol import BrokerUrl
    from orbito_hw.rules.game import Colour
    from orbito_hw.sim.harness import MockRun
    from orbito_hw.sim.script import Command


def register(sub: Any) -> None:
    p = sub.add_parser("run", help=_("run the board controller"))
    p.add_argument("--mock", action="store_true", help=_("use the simulated board"))
    p.add_argument(
        "--events", metavar="FILE", help=_("run a board script (- for stdin), print JSON events")
    )
    p.add_argument(
        "--interactive", action="store_true", help=_("type board-script commands at a prompt")
    )
    p.add_argument(
        "--web", action="store_true", help=_("serve the board's page; play it in a browser")
    )
    p.add_argument(
        "--port",
        type=int,
        default=None,
        help=_("the page's port with --web (8080; 0: any free one)"),
    )
    p.add_argument(
        "--backend",
        default="sim",
        help=_("drivers run against the simulated board: {backends}").format(
            backends=", ".join(
                _("{name} (default)").format(name=name) if name == "sim" else name
                for name in BACKENDS
            )
        ),
    )
    p.add_argument(
        "--room",
        default="dark",
        choices=list(ROOMS),
        help=_(
            "the room's light on the simulated board with --backend tmag, which tells colour "
            "by light: dark (default), lamps (500 lux), bright (10,000 lux of lamps), window "
            "(10,000 lux of daylight), sun (direct sun)"
        ),
    )
    p.add_argument(
        "--state-dir",
        metavar="DIR",
        help=_(
            "where the journal and the game archive live, made if missing (default: a fresh "
            "temp dir; with --puzzle, ~/.local/state/orbito-hw)"
        ),
    )
    p.add_argument(
        "--seed",
        type=int,
        default=None,
        help=_("random seed of the demo game and the board's turns"),
    )
    p.add_argument(
        "--fast",
        action="store_true",
        help=_("the demo without its pauses at a terminal (on a pipe it never pauses)"),
    )
    p.add_argument(
        "--opponent",
        metavar="LEVEL:COLOUR",
        help=_("the board plays COLOUR at LEVEL (perfect, 5..1, random), e.g. perfect:white"),
    )
    p.add_argument(
        "--hints",
        action="store_true",
        help=_("a press before any touch shows the best turn; a blunder is held back once"),
    )
    p.add_argument(
        "--resume",
        metavar="ID[@N]",
        help=_("set game ID of --state-dir's archive up (after its turn N) and play on"),
    )
    p.add_argument(
        "--puzzle",
        metavar="ID",
        help=_(
            "set puzzle ID up (see `orbito-hw puzzles`; next: the one progress chooses) and "
            "play it, the board defending"
        ),
    )
    p.add_argument(
        "--remote",
        metavar="mqtt://HOST:PORT/GAME",
        help=_("join the remote game GAME on the MQTT broker (with --plays; mqtts:// for TLS)"),
    )
    p.add_argument(
        "--plays", metavar="COLOUR", help=_("with --remote: the colour this board's person plays")
    )
    p.add_argument(
        "--board-id",
        metavar="ID",
        help=_(
            "with --remote: this board's id on the broker (default: its own, kept in the "
            "state directory)"
        ),
    )
    p.add_argument(
        "--config",
        metavar="PATH",
        help=_("the board's config (default /etc/orbito-hw/config.toml)"),
    )
    p.add_argument(
        "--log-level", help=_("debug, info, warning or error (default: info, warning with --mock)")
    )
    p.set_defaults(func=cmd_run)

    p = sub.add_parser("lights", help=_("switch the LEDs off (lights off)"))
    p.add_argument("action", choices=["off"])
    p.add_argument("--config", metavar="PATH", help=_("the board's config"))
    p.set_defaults(func=cmd_lights)


def _config(path: str | None) -> Any:
    """The board's config; a missing one (the first run on a machine that is no board yet)
    is one line naming the way on: the simulated board, or a config and its check."""
    from orbito_hw.app.config import DEFAULT_PATH, load_config

    chosen = Path(path or DEFAULT_PATH)
    if not chosen.exists():
        raise UsageError(
            _("no board config at {path}: try the simulated board with `orbito-hw run --mock`, "
              "or write a config (`orbito-hw config example`) and check it with `orbito-hw "
              "config check --config PATH`").format(path=chosen)
        )  # fmt: skip
    return load_config(chosen)


def cmd_lights(args: argparse.Namespace) -> int:
    from orbito_hw.app.run import lights_off

    return lights_off(_config(args.config))


def cmd_run(args: argparse.Namespace) -> int:
    from orbito_hw.app.heap import hold_mmap_threshold
    from orbito_hw.app.logs import setup_logging

    hold_mmap_threshold()  # before anything big is freed: the heap stays flat (app/heap.py)
    try:
        setup_logging(args.log_level or ("warning" if args.mock else "info"))
    except ValueError as exc:
        raise UsageError(f"--log-level: {exc}") from None
    if not args.mock:
        mock_only = [
            flag
            for flag, given in (
                ("--events", args.events),
                ("--interactive", args.interactive),
                ("--backend", args.backend != "sim"),
                ("--room", args.room != "dark"),
                ("--state-dir", args.state_dir),
                ("--opponent", args.opponent),
                ("--hints", args.hints),
                ("--web", args.web),
                ("--port", args.port is not None),
                ("--remote", args.remote),
                ("--resume", args.resume),
                ("--puzzle", args.puzzle),
                ("--plays", args.plays),
                ("--board-id", args.board_id),
                ("--fast", args.fast),
            )
            if given
        ]
        if mock_only:
            raise UsageError(
                f"{mock_only[0]} goes with --mock (a real board takes its settings from --config)"
            )
        from orbito_hw.app.run import run_board

        return run_board(_config(args.config))
    if args.backend not in BACKENDS:
        raise UsageError(f"--backend {args.backend!r} is not one of: {', '.join(BACKENDS)}")
    if args.room != "dark" and args.backend != "tmag":
        raise UsageError("--room goes with --backend tmag (the board that tells colour by light)")
    if args.events and args.interactive:
        raise UsageError("--events and --interactive do not go together")
    if args.fast and (args.events or args.interactive or args.web or args.remote):
        raise UsageError(_("--fast goes with the demo (run --mock without --events, "
                           "--interactive, --web or --remote)"))  # fmt: skip
    settings = _mock_settings(args.opponent, args.seed, args.hints)
    # The set-up asked for is left once the simulated controller holds the directory (Asked).
    if args.puzzle is not None:
        _puzzle_dir(args)
        args.asked = Asked(args.state_dir, _ask_puzzle(args))
        return _run_mock(args, settings)
    args.asked = Asked(args.state_dir, _ask_resume(args) if args.resume is not None else None)
    return _run_mock(args, settings)


def _run_mock(args: argparse.Namespace, settings: Settings | None) -> int:
    if args.remote or args.plays or args.board_id:
        return run_remote(args, settings)
    if args.web or args.port is not None:
        return run_web(args, settings)
    if args.events:
        return run_events(args.events, args.state_dir, args.backend, settings, args.seed,
                          args.asked, args.room)  # fmt: skip
    if args.interactive:
        return run_interactive(
            args.state_dir, args.backend, settings, args.seed, args.asked, args.room
        )
    from orbito_hw.archive.recorder import Recorder
    from orbito_hw.sim.demo import run_demo
    from orbito_hw.sim.harness import ControllerFailedError

    archive = Recorder(args.state_dir)  # none in a fresh temp dir; its faults are logged
    try:
        return run_demo(
            seed=args.seed, backend=args.backend, settings=settings, state_dir=args.state_dir,
            listener=archive, on_boot=args.asked.then(archive.boot), fast=args.fast, room=args.room,
        )  # fmt: skip
    except ControllerFailedError as exc:  # as for --events: its fault was shown as it came
        fail(f"the controller failed: {exc}", status=1)
    finally:
        archive.close()


class Asked:
    """The simulated controller's ``on_boot`` hook leaving the set-up asked for by
    ``--resume`` or ``--puzzle`` in the state directory at its first start, before it looks
    for a request: it holds the directory's lock by then, and the script has been read, so a
    start refused (the directory in use, the script missing) leaves no request behind for
    the next start to set up (issue 34)."""

    def __init__(self, state_dir: str | None, request: SetupRequest | None) -> None:
        self.state_dir = state_dir
        self.request = request

    def then(self, after: Callable[[Referee], None]) -> Callable[[Referee], None]:
        """This hook, then ``after`` (the archive's catching up)."""

        def boot(referee: Referee) -> None:
            self(referee)
            after(referee)

        return boot

    def __call__(self, referee: Referee) -> None:
        request, self.request = self.request, None  # the first start only
        if request is None:
            return
        from orbito_hw.control.requests import write_request

        assert self.state_dir is not None  # --resume and --puzzle have one
        try:
            write_request(self.state_dir, request)
        except OSError as exc:
            raise UsageError(f"cannot leave the set-up request in {self.state_dir}: "
                             f"{exc.strerror or exc}") from None  # fmt: skip


def _ask_resume(args: argparse.Namespace) -> SetupRequest:
    """``--resume ID[@N]``: the set-up request a real board gets from ``games resume``, for
    the simulated controller to take at its start (``Asked`` leaves it)."""
    if not args.state_dir:
        raise UsageError("--resume reads the archive of --state-dir DIR: give it")
    if not (args.events or args.interactive or args.web):
        raise UsageError("--resume goes with --events, --interactive or --web")
    from orbito_hw.commands.resume import resume_request

    game_id, _sep, at = args.resume.partition("@")
    return resume_request(Path(args.state_dir), game_id, at or None)[0]


def _puzzle_dir(args: argparse.Namespace) -> None:
    """``--puzzle`` without ``--state-dir``: the user's own state directory (``puzzles``'
    ``user_state_dir``, made if missing), so the try is archived there and ``puzzles next``
    moves on after a solve."""
    if args.state_dir is None:
        from orbito_hw.commands.puzzles import user_state_dir

        args.state_dir = str(user_state_dir(make=True))


def _ask_puzzle(args: argparse.Namespace) -> SetupRequest:
    """``--puzzle ID``: the set-up request of the puzzle (origin ``puzzle:ID``), left in the
    state directory as ``--resume`` leaves its own; ``next``: the puzzle the archive's
    progress chooses (``puzzles next``)."""
    if args.resume is not None or args.remote or args.plays:
        raise UsageError("--puzzle does not go with --resume, --remote or --plays")
    if args.opponent is not None:
        raise UsageError("--puzzle does not go with --opponent: the board plays the other side")
    from orbito_hw.control.puzzle import origin_of
    from orbito_hw.control.requests import SetupRequest
    from orbito_hw.solver.puzzles import PuzzleError, find_puzzle

    wanted = args.puzzle
    if wanted == "next":
        from orbito_hw.commands.puzzles import next_puzzle

        puzzle = next_puzzle(Path(args.state_dir))
    else:
        try:
            puzzle = find_puzzle(wanted)
        except PuzzleError as exc:
            raise UsageError(str(exc)) from None
    return SetupRequest(puzzle.first, tuple(puzzle.moves.split()), origin_of(puzzle))


def _mock_settings(opponent: str | None, seed: int | None, hints: bool) -> Settings | None:
    """The simulated controller's settings: the board as a player, from ``--opponent``,
    and hints, from ``--hints``."""
    from orbito_hw.control.settings import Settings

    if opponent is None:
        return Settings(hints=True) if hints else None
    from orbito_hw.errors import ConfigError
    from orbito_hw.rules.game import Colour
    from orbito_hw.sim.harness import board_player
    from orbito_hw.solver.opponents import parse_level

    level_name, colon, colour_name = opponent.partition(":")
    if not colon or colour_name not in ("black", "white"):
        raise UsageError(f"--opponent {opponent!r} is not LEVEL:COLOUR (like perfect:white)")
    try:
        level = parse_level(level_name)
    except ConfigError as exc:
        raise UsageError(f"--opponent: {exc}") from None
    return Settings(opponent=board_player(level, Colour(colour_name), seed), hints=hints)


def run_web(
    args: argparse.Namespace,
    settings: Settings | None,
    remote: tuple[BrokerUrl, Colour] | None = None,
) -> int:
    """``run --mock --web``: the simulated board and its page; ``--config`` gives the page's
    ``[web]`` table (its bind address and access code) if it names one."""
    if not args.web:
        raise UsageError("--port goes with --web")
    if args.events or args.interactive:
        raise UsageError("--web does not go with --events or --interactive")
    from orbito_hw.app.config import WebConfig

    web = _config(args.config).web if args.config else WebConfig()
    port = web.port if args.port is None else args.port
    if not 0 <= port <= 65535:
        raise UsageError(f"--port {port} is not a port (0..65535; 0: any free one)")
    from orbito_hw.mock.worlds import serve_mock  # aiohttp only with --web

    bind = web.bind if args.config else None
    code = web.code if args.config else None
    return serve_mock(
        port, bind, code, args.state_dir, args.backend, settings, args.seed, remote=remote,
        board_id=args.board_id, on_boot=args.asked,
    )  # fmt: skip


def run_remote(args: argparse.Namespace, settings: Settings | None) -> int:
    """``run --mock --remote URL --plays COLOUR``: a simulated board in a remote game, in
    real time, with ``--events`` (a script, ``wait S`` in real seconds) or ``--interactive``
    (typed commands; the default)."""
    from orbito_hw.rules.game import Colour

    if args.board_id is not None and not args.remote:
        raise UsageError("--board-id goes with --remote (--remote URL --plays C --board-id ID)")
    if not (args.remote and args.plays):
        raise UsageError("--remote and --plays go together (--remote URL --plays COLOUR)")
    if args.plays not in ("black", "white"):
        raise UsageError(f"--plays {args.plays!r} is not black or white")
    if args.opponent:
        raise UsageError("--opponent does not go with --remote: the other board plays")
    from orbito_hw.remote.protocol import check_name, parse_broker_url

    try:
        url = parse_broker_url(args.remote)
    except ValueError as exc:
        raise UsageError(f"--remote: {exc}") from None
    if args.board_id is not None:
        try:
            check_name(args.board_id, "--board-id")
        except ValueError as exc:
            raise UsageError(str(exc)) from None
    if args.web or args.port is not None:  # the page plays this board in the remote game
        return run_web(args, settings, (url, Colour(args.plays)))
    script = None
    if args.events:
        from orbito_hw.sim.script import parse_script

        script = parse_script(_read_script(args.events), args.events)
    from orbito_hw.commands.prompt import Prompt, RemotePrompt, read_lines, terminal
    from orbito_hw.mock.worlds import serve_remote

    # A person at a terminal reads sentences and the board; a program reads JSON lines.
    plays = Colour(args.plays)
    person = script is None and terminal()
    other = f"{plays.other}'s board"
    prompt = Prompt(sys.stdout, person, sys.stdout.isatty(), who=other)
    runs: list[MockRun] = []
    typed = RemotePrompt(prompt, lambda: runs[0] if runs else None)
    archive = _recorder(args.state_dir, typed.event)

    def started(run: MockRun) -> None:
        runs.append(run)
        prompt.board(run)

    if person:
        read_lines(prompt)
        prompt.say(
            f"a remote game: you play {plays} on this board, {other} plays {plays.other}; "
            "type help for the commands, quit to leave"
        )
    try:
        return serve_remote(
            url, plays, script, _both(typed.event, archive), args.state_dir, args.backend,
            settings, args.seed, args.asked.then(archive.boot),
            prompt=typed.after if person else None,
            typed=typed if person else None, started=started, board_id=args.board_id,
        )  # fmt: skip
    finally:
        archive.close()


def _read_script(path: str) -> bytes | str:
    """The script's bytes, at most MAX_SCRIPT_BYTES of them: parse_script decodes each line
    itself, so a line that is not UTF-8 is refused by its number, whatever the locale."""
    from orbito_hw.sim.script import MAX_SCRIPT_BYTES

    try:
        if path == "-":
            stream = getattr(sys.stdin, "buffer", None)  # a test's StringIO holds text
            data = stream.read(MAX_SCRIPT_BYTES + 1) if stream else sys.stdin.read()
        else:
            with Path(path).open("rb") as file:
                data = file.read(MAX_SCRIPT_BYTES + 1)
    except (OSError, ValueError) as exc:  # ValueError: a path with a NUL in it
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise UsageError(f"cannot read board script {path}: {reason}") from None
    if len(data) > MAX_SCRIPT_BYTES:
        raise UsageError(f"board script {path} is larger than {MAX_SCRIPT_BYTES} bytes")
    return data


def run_events(
    path: str,
    state_dir: str | None,
    backend: Backend = "sim",
    settings: Settings | None = None,
    seed: int | None = None,
    asked: Asked | None = None,
    room: str = "dark",
) -> int:
    """SPEC.md's events run: every event as a JSON line; exit 0, or 1 if the controller failed."""
    from orbito_hw.sim.harness import CommandError, ControllerFailedError, MockRun
    from orbito_hw.sim.script import parse_script

    commands = parse_script(_read_script(path), path)
    events: list[Event] = []
    archive = _recorder(state_dir, events.append)
    on_event = _both(events.append, archive)
    on_boot = asked.then(archive.boot) if asked is not None else archive.boot
    run = MockRun(state_dir, settings, backend, on_event, seed=seed, on_boot=on_boot, room=room)
    run.source = path
    try:
        run.run_script(commands)
    except CommandError as exc:
        fail(str(exc))  # the script asked for what no hand can do: bad input, nothing printed
    except Exception as exc:  # the controller itself broke: say so, keep what it did say
        for event in events:
            emit(event.to_json())
        # ControllerFailedError: the referee stopped after an internal error, which it names
        what = (
            str(exc) if isinstance(exc, ControllerFailedError) else f"{type(exc).__name__}: {exc}"
        )
        fail(f"the controller failed: {what}", status=1)
    finally:
        run.close()
        archive.close()
    for event in events:
        emit(event.to_json())
    return 0


def run_interactive(
    state_dir: str | None,
    backend: Backend = "sim",
    settings: Settings | None = None,
    seed: int | None = None,
    asked: Asked | None = None,
    room: str = "dark",
) -> int:
    """Board-script commands typed at a prompt (commands/prompt.py); blocking reads, so an
    idle board costs no CPU. A person at a terminal reads sentences and the board after
    each command, the rings' move finished first; a program on a pipe reads JSON lines."""
    from orbito_hw.commands.prompt import PROMPT, Prompt, QuitError, read_lines, terminal
    from orbito_hw.commands.prompt_hands import Whole, make
    from orbito_hw.control.events import Corrected, Correction
    from orbito_hw.mock.realtime import put_back
    from orbito_hw.sim.harness import CommandError, ControllerFailedError, MockRun

    prompt = Prompt(sys.stdout, terminal(), sys.stdout.isatty())
    # Until the board is set up, a person's events wait: a fresh simulated board on an old
    # game's --state-dir starts empty, and is not a board "that does not match".
    held: list[Event] | None = [] if prompt.person else None

    def show(event: Event) -> None:
        if held is None:
            prompt.event(event)
        else:
            held.append(event)

    archive = _recorder(state_dir, show)
    on_boot = asked.then(archive.boot) if asked is not None else archive.boot
    run = MockRun(state_dir, settings, backend, _both(show, archive), seed=seed,
                  on_boot=on_boot, room=room)  # fmt: skip
    first = not run.referee.snapshot().turns
    try:
        if held is not None:
            read_lines(prompt)
            put_back(run)  # an old game in --state-dir: its marbles, as the players left them
            prompt.say(_("the simulated board: type a turn (like c1-c2:a2), help for the "
                         "commands, quit to leave"))  # fmt: skip
            setting_up = (Correction, Corrected) if run.referee.state.name != "CORRECTION" else ()
            for event in held:
                if not isinstance(event, setting_up):
                    prompt.event(event)
            held = None
        run.play_given_opponent()  # --opponent plays, whatever the old journal said
        prompt.board(run)
        for number, text in enumerate(_typed_lines(prompt.person, PROMPT), 1):
            try:
                command = prompt.interpret(text, number, run)
                if command is None:
                    continue
                if isinstance(command, Whole):  # a turn in notation, undo, new, hint
                    said = make(run, command, first_command=first)
                    if said is not None:
                        prompt.say(said)
                else:
                    run.run(command, first_command=first)
                    if command.name == "opponent" and run.opponent_later:
                        prompt.say(opponent_later(command))
                first = False
                if prompt.person:
                    run.wait_for_rings()  # the turn's line comes before the next prompt
            except QuitError:
                break
            except (ValueError, CommandError) as exc:
                print(f"orbito-hw: {reworded(str(exc))}", file=sys.stderr)
                continue
            prompt.board(run)
        run.finish()
    except ControllerFailedError as exc:  # its fault event was shown as it came
        fail(f"the controller failed: {exc}", status=1)
    finally:
        run.close()
        archive.close()
    return 0


def opponent_later(command: Command) -> str:
    """What the prompt says of an ``opponent`` typed once the game has begun: it applies from
    the next game (SPEC.md), not now, so the person is not left wondering."""
    from orbito_hw.web.instruction import level_words

    if command.level is None or command.colour is None:
        return _("from the next game (new), two people play; this game goes on as it is")
    colour = _("black") if command.colour.value == "black" else _("white")
    text = _("from the next game (new), the board plays {colour} ({level}); "
             "this game goes on as it is")  # fmt: skip
    return text.format(colour=colour, level=level_words(command.level))


def _typed_lines(person: bool, prompt: str) -> Iterator[str]:
    """The lines typed: with ``input()`` (readline's editing and history) for a person,
    Ctrl-C dropping the line and Ctrl-D leaving; else stdin's lines decoded strictly
    (a line that is not UTF-8 is named on stderr and skipped)."""
    if person:
        while True:
            try:
                yield input(prompt)
            except KeyboardInterrupt:
                print(file=sys.stderr)
            except EOFError:
                print(file=sys.stderr)
                return
    for line in input_lines(sys.stdin):
        if line.problem is not None:
            print(f"orbito-hw: line {line.number}: {line.problem}", file=sys.stderr)
            yield ""
        else:
            yield line.text


def _recorder(state_dir: str | None, report: Callable[[Event], None]) -> Recorder:
    """The game archive of ``--state-dir`` (none in a fresh temporary directory, which
    goes with the run); what goes wrong with it is reported among the events."""
    from orbito_hw.archive.recorder import Recorder

    return Recorder(state_dir, report)


def _both(first: Callable[[Event], None], second: Callable[[Event], None]) -> EventListener:
    def listener(event: Event) -> None:
        first(event)
        second(event)

    return listener
