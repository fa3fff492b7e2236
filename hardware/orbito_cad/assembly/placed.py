"""One solid of the assembly, named, and what the model knows of it."""

from __future__ import annotations

from dataclasses import dataclass

from build123d import Part


@dataclass(frozen=True)
class Placed:
    """One solid of the assembly: ``part`` names its STL (printed) or its BOM line (bought)."""

    name: str
    part: str
    solid: Part
    printed: bool
    moves: bool  # turns or slides when the rings move
    explode: float  # how far it rises in the exploded view
