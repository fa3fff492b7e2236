"""docs/config.md, written from the config's one schema (config.py), so it cannot drift.

Every key comes from the schema's dataclasses (``Config``'s tables, in the file's order);
its default is what ``to_toml`` writes for a config with nothing set; what it accepts is
what the reader itself says when handed a value of no key's type and a value out of every
range (its own words, so the page and ``config check`` agree); what it means is the
comment above the key in the shipped example (``config.example.toml``, which a test keeps
whole). ``python -m orbito_hw.app.config_reference > docs/config.md`` writes the page;
``tests/test_docs.py`` fails when the committed page differs.
"""

from __future__ import annotations

import re
import sys
from dataclasses import fields
from typing import Any, Final

from orbito_hw.app.config import TABLES, Config, _toml_table, example_text, parse_config
from orbito_hw.errors import ConfigError

PINS: Final = "sensors.pins.SQ"
"""The sixteen ``sensors.pins.a1`` .. ``sensors.pins.d4``, one row for all."""
_PROBES: Final = ("{ probe = 1 }", "1000000000")  # of no key's type; out of every range
_KEY_LINE: Final = re.compile(r"^#?\s*([a-z_0-9]+)\s*=")
_TABLE_LINE: Final = re.compile(r"^\[([a-z_.]+)\]\s*$")


def keys() -> list[tuple[str, Any]]:
    """Every key of the schema, ``table.key`` (``table.sub.key``), and its default as the
    file writes it (None: unset)."""
    out: list[tuple[str, Any]] = []
    default = Config()
    for table in TABLES:
        part = getattr(default, table)
        written = _toml_table(part)
        for f in fields(part):
            if f.name == "pins":
                continue  # after the table's own keys, as a sub-table comes in the file
            if f.name == "colours":
                out += [(f"{table}.colours.{k}", v) for k, v in written["colours"].items()]
            else:
                out.append((f"{table}.{f.name}", written.get(f.name)))
        if table == "sensors":
            out.append((PINS, None))
    return out


def accepts(key: str) -> str:
    """What ``key`` takes, in the reader's words."""
    table, _, name = key.rpartition(".")
    if key == PINS:
        table, name = "sensors.pins", "a1"
    words: list[str] = []
    for probe in _PROBES:
        text = f"[{table}]\n{name} = {probe}\n"
        try:
            parse_config(text, "probe")
        except ConfigError as exc:
            mine = [p for p in exc.problems or (str(exc),) if p.startswith(f"{table}.{name}: ")]
            if mine:
                words.append(_plain(mine[0].split(": ", 1)[1]))
    seen: list[str] = []
    for word in words:
        if word and word not in seen:
            seen.append(word)
    return "; ".join(seen) or "any value"


def _plain(problem: str) -> str:
    """A problem as what is accepted: "expected a number, got ..." -> "a number"."""
    problem = re.sub(r", got .*$", "", problem)
    problem = re.sub(r"^expected ", "", problem)
    problem = re.sub(r"^.*? is not (one of )", r"\1", problem)
    problem = re.sub(r"^(1000000000|\{.*?\})? ?is out of range \((.*)\)$", r"\2", problem)
    problem = re.sub(r"^pin 1000000000 is not a GPIO \((.*)\)$", r"\1", problem)
    problem = re.sub(r"^(1000000000|\{.*?\}) is not (a|an) ", r"\2 ", problem)
    problem = re.sub(r"^'?1000000000'? ?", "", problem)
    return problem.strip()


def descriptions() -> dict[str, str]:
    """The comment above each key of the shipped example, by key; a key with none shares
    the one before it (``hint_draw`` under ``hint_win``'s)."""
    known = {key for key, _ in keys()}
    out: dict[str, str] = {}
    table, last = "", ""
    comment: list[str] = []
    for raw in example_text().splitlines():
        line = raw.strip()
        header = _TABLE_LINE.match(line)
        if header:
            table, comment = header.group(1), []
            continue
        key = _KEY_LINE.match(line)
        name = PINS if table == "sensors.pins" else f"{table}.{key.group(1) if key else ''}"
        if key and name in known:  # a key, or a key shown commented out
            if name not in out:
                out[name] = " ".join(comment) if comment else out.get(last, "")
            comment, last = [], name
        elif line.startswith("#"):
            comment.append(line.lstrip("#").strip())
    return out


def _cell(value: Any) -> str:
    if value is None:
        return "unset"
    if isinstance(value, bool):
        return f"`{str(value).lower()}`"
    if isinstance(value, list):
        return "`[" + ", ".join(f'"{v}"' for v in value) + "]`"
    if isinstance(value, str):
        return f'`"{value}"`'
    return f"`{value}`"


def page() -> str:
    """docs/config.md."""
    meant = descriptions()
    out = [
        "# The config file, key by key",
        "",
        "<!-- Written by `python -m orbito_hw.app.config_reference > docs/config.md` from",
        "     orbito_hw/app/config.py; tests/test_docs.py fails if it is stale. -->",
        "",
        "A real board reads one TOML file: `/etc/orbito-hw/config.toml`, or `--config PATH`.",
        "`orbito-hw config example` prints a documented example wired as in",
        "[the pin map](../hardware/pinmap.md); `orbito-hw config check --config PATH` checks a",
        "file and names every problem by its key, each on a line of its own;",
        "`orbito-hw config show --config PATH` writes every default out. A key left out takes",
        "the default below. The simulated board (`run --mock`) needs no file at all.",
        "",
        "Pins are BCM GPIO numbers (GPIO17 is `17`), not header pin numbers. A part's pins are",
        "needed only when its backend is `gpio` (`neopixel` for the lights).",
        "",
    ]
    current = ""
    for key, default in keys():
        table = key.rsplit(".", 1)[0] if key != PINS else "sensors.pins"
        if table != current:
            current = table
            out += [f"## `[{table}]`", "", "| key | default | accepts | what it is |"]
            out.append("| --- | --- | --- | --- |")
        name = key.rsplit(".", 1)[1] if key != PINS else "a1 .. d4"
        what = meant.get(key, "").replace("|", "\\|")
        taken = accepts(key).replace("|", "\\|")
        out.append(f"| `{name}` | {_cell(default)} | {taken} | {what} |")
    out.append("")
    return "\n".join(_blank_before_tables(out)) + "\n"


def _blank_before_tables(lines: list[str]) -> list[str]:
    out: list[str] = []
    for line in lines:
        if line.startswith("## ") and out and out[-1] != "":
            out.append("")
        out.append(line)
    return out


def main() -> int:
    sys.stdout.write(page())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
