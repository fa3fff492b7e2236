"""The board's facts and the geometry derived from them: every dimension (``params``), the
squares and how everything moves (``layout``), the drive's figures (``gearing``), the case's,
the face's and the bay's plans (``frame``, ``face``, ``bay``), the printed marble's magnets
(``marble``). Pure Python: no solid, no CAD library; it imports the rules' squares alone."""
