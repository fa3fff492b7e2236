"""The printed parts as solids (build123d), each in its own frame: the drive (``drive``), what
the marbles ride on (``track``), the case and the motor's mount (``case``), the printed marble
and its jig (``marble``), the tolerance test (``testprint``); and how a solid is meshed
(``mesh``). They take their figures from ``board/``."""
