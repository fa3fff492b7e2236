"""The real board's web page, wired: the referee's controls, the archive's reads and the
broker's games (``[remote] broker``) handed to the page's server on the controller's loop.
aiohttp is imported only here, with the page switched on."""

from __future__ import annotations

import asyncio
import logging

from orbito_hw.app.broker import credentials_of
from orbito_hw.app.config import Config, RemoteConfig
from orbito_hw.app.releases import running_release
from orbito_hw.archive.reading import ArchiveReads
from orbito_hw.control.referee import Referee
from orbito_hw.lang import _
from orbito_hw.remote.protocol import parse_broker_url
from orbito_hw.remote.spectator import BrokerWatch
from orbito_hw.web.access import access_code
from orbito_hw.web.controls import BoardControls
from orbito_hw.web.server import WebServer

log = logging.getLogger(__name__)


def broker_watch(remote: RemoteConfig) -> BrokerWatch | None:
    """The broker whose games the page can watch: ``[remote] broker``, if one is set (the
    board need not play on it)."""
    if remote.broker is None:
        return None
    try:
        url = parse_broker_url(remote.broker, need_game=False)
    except ValueError:
        return None  # config.py has said so already
    return BrokerWatch(url, credentials_of(remote))


def serve_board(
    loop: asyncio.AbstractEventLoop, referee: Referee, config: Config
) -> WebServer | None:
    """The page of a real board, from ``[web]`` of ``config``; None (and an error in the
    log) when it cannot listen: the board referees on without its page."""
    state_dir = config.board.state_dir
    controls = BoardControls(referee, state_dir, config.board.first)
    code = access_code(config.web, state_dir)
    reads, watch = ArchiveReads(state_dir), broker_watch(config.remote)
    server = WebServer(controls, code, reads, watch, version=running_release())
    bind, port = config.web.bind, config.web.port
    try:
        loop.run_until_complete(server.start(bind, port))
    except OSError as exc:
        why = exc.strerror or str(exc)
        text = _(
            "the web page is off: cannot listen on {bind} port {port} "
            "(web.bind, web.port): {reason}"
        )
        log.error("%s", text.format(bind=bind, port=port, reason=why))
        return None
    log.info("%s", _("web page on {url}").format(url=f"http://{bind}:{server.port}/"))
    return server
