"""The controller on a real board: config, event loop, service glue and logs."""

from __future__ import annotations

import asyncio
import logging
import signal
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from orbito_hw.app.assemble import build_board, doctor_wiring, open_lights
from orbito_hw.app.config import Config
from orbito_hw.app.devices import Devices
from orbito_hw.app.inbox import Inbox
from orbito_hw.app.logs import EventLogger
from orbito_hw.app.service import Service
from orbito_hw.archive.recorder import Recorder
from orbito_hw.control.events import Event, EventListener, Fault, GameOver, TurnPlayed
from orbito_hw.control.guard import cut
from orbito_hw.control.journal import Journal
from orbito_hw.control.players import BoardPlayer
from orbito_hw.control.puzzle import PuzzleWatch
from orbito_hw.control.referee import Referee
from orbito_hw.control.requests import Desk
from orbito_hw.control.settings import Settings
from orbito_hw.doctor.calibrate import calibrator
from orbito_hw.doctor.checks import CheckResult, Doctor, Person, Runner
from orbito_hw.hw.clock import LoopClock, close_loop
from orbito_hw.hw.interfaces import Board, Clock, Health
from orbito_hw.lang import _, reworded
from orbito_hw.rules.game import Colour
from orbito_hw.solver.opponents import level_opponent, parse_level

if TYPE_CHECKING:
    from orbito_hw.remote.link import MqttLink  # aiomqtt: imported only in a remote game
    from orbito_hw.web.seat_book import BoardInvites
    from orbito_hw.web.server import WebServer  # aiohttp: imported only with the page on

log = logging.getLogger(__name__)

REFEREE_SETTLE = Settings().settle


def settings(config: Config) -> Settings:
    """The referee's settings from the config. Squares read by the Pico come debounced by
    the Pico (``sensors.debounce_ms`` is sent to it): the host passes them straight on,
    unless they are the colour sensors' levels, which the host classifies and debounces.
    A colour board reads each square once a scan: after the rings stop, the referee waits
    a whole scan (and a square's settling) before it trusts what the squares read."""
    scanned_by_pico = config.backends.sensors == "serial" and not config.sensors.colour
    settle = REFEREE_SETTLE
    if config.sensors.colour:
        settle = max(settle, config.analog.front_end().read_again_s)
    return Settings(
        first=config.board.first,
        settle=settle,
        debounce=0.0 if scanned_by_pico else config.sensors.debounce_ms / 1000,
        hold_time=config.board.new_game_hold_s,
        palette=config.lights.colours,
        opponent=board_player(config),
        hints=config.game.hints,
        make_player=make_player,
    )


def board_player(config: Config) -> BoardPlayer | None:
    """The board as a player, from ``[game]``: None for two people."""
    if config.game.opponent == "none":
        return None
    return make_player(config.game.opponent, config.game.board_colour)


def make_player(level_name: str, colour: Colour) -> BoardPlayer:
    """The board playing ``colour`` at the level named ``level_name`` (the config's, or the
    one a person chose in the opponent menu)."""
    level = parse_level(level_name)
    return BoardPlayer(colour, level_opponent(level).choose, f"board:{level.name}")


def run_board(config: Config) -> int:
    """Referee games on the board until SIGTERM or SIGINT; the LEDs go dark on the way out."""
    loop = asyncio.new_event_loop()
    clock = LoopClock(loop)
    journal = Journal(config.board.state_dir)  # its lock first: one controller per board
    service = Service()
    devices = Devices(config, clock, loop)  # a config no device can mend: exit 2 here
    devices.open_now()  # what is missing is a fault shown, and tried again from the loop
    board = devices.board
    logger = EventLogger()
    # The game archive: what goes wrong with it is a fault line in the log, never a stop.
    # Written once the loop is next free: a press waits on no archive commit (recorder.py).
    archive = Recorder(config.board.state_dir, report=logger, defer=loop.call_soon)
    web: WebServer | None = None
    inbox: Inbox | None = None
    link: MqttLink | None = None
    invites: BoardInvites | None = None
    try:
        chosen = settings(config)
        if config.remote.enabled:  # aiomqtt only in a remote game
            from orbito_hw.app.broker import remote_game

            remote, link = remote_game(config.remote, _both(logger, lambda e: _status(service, e)))
            # The other board plays the other colour: [game]'s opponent does not play here.
            chosen = replace(chosen, first=config.remote.starts, opponent=remote.player)
        elif config.web.enabled:  # the menu's "invite a player": the page's seats make it
            from orbito_hw.web.seat_book import BoardInvites

            invites = BoardInvites()
            chosen = replace(chosen, invite_seat=invites)
        referee = Referee(board, journal, chosen)
        logger.seated = lambda: _seat_plays(referee)  # "the player on the phone plays ..."
        referee.subscribe(logger)
        referee.subscribe(lambda event: _status(service, event))
        referee.subscribe(archive)
        devices.health.watch(lambda health: _whole_again(service, health))
        # One exception policy (control/guard.py): what escapes a callback the referee's
        # guard does not wrap stops the referee all the same, and the watchdog goes unfed.
        loop.set_exception_handler(lambda loop, context: _loop_error(referee, loop, context))
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, loop.stop)
        referee.start()
        PuzzleWatch.attach(referee)  # a puzzle set up (a request "puzzle:ID") is watched
        archive.boot(referee)  # catches up from the journal just read
        inbox = _take_requests(loop, referee, config.board.state_dir)
        if link is not None:
            referee.subscribe(link.game.on_event)
            link.game.attach(referee)
            link.start(loop)
        if config.web.enabled:
            from orbito_hw.app.page import serve_board  # aiohttp only with the page on

            web = serve_board(loop, referee, config)
            if web is not None and invites is not None:
                invites.to = web.seats.invite_at_board
        # READY once the journal is read, whatever parts are missing: the board waits for
        # them in plain sight (a fault), the watchdog fed while the referee works.
        service.start(loop, healthy=lambda: referee.healthy)
        devices.start()
        log.info(
            "%s",
            _("orbito-hw running: {backends}").format(backends=config.summary().splitlines()[1]),
        )
        for note in config.notes:
            log.warning("%s: %s", config.source, note)
        loop.run_forever()
    finally:
        if inbox is not None:
            inbox.close()
        if link is not None:
            loop.run_until_complete(link.stop())
        if web is not None:
            loop.run_until_complete(web.stop())
        service.stop()
        devices.close()  # the lights close first: dark on the way out
        archive.close()
        journal.close()
        close_loop(loop)
    return 0


def _take_requests(loop: asyncio.AbstractEventLoop, referee: Referee, directory: Path) -> Inbox:
    """A set-up asked for by ``games resume`` or ``puzzles play`` (control/requests.py): the
    request file in the state directory, taken now (one left while no controller ran, once
    the rings have homed), as the kernel says one came (app/inbox.py) and, if the rings
    were turning, as soon as they stop (the desk)."""
    desk = Desk.attach(referee, directory)
    inbox = Inbox(loop, directory, desk.look)
    inbox.start()
    return inbox


def _seat_plays(referee: Referee) -> bool:
    """Whether the board's opponent now is a seat: a person on a phone (docs/seat.md)."""
    opponent = referee.opponent
    return opponent is not None and opponent.seat()


def _whole_again(service: Service, health: Health) -> None:
    """Every part is back after a fault: the referee homes and checks the board. A fault
    itself reaches the status line as the referee's fault event; the log names each part."""
    if not health.whole:
        for part in health.parts():
            log.warning("%s", part)
        return
    whole = _("the board is whole again: homing the rings, checking the board")
    log.warning("%s", whole)
    service.status(whole)


def _both(first: EventListener, second: EventListener) -> EventListener:
    def listener(event: Event) -> None:
        first(event)
        second(event)

    return listener


def _status(service: Service, event: Event) -> None:
    if isinstance(event, TurnPlayed):
        text = _("game {game}, turn {number}: {turn}")
        service.status(text.format(game=event.game, number=event.number, turn=event.turn))
    elif isinstance(event, GameOver):
        outcome = {None: _("draw"), Colour.BLACK: _("black wins"), Colour.WHITE: _("white wins")}
        text = _("game {game} over: {outcome}")
        service.status(text.format(game=event.game, outcome=outcome[event.result.winner]))
    elif isinstance(event, Fault):
        service.status(_("fault: {reason}").format(reason=reworded(event.reason)))


def _loop_error(referee: Referee, loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
    """The loop's exception handler. An exception that escaped a callback (a backend's, the
    light show's: one the referee's guard does not wrap) stops the referee as one the guard
    catches would. The page's and the broker link's (their libraries', aiohttp's, aiomqtt's
    and paho's, or their own) never do: they are guests on the loop, and their failure is one
    line in the log. What the loop reports without an exception goes to its own handler."""
    exc = context.get("exception")
    if not isinstance(exc, Exception):
        loop.default_exception_handler(context)
        return
    where = cut(str(context.get("message", "a callback")), 80)
    if _a_guests(context):
        log.error("%s: %s: %s", where, type(exc).__name__, cut(" ".join(str(exc).split()), 200))
        return
    referee.fail(f"the event loop ({where})", exc)


GUESTS = ("aiohttp", "aiomqtt", "paho", "orbito_hw.web", "orbito_hw.remote", "orbito_hw.app.page")
"""What joins the controller's loop besides the referee: the page and the broker link."""


def _a_guests(context: dict[str, Any]) -> bool:
    """Whether the failed callback or task is a guest's (``GUESTS``). A callback is
    judged with its arguments: a library schedules the loop's own methods with its own
    functions as their arguments (aiomqtt: ``loop.add_reader(fd, its_callback)``)."""
    handle = context.get("handle")
    if handle is not None:
        parts = [getattr(handle, "_callback", None), *(getattr(handle, "_args", None) or ())]
        return any(_module(part).startswith(GUESTS) for part in parts)
    task = context.get("task") or context.get("future")
    code = getattr(getattr(task, "get_coro", lambda: None)(), "cr_code", None)
    path = getattr(code, "co_filename", "").replace("\\", "/")
    places = [name.replace(".", "/") for name in GUESTS]
    return any(f"/{at}/" in path or path.endswith(f"/{at}.py") for at in places)


def _module(obj: object) -> str:
    obj = getattr(obj, "func", obj)  # functools.partial
    obj = getattr(obj, "__func__", obj)  # a bound method
    return str(getattr(obj, "__module__", "") or "")


def lights_off(config: Config) -> int:
    """Switch every LED off (the unit's ExecStopPost, whatever state the controller left)."""
    open_lights(config).close()
    return 0


def doctor_board(
    config: Config,
    person: Callable[[Clock], Person],
    checks: tuple[str, ...],
    timeout: float,
    out: Callable[[str], None],
    open_board: Callable[[Config, Clock], Board] = build_board,
) -> list[CheckResult]:
    """The doctor on the real board, on an event loop that sleeps until a pin or a timer
    wakes it. ``person`` makes the person at the board on the loop's clock."""
    if config.backends.lights == "none" and "leds" in checks:
        out('leds: skipped (backends.lights = "none": no LEDs fitted)')
        checks = tuple(c for c in checks if c != "leds")
    loop = asyncio.new_event_loop()
    clock = LoopClock(loop)
    try:
        with open_board(config, clock) as board:  # the lights close first: dark on the way out
            calibrate = calibrator(board.sensors, config.board.state_dir)
            doctor = Doctor(board, person(clock), doctor_wiring(config), out, timeout, calibrate)
            runner = Runner(clock, doctor.run(checks))
            finished = loop.create_future()
            runner.start(lambda: finished.set_result(None))
            loop.run_until_complete(finished)
    finally:
        close_loop(loop)
    if runner.error is not None:
        raise runner.error
    assert runner.result is not None
    return runner.result
