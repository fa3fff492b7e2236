"""systemd's notify socket, faked: a datagram socket that stamps every message on arrival
(the ``systemd`` fixture in conftest.py gives one at a temporary path)."""

from __future__ import annotations

import contextlib
import socket
import threading
import time


class FakeSystemd:
    """A datagram socket standing in for systemd's: it stamps every message on arrival."""

    def __init__(self, address: str) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(address)
        self.sock.settimeout(0.05)
        self.messages: list[tuple[float, str]] = []
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._listen, daemon=True)
        self._thread.start()

    def _listen(self) -> None:
        while not self._done.is_set():
            try:
                data = self.sock.recv(4096)
            except TimeoutError:
                continue
            self.messages.append((time.monotonic(), data.decode()))

    def close(self) -> list[tuple[float, str]]:
        time.sleep(0.05)  # let the last datagrams land
        self._done.set()
        self._thread.join()
        # What the listener had no turn to read (a loaded machine): already in the socket,
        # every datagram was sent before close.
        if self.sock.fileno() != -1:  # the first close (a test may close it twice)
            self.sock.setblocking(False)
            with contextlib.suppress(BlockingIOError):
                while True:
                    self.messages.append((time.monotonic(), self.sock.recv(4096).decode()))
        self.sock.close()
        return self.messages

    def texts(self) -> list[str]:
        return [text for _, text in self.messages]
