"""``doctor``: a guided self-test of the board; ``--mock`` runs it on the simulated board."""

from __future__ import annotations

import argparse
import sys
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from orbito_hw.commands import UsageError
from orbito_hw.errors import HardwareError
from orbito_hw.hw.interfaces import part_is
from orbito_hw.lang import _

if TYPE_CHECKING:
    from orbito_hw.doctor.checks import CheckResult, Request
    from orbito_hw.hw.interfaces import Clock


def register(sub: Any) -> None:
    p = sub.add_parser(
        "doctor",
        help=_("check the board part by part: LEDs, sensors, button, rings"),
        description=_(
            "A guided self-test: each LED lit in turn, each square's sensor as you "
            "put a marble on it, the button, and one full revolution of the rings checked "
            "against the index sensor. Exit 0 when every check passes, 1 when one fails."
        ),
    )
    p.add_argument("--config", metavar="PATH", help=_("the board's config"))
    p.add_argument("--mock", action="store_true", help=_("examine the simulated board"))
    p.add_argument(
        "--backend",
        default="sim",
        help=_("with --mock: the drivers run against the simulated board: sim (default), gpio"),
    )
    p.add_argument(
        "--only",
        metavar="CHECKS",
        help=_(
            "a comma list of leds,sensors,button,rings; calibrate (a colour board's squares: "
            "each empty, with a black marble, with a white one) runs only when named"
        ),
    )
    p.add_argument(
        "--yes",
        action="store_true",
        help=_("ask no questions (what only a person sees stays unconfirmed)"),
    )
    p.add_argument(
        "--timeout", type=float, default=30.0, metavar="SECONDS", help=_("wait for each step (30)")
    )
    p.add_argument(
        "--fault",
        action="append",
        default=[],
        metavar="FAULT",
        help=_(
            "with --mock: build a fault into the simulated board: swap:c3,c4, slip:STEPS, "
            "dead-led:SQUARE, dirty-cup:SQUARE (the reference board: its colour by light) "
            "(repeatable)"
        ),
    )
    p.set_defaults(func=cmd_doctor)


def cmd_doctor(args: argparse.Namespace) -> int:
    from orbito_hw.doctor.checks import CHECKS, parse_only, summary

    try:
        checks = CHECKS if args.only is None else parse_only(args.only)  # --only '' names none
    except ValueError as exc:
        raise UsageError(f"--only: {exc}") from None
    if not 0 < args.timeout <= 3600:
        text = _("--timeout {seconds}: expected seconds, above 0 up to 3600")
        raise UsageError(text.format(seconds=f"{args.timeout:g}"))
    if args.mock:
        results = _mock(args, checks)
    else:
        if args.fault:
            raise UsageError(
                _("--fault builds a fault into the simulated board: use it with --mock")
            )
        from orbito_hw.app.config import DEFAULT_PATH, load_config
        from orbito_hw.app.run import doctor_board

        config = load_config(args.config or DEFAULT_PATH)
        can_ask = not args.yes and sys.stdin.isatty()
        try:
            results = doctor_board(
                config,
                lambda clock: ConsolePerson(clock, print, can_ask),
                checks,
                args.timeout,
                print,
            )
        except HardwareError as exc:
            if not exc.part:
                raise
            # Which part is missing, in the words the service's log uses (hw/health.py).
            raise HardwareError(f"{part_is(exc.part, 'missing')}: {exc}") from None
    for line in summary(results):
        print(line)
    return 0 if all(r.passed for r in results) else 1


def _mock(args: argparse.Namespace, checks: tuple[str, ...]) -> list[CheckResult]:
    from orbito_hw.doctor.sim import BACKENDS, Faults, run_mock

    if args.backend not in BACKENDS:
        text = _("--backend {backend} is not one of: {backends}")
        raise UsageError(text.format(backend=repr(args.backend), backends=", ".join(BACKENDS)))
    try:
        faults = Faults.parse(args.fault)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    pins = None
    if args.config is not None:  # the config's wiring, on the simulated board's mock pins
        if args.backend != "gpio":
            raise UsageError(_("--mock --config needs --backend gpio (the sim parts have no pins)"))
        from orbito_hw.app.assemble import gpio_pins
        from orbito_hw.app.config import load_config

        pins = gpio_pins(load_config(args.config))
    started = time.perf_counter()
    results = run_mock(checks, args.backend, faults, print, args.timeout, pins)
    seconds = f"{time.perf_counter() - started:.2f}"
    print(_("(simulated board: {seconds} s)").format(seconds=seconds))
    return results


class ConsolePerson:
    """The person at a real board: instructions go to the terminal, answers come from
    stdin, read on a thread of their own and handed to the board's clock."""

    def __init__(self, clock: Clock, out: Callable[[str], None], can_ask: bool) -> None:
        self.clock = clock
        self.out = out
        self.can_ask = can_ask

    def tell(self, request: Request) -> None:
        self.out(request.text)

    def ask(self, request: Request, answer: Callable[[str | None], None]) -> None:
        if not self.can_ask:
            self.clock.post(lambda: answer(None))
            return
        self.out(request.text)

        def read() -> None:
            line = sys.stdin.readline()
            reply = line.strip() if line else None  # end of input: nobody to ask
            self.clock.post(lambda: answer(reply))

        threading.Thread(target=read, daemon=True).start()
