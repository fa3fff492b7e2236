"""One folder per layer, and the layers only look down.

Each folder of ``orbito_hw`` may import the folders named in RULES (its own included) and
nothing above them; the third-party libraries it may import are named too. Importing the
package pulls in nothing heavy, and every module imports alone (no circular imports).
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "orbito_hw"
HARDWARE = {
    "gpiozero", "gpiod", "neopixel", "board", "serial", "RPi", "lgpio", "adafruit_pixelbuf",
    "busio", "adafruit_ads1x15", "adafruit_blinka", "adafruit_tmag5273", "adafruit_tca9548a",
}  # fmt: skip
FIRMWARE = {"orbito_fw"}  # the Pico's logic, a package of the same distribution
# The mechanics' model (hardware/orbito_cad, the cad extra): only `cad build` imports it, and
# it sees the package only through the rules (the squares) and hw (the board's facts that the
# config chooses, hw/facts.py, and the drive's step planner): never the app above it.
CAD = {"orbito_cad"}
CAD_MAY_IMPORT = {"rules", "errors", "hw", "lang"}
CAD_LIBRARIES = {
    "build123d", "bd_warehouse", "matplotlib", "mpl_toolkits", "numpy", "orbito_cad",
    "manifold3d", "mujoco", "magpylib", "scipy",
    "orbito_fw",  # the drive's step planner, as the Pi and the Pico run it (physics.py)
}  # fmt: skip

# What each folder (or top-level module) may import from the package, and from outside the
# standard library. "hw.interfaces" is the one module of hw that the control layer may see:
# the referee knows the hardware only through those protocols (it imports rules only).
LOW = {"errors", "rules", "solver", "control", "hw"}
WEB = {"aiohttp", "segno"}
BROKER = {"aiomqtt", "paho"}
RULES: dict[str, tuple[set[str], set[str]]] = {
    "errors": (set(), set()),
    "rules": ({"errors", "rules"}, set()),
    "solver": ({"errors", "rules", "solver"}, {"numpy"}),
    "control": ({"errors", "rules", "solver", "control", "hw.interfaces"}, set()),
    "hw": ({"errors", "rules", "hw"}, HARDWARE | FIRMWARE),
    "sim": ({"errors", "rules", "solver", "control", "hw", "sim"}, HARDWARE | FIRMWARE),
    "doctor": ({"errors", "rules", "hw", "sim", "doctor"}, set()),
    # The game store, the page's server and the broker link: each its own folder on the
    # layers below, none importing another (the app and the mock worlds wire them).
    "archive": (LOW | {"archive"}, set()),
    "web": (LOW | {"web"}, WEB),
    "remote": (LOW | {"remote"}, BROKER),
    # The real board's wiring, and the real-time --mock worlds on top of sim/.
    "app": (
        LOW | {"sim", "doctor", "archive", "web", "remote", "app"},
        HARDWARE | WEB | BROKER | {"tomli_w"},
    ),
    "mock": (LOW | {"sim", "archive", "web", "remote", "mock"}, set()),
    "commands": (
        LOW | {"sim", "doctor", "archive", "web", "remote", "app", "mock", "commands"},
        FIRMWARE | CAD,
    ),
    "__init__": ({"errors", "rules"}, set()),
    "cli": ({"errors", "commands", "__init__"}, set()),
    "__main__": ({"cli"}, set()),
}
# The words in the player's language (lang/, standard library only): the lowest layer, which
# every folder may import, as the errors module.
RULES["lang"] = (set(), set())
# A damaged file set aside (aside.py, standard library only): the request (control), the
# calibration (hw) and the archive's database each set theirs aside the same way, and control
# may import neither hw nor the archive, so the one function sits at the bottom too.
RULES["aside"] = (set(), set())
for _folder, (_allowed, _libraries) in RULES.items():
    if _folder not in ("lang", "aside"):
        _allowed |= {"lang", "aside"}
MAX_LINES = 700  # a module read in one sitting
MAX_SHARE = 0.30  # no folder holds more than this share of the package's lines


def folder_of(path: Path) -> str:
    """The layer a file of the package belongs to: its folder, or its name at the top."""
    parts = path.relative_to(PACKAGE).with_suffix("").parts
    return parts[0]


def module_of(path: Path) -> list[str]:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return parts[:-1] if parts[-1] == "__init__" else parts


def imports_of(path: Path, source: str | None = None) -> set[str]:
    """Every module a file imports, relative imports resolved to absolute names."""
    tree = ast.parse(source if source is not None else path.read_text())
    package = module_of(path)[:-1] if path.name != "__init__.py" else module_of(path)
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module != "__future__":
            base = package[: len(package) - node.level + 1] if node.level else []
            module = ".".join([*base, *([node.module] if node.module else [])])
            found.add(module)
            # "from orbito_hw.sim import harness" imports a module too
            found |= {f"{module}.{alias.name}" for alias in node.names}
    return found


def target_of(module: str) -> str | None:
    """The layer an imported module of the package belongs to (None: not the package's)."""
    parts = module.split(".")
    if parts[0] != "orbito_hw":
        return None
    if len(parts) == 1:
        return "__init__"
    if parts[1:3] == ["hw", "interfaces"]:
        return "hw.interfaces"
    return parts[1]


def violations(path: Path, source: str | None = None) -> list[str]:
    layer = folder_of(path)
    allowed, libraries = RULES[layer]
    allowed = allowed | ({"hw.interfaces"} if "hw" in allowed else set())
    bad = []
    for module in sorted(imports_of(path, source)):
        target = target_of(module)
        root = module.split(".")[0]
        if target is None:
            if root in sys.stdlib_module_names or root in libraries or root == "":
                continue
            bad.append(f"{path.relative_to(PACKAGE.parent)} ({layer}) imports the library {root}")
        elif (
            target not in allowed
            and (PACKAGE / target).exists() | (PACKAGE / f"{target}.py").exists()
        ):
            bad.append(f"{path.relative_to(PACKAGE.parent)} ({layer}) imports {module}")
    return bad


SOURCES = sorted(PACKAGE.rglob("*.py"))


def test_every_file_of_the_package_is_in_a_layer() -> None:
    assert {folder_of(path) for path in SOURCES} == set(RULES)


@pytest.mark.parametrize("path", SOURCES, ids=[str(p.relative_to(PACKAGE)) for p in SOURCES])
def test_each_file_imports_only_what_its_layer_may(path: Path) -> None:
    assert violations(path) == []


@pytest.mark.parametrize(
    ("where", "source"),
    [
        ("rules/game.py", "from orbito_hw.control.referee import Referee\n"),
        ("rules/game.py", "import json, numpy\n"),
        ("control/referee.py", "from orbito_hw.hw.gpio import GpioPins\n"),
        ("control/referee.py", "from ..hw import sim\n"),
        ("hw/gpio.py", "from orbito_hw.sim import board\n"),
        ("hw/gpio.py", "from orbito_hw.app.config import Config\n"),
        ("solver/table.py", "from ..control import referee\n"),
        ("sim/harness.py", "from orbito_hw.app import run\n"),
        ("web/server.py", "from orbito_hw.remote.spectator import Spectator\n"),
        ("web/server.py", "from orbito_hw.archive.store import Archive\n"),
        ("remote/game.py", "from orbito_hw.web.feed import Feed\n"),
        ("archive/store.py", "from ..web import server\n"),
        ("archive/recorder.py", "import aiohttp\n"),
        ("control/referee.py", "from orbito_hw.archive.recorder import Recorder\n"),
        ("mock/page.py", "from orbito_hw.app.config import Config\n"),
    ],
)
def test_a_forbidden_import_is_caught(where: str, source: str) -> None:
    assert violations(PACKAGE / where, source) != []


def test_every_module_imports_alone() -> None:
    """No circular imports: each module, imported first in a fresh interpreter, loads."""
    modules = [".".join(module_of(path)) for path in SOURCES if path.name != "__main__.py"]
    code = (
        "import importlib, subprocess, sys\n"
        "bad = [m for m in sys.argv[1:] if subprocess.run([sys.executable, '-c', "
        "f'import {m}'], capture_output=True).returncode]\n"
        "print(' '.join(bad))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, *modules], capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == ""


def module_graph() -> dict[str, set[str]]:
    """Each module of the package and the modules of the package it imports, those under
    ``if TYPE_CHECKING:`` and inside functions included."""
    modules = {".".join(module_of(path)): path for path in SOURCES}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        found = set()
        for imported in imports_of(path):
            parts = imported.split(".")
            while parts and ".".join(parts) not in modules:
                parts.pop()
            target = ".".join(parts)
            if parts and target not in (name, "orbito_hw"):
                found.add(target)
        graph[name] = found
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for other in sorted(graph[node]):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            group = []
            while (top := stack.pop()) != node:
                group.append(top)
            if group:
                found.append(sorted([node, *group]))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_import_cycle_not_even_for_type_checking() -> None:
    assert cycles(module_graph()) == []


def test_a_cycle_is_caught() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(graph) == [["a", "b", "c"]]


def lines_of(path: Path) -> int:
    return len(path.read_text().splitlines())


@pytest.mark.parametrize("path", SOURCES, ids=[str(p.relative_to(PACKAGE)) for p in SOURCES])
def test_each_module_is_read_in_one_sitting(path: Path) -> None:
    assert lines_of(path) <= MAX_LINES


def test_no_folder_holds_more_than_its_share_of_the_package() -> None:
    total = sum(lines_of(path) for path in SOURCES)
    share: dict[str, int] = {}
    for path in SOURCES:
        share[folder_of(path)] = share.get(folder_of(path), 0) + lines_of(path)
    too_big = {folder: round(n / total, 2) for folder, n in share.items() if n > MAX_SHARE * total}
    assert too_big == {}


def test_importing_the_package_pulls_in_nothing_heavy() -> None:
    heavy = HARDWARE | CAD_LIBRARIES | {"OCP", "aiohttp", "aiomqtt", "paho", "sqlite3"}
    code = (
        "import sys, orbito_hw, orbito_hw.cli; "
        "print(','.join(sorted(m for m in sys.modules if m.split('.')[0] in "
        f"{sorted(heavy)!r})))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


CAD_SOURCES = sorted((PACKAGE.parent / "hardware" / "orbito_cad").glob("*.py"))


@pytest.mark.parametrize("path", CAD_SOURCES, ids=[p.name for p in CAD_SOURCES])
def test_the_cad_model_sees_only_the_rules_and_the_boards_facts(path: Path) -> None:
    """One source of geometry: the model takes the squares and the press from
    orbito_hw.rules and the LED order and the drive's figures from hw/facts.py, nothing else."""
    bad = []
    for module in sorted(imports_of(path)):
        root = module.split(".")[0]
        if root == "orbito_hw":
            if target_of(module) not in CAD_MAY_IMPORT:
                bad.append(module)
        elif root not in sys.stdlib_module_names and root not in CAD_LIBRARIES:
            bad.append(module)
    assert bad == []
    assert lines_of(path) <= MAX_LINES


@pytest.mark.parametrize("path", CAD_SOURCES, ids=[p.name for p in CAD_SOURCES])
def test_the_cad_model_imports_nothing_from_the_app(path: Path) -> None:
    """The model sits below the app in the house: it reads the config's facts from the
    lowest layer that holds them (hw/facts.py), never orbito_hw.app."""
    assert sorted(m for m in imports_of(path) if m.startswith("orbito_hw.app")) == []


# The scripts in hardware/ beside the model (not the package orbito_cad) draw and slice from
# a config file: make_wiring.py draws the wiring of the file it is given, so it reads it as
# the controller does (app/config.py's load_config: the same checks, the same one line on a
# bad key, exit 2) and draws what the controller would drive. A tool run from the repository,
# at the top of the house like commands/: it may read the config, never the board's
# running parts. The model it sits beside stays below the app (the two tests above).
HARDWARE_SCRIPTS = sorted((PACKAGE.parent / "hardware").glob("*.py"))
HARDWARE_SCRIPTS_MAY_IMPORT = {"errors", "rules", "hw", "lang", "app.config", "app.config_analog"}


@pytest.mark.parametrize("path", HARDWARE_SCRIPTS, ids=[p.name for p in HARDWARE_SCRIPTS])
def test_a_hardware_script_reads_the_config_and_nothing_else_of_the_app(path: Path) -> None:
    bad = []
    for module in sorted(imports_of(path)):
        parts = module.split(".")
        if parts[0] != "orbito_hw" or len(parts) == 1:
            continue
        names = {parts[1], ".".join(parts[1:3])}  # "hw" or "app.config"
        if not names & HARDWARE_SCRIPTS_MAY_IMPORT:
            bad.append(module)
    assert bad == []


SCRIPTS = sorted((PACKAGE.parent / "scripts").glob("*.py"))


@pytest.mark.parametrize("path", SCRIPTS, ids=[p.name for p in SCRIPTS])
def test_no_script_imports_a_test(path: Path) -> None:
    """A script is run on its own (and shipped with the repository): what it shares with
    the tests lives in scripts/, which the tests import, never the other way round."""
    assert sorted(m for m in imports_of(path) if m.split(".")[0] == "tests") == []


TESTS = sorted((PACKAGE.parent / "tests").glob("test_*.py"))


@pytest.mark.parametrize("path", TESTS, ids=[p.name for p in TESTS])
def test_no_test_module_imports_another(path: Path) -> None:
    """What two test modules share lives in tests/common (and its fixtures in conftest.py):
    a test module imported by another runs its module-level code twice and ties the two."""
    tests = sorted(m for m in imports_of(path) if m.startswith("tests."))
    assert [m for m in tests if not m.startswith("tests.common")] == []


@pytest.mark.parametrize(
    ("source", "root"),
    [("from orbito_hw.app.config import Config\n", "orbito_hw.app"),
     ("from tests.test_web_pages import WATCHED\n", "tests")],
)  # fmt: skip
def test_an_import_from_above_is_caught(source: str, root: str) -> None:
    where = PACKAGE.parent / "scripts" / "screenshots.py"
    assert any(m.split(".")[0] == root.split(".")[0] and m.startswith(root)
               for m in imports_of(where, source))  # fmt: skip


# --- the referee: one face to the outside (issue 35) ------------------------------------------
# Its own, which change under it: read through ``Referee.snapshot()`` outside control/.
REFEREE_INSIDES = {"saved", "reader", "show", "sensors"}


def referee_reaches(source: str) -> list[str]:
    """Where code reads the referee's insides (``referee.saved``, ``self.referee.show``...),
    reaches a private member of it, or assigns to any attribute of the referee or its parts."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Attribute):
            continue
        owner = node.value
        name = owner.attr if isinstance(owner, ast.Attribute) else getattr(owner, "id", "")
        if name.lstrip("_") == "referee":
            if node.attr in REFEREE_INSIDES or node.attr.startswith("_"):
                found.append(f"line {node.lineno}: {name}.{node.attr}")
            elif isinstance(node.ctx, ast.Store):
                found.append(f"line {node.lineno}: {name}.{node.attr} assigned")
        elif isinstance(node.ctx, ast.Store) and "referee" in ast.unparse(owner).split("."):
            found.append(f"line {node.lineno}: {ast.unparse(node)} assigned")
    return found


OUTSIDE_CONTROL = [p for p in SOURCES if folder_of(p) != "control"]


@pytest.mark.parametrize(
    "path", OUTSIDE_CONTROL, ids=[str(p.relative_to(PACKAGE)) for p in OUTSIDE_CONTROL]
)
def test_nothing_outside_control_reads_the_referees_insides(path: Path) -> None:
    assert referee_reaches(path.read_text()) == []


@pytest.mark.parametrize(
    "source",
    [
        "x = referee.saved.turns\n",
        "self.referee.show.lights = lights\n",
        "run.referee.sensors.read()\n",
        "f(self._referee.reader)\n",
        "referee._emit(event)\n",
        "referee.opponent = player\n",
        "self.referee.setups.on_done = f\n",
    ],
)
def test_a_reach_into_the_referee_is_caught(source: str) -> None:
    assert referee_reaches(source) != []
