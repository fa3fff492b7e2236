"""The board's mechanics as a parametric model (issue 25): ``orbito-hw cad build DIR``.

One folder per layer, each looking only down (tests/test_layers.py):

- ``board/``: every dimension (``params``) and the geometry derived from it, pure Python;
- ``parts/``: the printed parts as solids (build123d);
- ``assembly/``: the board put together at rest, printed and bought parts placed;
- ``models/``: what judges it: the motion and the swept checks, the physics, the magnetics;
- ``make/``: what is made from it: the build's files, the BOM, the print table, the renders.

Nothing here is imported by the board's own code; ``orbito-hw cad build`` imports it when run.
"""
