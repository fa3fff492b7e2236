"""One folder per layer, and the layers only look down.

Each folder of ``orbito_hw`` may import the folders named in RULES (its own included) and
nothing above them; the third-party libraries it may import are named too. Importing the
package pulls in nothing heavy, and every module imports alone (no circular imports).
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPOSITORY = Path(__file__).resolve().parent.parent
PACKAGE = REPOSITORY / "orbito_hw"
CAD_PACKAGE = REPOSITORY / "hardware" / "orbito_cad"
# Where each importable package of the repository lives: the folder put on sys.path for it.
HOMES = {
    "orbito_hw": REPOSITORY, "tests": REPOSITORY, "scripts": REPOSITORY,
    "benchmarks": REPOSITORY, "orbito_fw": REPOSITORY / "firmware",
    "orbito_cad": REPOSITORY / "hardware",
}  # fmt: skip
HARDWARE = {
    "gpiozero", "gpiod", "neopixel", "board", "serial", "RPi", "lgpio", "adafruit_pixelbuf",
    "busio", "adafruit_ads1x15", "adafruit_blinka", "adafruit_tmag5273", "adafruit_tca9548a",
}  # fmt: skip
FIRMWARE = {"orbito_fw"}  # the Pico's logic, a package of the same distribution
# The mechanics' model (hardware/orbito_cad, the cad extra): only `cad build` imports it. It is
# layered as the package is (CAD_RULES below) and sees the package only through the rules (the
# squares) and hw (the board's facts that the config chooses, hw/facts.py, and the drive's step
# planner): never the app above it.
CAD = {"orbito_cad"}
CAD_LIBRARIES = {
    "build123d", "bd_warehouse", "matplotlib", "mpl_toolkits", "numpy", "orbito_cad",
    "manifold3d", "mujoco", "magpylib", "scipy",
    "mitsuba", "PIL",  # the renders (make/photo.py, the render extra)
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


def home_of(path: Path) -> Path:
    """The folder on sys.path that ``path`` is imported from (a script: its own folder)."""
    for name, home in HOMES.items():
        if path.is_relative_to(home / name):
            return home
    return path.parent


def module_of(path: Path) -> list[str]:
    parts = list(path.relative_to(home_of(path)).with_suffix("").parts)
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


# Each module imported first, into an interpreter that has loaded nothing of the package:
# a fresh one forked for each from one that has only started (its standard start-up modules,
# as ``python -c`` has: asserted), so that each pays for its own imports and not for Python's
# start-up once more. The child says why it failed (the exception's last line) on the
# parent's stdout, its own stdout (what a module prints) shut.
ALONE = """
import os, sys, traceback
ours = [m for m in sys.modules if m.split(".")[0] in {"orbito_hw", "orbito_fw", "orbito_cad"}]
assert ours == [], ours
for name in sys.argv[1:]:
    if (pid := os.fork()) == 0:
        report = os.dup(1)
        os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
        try:
            __import__(name)
        except BaseException:
            why = traceback.format_exc().strip().splitlines()[-1]
            os.write(report, f"{name}: {why}\\n".encode())
        os._exit(0)
    if os.waitpid(pid, 0)[1] != 0:
        os.write(1, f"{name}: the interpreter died importing it\\n".encode())
"""


def not_alone(modules: list[str], path: Path | None = None) -> list[str]:
    """The modules that fail imported alone, each with why (``path``: a folder put first on
    the interpreter's path)."""
    env = dict(os.environ)
    if path is not None:
        env["PYTHONPATH"] = os.pathsep.join([str(path), *filter(None, [env.get("PYTHONPATH")])])
    command = [sys.executable, "-c", ALONE, *modules]
    out = subprocess.run(command, capture_output=True, text=True, env=env, check=True)
    return out.stdout.splitlines()


def test_every_module_imports_alone() -> None:
    """No circular imports: each module, imported first in a fresh interpreter, loads."""
    modules = [".".join(module_of(path)) for path in SOURCES if path.name != "__main__.py"]
    assert not_alone(modules) == []


def test_a_module_that_loads_only_after_another_is_caught(tmp_path: Path) -> None:
    """``second`` imports ``first``, which takes a name from ``second`` before it is made:
    alone ``second`` fails; after ``first`` it loads (``first`` made it). Each is tried in an
    interpreter of its own, so the order they are named in does not hide it."""
    (tmp_path / "first.py").write_text("from second import NAME\n")
    (tmp_path / "second.py").write_text("import first\nNAME = 1\n")
    assert not_alone(["first", "second"], tmp_path) == [
        "second: ImportError: cannot import name 'NAME' from partially initialized module "
        "'second' (most likely due to a circular import) (" + str(tmp_path / "second.py") + ")"
    ]


def repository_sources() -> list[Path]:
    """Every Python file of the repository that is imported or runs: the packages (the
    controller, the firmware, the mechanics' model), the tests, the scripts, the benchmarks
    and the scripts beside the model in hardware/."""
    found = [path for name, home in HOMES.items() for path in (home / name).rglob("*.py")]
    return sorted({*found, *(REPOSITORY / "hardware").glob("*.py")})


def module_graph(sources: dict[Path, str | None] | None = None) -> dict[str, set[str]]:
    """Each module of the repository (or of ``sources``: a file and the text it is read as,
    None for its own) and the modules of the repository it imports, those under ``if
    TYPE_CHECKING:`` and inside functions included: an import inside a function is still an
    arrow (it runs whenever the function does, and a cycle through one is as tangled as any,
    only later)."""
    sources = sources if sources is not None else dict.fromkeys(repository_sources())
    modules = {".".join(module_of(path)): path for path in sources}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        found = set()
        for imported in imports_of(path, sources[path]):
            parts = imported.split(".")
            while parts and ".".join(parts) not in modules:
                parts.pop()
            target = ".".join(parts)
            # a module's own package (its __init__) is run before it, not imported by it
            if parts and target != name and not name.startswith(f"{target}."):
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
    """Nowhere in the repository: the controller, the firmware, the mechanics' model, the
    tests, the scripts and the benchmarks, and between them."""
    graph = module_graph()
    assert {"orbito_hw.cli", "orbito_fw.planner", "orbito_cad.make.build", "tests.common.cad",
            "scripts.messages", "make_wiring"} <= set(graph)  # fmt: skip
    assert cycles(graph) == []


def test_a_cycle_through_a_function_level_import_is_caught() -> None:
    """Two modules of the mechanics' model importing each other, one only inside a function,
    as ``case.py`` and ``bay.py`` once did."""
    params, layout = CAD_PACKAGE / "board" / "params.py", CAD_PACKAGE / "board" / "layout.py"
    assert cycles(module_graph({params: None, layout: None})) == []
    back = "def f() -> None:\n    from orbito_cad.board.layout import sides\n"
    got = cycles(module_graph({params: back, layout: None}))
    assert got == [["orbito_cad.board.layout", "orbito_cad.board.params"]]


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


# --- the mechanics' model: hardware/orbito_cad in layers -------------------------------------
# Its folders from the bottom up, each importing only itself and those below it: the board's
# facts and the geometry derived from them (pure Python), the printed parts' solids, the board
# put together, the models that judge it, what is made from it. Of the package: the rules'
# squares, and hw (the config's facts, hw/facts.py; the drive's step planner) for the models
# and the make alone; never the app. Its libraries, each where it is needed.
CAD_FLOORS = ["board", "parts", "assembly", "models", "make"]
SOLIDS = {"build123d", "numpy"}
CAD_RULES: dict[str, tuple[set[str], set[str], set[str]]] = {
    # floor: (the floors it may import, the folders of orbito_hw, the libraries)
    "board": ({"board"}, {"rules"}, set()),
    "parts": ({"board", "parts"}, {"rules"}, SOLIDS | {"manifold3d", "scipy"}),
    "assembly": ({"board", "parts", "assembly"}, {"rules"}, SOLIDS),
    "models": (
        {"board", "parts", "assembly", "models"},
        {"rules", "hw"},
        SOLIDS | {"manifold3d", "mujoco", "magpylib", "mitsuba", "scipy", "orbito_fw"},
    ),
    "make": (
        set(CAD_FLOORS),
        {"rules", "hw"},
        SOLIDS | {"matplotlib", "mpl_toolkits", "mitsuba", "PIL"},
    ),
    "__init__": (set(), set(), set()),
}
for _floors, _package, _libraries in CAD_RULES.values():
    _package |= {"errors", "lang"}  # the bottom of the house, as for every folder
    assert _libraries <= CAD_LIBRARIES
CAD_SOURCES = sorted(CAD_PACKAGE.rglob("*.py"))


def cad_floor_of(path: Path) -> str:
    """The floor a file of the model belongs to: its folder, or ``__init__`` at the top."""
    return path.relative_to(CAD_PACKAGE).with_suffix("").parts[0]


def cad_violations(path: Path, source: str | None = None) -> list[str]:
    floors, package, libraries = CAD_RULES[cad_floor_of(path)]
    bad = []
    for module in sorted(imports_of(path, source)):
        parts = module.split(".")
        if parts[0] == "orbito_cad":
            ok = len(parts) > 1 and parts[1] in floors
        elif parts[0] == "orbito_hw":
            ok = target_of(module) in package | ({"hw.interfaces"} if "hw" in package else set())
        else:
            ok = parts[0] in sys.stdlib_module_names or parts[0] in libraries
        if not ok:
            bad.append(f"{path.relative_to(CAD_PACKAGE)} ({cad_floor_of(path)}) imports {module}")
    return bad


def test_every_file_of_the_model_is_on_a_floor() -> None:
    assert {cad_floor_of(path) for path in CAD_SOURCES} == set(CAD_RULES)


@pytest.mark.parametrize(
    "path", CAD_SOURCES, ids=[str(p.relative_to(CAD_PACKAGE)) for p in CAD_SOURCES]
)
def test_each_file_of_the_model_imports_only_what_its_floor_may(path: Path) -> None:
    """One source of geometry: the model takes the squares and the press from
    orbito_hw.rules and the LED order and the drive's figures from hw/facts.py, each floor
    its own figures from the floors below it."""
    assert cad_violations(path) == []
    assert lines_of(path) <= MAX_LINES


@pytest.mark.parametrize(
    ("where", "source"),
    [
        ("board/layout.py", "from orbito_cad.parts.track import cup\n"),
        ("board/params.py", "import build123d\n"),
        ("board/bay.py", "from orbito_cad import layout\n"),  # the flat folder's name
        ("parts/track.py", "from orbito_cad.assembly.whole import PRINTED\n"),
        ("parts/case.py", "from ..models import magnetics\n"),
        ("assembly/whole.py", "from orbito_cad.models.motion import transforms\n"),
        ("models/motion.py", "from orbito_cad.make.build import STL_TOLERANCE\n"),
        ("models/sweep.py", "import matplotlib\n"),
        ("parts/drive.py", "from orbito_hw.hw.facts import BoardFacts\n"),
        ("make/bom.py", "from orbito_hw.app.config import Config\n"),
        ("make/routing.py", "from orbito_hw.control.referee import Referee\n"),
    ],
)
def test_an_import_up_the_model_is_caught(where: str, source: str) -> None:
    assert cad_violations(CAD_PACKAGE / where, source) != []


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
