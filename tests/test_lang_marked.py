"""Every sentence a person reads is marked for the catalogue (docs/languages.md): the log lines
``systemctl status`` and ``journalctl`` show, what the commands print, their ``--help``. An AST
scan of the package finds each call that writes for a person (a logger's info, warning, error,
critical, exception or log; ``print``; ``sys.stderr.write``; argparse's help, description,
title, epilog) and fails on an English literal among its arguments that no ``_()``, ``N_()``,
``R_()`` or ``ngettext()`` marks: such a sentence would stay English under ``--lang fr``. The
lines no person reads are listed below, each with its why."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "orbito_hw"

LOGGER_CALLS = frozenset(
    {"info", "warning", "warn", "error", "critical", "fatal", "exception", "log"}
)
"""A logger's methods whose lines a builder reads (``debug`` is for developers:
docs/languages.md)."""
MARKS = frozenset({"_", "N_", "R_", "ngettext"})
"""orbito_hw.lang's marks (scripts/messages.py's PYTHON_KEYWORDS): a literal inside is marked."""
FILLED = re.compile(r"%[-#0 +]*\d*(?:\.\d+)?[a-z%]|\{[^{}]*\}|orbito-hw(?:-\w+)?|\w+\.py\b")
"""What a literal holds that is not a word: a %-spec or a {field} filled in, the program's
name (``orbito-hw: ``, the prefix of every error line), a file's name."""
WORD = re.compile(r"[A-Za-z]{2,}")

NOBODY_READS: dict[tuple[str, str], str] = {
    # (path, the literal's words, an f-string's fields left out): why no player or builder
    # reads it, so it stays English
    ("orbito_hw/solver/puzzles_build.py", "the rebuilt puzzles"): (
        "a developer's tool of the source tree (`python -m orbito_hw.solver.puzzles_build`: "
        "the shipped puzzle set written again), never run on a board"
    ),
    ("orbito_hw/solver/puzzles_build.py", "wrote puzzles from seed to"): (
        "the same developer's tool: the line it ends with"
    ),
    # app/releases.py runs as a script of its own with Debian's python3 (the package's
    # postinst: `python3 /usr/lib/orbito-hw/releases.py activate VERSION`), standard library
    # only, the catalogue out of its reach; its --help is the postinst's, no person's
    ("orbito_hw/app/releases.py", "make the venv of VERSION from the wheels in WHEELS"): (
        "the postinst's command line"
    ),
    ("orbito_hw/app/releases.py", "make VERSION current; roll back if it does not start"): (
        "the postinst's command line"
    ),
    ("orbito_hw/app/releases.py", "back to the release before the current one"): (
        "the postinst's command line"
    ),
}


def _sentence(text: str) -> bool:
    """Two words or more once the fields are taken out: ``'why'`` (a JSON key) is not one,
    ``'game %d: puzzle %s'`` is."""
    return len(WORD.findall(FILLED.sub(" ", text))) >= 2


PARSER_CALLS = frozenset({"add_argument", "add_parser", "add_subparsers", "add_argument_group",
                          "ArgumentParser", "Parser"})  # fmt: skip
"""argparse's: their ``help``, ``description``, ``title`` and ``epilog`` are the ``--help`` a
person reads (commands/__init__.py's Parser says argparse's own words)."""
PARSER_WORDS = frozenset({"help", "description", "title", "epilog"})


def _parser_call(call: ast.Call) -> bool:
    func = call.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    return name in PARSER_CALLS


def _writes_for_a_person(call: ast.Call) -> bool:
    func = call.func
    if isinstance(func, ast.Name):
        return func.id == "print"
    if not isinstance(func, ast.Attribute):
        return False
    owner = func.value
    name = owner.id if isinstance(owner, ast.Name) else getattr(owner, "attr", "")
    if func.attr in LOGGER_CALLS:
        return "log" in name.lower()  # log, _log, events_log, self.logger
    return func.attr == "write" and name == "stderr"


def _unmarked(node: ast.AST) -> Iterator[str]:
    """The English literals in ``node`` outside a mark (an f-string's literal parts joined,
    its fields as spaces); a dict's keys and a subscript's index are data, not sentences."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in MARKS:
        return
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        if _sentence(node.value):
            yield node.value
        return
    if isinstance(node, ast.JoinedStr):
        parts = [v.value if isinstance(v, ast.Constant) else " " for v in node.values]
        if _sentence("".join(map(str, parts))):
            yield "".join(map(str, parts))
            return
    for child in ast.iter_child_nodes(node):
        if isinstance(node, ast.Dict) and child in node.keys:
            continue
        if isinstance(node, ast.Subscript) and child is node.slice:
            continue
        yield from _unmarked(child)


def found_literals(paths: list[Path], root: Path = ROOT) -> Iterator[tuple[str, int, str]]:
    """(path, line, the literal's words) for each English literal a call writes for a person
    unmarked (an f-string's fields left out)."""
    for path in paths:
        where = path.relative_to(root).as_posix()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if not isinstance(node, ast.Call):
                continue
            if _parser_call(node):
                said = [k.value for k in node.keywords if k.arg in PARSER_WORDS]
            elif _writes_for_a_person(node):
                said = [*node.args, *(k.value for k in node.keywords if k.arg != "file")]
            else:
                continue
            for argument in said:
                for text in _unmarked(argument):
                    yield where, node.lineno, " ".join(text.split())


def unmarked_sentences(paths: list[Path], root: Path = ROOT) -> list[str]:
    """``path:line: literal`` for each one found_literals() finds that NOBODY_READS does not
    list."""
    return [
        f"{where}:{line}: {text!r}"
        for where, line, text in found_literals(paths, root)
        if (where, text) not in NOBODY_READS
    ]


def test_every_line_a_person_reads_is_marked() -> None:
    """No log line above debug, nothing printed, in English only: each is ``_()`` and the like
    (``log.warning("%s", _("the ring controller on {port} is back").format(port=port))``)."""
    assert unmarked_sentences(sorted(PACKAGE.rglob("*.py"))) == []


def test_the_allow_list_names_lines_that_are_there() -> None:
    """Each entry is a line the scan finds without the list: one the code no longer has is
    dropped, not kept to hide a line written later."""
    for path, text in NOBODY_READS:
        found = {(where, words) for where, _line, words in found_literals([ROOT / path])}
        assert (path, text) in found, (path, text, found)


@pytest.mark.parametrize(
    ("code", "caught"),
    [
        ('log.warning("the ring controller on %s is back", port)', True),
        ('log.info("game %d: puzzle %s", game, puzzle)', True),
        ('self.logger.error(f"cannot read {path}: {why}")', True),
        ('print("no puzzle tried yet", file=sys.stderr)', True),
        ('sys.stderr.write("the board is busy\\n")', True),
        ('print(f"{row.puzzle:<18} {row.tries} tries, last {row.last}")', True),
        ('log.exception("the web page could not draw the board")', True),
        ('log.debug("the state of the rings: %s", state)', False),  # for developers
        ('log.warning("%s", _("the ring controller on {port} is back").format(port=port))', False),
        ('print(json.dumps({"why": why, "running": True}))', False),
        ('print(f"orbito-hw: {exc}", file=sys.stderr)', False),
        ('print(_("asked the board ({holder}) to set up {what}").format(holder=h, what=w))', False),
        ('log.info("%s: %s", where, text)', False),
        ('p.add_argument("--mock", action="store_true", help="use the simulated board")', True),
        ('sub.add_parser("run", help="run the board controller")', True),
        ('Parser(prog=PROG, description="A self-refereeing Orbito board.")', True),
        ('p.add_argument("--mock", help=_("use the simulated board"), metavar="ON OFF")', False),
    ],
)
def test_the_scan_finds_an_unmarked_sentence(tmp_path: Path, code: str, caught: bool) -> None:
    module = tmp_path / "orbito_hw" / "module.py"
    module.parent.mkdir()
    module.write_text(code + "\n", encoding="utf-8")
    assert bool(unmarked_sentences([module], tmp_path)) is caught
