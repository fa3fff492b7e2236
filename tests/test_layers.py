"""The layers only look down: the engine, solver and referee never touch hardware libraries,
and importing the package pulls in nothing heavy."""

import ast
import subprocess
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "orbito_hw"
HARDWARE = {"gpiozero", "neopixel", "board", "serial", "RPi", "lgpio", "adafruit_pixelbuf", "busio"}
# Modules of layers 1-3: the rules engine, the solver and opponents, the referee.
PURE_LAYERS = [
    "squares",
    "turn",
    "errors",
    "game",
    "perft",
    "solver",
    "opponents",
    "referee",
    "debounce",
    "lights",
    "journal",
    "hw/interfaces",
]
ENGINE = ["squares", "turn", "errors", "game", "perft"]


def imported_roots(path: Path) -> set[str]:
    roots = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            roots |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            roots.add(node.module.split(".")[0])
    return roots


def layer_files(names: list[str]) -> list[Path]:
    files = []
    for name in names:
        files += [PACKAGE / f"{name}.py", *sorted((PACKAGE / name).glob("**/*.py"))]
    return [f for f in files if f.exists()]


def test_layers_one_to_three_import_no_hardware_library() -> None:
    files = layer_files(PURE_LAYERS)
    assert files, "the layer list names no module at all"
    for path in files:
        bad = imported_roots(path) & HARDWARE
        assert not bad, f"{path.relative_to(PACKAGE.parent)} imports {sorted(bad)}"


# The package's own backend modules: what layers 1-3 must not reach by a relative import.
BACKEND_MODULES = {
    "gpio",
    "gpio_sim",
    "strip",
    "serial_link",
    "serial_backend",
    "fake_pico",
    "assemble",
    "sim",
}


def relative_imports(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.level > 0:
            module = (node.module or "").split(".")
            names |= {module[-1]} if node.module else {alias.name for alias in node.names}
            names |= {alias.name for alias in node.names}
    return names


def test_layers_one_to_three_reach_no_backend_of_the_package() -> None:
    for path in layer_files(PURE_LAYERS):
        bad = relative_imports(path) & BACKEND_MODULES
        assert not bad, f"{path.relative_to(PACKAGE.parent)} imports the backend {sorted(bad)}"


def test_the_rules_engine_uses_the_standard_library_only() -> None:
    allowed = set(sys.stdlib_module_names) | {"orbito_hw"}
    for path in layer_files(ENGINE):
        extra = imported_roots(path) - allowed
        assert not extra, f"{path.name} imports {sorted(extra)}"


def test_importing_the_package_pulls_in_nothing_heavy() -> None:
    code = (
        "import sys, orbito_hw, orbito_hw.cli; "
        "print(','.join(sorted(m for m in sys.modules if m.split('.')[0] in "
        f"{sorted(HARDWARE | {'numpy'})!r})))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
