"""A one-line progress bar on stderr, shown only to a person watching a terminal."""

from __future__ import annotations

import sys
from typing import TextIO


class ProgressBar:
    """``step(label)`` advances by one of ``total`` steps and redraws the line."""

    WIDTH = 30

    def __init__(self, total: int, title: str, stream: TextIO | None = None, quiet: bool = False):
        self.total = max(total, 1)
        self.title = title
        self.stream = stream or sys.stderr
        self.enabled = not quiet and self.stream.isatty()
        self.done = 0

    def step(self, label: str) -> None:
        self.done += 1
        if not self.enabled:
            return
        filled = self.WIDTH * self.done // self.total
        bar = "#" * filled + "." * (self.WIDTH - filled)
        end = "\n" if self.done >= self.total else ""
        self.stream.write(f"\r{self.title} [{bar}] {self.done}/{self.total} {label:<28}{end}")
        self.stream.flush()
