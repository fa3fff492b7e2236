"""The config file as text, and TOML's complaints about it, in the reader's words.

``load_config`` (app/config.py) reads the file here: bounded (``--config /dev/zero`` never
ends), strictly UTF-8 (a guess would misread a key), every failure one ConfigError naming the
file. TOML's own errors (the standard library's ``tomllib``) are English sentences with a
place: the common ones are said in the catalogue's words, the place always is, and one this
module does not know stays as tomllib says it (English is better than nothing)."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Final

from orbito_hw.errors import ConfigError
from orbito_hw.lang import DEFAULT, N_, _, language, system_reason

MAX_CONFIG_BYTES: Final = 1 << 20  # a config is a few KB; more is not a config file

TOML_REASONS: Final = {
    "Expected ']' at the end of a table declaration": N_("a table's name is not closed by ]"),
    "Expected ']]' at the end of an array declaration": N_(
        "an array of tables' name is not closed by ]]"
    ),
    "Expected '=' after a key in a key/value pair": N_("a key is not followed by ="),
    "Invalid value": N_("a value that TOML does not read (a text needs its quotes)"),
    "Invalid statement": N_("a line that is neither a key = value nor a [table]"),
    "Invalid initial character for a key part": N_("a key begins with a character keys cannot"),
    "Unterminated string": N_("a text is not closed by its quote"),
    "Unclosed array": N_("a list is not closed by ]"),
    "Unclosed inline table": N_("an inline table is not closed by }"),
    "Cannot overwrite a value": N_("a key is set twice"),
    "Invalid date or datetime": N_("a date that is not one"),
    "Invalid hex value": N_("a \\u escape that is not hexadecimal"),
}
"""tomllib's messages a person editing a config meets, each in words of the catalogue."""
TOML_SHAPES: Final = (
    (re.compile(r"Illegal character (?P<what>.+)"), N_("a character not allowed here: {what}")),
    (re.compile(r"Found invalid character (?P<what>.+)"), N_("a character not allowed: {what}")),
    (re.compile(r"Cannot declare (?P<what>.+) twice"), N_("{what} is declared twice")),
    (re.compile(r"Duplicate inline table key (?P<what>.+)"), N_("{what} is set twice")),
    (re.compile(r"Expected (?P<what>'.+')"), N_("{what} was expected")),
)
"""tomllib's messages with a value in them (a character, a key)."""
_PLACE: Final = re.compile(r"^(?P<what>.*) \(at line (?P<line>\d+), column (?P<column>\d+)\)$")
_AT_END: Final = " (at end of document)"


def read_text(path: Path) -> str:
    """The text of the config file ``path``; a ConfigError naming it and why otherwise."""
    try:
        with path.open("rb") as file:
            data = file.read(MAX_CONFIG_BYTES + 1)
    except (OSError, ValueError) as exc:  # ValueError: a NUL in the path
        reason = system_reason(exc)
        raise ConfigError(
            _("{path}: cannot read the config file: {reason}").format(path=path, reason=reason)
        ) from None
    if len(data) > MAX_CONFIG_BYTES:
        raise ConfigError(
            _("{path}: cannot read the config file: larger than {n} bytes").format(
                path=path, n=MAX_CONFIG_BYTES
            )
        )
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise ConfigError(
            _("{path}: cannot read the config file: line {line} is not UTF-8 text ({byte})").format(
                path=path, line=line, byte=_("byte 0x{hex}").format(hex=f"{data[exc.start]:02x}")
            )
        ) from None
    return text.removeprefix("\ufeff")


def toml_reason(exc: tomllib.TOMLDecodeError) -> str:
    """What TOML found wrong, in the reader's language: in English tomllib's own sentence (as
    every TOML tool words it); in another, its sentence (when known) and its place,
    ``ligne 3, colonne 7 : ...``."""
    text = str(exc)
    if language() == DEFAULT:
        return text
    if text.endswith(_AT_END):
        return _("at the end of the file: {reason}").format(reason=_said(text[: -len(_AT_END)]))
    place = _PLACE.match(text)
    if place is None:
        return text
    text = _("line {line}, column {column}: {reason}")
    return text.format(line=place["line"], column=place["column"], reason=_said(place["what"]))


def _said(what: str) -> str:
    if what in TOML_REASONS:
        return _(TOML_REASONS[what])
    for shape, words in TOML_SHAPES:
        found = shape.fullmatch(what)
        if found is not None:
            return _(words).format(what=found["what"])
    return what
