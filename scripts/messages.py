"""The message catalogues (orbito_hw/lang/, docs/languages.md), made with Babel.

    python scripts/messages.py extract   # the sentences marked in the code -> the .pot templates
    python scripts/messages.py update    # the templates -> each language's .po (new ones empty)
    python scripts/messages.py compile   # each .po -> .mo (Python) and page.json (the browser)
    python scripts/messages.py check     # fails on anything untranslated, fuzzy, unused,
                                         # a placeholder changed, a compiled file out of date,
                                         # or French typography broken (a space before : ; ? !,
                                         # a plural's forms agreeing with the count)

Two domains: ``orbito_hw`` (the Python sentences: ``_``, ``N_``, ``ngettext:1,2``) and ``page``
(the page's JavaScript ``t("...")``, and its HTML's elements marked ``data-i18n`` for their
text and ``data-i18n-label`` for their aria-label: web/static/words.js). A tool of the source
tree, not of the runtime: the package ships the compiled files and reads them with the
standard library (orbito_hw/lang/__init__.py); Babel comes with the ``test`` extra.
tests/test_lang.py runs ``check``.
"""

from __future__ import annotations

import argparse
import io
import json
import re
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from html.parser import HTMLParser
from pathlib import Path
from typing import Any, Final

from babel.messages.catalog import Catalog, Message
from babel.messages.extract import extract
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po, write_po

ROOT: Final = Path(__file__).resolve().parents[1]
PACKAGE: Final = ROOT / "orbito_hw"
LANG: Final = PACKAGE / "lang"
TRANSLATED: Final = ("fr",)  # every language but English, the source
PYTHON_KEYWORDS: Final = {"_": None, "N_": None, "R_": None, "ngettext": (1, 2)}
JS_KEYWORDS: Final = {"t": None}
HTML_TEXT: Final = "data-i18n"
"""An HTML element whose text is a sentence of the page (web/static/words.js): the text as
the browser's textContent gives it, spaces squeezed, or the attribute's own value if it has one."""
HTML_LABEL: Final = "data-i18n-label"
"""An HTML element whose aria-label is a sentence (or the attribute's own value, if any)."""
PLACEHOLDER: Final = re.compile(r"(?<!\{)\{(\w*)(?:[:!][^{}]*)?\}")
"""A named placeholder of ``str.format`` (``{square}``, ``{seconds:g}``), not a doubled brace."""
WIDTH: Final = 100
PLURALS: Final = {"fr": "nplurals=2; plural=(n > 1);"}


@dataclass(frozen=True)
class Domain:
    name: str
    sources: tuple[str, ...]  # globs under the package

    @property
    def template(self) -> Path:
        return LANG / f"{self.name}.pot"

    def po(self, code: str) -> Path:
        return LANG / code / "LC_MESSAGES" / f"{self.name}.po"

    def compiled(self, code: str) -> Path:
        suffix = ".json" if self.name == "page" else ".mo"
        return LANG / code / "LC_MESSAGES" / f"{self.name}{suffix}"


DOMAINS: Final = (
    Domain("orbito_hw", ("**/*.py",)),
    Domain("page", ("web/static/*.js", "web/static/*.html")),
)


# --- extract ------------------------------------------------------------------------------
class _MarkedHtml(HTMLParser):
    """The sentences of an HTML page's elements marked as words.js reads them."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[tuple[int, str]] = []
        self._open: list[tuple[int, list[str]] | None] = []  # a marked element: its text

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        marks = dict(attrs)
        line = self.getpos()[0]
        if HTML_LABEL in marks:
            label = marks[HTML_LABEL] or marks.get("aria-label") or ""
            if label.strip():
                self.found.append((line, _squeeze(label)))
        text = marks.get(HTML_TEXT)
        if text:  # the sentence given as the attribute's value
            self.found.append((line, _squeeze(text)))
        if tag in _VOID:
            return
        self._open.append((line, []) if HTML_TEXT in marks and not text else None)

    def handle_endtag(self, tag: str) -> None:
        if tag in _VOID or not self._open:
            return
        top = self._open.pop()
        if top is not None and _squeeze("".join(top[1])):
            self.found.append((top[0], _squeeze("".join(top[1]))))

    def handle_data(self, data: str) -> None:
        for item in reversed(self._open):
            if item is not None:
                item[1].append(data)
                return


_VOID: Final = {
    "area",
    "base",
    "br",
    "col",
    "embed",
    "hr",
    "img",
    "input",
    "link",
    "meta",
    "source",
}


def _squeeze(text: str) -> str:
    return " ".join(text.split())


def _sources(domain: Domain) -> Iterator[Path]:
    seen: set[Path] = set()
    for pattern in domain.sources:
        for path in sorted(PACKAGE.glob(pattern)):
            if path not in seen and "__pycache__" not in path.parts:
                seen.add(path)
                yield path


def template(domain: Domain) -> Catalog:
    """The sentences marked in the code now, as a template catalogue."""
    catalog = Catalog(
        domain=domain.name, project="orbito-hw", charset="utf-8", creation_date=_FIXED_DATE
    )
    for path in _sources(domain):
        where = path.relative_to(ROOT).as_posix()
        for line, message in _extract(path):
            catalog.add(message, locations=[(where, line)])
    return catalog


_FIXED_DATE: Final = datetime(
    2026, 1, 1, tzinfo=UTC
)  # the templates change only when a sentence does


def _extract(path: Path) -> Iterator[tuple[int, str | tuple[str, str]]]:
    if path.suffix == ".html":
        parser = _MarkedHtml()
        parser.feed(path.read_text(encoding="utf-8"))
        yield from parser.found
        return
    method = "python" if path.suffix == ".py" else "javascript"
    keywords = PYTHON_KEYWORDS if method == "python" else JS_KEYWORDS
    with path.open("rb") as file:
        for line, text, _comments, _context in extract(method, file, keywords=keywords):
            if isinstance(text, tuple):
                if all(text):
                    yield line, (text[0], text[1])
            elif text:
                yield line, text


def _write(path: Path, catalog: Catalog) -> None:
    buffer = io.BytesIO()
    write_po(buffer, catalog, width=WIDTH, include_lineno=False, ignore_obsolete=True)
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.is_file() or path.read_bytes() != buffer.getvalue():
        path.write_bytes(buffer.getvalue())
        print(f"wrote {path.relative_to(ROOT)}")


def _read(path: Path, code: str | None = None) -> Catalog:
    with path.open("rb") as file:
        return read_po(file, locale=code)


def _chosen(name: str | None) -> tuple[Domain, ...]:
    return tuple(d for d in DOMAINS if name in (None, d.name))


def reasons_file() -> Path:
    """``lang/reasons.json``: every sentence marked ``R_`` (a reason carried as English data),
    listed for the runtime: lang.reworded() and the page's inWords() read any of them back,
    also one whose module has not made it yet (a reason made inside a function, or on
    another board)."""
    return LANG / "reasons.json"


def reasons_listed() -> bytes:
    """reasons_file()'s bytes as the code marks its reasons now (sorted, one JSON list)."""
    found: set[str] = set()
    for path in _sources(DOMAINS[0]):
        with path.open("rb") as file:
            for _line, text, _comments, _context in extract("python", file, keywords={"R_": None}):
                if isinstance(text, str) and text:
                    found.add(text)
    return (json.dumps(sorted(found), ensure_ascii=False, indent=0) + "\n").encode("utf-8")


def cmd_extract(name: str | None = None) -> int:
    for domain in _chosen(name):
        _write(domain.template, template(domain))
    listed = reasons_file()
    if name in (None, DOMAINS[0].name) and (
        not listed.is_file() or listed.read_bytes() != reasons_listed()
    ):
        listed.parent.mkdir(parents=True, exist_ok=True)
        listed.write_bytes(reasons_listed())
        print(f"wrote {listed.relative_to(ROOT)}")
    return 0


def cmd_update(name: str | None = None) -> int:
    for domain in _chosen(name):
        fresh = template(domain)
        for code in TRANSLATED:
            path = domain.po(code)
            if path.is_file():
                catalog = _read(path, code)
            else:
                catalog = Catalog(locale=code, domain=domain.name, project="orbito-hw", fuzzy=False)
                # gettext's own French rule (CLDR's adds a form for millions of marbles)
                catalog.mime_headers = [("Plural-Forms", PLURALS.get(code, catalog.plural_forms))]
            catalog.update(fresh, update_creation_date=False)
            _write(path, catalog)
    return 0


# --- compile ------------------------------------------------------------------------------
def compiled(domain: Domain, catalog: Catalog) -> bytes:
    """What a .po compiles to: a .mo for Python; for the page, {English: translation} as JSON
    (a plural message: its msgid to the list of the forms)."""
    if domain.name != "page":
        buffer = io.BytesIO()
        write_mo(buffer, catalog, use_fuzzy=False)
        return buffer.getvalue()
    words: dict[str, Any] = {}
    for message in catalog:
        if not message.id or message.fuzzy or not _done(message):
            continue
        key = message.id[0] if isinstance(message.id, tuple | list) else message.id
        forms = _forms(message)
        words[key] = list(forms) if isinstance(message.string, tuple | list) else forms[0]
    text = json.dumps(words, ensure_ascii=False, indent=1, sort_keys=True) + "\n"
    return text.encode("utf-8")


def cmd_compile(name: str | None = None) -> int:
    for domain in _chosen(name):
        for code in TRANSLATED:
            path = domain.po(code)
            if not path.is_file():
                continue
            data = compiled(domain, _read(path, code))
            target = domain.compiled(code)
            if not target.is_file() or target.read_bytes() != data:
                target.write_bytes(data)
                print(f"wrote {target.relative_to(ROOT)}")
    return 0


# --- check --------------------------------------------------------------------------------
def _forms(message: Message) -> tuple[str, ...]:
    """The translation's forms (one, or one per plural form)."""
    if isinstance(message.string, tuple | list):
        return tuple(message.string)
    return (message.string or "",)


def _done(message: Message) -> bool:
    strings = _forms(message)
    return bool(strings) and all(strings)


def _ids(message: Message) -> tuple[str, ...]:
    return tuple(message.id) if isinstance(message.id, tuple | list) else (message.id,)


def _shown(message: Message) -> str:
    return repr(_ids(message)[0])


def placeholders_differ(message: Message) -> bool:
    """The translation names other placeholders than the English (a plural's forms together
    name those of the singular and the plural; each form only some of them)."""
    source = {name for text in _ids(message) for name in PLACEHOLDER.findall(text)}
    found = [set(PLACEHOLDER.findall(form or "")) for form in _forms(message)]
    if len(found) == 1:
        return found[0] != source
    return any(not names <= source for names in found) or set().union(*found) != source


def formats_badly(message: Message) -> bool:
    """The English fills in (``str.format``) but a translation does not: a stray brace, a
    placeholder's spec mistyped. The game's words are filled in at run time: a translation
    that cannot be would raise in the middle of a turn."""
    values = {name: 1 for text in _ids(message) for name in PLACEHOLDER.findall(text)}
    try:
        for text in _ids(message):
            text.format(**values)
    except (KeyError, ValueError, IndexError):
        return False  # not a sentence that is filled in: braces of its own
    try:
        for form in _forms(message):
            form.format(**values)
    except (KeyError, ValueError, IndexError):
        return True
    return False


FRENCH_SPACED: Final = re.compile(r"(?<=[^\s\u00a0\u202f])[:;?!](?=[\s\u00a0\u202f]|$)")
"""French typography: ``:``, ``;``, ``?`` and ``!`` closing a word take a space before them
(a plain, no-break or narrow no-break one); ``c1-c2:a2``, ``http://`` and ``{seconds:g}``
are not punctuation and pass."""


def typography(message: Message, code: str) -> str:
    """What breaks the language's typography in a translation ("" for nothing): in French,
    a ``:``, ``;``, ``?`` or ``!`` with no space before it, and a plural whose forms are one
    and the same where the English's differ (``{n} tour`` for every count)."""
    if code != "fr":
        return ""
    for form in _forms(message):
        found = FRENCH_SPACED.search(form)
        if found:
            return f"no space before {found.group()!r} (French puts one)"
    english, forms = _ids(message), _forms(message)
    if len(english) > 1 and english[0] != english[1] and len(set(forms)) < len(forms):
        return "the plural's forms are the same: make them agree with the count"
    return ""


def problems(domain: Domain, code: str) -> list[str]:
    """Everything wrong with one language's catalogue of one domain, one line each."""
    where = domain.po(code).relative_to(ROOT).as_posix()
    if not domain.po(code).is_file():
        return [f"{where}: missing (run update)"]
    fresh = template(domain)
    catalog = _read(domain.po(code), code)
    out: list[str] = []
    wanted = {message.id for message in fresh if message.id}
    for message in fresh:
        if not message.id:
            continue
        mine = catalog.get(message.id)
        if mine is None:
            out.append(f"{where}: not in the catalogue (run update): {_shown(message)}")
        elif mine.fuzzy:
            out.append(f"{where}: fuzzy (check the translation, drop the flag): {_shown(message)}")
        elif not _done(mine):
            out.append(f"{where}: untranslated: {_shown(message)}")
        elif placeholders_differ(mine):
            out.append(f"{where}: placeholders differ from the English: {_shown(message)}")
        elif formats_badly(mine):
            out.append(f"{where}: the translation cannot be filled in: {_shown(message)}")
        elif typography(mine, code):
            out.append(f"{where}: {typography(mine, code)}: {_shown(message)}")
    for message in catalog:
        if message.id and message.id not in wanted:
            out.append(f"{where}: unused (no longer in the code; run update): {_shown(message)}")
    for message in catalog.obsolete.values():
        out.append(f"{where}: unused (obsolete entry; run update): {_shown(message)}")
    target = domain.compiled(code)
    if not target.is_file() or target.read_bytes() != compiled(domain, catalog):
        out.append(f"{target.relative_to(ROOT).as_posix()}: out of date (run compile)")
    return out


def reasons_problems() -> list[str]:
    """The reasons' list out of date with the code's R_ marks."""
    listed = reasons_file()
    if not listed.is_file() or listed.read_bytes() != reasons_listed():
        return [f"{listed.relative_to(ROOT).as_posix()}: out of date (run extract)"]
    return []


def template_problems(domain: Domain) -> list[str]:
    where = domain.template.relative_to(ROOT).as_posix()
    if not domain.template.is_file():
        return [f"{where}: missing (run extract)"]
    on_disk = {m.id for m in _read(domain.template) if m.id}
    now = {m.id for m in template(domain) if m.id}
    if on_disk != now:
        return [f"{where}: out of date (run extract): {len(now - on_disk)} new, "
                f"{len(on_disk - now)} gone"]  # fmt: skip
    return []


def hidden_marks(paths: Iterable[Path] | None = None) -> list[str]:
    """A sentence written and marked inside an f-string (``f"{_('ID'):<18}"``): Babel's
    extractor reads an f-string as one token before Python 3.12 and never sees the call, so
    the sentence stays out of the catalogue and English in every language. One a line."""
    import ast

    out: list[str] = []
    for path in _sources(DOMAINS[0]) if paths is None else paths:
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for node in ast.walk(tree):
            if not isinstance(node, ast.JoinedStr):
                continue
            for call in ast.walk(node):
                if (
                    isinstance(call, ast.Call)
                    and isinstance(call.func, ast.Name)
                    and call.func.id in PYTHON_KEYWORDS
                    and call.args
                    and isinstance(call.args[0], ast.Constant)  # _(constant) is fine there
                ):
                    shown = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
                    where = f"{shown.as_posix()}:{call.lineno}"
                    out.append(f"{where}: {call.func.id}() inside an f-string: not extracted")
    return out


def all_problems(name: str | None = None) -> list[str]:
    out: list[str] = reasons_problems() if name in (None, DOMAINS[0].name) else []
    out += hidden_marks() if name in (None, DOMAINS[0].name) else []
    for domain in _chosen(name):
        out += template_problems(domain)
        for code in TRANSLATED:
            out += problems(domain, code)
    return out


def cmd_check(name: str | None = None) -> int:
    found = all_problems(name)
    for line in found:
        print(line)
    counts = {d.name: sum(1 for m in template(d) if m.id) for d in DOMAINS}
    summary = ", ".join(f"{name}: {n} messages" for name, n in counts.items())
    print(f"{len(found)} problem(s); {summary}; languages: en, {', '.join(TRANSLATED)}")
    return 1 if found else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("step", choices=("extract", "update", "compile", "check"))
    parser.add_argument(
        "--domain",
        choices=[d.name for d in DOMAINS],
        help="only this catalogue (the page's translator and the Python's work apart)",
    )
    args = parser.parse_args(argv)
    step: int = {
        "extract": cmd_extract,
        "update": cmd_update,
        "compile": cmd_compile,
        "check": cmd_check,
    }[args.step](args.domain)
    return step


if __name__ == "__main__":
    sys.exit(main())
