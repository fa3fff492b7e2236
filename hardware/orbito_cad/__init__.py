"""The board's mechanics as a parametric model (issue 25): ``orbito-hw cad build DIR``.

``params`` holds every dimension in one place and ``layout`` the geometry and kinematics
(pure Python: the squares, where each cup rests after each place, the drive's ratios);
``parts`` builds the solids with build123d, ``render`` draws them with Matplotlib and
``build`` writes everything out. Only ``parts``, ``render`` and ``build`` need the ``cad``
extra; nothing here is imported by the board's own code.
"""
