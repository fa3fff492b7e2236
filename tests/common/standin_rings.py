"""A stand-in for the simulated board's rings, for the firmware and serial link tests.

It is the ``MotorPort`` of ``orbito_hw.sim.pico``: the index sensor reads active only
when the motor has made a whole number of places, and lost steps can be injected (the next
``slip`` step pulses move nothing, as a stalling motor). Thread-safe, since the simulated
Pico steps it from its own thread.
"""

from __future__ import annotations

import threading


class StandInRings:
    def __init__(self, steps_per_place: int) -> None:
        self.spp = steps_per_place
        self.position = 0  # motor steps the rings really turned
        self.pulses = 0  # step pulses received
        self.slip = 0
        self.squares = 0
        self.enabled = True
        self._lock = threading.Lock()
        self._watchers: list[tuple[int, threading.Event]] = []

    def step(self, forward: bool) -> None:
        with self._lock:
            self.pulses += 1
            if self.slip > 0:
                self.slip -= 1
            else:
                self.position += 1 if forward else -1
            for target, event in self._watchers:
                if self.pulses >= target:
                    event.set()

    def enable(self, on: bool) -> None:
        self.enabled = on

    def index_active(self) -> bool:
        with self._lock:
            return self.position % self.spp == 0

    def read_squares(self) -> int:
        return self.squares

    @property
    def places(self) -> float:
        return self.position / self.spp

    def when_pulses(self, count: int) -> threading.Event:
        """An event set once ``count`` step pulses have been made."""
        event = threading.Event()
        with self._lock:
            self._watchers.append((count, event))
            if self.pulses >= count:
                event.set()
        return event
