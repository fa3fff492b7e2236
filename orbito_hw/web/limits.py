"""The page's share of the controller, bounded: nothing the pages do may starve the referee
or the journal of a file descriptor or of time on the loop.

- Connections: at most ``MAX_CONNECTIONS`` open at once (fewer when the process may open few
  files: ``FD_RESERVE`` always stay for the journal, the archive and the hardware). One past
  the cap takes the place of the connection idle longest (held open with no request), so
  idle sockets never lock the pages out; when every one is busy, it is answered 503 and
  closed at once, before aiohttp reads a byte of it.
- Idle and slow clients: a connection that sends no request, or stops in the middle of one,
  is closed after ``IDLE_S``; a stream whose page stops reading is dropped after
  ``WRITE_TIMEOUT_S`` (its queue is bounded too: feed.py).
- The archive's reads run in a thread, at most ``MAX_ARCHIVE_READS`` at once; more are 503.
- A page that leaves is noticed at once (aiohttp cancels its handler), and everything it
  held (a broker connection, a queue) is given back.
"""

from __future__ import annotations

import asyncio
import logging
import resource
from typing import Final

from aiohttp import web
from aiohttp.web_server import Server

from orbito_hw.lang import _, system_reason

log = logging.getLogger(__name__)

MAX_CONNECTIONS: Final = 256
"""Connections to the page at once: a table of phones is a few dozen."""
FD_RESERVE: Final = 128
"""File descriptors never given to the page: the journal, the archive, logs, the hardware."""
FD_WANTED: Final = 4096
"""The soft limit of open files the controller raises itself to (the unit's LimitNOFILE)."""
IDLE_S: Final = 15.0
"""Seconds a connection may sit without a whole request before it is closed."""
WRITE_TIMEOUT_S: Final = 10.0
"""Seconds a stream's write may wait on a page that does not read before it is dropped."""
GAMES_PAGE: Final = 50
"""Games in one page of ``/api/games`` (at most; the newest first asked): an answer whose
memory does not grow with the archive (the hostile soak's board kept 2,283 games, and a
whole list read twice at once left the controller 7 MB larger for good)."""
MAX_ARCHIVE_READS: Final = 2
"""Archive reads at once, each in a thread off the referee's loop; past it a page gets 503."""
BUSY: Final = (
    b"HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain\r\nContent-Length: 38\r\n"
    b"Connection: close\r\n\r\ntoo many pages are open: try later\r\n\r\n"
)


def connection_cap() -> int:
    """How many connections the page may hold: ``MAX_CONNECTIONS``, fewer if the process
    may open few files (after raising its soft limit as far as it may, to ``FD_WANTED``)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = FD_WANTED if hard == resource.RLIM_INFINITY else min(FD_WANTED, hard)
    if soft != resource.RLIM_INFINITY and soft < wanted:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
            soft = wanted
        except (ValueError, OSError) as exc:
            text = _("cannot raise the limit of open files to {n}: {reason}")
            log.warning("%s", text.format(n=wanted, reason=system_reason(exc)))
    if soft == resource.RLIM_INFINITY:
        return MAX_CONNECTIONS
    return max(1, min(MAX_CONNECTIONS, soft - FD_RESERVE))


class _Busy(asyncio.Protocol):
    """A connection past the cap: one 503 line, then closed."""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        transport.write(BUSY)
        transport.close()


def _evict_idle(server: Server) -> bool:
    """Make room for a new page: the connection that has waited longest with no request
    (a connection held open and idle) is closed. False when every one is busy."""
    for handler in server.connections:  # oldest first
        # aiohttp says no more than this of a connection's state: unknown is busy. One
        # already closing (no transport) is still listed until the loop hears of it.
        if handler.transport is not None and not getattr(handler, "_request_in_progress", True):
            handler.force_close()
            return True
    return False


class CappedSite(web.TCPSite):
    """aiohttp's TCP site, each new connection past ``cap`` refused (503) at once."""

    def __init__(self, runner: web.AppRunner, host: str, port: int, cap: int) -> None:
        super().__init__(runner, host, port)
        self.cap = cap

    async def start(self) -> None:
        await web.BaseSite.start(self)  # registers the site with its runner, as TCPSite does
        server = self._runner.server
        assert isinstance(server, Server)
        refused = 0

        def connection() -> asyncio.Protocol:
            nonlocal refused
            if len(server.connections) < self.cap or _evict_idle(server):
                return server()
            refused += 1
            if refused in (1, 10, 100) or refused % 1000 == 0:  # said, never a flood
                text = _("the web page is full ({n} connections): {refused} refused")
                log.warning("%s", text.format(n=self.cap, refused=refused))
            return _Busy()

        self._server = await asyncio.get_running_loop().create_server(
            connection, self._host, self._port, backlog=self._backlog,
            reuse_address=self._reuse_address, reuse_port=self._reuse_port,
        )  # fmt: skip
