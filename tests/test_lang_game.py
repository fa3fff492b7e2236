"""Every word in the player's language (issue 46): a scripted game in French at the prompt
(a pseudo-terminal, as a person meets it) and on the pages (the board's and a seat's, in
Chromium at a phone's 390x844, browsers set to English: ``--lang`` wins), whose every printed
or shown sentence is French; the same game in English shows no French. A sentence left
unmarked in any layer (a rule's reason, a take-back, the server's line, a title) fails here."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from .common.browser import PHONE, WAIT_MS, board, free_port
from .common.seat import GAME, lit, person, post, turns_shown
from .common.terminal import Terminal
from .common.words import ENGLISH, FRENCH, foreign


def test_the_word_lists_tell_the_languages_apart() -> None:
    """The scan itself: it finds an English sentence in French and the other way round."""
    assert foreign("tour 3 : b1 is occupied", ENGLISH) == ["['is']: tour 3 : b1 is occupied"]
    assert foreign("partie 1, tour 1 : noir b1", ENGLISH) == []
    assert foreign("game 1 turn 1: black b1", FRENCH) == []
    assert foreign("Vous avez perdu", FRENCH)
    assert foreign("  1  ·  ●  ○  · ", ENGLISH) == [] and foreign("     a  b  c  d", FRENCH) == []


# --- the prompt ------------------------------------------------------------------------------
FRENCH_LINES = [
    "aide", "b1", "c1", "a5", "c1-c2", "e2", "zz", "conseils oui", "c3", "annuler",
    "adversaire hasard blanc", "lever z9", "tenir x", "d4", "a2", "annuler", "nouvelle blanc",
    "a1", "quitter",
]  # fmt: skip
"""A French player's game at the prompt: help, turns, a turn on a marble (c1 after b1's
press), turns written wrong, an unknown word, hints on, a turn taken back, an opponent
chosen mid-game (for the next game), bad squares and seconds, a blunder held back then
undone, a new game the board opens."""
ENGLISH_LINES = [
    "help", "b1", "c1", "a5", "c1-c2", "e2", "zz", "hints on", "c3", "undo",
    "opponent random white", "lift z9", "hold x", "d4", "a2", "undo", "new white", "a1", "quit",
]  # fmt: skip


def _at_the_prompt(language: str, lines: list[str]) -> str:
    term = Terminal("--lang", language, "run", "--mock", "--interactive")
    term.read_until_prompt()
    for line in lines[:-1]:
        term.type(line)
    os.write(term.fd, lines[-1].encode() + b"\n")
    term.read_until_prompt(timeout=30)
    assert term.end() == 0
    typed = set(lines)
    # What the person typed comes back on the terminal (its echo): not the product's words.
    return "\n".join(
        line
        for line in term.seen.splitlines()
        if line.removeprefix("orbito> ").strip() not in typed
    )


def test_a_french_game_at_the_prompt_is_all_french_and_an_english_one_has_no_french() -> None:
    french = _at_the_prompt("fr", FRENCH_LINES)
    left = foreign(french, ENGLISH)
    assert left == [], "\n".join(left)
    # What the script meets, said in French: the reasons and the sentences of every layer.
    for said in (
        "c1 est occupée ; une bille se pose sur une case vide",  # the rules' reason
        "5 n'est pas une rangée du plateau",  # a turn written wrong: which part, why
        "un déplacement est suivi de la case où poser la bille",
        "commande inconnue 'zz'",
        "laisse filer la victoire",  # a draw after it: not "perd la partie"
        "a2 n'est pas joué",  # undo right after a turn held back
        "dès la prochaine partie",  # a setting that applies later says when
        "'z9' n'est pas une case",
        "reprise du tour",
        "une nouvelle partie, blanc joue en premier",
    ):
        assert said in french, said
    english = _at_the_prompt("en", ENGLISH_LINES)
    left = foreign(english, FRENCH)
    assert left == [], "\n".join(left)
    assert "c1 is occupied; a marble is placed on an empty square" in english
    assert "from the next game (new)" in english


# --- the pages -------------------------------------------------------------------------------
def _read(page: Any) -> str:
    """What a person reads on ``page``: its title and every visible text."""
    text: str = page.evaluate("() => document.title + '\\n' + document.body.innerText")
    return text


def _pages_game(browser: Any, tmp_path: Path, language: str) -> str:
    """GAME on the board's page and a seat's (white), both in browsers set to English, the
    board run with ``--lang language``; everything both pages showed on the way."""
    seen: list[str] = []
    with board(free_port(), "--lang", language, "--state-dir", str(tmp_path)) as url:
        main = browser.new_page(viewport=PHONE, locale="en-GB")
        main.goto(url)
        main.wait_for_selector('[data-link="live"]', timeout=WAIT_MS)
        main.click("#controls summary")
        invited = post(url, "/api/seat/invite", colour="white")
        assert invited["link"].endswith(f"?lang={language}")  # the link carries it
        seat = browser.new_page(viewport=PHONE, locale="en-GB")
        seat.goto(invited["link"])
        seat.wait_for_selector('body[data-seat="live"]', timeout=WAIT_MS)
        seat.click('[data-square="a1"]')  # not the seat's turn: refused on the page
        seat.wait_for_selector('#refusal[data-refusal="yes"]', timeout=WAIT_MS)
        seen += [_read(main), _read(seat)]
        for number, token in enumerate(GAME, start=1):
            if number == 3:  # the person presses with nothing made: refused by the rules
                post(url, "/api/press")
                main.wait_for_selector('#log [data-event="rejected"]', state="attached",
                                       timeout=WAIT_MS)  # fmt: skip
                seen.append(_read(main))
            if number % 2:
                person(url, token)
                turns_shown(seat, number)
            else:
                seat.click(f'[data-square="{token}"]')
                seat.wait_for_selector(f'#instruction[data-waiting="{token}"]', timeout=WAIT_MS)
                lit(url, token)
                seen += [_read(main), _read(seat)]
                person(url, token)
            if number == 3:  # a draw offered by the seat, declined with no reason given
                seat.click('[data-action="seat-draw"]')
                seat.wait_for_selector('#ask-state[data-ask="asked"]', timeout=WAIT_MS)
                seen.append(_read(main))
                post(url, "/api/answer", agree="no")
                seat.wait_for_selector('#ask-state[data-ask="refused"]', timeout=WAIT_MS)
                seen.append(_read(seat))
        seat.wait_for_selector('#result[data-outcome="lost"]', timeout=WAIT_MS)
        main.wait_for_selector("#result:not(:empty)", timeout=WAIT_MS)
        seen += [_read(main), _read(seat)]
        post(url, "/api/new-game", first="black")
        seat.wait_for_selector('body[data-seat="ended"]', timeout=WAIT_MS)
        seen += [_read(main), _read(seat)]
        main.close()
        seat.close()
    return "\n".join(seen)


def test_a_french_game_on_the_pages_is_all_french(browser: Any, tmp_path: Path) -> None:
    shown = _pages_game(browser, tmp_path, "fr")
    left = foreign(shown, ENGLISH)
    assert left == [], "\n".join(left)
    for said in ("Plateau Orbito", "Vous avez perdu", "La partie est finie : vous avez perdu."):
        assert said in shown, said
    assert "l'autre plateau" not in shown  # the seat is the player on the phone


def test_the_same_game_in_english_shows_no_french(browser: Any, tmp_path: Path) -> None:
    shown = _pages_game(browser, tmp_path, "en")
    left = foreign(shown, FRENCH)
    assert left == [], "\n".join(left)
    assert "You lost" in shown and "the other board" not in shown


def test_the_pages_follow_lang_over_the_browsers_language(browser: Any, tmp_path: Path) -> None:
    """``--lang fr``: the board's page is French to a browser set to English, unless its
    viewer picks English on the page (then remembered)."""
    with board(free_port(), "--lang", "fr", "--state-dir", str(tmp_path)) as url:
        page = browser.new_page(viewport=PHONE, locale="en-GB")
        page.goto(url)
        page.wait_for_selector('[data-link="live"]', timeout=WAIT_MS)
        page.wait_for_function("() => document.documentElement.lang === 'fr'", timeout=WAIT_MS)
        assert page.title() == "Plateau Orbito"
        page.wait_for_selector("#instruction[data-instruction]:not([data-instruction=''])",
                               timeout=WAIT_MS)  # fmt: skip
        assert foreign(page.locator("#instruction").inner_text(), ENGLISH) == []
        page.evaluate("() => { localStorage.setItem('orbito-hw-lang', 'en'); }")
        page.reload()
        page.wait_for_function("() => document.documentElement.lang === 'en'", timeout=WAIT_MS)
        assert page.title() == "Orbito board"
        page.close()
