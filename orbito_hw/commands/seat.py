"""``seat``: a player at home plays the board's game from a phone or a browser (docs/seat.md).

``seat invite [--colour C]`` makes a link for one game and one colour and prints it with a
QR code to scan; ``seat list`` shows the links kept; ``seat revoke TOKEN`` (or the start of
it, as ``seat list`` shows) withdraws one. The links are kept in the state directory
(web/seat_book.py), where the running board's page reads them; the seats across the
internet (``invite --broker``) beside them (remote/seat_link.py), where the running board's
side of the remote game reads them.
"""

from __future__ import annotations

import argparse
import json
import socket
from typing import Any

from orbito_hw.commands import Parser, UsageError
from orbito_hw.errors import echo
from orbito_hw.lang import _


def register(sub: Any) -> None:
    common = Parser(add_help=False)
    common.add_argument(
        "--state-dir",
        metavar="DIR",
        help=_("where the board keeps its state (default: the config's)"),
    )
    common.add_argument(
        "--config", metavar="PATH", help=_("the board's config, for its state directory")
    )
    p = sub.add_parser("seat", help=_("a player at home: invite, list, revoke a seat's link"))
    seat = p.add_subparsers(
        dest="seat_command", metavar="invite|list|revoke", required=True, parser_class=Parser
    )
    invite = seat.add_parser(
        "invite", parents=[common], help=_("a link (and its QR code) for one game and one colour")
    )
    invite.add_argument("--colour", choices=["black", "white"], default="white",
                        help=_("the colour the seat plays (default: white)"))  # fmt: skip
    invite.add_argument(
        "--url",
        metavar="BASE",
        help=_("the board's page as the player reaches it (default: http://HOSTNAME.local:PORT)"),
    )
    invite.add_argument("--json", action="store_true", help=_("one JSON line: token, colour, link"))
    # Across the internet (docs/seat.md): the page plays through the broker, not the board.
    invite.add_argument(
        "--broker",
        metavar="WS_URL",
        help=_(
            "a seat across the internet: the broker's WebSocket address as the player's "
            "browser reaches it (wss://HOST:PORT/PATH, ws:// without TLS)"
        ),
    )
    invite.add_argument("--game", help=_("with --broker: the remote game (default: [remote] game)"))
    invite.add_argument("--user", help=_("with --broker: the seat's user on the broker"))
    invite.add_argument("--password", help=_("with --broker: the seat's password on the broker"))
    invite.add_argument(
        "--page",
        metavar="URL",
        help=_(
            "with --broker: where the seat's page is served (default: the board's own, "
            "BASE/static/seat_remote.html; any web host serving web/static/ will do)"
        ),
    )
    invite.set_defaults(func=cmd_invite)
    listing = seat.add_parser(
        "list",
        parents=[common],
        help=_(
            "the links kept, newest last; then the seats across the "
            "internet (its broker, whether its page is online)"
        ),
    )
    listing.add_argument("--json", action="store_true", help=_("one JSON line per link"))
    listing.set_defaults(func=cmd_list)
    revoke = seat.add_parser("revoke", parents=[common], help=_("withdraw a link, or a seat across "
                             "the internet"))  # fmt: skip
    revoke.add_argument("token", help=_("the link's token, or its start as seat list shows it "
                        "(a seat across the internet: its id, seat-...)"))  # fmt: skip
    revoke.set_defaults(func=cmd_revoke)


def _book(args: argparse.Namespace) -> Any:
    from orbito_hw.commands.games import state_dir
    from orbito_hw.web.seat_book import SeatBook

    return SeatBook(state_dir(args))


def _away(args: argparse.Namespace) -> Any:
    """The seats across the internet invited from this board (remote/seat_link.py)."""
    from orbito_hw.commands.games import state_dir
    from orbito_hw.remote.seat_link import AwaySeats

    return AwaySeats(state_dir(args))


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
    try:
        _away(args).add(made, args.user)  # for seat list and seat revoke (never the password)
    except OSError as exc:
        raise UsageError(f"cannot keep the seat: {exc}") from None
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
    seats, away = _book(args).read(), _away(args).read()
    if args.json:
        for seat in seats:
            print(json.dumps({
                "token": seat.token, "colour": seat.colour, "game": seat.game, "made": seat.made,
                "state": seat.state(), "where": "home",
            }))  # fmt: skip
        for far in away:
            print(json.dumps({
                "seat": far.seat, "colour": far.colour, "game": far.game, "broker": far.broker,
                "user": far.user, "made": far.made, "state": far.state(),
                "page": _page_state(far.online), "heard": far.heard, "where": "broker",
            }))  # fmt: skip
        return 0
    if not seats and not away:
        print(_("No seat's link is kept (seat invite makes one)."))
        return 0
    states = {"live": _("live"), "revoked": _("revoked"), "ended": _("its game is over")}
    for seat in seats:
        game = _("game {game}").format(game=seat.game) if seat.game else _("the next game opened")
        state = states[seat.state()]
        print(f"{seat.token[:8]}  {_colour_word(seat.colour):6}  {game:22}  {seat.made}  {state}")
    for far in away:
        game, state = _("remote game {game}").format(game=far.game), states[far.state()]
        print(f"{far.seat}  {_colour_word(far.colour):6}  {game}  {far.made}  {state}")
        print("    " + _away_words(far))
    if any(far.state() == "live" for far in away):
        text = _(
            "A seat across the internet is withdrawn with: orbito-hw seat revoke SEAT (this "
            "board then refuses its turns), and its user on the broker (docs/broker.md)"
        )
        print(text)
    return 0


def _page_state(online: bool | None) -> str | None:
    """A seat's page as the board last heard it: "online", "offline", None (never heard)."""
    return None if online is None else "online" if online else "offline"


def _away_words(far: Any) -> str:
    """Where a seat across the internet plays, and its page as the board last heard it."""
    where = _("broker {broker}").format(broker=far.broker)
    if far.user is not None:
        where = _("broker {broker} as {user}").format(broker=far.broker, user=far.user)
    if far.online is None:
        page = _("its page not heard by this board yet")
    elif far.online:
        page = _("its page online (heard {when})").format(when=far.heard)
    else:
        page = _("its page offline (since {when})").format(when=far.heard)
    return f"{where}; {page}"


def cmd_revoke(args: argparse.Namespace) -> int:
    from orbito_hw.web.seat_book import SeatUnknownError

    away = _away(args).matching(args.token)
    if away:
        home = [s for s in _book(args).read() if s.token.startswith(args.token)]
        if len(away) + len(home) > 1:
            raise UsageError(f"more than one seat starts with {echo(args.token)} (seat list)")
        return _revoke_away(args, away[0].seat)
    try:
        gone = _book(args).revoke(args.token)
    except SeatUnknownError as exc:
        raise UsageError(str(exc)) from None
    except OSError as exc:
        raise UsageError(f"cannot withdraw the seat's link: {exc}") from None
    text = _("The link {token} is revoked: its page says it is closed.")
    print(text.format(token=gone.token[:8]))
    return 0


def _revoke_away(args: argparse.Namespace, seat_id: str) -> int:
    """A seat across the internet: the board refuses its messages from now on; only the
    broker can close its page (its user there), which the board cannot do."""
    try:
        gone = _away(args).revoke(seat_id)
    except OSError as exc:
        raise UsageError(f"cannot withdraw the seat: {exc}") from None
    text = _("The seat {seat} ({colour}, remote game {game}) is revoked: this board refuses "
             "its turns from now on.")  # fmt: skip
    print(text.format(seat=gone.seat, colour=_colour_word(gone.colour), game=gone.game))
    if gone.user is not None:
        text = _(
            "Its page still reaches the broker as {user}: remove that user there to close it "
            "(mosquitto_passwd -D FILE {user}, then reload mosquitto: docs/broker.md)."
        )
        print(text.format(user=gone.user))
    else:
        text = _(
            "Its page still reaches the broker, which asks it no password: a club's broker "
            "gives each seat a user, withdrawn there (docs/broker.md)."
        )
        print(text)
    text = _(
        "This game's colour stays the revoked seat's: to play on with another player, start "
        "another remote game (another game name)."
    )
    print(text)
    return 0


def _colour_word(colour: str) -> str:
    return _("black") if colour == "black" else _("white")
