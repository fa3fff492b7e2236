"""Issue 27: the docs stay true. The walkthrough's commands run as written, every event kind
and config key is documented, the config reference is what its generator writes, and no link
in README.md or docs/ leads outside the repository."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from orbito_hw.app import architecture_figures, config_reference
from orbito_hw.app.config import Config, to_toml
from orbito_hw.control import events
from orbito_hw.sim.script import COMMANDS

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
PAGES = sorted(DOCS.glob("*.md"))
LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)|!\[[^\]]*\]\(([^)\s]+)\)|<(https?://[^>]+)>")


def test_the_config_reference_is_what_the_generator_writes() -> None:
    """``python -m orbito_hw.app.config_reference > docs/config.md`` after a schema change."""
    assert (DOCS / "config.md").read_text() == config_reference.page()


def test_the_architectures_figures_are_what_the_generator_writes() -> None:
    """``python -m orbito_hw.app.architecture_figures --write`` after the sources changed."""
    page = (DOCS / "architecture.md").read_text()
    assert page == architecture_figures.written(page)


def test_every_config_key_is_in_the_reference() -> None:
    """Every key the schema writes (``config show`` of the defaults), and the pins."""
    page = (DOCS / "config.md").read_text()
    sections = {
        m.group(1): m.group(2) for m in re.finditer(r"^## `\[(.+?)\]`\n(.*?)(?=^## |\Z)", page,
                                                   re.S | re.M)
    }  # fmt: skip
    written = tomllib.loads(to_toml(Config()))
    rows = 0
    for table, values in written.items():
        for key, value in values.items():
            if isinstance(value, dict):
                for sub in value:
                    assert f"| `{sub}` |" in sections[f"{table}.{key}"], f"{table}.{key}.{sub}"
                    rows += 1
            else:
                assert f"| `{key}` |" in sections[table], f"{table}.{key}"
                rows += 1
    for table, name in (("web", "code"), ("drive", "step_pin"), ("remote", "ca_file")):
        assert f"| `{name}` |" in sections[table]  # keys unset by default are there too
    assert "| `a1 .. d4` |" in sections["sensors.pins"]
    assert rows > 50


def test_every_event_kind_is_documented() -> None:
    page = (DOCS / "events.md").read_text()
    for cls in events.Event.__args__:  # type: ignore[attr-defined]
        assert f'"event": "{cls.kind}"' in page, cls.kind


def test_every_board_script_command_is_documented() -> None:
    page = (DOCS / "board-scripts.md").read_text()
    for command in COMMANDS:
        assert f"| `{command}" in page, command


def _links(path: Path) -> list[str]:
    return [a or b or c for a, b, c in LINK.findall(path.read_text())]


@pytest.mark.parametrize(
    "path", [ROOT / "README.md", *PAGES], ids=lambda p: str(p.relative_to(ROOT))
)
def test_no_link_leads_outside_the_repository(path: Path) -> None:
    for target in _links(path):
        if target.startswith(("http://", "https://")):
            host = re.sub(r"^https?://([^/:]+).*$", r"\1", target)
            assert host in ("127.0.0.1", "localhost"), f"{path.name}: {target}"
            continue
        if target.startswith("#"):
            continue
        file = (path.parent / target.split("#", 1)[0]).resolve()
        assert file.is_relative_to(ROOT), f"{path.name}: {target} is outside the repository"
        assert file.exists(), f"{path.name}: {target} does not exist"
    assert "SPEC.md" not in path.read_text(), f"{path.name} names SPEC.md, not in the repo"


def test_the_readme_links_into_every_docs_page() -> None:
    readme = set(_links(ROOT / "README.md")) | set(_links(DOCS / "README.md"))
    for page in PAGES:
        if page.name != "README.md":
            assert f"docs/{page.name}" in readme or page.name in readme, page.name


def test_every_command_of_the_walkthrough_runs_as_written(tmp_path: Path) -> None:
    """The walkthrough's ``sh`` blocks, in order, as one shell script in an empty directory,
    the installed ``orbito-hw`` first on the PATH."""
    text = (DOCS / "walkthrough.md").read_text()
    blocks = re.findall(r"^```sh\n(.*?)^```", text, re.S | re.M)
    assert len(blocks) >= 8
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    done = subprocess.run(
        ["bash", "-c", "set -euo pipefail\n" + "\n".join(blocks)],
        cwd=tmp_path, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True,
        timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    out = done.stdout
    # the board script, and the same turns typed in notation at the prompt (issue 36)
    assert out.count('"turn": "c1-c2:a2", "board": "..../..W./..../B..."') >= 2
    assert 'b\'{"event": "snapshot"' in out  # the page answered
    assert re.search(r"^1 +\S+ \S+ +\S+ \S+ +\w+ +board:5 +person ", out, re.M)  # archived
    assert '"event": "board-turn"' in out  # the board played
    assert "Traceback" not in done.stderr


def _runnable_blocks(text: str) -> list[str]:
    """A page's ``sh`` blocks, but those under a ``<!-- not run by the tests: WHY -->``."""
    return [
        block
        for skip, block in re.findall(
            r"^(<!-- not run by the tests:[^\n]*-->\n)?```sh\n(.*?)^```", text, re.S | re.M
        )
        if not skip
    ]


def test_the_puzzles_pages_examples_run_as_written_in_a_fresh_home(tmp_path: Path) -> None:
    """Issue 36: docs/puzzles.md's example crashed on a new state directory and used a
    play.txt it never made; without --state-dir nothing was kept, so ``puzzles next`` named
    the solved puzzle again. Run in an empty directory and a fresh home (no XDG_STATE_HOME:
    the tries go to ~/.local/state/orbito-hw)."""
    blocks = _runnable_blocks((DOCS / "puzzles.md").read_text())
    assert len(blocks) == 1 and "play.txt" in blocks[0]
    home = tmp_path / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("XDG_")}
    env |= {"HOME": str(home), "PATH": f"{Path(sys.executable).parent}{os.pathsep}{env['PATH']}"}
    work = tmp_path / "work"
    work.mkdir()
    done = subprocess.run(
        ["bash", "-c", "set -euo pipefail\n" + blocks[0]], cwd=work, env=env,
        stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    assert "Traceback" not in done.stderr
    out = done.stdout
    assert '"event": "puzzle", "game": 1, "id": "5DY1DFNRPMT61", "solved": true' in out
    nexts = re.findall(r"^(\S+) +\w+ +\w+ to play and win .*\[(?:new|again|review)\]$", out, re.M)
    assert nexts[0] == "5DY1DFNRPMT61" and nexts[1] != nexts[0]
    assert re.search(r"^5DY1DFNRPMT61 +easy +solved 1 try ", out, re.M)
    assert (home / ".local" / "state" / "orbito-hw" / "games.sqlite3").is_file()
