"""``seat``: a player at home plays the board's game from a phone or a browser (docs/seat.md).

``seat invite [--colour C]`` makes a link for one game and one colour and prints it with a
QR code to scan; ``seat list`` shows the links kept; ``seat revoke TOKEN`` (or the start of
it, as ``seat list`` shows) withdraws one. The links are kept in the state directory
(web/seat_book.py), where the running board's page reads them.
"""

from __future__ import annotations

import argparse
import json
import socket
from typing import Any

from orbito_hw.commands import Parser, UsageError
from orbito_hw.lang import _


def register(sub: Any) -> None:
    common = Parser(add_help=False)
    common.add_argument(
        "--state-dir", metavar="DIR", help="where the board keeps its state (default: the config's)"
    )
    common.add_argument(
        "--config", metavar="PATH", help="the board's config, for its state directory"
    )
    p = sub.add_parser("seat", help="a player at home: invite, list, revoke a seat's link")
    seat = p.add_subparsers(
        dest="seat_command", metavar="invite|list|revoke", required=True, parser_class=Parser
    )
    invite = seat.add_parser(
        "invite", parents=[common], help="a link (and its QR code) for one game and one colour"
    )
    invite.add_argument("--colour", choices=["black", "white"], default="white",
                        help="the colour the seat plays (default: white)")  # fmt: skip
    invite.add_argument(
        "--url",
        metavar="BASE",
        help="the board's page as the player reaches it (default: http://HOSTNAME.local:PORT)",
    )
    invite.add_argument("--json", action="store_true", help="one JSON line: token, colour, link")
    # Across the internet (docs/seat.md): the page plays through the broker, not the board.
    invite.add_argument(
        "--broker",
        metavar="WS_URL",
        help="a seat across the internet: the broker's WebSocket address as the player's "
        "browser reaches it (wss://HOST:PORT/PATH, ws:// without TLS)",
    )
    invite.add_argument("--game", help="with --broker: the remote game (default: [remote] game)")
    invite.add_argument("--user", help="with --broker: the seat's user on the broker")
    invite.add_argument("--password", help="with --broker: the seat's password on the broker")
    invite.add_argument(
        "--page",
        metavar="URL",
        help="with --broker: where the seat's page is served (default: the board's own, "
        "BASE/static/seat_remote.html; any web host serving web/static/ will do)",
    )
    invite.set_defaults(func=cmd_invite)
    listing = seat.add_parser("list", parents=[common], help="the links kept, newest last")
    listing.add_argument("--json", action="store_true", help="one JSON line per link")
    listing.set_defaults(func=cmd_list)
    revoke = seat.add_parser("revoke", parents=[common], help="withdraw a link")
    revoke.add_argument("token", help="the link's token, or its start as seat list shows it")
    revoke.set_defaults(func=cmd_revoke)


def _book(args: argparse.Namespace) -> Any:
    from orbito_hw.commands.games import state_dir
    from orbito_hw.web.seat_book import SeatBook

    return SeatBook(state_dir(args))


def _base(args: argparse.Namespace) -> str:
    """Where a phone on the same network finds the board's page: ``--url``, else this
    machine's name (mDNS's ``.local``) and the config's port."""
    if args.url:
        if not args.url.startswith(("http://", "https://")):
            raise UsageError(f"--url {args.url!r}: an address starting with http:// or https://")
        return str(args.url)
    port = 8080
    from orbito_hw.app.config import DEFAULT_PATH, load_config

    if args.config or DEFAULT_PATH.exists():
        port = load_config(args.config or DEFAULT_PATH).web.port
    return f"http://{socket.gethostname()}.local:{port}"


def cmd_invite(args: argparse.Namespace) -> int:
    from orbito_hw.rules.game import Colour
    from orbito_hw.web.seat_book import SeatTakenError, link, qr_terminal

    if args.broker:
        return _invite_remote(args)
    base = _base(args)
    try:
        made = _book(args).invite(Colour(args.colour))
    except SeatTakenError as exc:
        raise UsageError(str(exc)) from None
    except OSError as exc:
        raise UsageError(f"cannot keep the seat's link: {exc}") from None
    url = link(base, made.token)
    if args.json:
        print(json.dumps({"token": made.token, "colour": made.colour, "link": url}))
        return 0
    print(qr_terminal(url), end="")
    text = _("A seat for {colour}: open this link on the player's phone or computer")
    print(text.format(colour=_colour_word(made.colour)))
    print(url)
    print(_("Withdraw it with: orbito-hw seat revoke {token}").format(token=made.token[:8]))
    return 0


def _invite_remote(args: argparse.Namespace) -> int:
    """A link to the static seat page that plays through the broker (remote/seat_link.py):
    nothing is kept on the board; the broker's password file is where it is withdrawn."""
    from orbito_hw.remote.seat_link import PAGE, seat_link
    from orbito_hw.rules.game import Colour
    from orbito_hw.web.seat_book import qr_terminal

    game = args.game
    if game is None:
        from orbito_hw.app.config import DEFAULT_PATH, load_config

        if args.config or DEFAULT_PATH.exists():
            game = load_config(args.config or DEFAULT_PATH).remote.game
    if not game:
        raise UsageError("--broker needs --game GAME (or a config whose [remote] names the game)")
    page = args.page or f"{_base(args).rstrip('/')}/{PAGE}"
    try:
        made = seat_link(page, args.broker, game, Colour(args.colour), args.user, args.password)
    except ValueError as exc:
        raise UsageError(f"--broker: {exc}") from None
    if args.json:
        print(json.dumps({"seat": made.seat, "colour": made.colour.value, "game": made.game,
                          "broker": made.broker, "link": made.link}))  # fmt: skip
        return 0
    print(qr_terminal(made.link), end="")
    text = _("A seat for {colour} in the remote game {game}: open this link on the player's "
             "phone or computer")  # fmt: skip
    print(text.format(colour=_colour_word(made.colour.value), game=made.game))
    print(made.link)
    return 0


def cmd_list(args: argparse.Namespace) -> int:
    seats = _book(args).read()
    if args.json:
        for seat in seats:
            print(json.dumps({"token": seat.token, "colour": seat.colour, "game": seat.game,
                              "made": seat.made, "state": seat.state()}))  # fmt: skip
        return 0
    if not seats:
        print(_("No seat's link is kept (seat invite makes one)."))
        return 0
    states = {"live": _("live"), "revoked": _("revoked"), "ended": _("its game is over")}
    for seat in seats:
        game = _("game {game}").format(game=seat.game) if seat.game else _("the next game opened")
        state = states[seat.state()]
        print(f"{seat.token[:8]}  {_colour_word(seat.colour):6}  {game:22}  {seat.made}  {state}")
    return 0


def cmd_revoke(args: argparse.Namespace) -> int:
    from orbito_hw.web.seat_book import SeatUnknownError

    try:
        gone = _book(args).revoke(args.token)
    except SeatUnknownError as exc:
        raise UsageError(str(exc)) from None
    except OSError as exc:
        raise UsageError(f"cannot withdraw the seat's link: {exc}") from None
    text = _("The link {token} is revoked: its page says it is closed.")
    print(text.format(token=gone.token[:8]))
    return 0


def _colour_word(colour: str) -> str:
    return _("black") if colour == "black" else _("white")
