"""gpiozero's mock pin with a short memory, for the simulated wiring's pins.

gpiozero's ``MockPin`` keeps every level change in ``states``: two per STEP pulse (about
1.3 MB a simulated game) and, on a colour board, every switch of the multiplexer's select
lines (16 a scan). A long session on mock pins must run in flat memory, so the simulated
wiring's pins keep only the last few changes: enough to look at by hand.
"""

from __future__ import annotations

from collections import deque
from typing import Final

from gpiozero.pins.mock import MockPin, PinState

PIN_HISTORY: Final = 64
"""How many level changes a simulated pin remembers."""


class ShortMemoryPin(MockPin):  # type: ignore[misc]  # gpiozero is untyped
    """gpiozero's mock pin with its ``states`` history bounded; otherwise exactly MockPin."""

    def clear_states(self) -> None:
        super().clear_states()
        self.states: deque[PinState] = deque(self.states, maxlen=PIN_HISTORY)
