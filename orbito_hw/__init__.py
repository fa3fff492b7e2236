"""orbito-hw: a self-refereeing Orbito board.

The rules engine is imported here because it is small and pure; the solver, the
hardware backends and the controller are imported only by what uses them.
"""

from orbito_hw.errors import ConfigError, IllegalTurnError, NotationError, OrbitoError
from orbito_hw.rules.game import Colour, Position, ReplayError, Result, replay
from orbito_hw.rules.turn import EXTRA_PRESS, Turn

__version__ = "0.1.0"

__all__ = [
    "EXTRA_PRESS",
    "Colour",
    "ConfigError",
    "IllegalTurnError",
    "NotationError",
    "OrbitoError",
    "Position",
    "ReplayError",
    "Result",
    "Turn",
    "__version__",
    "replay",
]
