"""Which language a text is in, word by word (issue 46): the words of English sentences no
French sentence of the product uses, and the other way round. A test that plays something in
French scans what a person reads with ``foreign(text, ENGLISH)``: a sentence left unmarked
in any layer shows up there (tests/test_lang_game.py, tests/test_lang_builder.py)."""

from __future__ import annotations

import re

ENGLISH = frozenset(
    "the is are your you to and not turn turns board game of with for this that what which "
    "by taken back after draw wins win won lost loses queued link player phone over here "
    "press pressed marble marbles square squares empty move moves wait waiting white black "
    "unknown command commands must should there no yes none from take".split()
)
"""Words of English sentences that no French sentence of the product uses."""
FRENCH = frozenset(
    "le la les vous est une du des plateau partie tour tours votre au aux noir noirs blanc "
    "blancs bille billes jouer jouez appuyez attention conseil dans sur avec perdu gagné nul "
    "case cases reprise commande inconnue pas ce cette".split()
)
"""Words of French sentences that no English sentence of the product uses."""
WORD = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)?", re.UNICODE)
BOARD_ROW = re.compile(r"^\s*(?:[1-4](?:\s+[·●○])+|(?:[a-d]\s+){3}[a-d])\s*$")
"""The board drawn at the prompt: its marbles and its files, no words."""
LANGUAGE_NAMES = frozenset({"english", "français", "francais"})
"""The page's language menu names each language in its own words."""


def foreign(text: str, words: frozenset[str]) -> list[str]:
    """The lines of ``text`` that hold one of ``words`` (case ignored), each with them."""
    found = []
    for line in text.splitlines():
        if BOARD_ROW.match(line):
            continue
        hits = sorted({w for w in WORD.findall(line.lower()) if w in words} - LANGUAGE_NAMES)
        if hits:
            found.append(f"{hits}: {line.strip()}")
    return found
