"""Every word a builder reads in their language (issue 46): ``config check`` of broken files and
``doctor`` of a simulated board with its faults, under ``--lang fr``, print no English
sentence, and the same in English no French; the web server's refusals of a malformed
request read back in French on a French page; a config that names English pins the pages to
it. A sentence left unmarked in config/, doctor/ or the server fails here, and one marked
where Babel cannot see it (inside an f-string) fails ``messages.py check``."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestClient

from orbito_hw import lang
from orbito_hw.app.config import load_config
from orbito_hw.sim.harness import MockRun
from orbito_hw.web.server import MAX_BODY
from scripts import messages

from .common.boards import EXAMPLE
from .common.cli import run
from .common.page import serve
from .common.words import ENGLISH, FRENCH, foreign

BUILDER_ENGLISH = ENGLISH | frozenset(
    "cannot read missing expected problem problems passed failed pass fail summary did "
    "light order key value line column file directory such denied invalid end unknown "
    "declared twice".split()
)
"""English words of the builder's sentences (a config's problems, the doctor's checks)."""
DATA = re.compile(
    r"'[^']*'"  # a value as the file or the command line has it
    r"|\b\w+(?:\.\w+)+\b"  # a key path: board.first, sensors.pins.c3
    r"|\b\w+=\S*"  # backends: sensors=tmag
    r"|/\S+"  # a path
    r"|(?:valeurs|l'un de :|l'une de :) [\w, ]+$"  # the values a key or an option takes
    r"|^(?:== )?(?:leds|sensors|button|rings|calibrate)\b"  # a check's name (--only's words)
)
"""What a builder's French line may hold in English: the words of the file and of the command
line, which a builder types as they are (keys, values, paths, a check's name)."""

BROKEN: dict[str, str | bytes] = {
    "many.toml": (
        '[board]\nlanguag = "fr"\nfirst = "green"\n[drive]\nsteps_per_place = -3\n'
        '[leds]\nbackend = "neopixel"\n[web]\nport = "x"\n'
    ),
    "one.toml": '[board]\nfirst = "green"\n[backends]\nsensors = "sim"\nbutton = "sim"\n'
    'drive = "sim"\nlights = "sim"\n',
    "table.toml": "[board\n",
    "value.toml": "[board]\nfirst = black\n",
    "twice.toml": '[board]\nfirst = "black"\nfirst = "white"\n',
    "quote.toml": '[board]\nfirst = "black\n',
    "list.toml": "[board]\nfirst = [1,\n",
    "latin1.toml": b"[board]\n# caf\xe9\n",
}
"""Config files a builder gets wrong: many problems, one, TOML that does not parse (a table's
name, a bare word, a key twice, a quote, a list left open), text that is not UTF-8."""
FAULTS = ("swap:c3,c4", "slip:50", "dead-led:a1", "dead-led:d4")


@pytest.fixture(autouse=True)
def english_again() -> Iterator[None]:
    """Each test starts and ends in English with nothing pinned (the language is the process's)."""
    lang.reset()
    yield
    lang.reset()


def _words_of(text: str) -> str:
    return "\n".join(DATA.sub(" ", line.strip()) for line in text.splitlines())


def _builder_runs(capsys: pytest.CaptureFixture[str], tmp_path: Path, code: str) -> str:
    """What a builder reads, in ``code``: config check of each broken file, of a folder, of
    nothing, of the example; doctor of a simulated board with each fault, and refused."""
    said: list[str] = []
    for name, content in BROKEN.items():
        path = tmp_path / name
        path.write_bytes(content if isinstance(content, bytes) else content.encode())
        status, out, err = run(capsys, "--lang", code, "config", "check", "--config", str(path))
        assert status == 2 and err, name
        said.append(out + err)
    for path in (tmp_path, tmp_path / "nowhere.toml", EXAMPLE):
        status, out, err = run(capsys, "--lang", code, "config", "check", "--config", str(path))
        said.append(out + err)
    for fault in FAULTS:
        status, out, err = run(capsys, "--lang", code, "doctor", "--mock", "--fault", fault)
        assert status == 1, fault
        said.append(out + err)
    for wrong in (("--only", "foo"), ("--timeout", "-1"), ("--fault", "bogus:1")):
        status, out, err = run(capsys, "--lang", code, "doctor", "--mock", *wrong)
        assert status == 2 and err, wrong
        said.append(out + err)
    return "\n".join(said)


def test_a_french_builder_reads_config_check_and_doctor_in_french(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    french = _builder_runs(capsys, tmp_path, "fr")
    left = foreign(_words_of(french), BUILDER_ENGLISH)
    assert left == [], "\n".join(left)
    for said in (
        "12 problèmes :",  # the header, its count agreeing
        "board.languag : clé inconnue (vouliez-vous dire board.language ?)",
        "TOML invalide : ligne 1, colonne 7 : le nom d'une table n'est pas fermé par ]",
        "une clé est donnée deux fois",
        "aucun fichier ou dossier de ce nom",  # the system's reason, in words
        "un dossier, pas un fichier",
        "premier joueur : noir",
        "[o/n]",  # the question's answers in French letters
        "ÉCHEC",
        "leds : ÉCHEC (1 problème) :",
        "vérifiez le pixel sous a1 (lights.order)",
    ):
        assert said in french, said


def test_an_english_builder_reads_no_french(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    english = _builder_runs(capsys, tmp_path, "en")
    left = foreign(english, FRENCH)
    assert left == [], "\n".join(left)
    # English keeps the words every other tool uses: the system's and TOML's own
    assert "No such file or directory" in english
    assert "Expected ']' at the end of a table declaration (at line 1, column 7)" in english
    assert "[y/n]" in english and "FAIL" in english


# --- the web server's refusals ---------------------------------------------------------------
MALFORMED: list[tuple[str, str, object]] = [
    ("POST", "/api/press", {"action": "jump"}),
    ("POST", "/api/opponent", {"level": "godlike", "colour": "white"}),
    ("POST", "/api/opponent", {"level": "perfect", "colour": "green"}),
    ("POST", "/api/hints", {"hints": "maybe"}),
    ("POST", "/api/new-game", {"first": "red"}),
    ("POST", "/api/draw", b"{not json"),
    ("POST", "/api/press", b"[1, 2]"),
    ("POST", "/api/press", "text/plain"),
    ("POST", "/api/press", b"x" * (MAX_BODY + 1)),
    ("GET", "/api/games?before=0", None),
    ("POST", "/api/square/e9", {}),
]
"""Requests a page (or a hand-made one) may send wrong, each refused with an error the page
shows (board.js and seat.js read ``error`` back with inWords)."""


def test_the_servers_refusals_read_back_in_french() -> None:
    errors: list[str] = []

    async def test(client: TestClient[Any, Any], run: MockRun) -> None:
        for method, path, body in MALFORMED:
            if body is None:
                answer = await client.request(method, path)
            elif isinstance(body, bytes):
                headers = {"Content-Type": "application/json"}
                answer = await client.request(method, path, data=body, headers=headers)
            elif body == "text/plain":
                answer = await client.request(method, path, data="hello")
            else:
                answer = await client.request(method, path, json=body)
            assert 400 <= answer.status < 500, path
            errors.append((await answer.json())["error"])

    serve(test)
    assert len(errors) == len(MALFORMED)
    values = {"black", "white", "click", "down", "up", "on", "off", "yes", "no", "none"}  # data
    for error in errors:
        with lang.speaking("fr"):
            said = lang.reworded(error)
        assert said != error, error
        left = foreign(_words_of(said), ENGLISH - values)
        assert left == [], f"{error} -> {said}"


# --- the config's language --------------------------------------------------------------------
@pytest.mark.parametrize(
    ("board", "pages"),
    [("", None), ('language = "en"\n', "en"), ('language = "fr"\n', "fr")],
    ids=["left out", "english named", "french named"],
)
def test_a_config_that_names_a_language_pins_the_pages_to_it(
    tmp_path: Path, board: str, pages: str | None
) -> None:
    """``language = "en"`` is a choice as ``--lang en`` is (the pages speak English to a
    French browser); the key left out is none (a page speaks its browser's language)."""
    path = tmp_path / "config.toml"
    sim = 'sensors = "sim"\nbutton = "sim"\ndrive = "sim"\nlights = "sim"\n'
    path.write_text(f"[board]\n{board}[backends]\n{sim}")
    config = load_config(path)
    assert ("board.language" in config.given) == bool(board)
    assert lang.chosen() == pages
    assert lang.language() == (pages or "en")


# --- the catalogue's own check -------------------------------------------------------------
def test_a_sentence_marked_inside_an_f_string_is_a_problem(tmp_path: Path) -> None:
    """Babel reads an f-string as one token (Python < 3.12): a sentence marked in it never
    reaches the catalogue. ``check`` names it; a constant translated there (``_(NAME)``)
    is fine, as are the package's own sources."""
    source = tmp_path / "module.py"
    source.write_text(
        'from orbito_hw.lang import N_, _, ngettext\nNAME = N_("grade")\n'
        "a = f\"{_('ID'):<18} {_(NAME)}\"\n"
        "b = f\"{ngettext('{n} turn', '{n} turns', 2)}\"\n"
    )
    found = messages.hidden_marks([source])
    assert [line.split(": ", 1)[1] for line in found] == [
        "_() inside an f-string: not extracted",
        "ngettext() inside an f-string: not extracted",
    ]
    assert all(line.startswith(f"{source}:3") or line.startswith(f"{source}:4") for line in found)
    assert messages.hidden_marks() == []
