"""The words in the player's language (orbito_hw/lang/, scripts/messages.py, docs/languages.md):
the catalogues complete and compiled, the check that says when they are not, the choice of
language (the config's ``board.language``, ``--lang``, a browser's Accept-Language), and French
shown end to end."""

from __future__ import annotations

import tomllib
from collections.abc import Iterator
from fnmatch import fnmatch
from pathlib import Path

import pytest
from babel.messages.pofile import read_po, write_po
from hypothesis import example, given
from hypothesis import strategies as st

from orbito_hw import lang
from orbito_hw.app.logs import describe
from orbito_hw.control.events import Corrected, Fault, GameOver
from orbito_hw.rules.game import Result
from scripts import messages

from .common.cli import run

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def english_again() -> Iterator[None]:
    """Each test starts and ends in English with nothing pinned (the language is the process's)."""
    lang.reset()
    yield
    lang.reset()


# --- the catalogues ---------------------------------------------------------------------------
def test_every_sentence_is_translated_and_none_is_unused() -> None:
    """``python scripts/messages.py check``: nothing untranslated, fuzzy or unused, the same
    placeholders in each translation, the compiled files made from the .po as they are."""
    assert messages.all_problems() == []


def test_the_package_ships_the_compiled_catalogues() -> None:
    """A plain ``pip install .`` takes them: pyproject's package data names each file."""
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())
    globs = data["tool"]["setuptools"]["package-data"]["orbito_hw"]
    compiled = [d.compiled(code) for d in messages.DOMAINS for code in messages.TRANSLATED]
    for path in compiled:
        inside = path.relative_to(ROOT / "orbito_hw").as_posix()
        assert path.is_file(), inside
        assert any(fnmatch(inside, pattern) for pattern in globs), inside


@pytest.fixture
def toy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A package of one module under tmp_path that scripts/messages.py works on instead."""
    package = tmp_path / "orbito_hw"
    (package / "lang").mkdir(parents=True)
    monkeypatch.setattr(messages, "ROOT", tmp_path)
    monkeypatch.setattr(messages, "PACKAGE", package)
    monkeypatch.setattr(messages, "LANG", package / "lang")
    monkeypatch.setattr(messages, "DOMAINS", (messages.Domain("orbito_hw", ("**/*.py",)),))
    return package


TOY = """from orbito_hw.lang import N_, _, ngettext
PRESS = N_("Press the Orbito button")
def lift(square, n):
    return _("Lift the marble on {square}").format(square=square), ngettext(
        "{n} marble", "{n} marbles", n).format(n=n)
"""
FRENCH = {
    "Press the Orbito button": "Appuyez sur le bouton Orbito",
    "Lift the marble on {square}": "Soulevez la bille en {square}",
    "{n} marble": ("{n} bille", "{n} billes"),
}


def translate(po: Path, words: dict[str, str | tuple[str, str]], fuzzy: str = "") -> None:
    with po.open("rb") as file:
        catalog = read_po(file, locale="fr")
    for message in catalog:
        key = message.id[0] if isinstance(message.id, tuple) else message.id
        if key in words:
            message.string = words[key]
            if key == fuzzy:
                message.flags.add("fuzzy")
    with po.open("wb") as file:
        write_po(file, catalog)


def kinds(found: list[str]) -> list[str]:
    return sorted(line.split(": ", 2)[1].split(" (")[0] for line in found)


def test_the_check_names_what_is_untranslated_fuzzy_unused_or_stale(toy: Path) -> None:
    (toy / "words.py").write_text(TOY)
    assert messages.main(["extract"]) == 0 and messages.main(["update"]) == 0
    po = toy / "lang" / "fr" / "LC_MESSAGES" / "orbito_hw.po"
    assert kinds(messages.all_problems()) == ["out of date", *["untranslated"] * 3]
    translate(po, FRENCH)
    assert kinds(messages.all_problems()) == ["out of date"]  # the .mo not made yet
    assert messages.main(["check"]) == 1
    assert messages.main(["compile"]) == 0
    assert messages.all_problems() == [] and messages.main(["check"]) == 0

    translate(po, {"Lift the marble on {square}": "Soulevez la bille en {case}"})
    messages.main(["compile"])
    assert kinds(messages.all_problems()) == ["placeholders differ from the English"]
    translate(po, {"Lift the marble on {square}": "Soulevez la bille en {square} }"})
    messages.main(["compile"])
    assert kinds(messages.all_problems()) == ["the translation cannot be filled in"]
    translate(po, FRENCH, fuzzy="Press the Orbito button")
    messages.main(["compile"])
    assert kinds(messages.all_problems()) == ["fuzzy"]
    translate(po, FRENCH)
    messages.main(["compile"])

    (toy / "words.py").write_text(TOY.replace('PRESS = N_("Press the Orbito button")\n', ""))
    found = messages.all_problems()
    assert kinds(found) == ["out of date", "unused"]  # the template, and the sentence gone
    assert "'Press the Orbito button'" in found[-1]
    messages.main(["extract"])
    messages.main(["update"])  # drops it
    messages.main(["compile"])
    assert messages.all_problems() == []


def test_a_plural_names_its_count_in_some_form() -> None:
    from babel.messages.catalog import Message

    right = Message(("{n} marble", "{n} marbles"), ("une bille", "{n} billes"))
    wrong = Message(("{n} marble", "{n} marbles"), ("une bille", "des billes"))
    assert not messages.placeholders_differ(right)
    assert messages.placeholders_differ(wrong)


def test_the_html_sentences_are_read_as_the_page_reads_them(toy: Path) -> None:
    """words.js: data-i18n's text (spaces squeezed, or the attribute's value), and
    data-i18n-label's aria-label."""
    (toy / "web" / "static").mkdir(parents=True)
    (toy / "web" / "static" / "p.html").write_text(
        '<p data-i18n>New\n   <b>game</b></p><img alt="" data-i18n="A picture">'
        '<nav aria-label="pages" data-i18n-label><a data-i18n>games</a></nav>'
    )
    monkeypatch_domain = messages.Domain("page", ("web/static/*.html",))
    found = sorted(str(m.id) for m in messages.template(monkeypatch_domain) if m.id)
    assert found == ["A picture", "New game", "games", "pages"]


# --- choosing the language --------------------------------------------------------------------
def accept_language() -> st.SearchStrategy[str]:
    tag = st.sampled_from(["fr", "fr-CA", "en-GB", "de", "*", "EN", "x-klingon", "", "fr_FR"])
    weight = st.one_of(
        st.none(), st.sampled_from(["0", "1", "0.5", "0.001", "nan", "inf", "-1", "bogus", ""])
    )
    part = st.builds(lambda t, q: t if q is None else f"{t};q={q}", tag, weight)
    return st.lists(part, max_size=6).map(", ".join)


@given(st.one_of(st.text(), accept_language()))
@example("fr;q=0, en;q=0")
@example("fr;q=nan")
@example("de, fr;q=0.5")
@example(";;;q=;,,")
def test_any_accept_language_gives_a_language_the_product_speaks(header: str) -> None:
    assert lang.best(header) in lang.LANGUAGES


@given(accept_language())
def test_the_browsers_first_choice_that_is_spoken_wins(header: str) -> None:
    """The highest q above 0 among the tags the product speaks (the first listed on a tie; a q
    that is no number counts as 0, one above 1 as 1), else English: worked out here from the
    header, and compared."""
    chosen: list[tuple[float, int, str]] = []
    for index, part in enumerate(header.split(",")):
        tag, sep, q = part.strip().partition(";q=")
        try:
            weight = min(float(q), 1.0) if sep else 1.0  # above 1 is 1, "q=" none
        except ValueError:
            weight = 0.0
        if weight != weight:  # nan: no weight
            weight = 0.0
        base = tag.replace("_", "-").split("-")[0].lower()
        if base in lang.LANGUAGES and weight > 0:
            chosen.append((-weight, index, base))
    expected = sorted(chosen)[0][2] if chosen else "en"
    assert lang.best(header) == expected


@given(st.text())
@example("fr-CA")
@example("FR_fr.UTF-8")
def test_any_code_is_a_known_language_or_one_clear_error(code: str) -> None:
    try:
        chosen = lang.known(code)
    except ValueError as exc:
        assert repr(code) in str(exc) and "en, fr" in str(exc)
        with pytest.raises(ValueError):
            lang.use(code)
    else:
        assert chosen in lang.LANGUAGES
        lang.use(code)
        assert lang.language() == chosen
    assert lang.language() in lang.LANGUAGES


def test_lang_pins_the_language_over_the_config() -> None:
    lang.use_configured("fr")
    assert lang.language() == "fr"
    lang.use("en", pin=True)
    lang.use_configured("fr")
    assert lang.language() == "en"


def test_a_missing_catalogue_falls_back_to_english() -> None:
    assert lang.page_words("en") == {}
    assert lang.translation("en").gettext("Press") == "Press"


# --- French, end to end -----------------------------------------------------------------------
FR_CONFIG = """[board]
language = "fr"
state_dir = "state"
[backends]
sensors = "sim"
button = "sim"
drive = "sim"
lights = "sim"
"""


def test_lang_fr_gives_a_commands_error_in_french(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "missing.toml"
    status, out, err = run(capsys, "--lang", "fr", "config", "check", "--config", str(missing))
    assert (status, out) == (2, "")
    assert err == (
        f"orbito-hw: {missing} : impossible de lire le fichier de configuration : "
        "aucun fichier ou dossier de ce nom\n"  # the reason too: lang.system_reason
    )
    status, _, err = run(capsys, "config", "check", "--config", str(missing), "--lang", "en")
    assert status == 2 and "cannot read the config file" in err  # after the command too


def test_an_unknown_lang_is_named(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(capsys, "--lang", "de", "run", "--mock")
    assert (status, out) == (2, "")
    assert err == "orbito-hw: --lang: unknown language 'de': choose one of en, fr\n"


def test_the_configs_language_is_spoken_and_lang_wins(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "config.toml"
    path.write_text(FR_CONFIG)
    status, out, _ = run(capsys, "config", "check", "--config", str(path))
    assert status == 0
    assert out.splitlines()[0] == f"{path} : correct"
    assert out.splitlines()[2] == f"premier joueur : noir ; dossier d'état : {tmp_path / 'state'}"
    lang.reset()
    status, out, _ = run(capsys, "config", "check", "--config", str(path), "--lang", "en")
    assert out.splitlines()[0] == f"{path}: ok"


def test_an_unknown_language_in_the_config_is_one_problem_naming_the_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "config.toml"
    path.write_text(FR_CONFIG.replace('"fr"', '"de"'))
    status, out, err = run(capsys, "config", "check", "--config", str(path))
    assert (status, out) == (2, "")
    assert err == f"orbito-hw: {path}: board.language: 'de' is not one of en, fr\n"


def test_the_log_speaks_the_configs_language(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The log lines the service status shows (app/logs.py), after a config in French."""
    path = tmp_path / "config.toml"
    path.write_text(FR_CONFIG)
    assert run(capsys, "config", "check", "--config", str(path))[0] == 0
    over = GameOver(game=3, result=Result.BLACK, lines=(0b1111,))  # a1 b1 c1 d1
    assert describe(over)[1] == "partie 3 terminée : les noirs gagnent (a1 b1 c1 d1)"
    assert describe(Corrected(game=3))[1] == "partie 3 : le plateau correspond de nouveau, jouez"


def test_the_prompt_speaks_french_with_lang_fr(capsys: pytest.CaptureFixture[str]) -> None:
    """The simulated board's prompt: its help in French within 80 columns, with the French
    command words, a turn typed in the game's notation played (the JSON event stays English),
    an unknown command refused in French, naming the French words."""
    status, out, err = run(
        capsys, "--lang", "fr", "run", "--mock", "--interactive", stdin="help\na1\nbogus\nquit\n"
    )
    assert status == 0
    helped = [line for line in out.splitlines() if not line.startswith("{")]
    assert helped[0].startswith("commandes (une par ligne")
    assert "  annuler               reprendre le dernier tour, billes remises en place" in helped
    assert "  nouvelle [noir|blanc]" in helped
    assert max(map(len, helped)) <= 80
    assert '"event": "turn"' in out and '"colour": "black"' in out
    assert "orbito-hw: commande inconnue 'bogus' : tapez TOUR, annuler," in err


def test_the_service_status_line_speaks_the_language() -> None:
    """``systemctl status orbito-hw``'s line (app/run.py): a result says who won, in French too;
    a fault's reason stays as the event has it (the JSON events stay English)."""
    from orbito_hw.app.run import _status

    told: list[str] = []

    class Service:
        def status(self, text: str) -> None:
            told.append(text)

    over = GameOver(game=2, result=Result.WHITE, lines=(0b1111,))
    _status(Service(), over)
    lang.use("fr")
    _status(Service(), over)
    _status(Service(), Fault(game=2, reason="the ring drive is missing"))
    assert told == [
        "game 2 over: white wins",
        "partie 2 terminée : les blancs gagnent",
        "panne : the ring drive is missing",
    ]


def test_no_module_that_speaks_rebinds_the_underscore() -> None:
    """A module that imports ``_`` from orbito_hw.lang binds no ``_`` of its own (a throwaway
    ``for _ in``, ``a, _ = ``, ``lambda _:``): in a function that also says a sentence, the
    local shadows it, and the sentence raises UnboundLocalError or calls a string."""
    import ast

    found = []
    for path in sorted((ROOT / "orbito_hw").rglob("*.py")):
        tree = ast.parse(path.read_text())
        speaks = any(
            isinstance(node, ast.ImportFrom)
            and node.module == "orbito_hw.lang"
            and any(alias.name == "_" and alias.asname is None for alias in node.names)
            for node in ast.walk(tree)
        )
        for node in ast.walk(tree) if speaks else ():
            bound = (isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store)) or isinstance(
                node, ast.arg
            )
            if bound and getattr(node, "id", getattr(node, "arg", None)) == "_":
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert found == []


def test_doctor_speaks_french_to_the_builder(capsys: pytest.CaptureFixture[str]) -> None:
    """``doctor --mock --lang fr``: the instruction, the check's line and the summary."""
    status, out, _err = run(capsys, "doctor", "--mock", "--only", "button", "--lang", "fr")
    assert status == 0
    lines = out.splitlines()
    assert "appuyez une fois sur le bouton Orbito" in lines
    assert "  RÉUSSI le bouton s'est enfoncé puis relevé (button.pin)" in lines
    assert lines[-2:] == [
        "button : RÉUSSI : un appui et un relâchement",
        "tous les tests sont réussis",
    ]


def test_the_demo_against_the_board_speaks_french_throughout(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The board's name and the status pixel's label were English defaults, worded where no
    language was spoken yet ("tour pour the board", "status : ...")."""
    state = tmp_path / "state"
    args = ("--lang", "fr", "run", "--mock", "--fast", "--opponent", "3:white", "--seed", "3")
    status, out, _ = run(capsys, *args, "--state-dir", str(state))
    assert status == 0
    assert "tour pour le plateau" in out and "état :" in out
    for english in ("the board", "status :", "the person"):
        assert english not in out


# --- issue 46: reasons as data, said in the reader's words; French typography ----------------
def test_the_check_holds_french_to_its_typography() -> None:
    """A colon, a semicolon, a question or an exclamation mark with no space before it is
    named (a plain, no-break or narrow no-break space is one), as is a plural whose forms do
    not agree with the count; notation and addresses are not punctuation."""
    from babel.messages.catalog import Message

    def said(english: str | tuple[str, str], french: str | tuple[str, str]) -> str:
        return messages.typography(Message(english, french), "fr")

    assert "no space before ':'" in said("Black: {who}", "Noir: {who}")
    assert "no space before ';'" in said("a; b", "a; b")
    assert "no space before '?'" in said("Where?", "Où?")
    assert said("Black: {who}", "Noirs : {who}") == ""
    assert said("Black: {who}", "Noirs\u202f: {who}") == ""
    assert said("like {token}:a2", "comme {token}:a2") == ""  # notation
    assert said("at http://{host}/", "à http://{host}/") == ""
    agree = said(("{n} turn", "{n} turns"), ("{n} tour", "{n} tour"))
    assert "agree with the count" in agree
    assert said(("{n} turn", "{n} turns"), ("{n} tour", "{n} tours")) == ""
    assert messages.typography(Message("a: b", "a: b"), "en") == ""


def test_a_reason_is_said_in_the_readers_words_with_its_fields() -> None:
    """lang.reworded: the rules' English reason in French, a reason inside a reason too, its
    squares kept; English stays English; a text no template reads comes back as it is."""
    from orbito_hw.errors import IllegalTurnError
    from orbito_hw.rules.game import Position
    from orbito_hw.rules.turn import Turn

    position = Position.start().play(Turn.from_notation("b1"))
    with pytest.raises(IllegalTurnError) as refused:
        position.check(Turn.from_notation("c1"))  # b1 went to c1 at the press
    english = str(refused.value)
    assert english.endswith("c1 is occupied; a marble is placed on an empty square")
    assert lang.reworded(english) == english  # English: as it is
    lang.use("fr")
    assert lang.reworded(english) == (
        "tour c1 interdit dans la position ..../..../..../..B. : "
        "c1 est occupée ; une bille se pose sur une case vide"
    )
    assert lang.reworded("something from a newer board") == "something from a newer board"
    assert lang.reworded("b1 and c2 and d4 holds a white marble: black's turn") == (
        "b1 et c2 et d4 porte une bille blanche : c'est aux noirs de jouer"
    )
    # Two readings fit (a count that swallows "setting up: 3"): the one the templates' own
    # words explain the most of wins, and a count is one word.
    assert lang.reworded("setting up: 3 squares still to do (lit)") == (
        "mise en place : encore 3 cases à faire (allumées)"
    )
    assert lang.reworded("setting up: 1 square still to do (lit)") == (
        "mise en place : encore 1 case à faire (allumée)"
    )


@given(st.text(min_size=1, max_size=12))
@example("a5")
@example("c1-c2")
@example("e2")
@example("c1:c2")
def test_a_turn_that_does_not_parse_says_why_in_either_language(token: str) -> None:
    """Any token: a turn, or one NotationError whose reason names it and, in French, is said
    whole in French (its template found: never the English left over)."""
    from orbito_hw.errors import NotationError, echo
    from orbito_hw.rules.turn import Turn, why_malformed

    try:
        Turn.from_notation(token)
    except NotationError as exc:
        assert exc.reason == why_malformed(token)
        assert echo(token) in exc.reason or token in exc.reason
        with lang.speaking("fr"):
            said = lang.reworded(exc.reason)
        assert said != exc.reason
        assert not any(word in said for word in ("expected", "is not", "a move is", "has no"))


def test_every_reason_has_its_translation_and_reads_back_whole() -> None:
    """Each R_ template (reasons.json) formatted with stand-in fields is read back by the
    template itself, or one with more words of its own (which then says the same), and said in
    French with the stand-ins kept."""
    templates = lang.reasons()
    assert len(templates) > 80
    with lang.speaking("fr"):
        for template in templates:
            names = set(__import__("re").findall(r"\{(\w+)\}", template))
            filled = template.format(**{name: f"x{i}9" for i, name in enumerate(sorted(names))})
            said = lang.reworded(filled)
            assert said != filled, template
            for i, _name in enumerate(sorted(names)):
                assert f"x{i}9" in said, (template, said)


def test_the_blunder_warning_says_a_draw_is_a_draw_on_the_leds_and_in_the_log() -> None:
    """A turn that leaves a draw where a win stood is not one that "loses the game": the LEDs
    in words and the log say each as it is, in French too."""
    from orbito_hw.control.events import BlunderWarning
    from orbito_hw.control.led_words import view_words
    from orbito_hw.control.lights import Palette, View
    from orbito_hw.rules.game import Colour
    from orbito_hw.rules.turn import Turn

    lang.use("fr")
    palette = Palette()
    said = {}
    for value in ("draw", "loss"):
        view = View("warning", Colour.BLACK, (10,), value=value)
        said[value] = [lit.text(palette) for lit in view_words(view, palette) if lit.where == "c3"]
    assert "laisse filer la victoire" in said["draw"][0] and "perd" not in said["draw"][0]
    assert "perd la partie" in said["loss"][0]
    turn = Turn.from_notation("c3")
    assert "match nul après lui" in describe(BlunderWarning(1, turn, "draw"))[1]
    assert "défaite après lui" in describe(BlunderWarning(1, turn, "loss"))[1]


# --- the command line's help ------------------------------------------------------------------
def test_the_help_speaks_the_language_chosen(capsys: pytest.CaptureFixture[str]) -> None:
    """``--lang fr`` before or after the command: argparse's own words (usage, the sections,
    -h) and every command's help in French, the typed names (options, values) as they are;
    without it the English, word for word as before."""
    english = {}
    for command in ("run", "seat", "games", "puzzles"):
        status, out, _err = run(capsys, command, "--help")
        assert status == 0 and out.startswith("usage: orbito-hw") and "\noptions:\n" in out
        english[command] = out
    status, out, _err = run(capsys, "run", "--help", "--lang", "fr")
    assert status == 0 and out.startswith("utilisation : orbito-hw run")
    assert "\noptions :\n" in out and "afficher cette aide et quitter" in out
    assert "utiliser le plateau simulé" in out and "--mock" in out  # the option as typed
    for command, out_en in english.items():
        status, out, _err = run(capsys, "--lang", "fr", command, "--help")
        assert status == 0
        said = " ".join(out.split())
        for line in out_en.splitlines():  # each English help sentence has gone
            words = line.split("  ")[-1].strip()
            if len(words.split()) >= 4 and not words.startswith(("usage", "[", "{")):
                assert words not in said, (command, words)


@pytest.mark.parametrize(
    ("argv", "english", "french"),
    [
        (["puzzles", "--count", "x"], "argument --count: invalid int value: 'x'",
         "argument --count : valeur int invalide : 'x'"),
        (["run", "--mock", "--bogus"], "unrecognized arguments: --bogus",
         "arguments non reconnus : --bogus"),
        (["run", "--plays"], "argument --plays: expected one argument",
         "argument --plays : une valeur attendue"),
        (["games"], "the following arguments are required: list|show|review|resume|export|stats",
         "ces arguments sont obligatoires : list|show|review|resume|export|stats"),
    ],
)  # fmt: skip
def test_argparses_refusals_are_said_in_the_language_chosen(
    capsys: pytest.CaptureFixture[str], argv: list[str], english: str, french: str
) -> None:
    """argparse words its refusals in English (its gettext follows the locale, not --lang):
    marked as reasons (commands/__init__.py), fail() says them in the person's words."""
    assert run(capsys, *argv) == (2, "", f"orbito-hw: {english}\n")
    assert run(capsys, "--lang", "fr", *argv) == (2, "", f"orbito-hw: {french}\n")
