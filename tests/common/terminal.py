"""A command on a pseudo-terminal, as a person at a terminal meets it (tests/test_prompt.py,
tests/test_lang_game.py): type a line, read what it wrote up to the next prompt."""

from __future__ import annotations

import os
import pty
import re
import select
import sys
import time

PROMPT = "orbito> "
ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


class Terminal:
    """``orbito-hw ARGS`` on a pseudo-terminal: type a line, read up to the next prompt."""

    def __init__(self, *args: str) -> None:
        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # the child: the command, its stdin and stdout the terminal
            os.execv(sys.executable, [sys.executable, "-m", "orbito_hw", *args])
        self.seen = ""

    def read_until_prompt(self, timeout: float = 60) -> str:
        """What the command wrote until it shows the prompt again (colours removed)."""
        out = b""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            ready, _, _ = select.select([self.fd], [], [], 0.1)
            if not ready:
                continue
            try:
                data = os.read(self.fd, 65536)
            except OSError:  # the command has gone
                break
            if not data:
                break
            out += data
            if out.decode(errors="replace").endswith(PROMPT):
                break
        text = ANSI.sub("", out.decode(errors="replace")).replace("\r\n", "\n")
        self.seen += text
        return text

    def type(self, line: str) -> str:
        os.write(self.fd, line.encode() + b"\n")
        return self.read_until_prompt()

    def end(self) -> int:
        with_status = os.waitpid(self.pid, 0)[1]
        os.close(self.fd)
        return os.waitstatus_to_exitcode(with_status)
