"""Orbito solved: every position valued for the side to move, and the turns that keep it.

Querying (``Solution``, ``shipped_solution``) is pure Python over the shipped table; building
the table (``orbito_hw.solver.build``) needs NumPy and is imported only by ``orbito-hw solve``.
"""

from orbito_hw.solver.layout import Score, Value
from orbito_hw.solver.table import Analysis, Solution, SolutionError, shipped_path, shipped_solution

__all__ = [
    "Analysis",
    "Score",
    "Solution",
    "SolutionError",
    "Value",
    "shipped_path",
    "shipped_solution",
]
