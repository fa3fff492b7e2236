"""The words players and builders read, in their language: one gettext catalogue per
language, made with Babel from the sentences marked in the code.

Every sentence a person reads (the page, the prompt, the LEDs in words, errors, the log lines
the service status shows) is written in English in the code and marked:

- ``_("Lift the marble on {square}").format(square=name)``: translated now, in the process's
  language (the config's ``language``, or ``--lang``); placeholders are named, so a
  translation may put them in another order;
- ``N_("...")``: only marked (a module-level constant), translated where it is used with
  ``_(constant)``;
- ``ngettext("{n} turn", "{n} turns", n).format(n=n)`` for counts;
- ``with speaking("fr"):`` for one viewer's words (the web page's sentences made on the board):
  that language in this context only (asyncio task or thread), the process's elsewhere.

The page (its HTML and JavaScript) has its own catalogue, the domain ``page``, sent to the
browser as JSON in the viewer's language (``Accept-Language``). The JSON events, board
scripts and the SPEC interfaces stay in English: they are not sentences but data.

The catalogues: ``orbito_hw/lang/<code>/LC_MESSAGES/<domain>.po``, compiled to ``.mo`` (and the
page's to ``page.json``) beside, both committed and shipped in the package:
``python scripts/messages.py extract|update|compile|check`` (Babel, a tool of the source tree
only; docs/languages.md). Standard library only at run time: this module is the lowest layer,
importable from every other.
"""

from __future__ import annotations

import errno
import gettext
import json
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from functools import cache
from pathlib import Path

DOMAIN = "orbito_hw"
"""The Python side's catalogue: the prompt, the LEDs in words, errors, the log."""
PAGE_DOMAIN = "page"
"""The page's catalogue: the HTML and the JavaScript's sentences."""
LANGUAGES = ("en", "fr")
"""The languages the product speaks; the first is the source language and the fallback."""
DEFAULT = LANGUAGES[0]
HERE = Path(__file__).resolve().parent

_lock = threading.Lock()
_current: list[str] = [DEFAULT]
_pinned: list[bool] = [False]  # --lang was given: a config read later does not change it
_chosen: list[bool] = [False]  # --lang or the config named it: the pages speak it too
_spoken: ContextVar[str | None] = ContextVar("orbito_hw_spoken", default=None)
"""The language of one context (a web page's viewer), over the process's: a ContextVar, so
each asyncio task and thread has its own and one viewer's words never leak into another's."""


UnknownLanguageError = ValueError
"""What known() raises for a language the product has no catalogue for: the builtin itself,
as every error class of the package is an OrbitoError and errors.py sits above this module."""


def known(code: str) -> str:
    """``code`` as one of LANGUAGES ("fr", "fr-CA", "FR_fr.UTF-8" are all "fr"), or a
    ValueError naming it (a builtin: this module is below errors.py, and the config and
    ``--lang`` each turn it into their own error naming the key)."""
    base = code.strip().replace("_", "-").split("-")[0].split(".")[0].lower()
    if base not in LANGUAGES:
        text = _("unknown language {code}: choose one of {choices}")
        raise ValueError(text.format(code=repr(code), choices=", ".join(LANGUAGES)))
    return base


@cache
def translation(code: str, domain: str = DOMAIN) -> gettext.NullTranslations:
    """The catalogue of one language (English is the source: no catalogue, the text as it is).
    A missing compiled catalogue falls back to English rather than fail a player's turn."""
    code = known(code)
    if code == DEFAULT:
        return gettext.NullTranslations()
    return gettext.translation(domain, localedir=HERE, languages=[code], fallback=True)


def use(code: str, *, pin: bool = False) -> None:
    """Speak ``code`` from now on. ``pin`` (``--lang``): the person's choice for this run, which
    a config read later (use_configured) leaves alone."""
    chosen = known(code)
    with _lock:
        _current[0] = chosen
        _pinned[0] = _pinned[0] or pin
        _chosen[0] = True


def use_configured(code: str, *, named: bool = False) -> None:
    """Speak the config's ``language``, unless ``--lang`` chose one for this run. ``named``:
    the file sets the key (``language = "en"`` too), a choice the pages follow as ``--lang``;
    a key left out (English by default) is none, so a guest's French phone reads French."""
    chosen = known(code)
    with _lock:
        if not _pinned[0]:
            _current[0] = chosen
        _chosen[0] = _chosen[0] or named or chosen != DEFAULT


def reset() -> None:
    """English and nothing pinned, as at start (a test's clean slate)."""
    with _lock:
        _current[0] = DEFAULT
        _pinned[0] = False
        _chosen[0] = False


def chosen() -> str | None:
    """The board's language when ``--lang`` or the config's ``language`` named one (the
    pages speak it too, unless their viewer picks another), None when nobody did (a page
    then speaks its browser's)."""
    with _lock:
        return _current[0] if _chosen[0] else None


def language() -> str:
    """The language spoken now: the context's (speaking()), else the process's."""
    return _spoken.get() or _current[0]


@contextmanager
def speaking(code: str) -> Iterator[str]:
    """Speak ``code`` inside the block, in this context only (this asyncio task or thread):
    the board's page renders its sentences for each viewer in the viewer's language while the
    board itself (the prompt, the LEDs in words, the log) keeps the process's. Yields the
    language as one of LANGUAGES; ValueError for one the product does not speak."""
    token = _spoken.set(known(code))
    try:
        yield _spoken.get() or DEFAULT
    finally:
        _spoken.reset(token)


def _(message: str) -> str:
    """``message`` in the language spoken now (language())."""
    return translation(language()).gettext(message)


def ngettext(singular: str, plural: str, n: int) -> str:
    """The form of ``singular``/``plural`` for ``n``, in the language spoken now."""
    return translation(language()).ngettext(singular, plural, n)


def N_(message: str) -> str:  # gettext's own name for "mark only"
    """Marks ``message`` for the catalogue without translating it yet (a constant)."""
    return message


_REASONS: dict[str, re.Pattern[str]] = {}
"""Every sentence marked R_(), and what reads a text made from it back into its fields."""
_FIELD = re.compile(r"\{(\w+)\}")
WORD_FIELDS = frozenset(
    {"n", "number", "next", "most", "game", "square", "step", "turn", "wanted", "position",
     "part", "file", "rank", "colour", "other"}
)  # fmt: skip
"""A reason's fields that are one word (a count, a square, a turn, a colour): read back as
one, so that ``{n} squares still to do`` never takes ``setting up: 3`` for its count."""


def R_(template: str) -> str:
    """Marks ``template`` for the catalogue, as N_, and registers it as a reason: a sentence
    carried as data in English (a refusal's reason in a JSON event, an error's message
    across a layer) that reworded() translates where a person reads it. Its fields are
    named (``{square}``); a field's value is reworded in turn (a reason inside a reason)."""
    if template not in _REASONS:
        pattern, names = "", set[str]()
        for index, part in enumerate(_FIELD.split(template)):
            if index % 2 == 0:
                pattern += re.escape(part)
            elif part in names:
                pattern += f"(?P={part})"
            else:
                names.add(part)
                pattern += f"(?P<{part}>\\S+?)" if part in WORD_FIELDS else f"(?P<{part}>.+?)"
        _REASONS[template] = re.compile(pattern, re.DOTALL)
    return template


@cache
def _listed() -> None:
    """Every reason the code marks (``reasons.json``, written with the catalogues), registered
    once: one made inside a function, or by a module not imported here (another board's
    reason in an event), is read back as well as one made already."""
    path = HERE / "reasons.json"
    if path.is_file():
        for template in json.loads(path.read_text(encoding="utf-8")):
            R_(template)


def reasons() -> tuple[str, ...]:
    """Every sentence marked R_() (reasons.json's, and any registered since)."""
    _listed()
    return tuple(_REASONS)


def _by_words(template: str) -> int:
    return -len(_FIELD.sub("", template))


_RANKED: list[list[str]] = [[]]


def _ranked() -> list[str]:
    """The reasons, the most words of their own first (the order they are tried in)."""
    known_now = reasons()
    if len(_RANKED[0]) != len(known_now):
        _RANKED[0] = sorted(known_now, key=_by_words)
    return _RANKED[0]


def reason_words(code: str) -> list[tuple[str, str]]:
    """Every reason (R_) and its translation in ``code``, the most words first (the order
    reworded() tries them): the page rewords the board's reasons with it (words.js's
    ``inWords``). [] for English, the source."""
    if known(code) == DEFAULT:
        return []
    catalogue = translation(code)
    pairs = [(t, catalogue.gettext(t)) for t in _ranked()]
    return [(t, said) for t, said in pairs if said != t]


def reworded(text: str) -> str:
    """``text``, an English sentence made from templates marked R_(), in the language spoken
    now: the template that reads it whole is translated and its fields put back, each
    reworded too. Where several read it (``setting up: {todo}`` and ``{n} squares still to
    do``), the reading that explains the most of the text by the templates' own words, its
    fields' included, wins. A text no template reads (a reason from a newer board, a path)
    comes back as it is: English is better than nothing."""
    if language() == DEFAULT or not text:
        return text
    return _read(text, {})[1]


def _read(text: str, memo: dict[str, tuple[int, str]]) -> tuple[int, str]:
    """(how many characters of ``text`` the templates' own words explain, ``text`` said)."""
    if text in memo:
        return memo[text]
    memo[text] = best = (0, text)  # a field that reads as itself: no loop through it
    for template in _ranked():
        match = _REASONS[template].fullmatch(text)
        if match is None:
            continue
        score, fields = -_by_words(template), {}
        for name, value in match.groupdict().items():
            explained, said = _read(value, memo)
            score, fields[name] = score + explained, said
        if score > best[0]:
            try:
                best = (score, _(template).format(**fields))
            except (KeyError, IndexError, ValueError):  # a translation that lost a field
                continue
    memo[text] = best
    return best


@cache
def page_words(code: str) -> dict[str, str]:
    """The page's catalogue of one language as {English: translation}, for the browser: made
    from ``<code>/LC_MESSAGES/page.po`` into ``page.json`` beside it when the catalogues are
    compiled. English (the source) and a missing file give {}: the page shows its English."""
    code = known(code)
    path = HERE / code / "LC_MESSAGES" / f"{PAGE_DOMAIN}.json"
    if code == DEFAULT or not path.is_file():
        return {}
    words: dict[str, str] = json.loads(path.read_text(encoding="utf-8"))
    return words


def best(accept_language: str | None) -> str:
    """The language for a browser's ``Accept-Language`` header: the first one listed (by its
    q weight) that the product speaks, else English."""
    if not accept_language:
        return DEFAULT
    ranked: list[tuple[float, int, str]] = []
    for index, part in enumerate(accept_language.split(",")):
        tag, _sep, params = part.strip().partition(";")
        weight = 1.0
        for param in params.split(";"):
            key, _eq, value = param.strip().partition("=")
            if key == "q":
                try:
                    weight = float(value)
                except ValueError:
                    weight = 0.0
                # RFC 9110's weights are 0..1: "nan" is none (it would also upset the sort),
                # anything above 1 is 1, so "inf" does not outrank a q=1 listed first
                weight = 0.0 if weight != weight else min(weight, 1.0)
        ranked.append((-weight, index, tag))
    for weight, _index, tag in sorted(ranked):
        if weight >= 0 or not tag or tag == "*":
            continue
        try:
            return known(tag)
        except ValueError:
            continue
    return DEFAULT


_SYSTEM: dict[int, str] = {
    errno.ENOENT: N_("no such file or directory"),
    errno.EACCES: N_("permission denied"),
    errno.EPERM: N_("operation not permitted"),
    errno.EISDIR: N_("a directory, not a file"),
    errno.ENOTDIR: N_("a part of the path is not a directory"),
    errno.ENOSPC: N_("no space left on the device"),
    errno.EROFS: N_("a read-only file system"),
    errno.ELOOP: N_("too many symbolic links"),
    errno.ENAMETOOLONG: N_("the name is too long"),
    errno.EIO: N_("input/output error (the card or the disk)"),
    errno.EBUSY: N_("busy"),
}
"""The system's reasons a builder meets (a config file, a state directory), in words: the C
library's strerror speaks the locale of the process, which a service's is not."""


def system_reason(exc: BaseException) -> str:
    """Why an OSError happened, in the language spoken now: in English the system's own text
    (``No such file or directory``, the words a builder searches for), in another language
    a common errno in the catalogue's words, else the system's text (English is better than
    nothing); another error's message as it is (a NUL in a path is a ValueError)."""
    if isinstance(exc, OSError):
        if exc.errno in _SYSTEM and language() != DEFAULT:
            return _(_SYSTEM[exc.errno])
        return exc.strerror or str(exc)
    return str(exc)
