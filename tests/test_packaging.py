"""What ``pip install .`` gives, which the editable install of the tests cannot show: the
wheel holds the solution table, the example config, the whole firmware and every
subpackage, and installed in a fresh venv it runs from its own files, not the checkout's.

The wheel is built by pip as ``pip install .`` would (an isolated build with the
build-system requirements from the package index), from a copy of the checkout; the venv
borrows this environment's dependencies (a .pth line) so installing needs no download.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SUBPACKAGES = ("rules", "solver", "control", "hw", "sim", "doctor", "app", "commands")
NOT_SOURCES = (".git", ".venv", "build", "dist", "*.egg-info", "__pycache__", ".*_cache")
GOLDEN = ROOT / "tests/golden/refusals"


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    work = tmp_path_factory.mktemp("wheel")
    source = work / "source"  # pip builds in the source tree: keep the checkout clean
    ignore = shutil.ignore_patterns(*NOT_SOURCES, ".hypothesis", "node_modules")
    shutil.copytree(ROOT, source, ignore=ignore)
    pip = [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(work / "dist")]
    built = subprocess.run([*pip, str(source)], capture_output=True, text=True, timeout=300)
    assert built.returncode == 0, built.stdout + built.stderr
    (found,) = (work / "dist").glob("orbito_hw-*.whl")
    return found


@pytest.fixture(scope="module")
def venv(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv with the wheel installed, and this environment's site-packages after its
    own for the dependencies: they live in this venv, not in the system's site-packages that
    ``--system-site-packages`` would give. A plain path line, so its .pth files (the editable
    install's finder) are not run: only the wheel's orbito_hw can be found."""
    env = tmp_path_factory.mktemp("venv") / "env"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(env)], check=True)
    python = env / "bin" / "python"
    install = [sys.executable, "-m", "pip", "--python", str(python), "install", "-q"]
    done = subprocess.run(
        [*install, "--no-deps", "--no-index", str(wheel)], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout + done.stderr
    ours = {sysconfig.get_paths()[key] for key in ("purelib", "platlib")}
    (site_packages(python) / "outer-dependencies.pth").write_text("\n".join(sorted(ours)) + "\n")
    return env


def site_packages(python: Path) -> Path:
    code = "import sysconfig; print(sysconfig.get_paths()['purelib'])"
    out = subprocess.run([python, "-c", code], capture_output=True, text=True, check=True).stdout
    return Path(out.strip()).resolve()


def run_installed(env: Path, *argv: str, cwd: Path) -> str:
    """Run a command of the venv from ``cwd`` (not the checkout), with nothing of ours on
    PYTHONPATH; its stdout."""
    clean = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    done = subprocess.run(
        [str(env / "bin" / argv[0]), *argv[1:]],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=clean,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_wheel_holds_the_table_the_config_the_firmware_and_every_module(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    checkout = {
        str(path.relative_to(base))
        for base, folder in (
            (ROOT, "orbito_hw"),
            (ROOT / "firmware", "orbito_fw"),
            (ROOT / "hardware", "orbito_cad"),  # the mechanics' model: `cad build` needs it
        )
        for path in (base / folder).rglob("*.py")
        if "__pycache__" not in path.parts
    }
    assert checkout - names == set()  # every module of the package, the firmware, the model
    assert {f"orbito_hw/{name}/__init__.py" for name in SUBPACKAGES} <= names
    assert {"orbito_fw/main.py", "orbito_fw/__init__.py", "orbito_hw/config.example.toml",
            "orbito_cad/make/print_figures.json"} <= names  # fmt: skip
    table = zipfile.ZipFile(wheel).read("orbito_hw/data/solution.bin")
    assert table == (ROOT / "orbito_hw/data/solution.bin").read_bytes()
    puzzles = zipfile.ZipFile(wheel).read("orbito_hw/data/puzzles.jsonl")  # the shipped set
    assert puzzles == (ROOT / "orbito_hw/data/puzzles.jsonl").read_bytes()


def test_the_installed_package_runs_from_its_own_files(venv: Path, tmp_path: Path) -> None:
    installed = site_packages(venv / "bin" / "python")
    where = run_installed(
        venv,
        "python",
        "-c",
        "import orbito_hw, orbito_fw; print(orbito_hw.__file__, orbito_fw.__file__)",
        cwd=tmp_path,
    )
    assert [Path(p).resolve().parent.parent for p in where.split()] == [installed] * 2

    argv = shlex.split(
        run_installed(
            venv, "orbito-hw", "firmware", "install", "--port", "/dev/null", "--print", cwd=tmp_path
        )
    )
    copied = {argv[i + 2]: Path(argv[i + 1]) for i, word in enumerate(argv) if word == "cp"}
    firmware = sorted(p.name for p in (ROOT / "firmware/orbito_fw").glob("*.py"))
    assert sorted(source.name for source in copied.values()) == firmware
    assert all(source.resolve().parent == installed / "orbito_fw" for source in copied.values())
    assert all(source.is_file() for source in copied.values())
    assert copied[":main.py"].name == "main.py"  # to the Pico's root, where it boots

    events = run_installed(
        venv,
        "orbito-hw",
        "run",
        "--mock",
        "--events",
        str(GOLDEN.with_suffix(".txt")),
        cwd=tmp_path,
    )
    assert events == GOLDEN.with_suffix(".jsonl").read_text()
    # The solution table, read from the venv: the same answer as the checkout's.
    analyse = ("analyse", "--first", "black", "a1 b3")
    here = subprocess.run([sys.executable, "-m", "orbito_hw", *analyse], capture_output=True)
    assert run_installed(venv, "orbito-hw", *analyse, cwd=tmp_path) == here.stdout.decode()
    assert json.loads(here.stdout)["value"] in ("win", "draw", "loss")
    # The shipped puzzles, read from the venv's own file.
    shipped = run_installed(venv, "orbito-hw", "puzzles", "--json", cwd=tmp_path)
    assert shipped == (ROOT / "orbito_hw/data/puzzles.jsonl").read_text()


def test_the_wheel_holds_the_web_page(wheel: Path) -> None:
    """``pip install .`` serves the page: every file of web/static/ is in the wheel, as is."""
    static = ROOT / "orbito_hw/web/static"
    files = sorted(p.name for p in static.iterdir() if p.is_file())
    page = {"index.html", "app.js", "style.css", "games.html", "game.html", "games.js"}
    assert page <= set(files)
    archive = zipfile.ZipFile(wheel)
    for name in files:
        assert archive.read(f"orbito_hw/web/static/{name}") == (static / name).read_bytes(), name


def test_the_wheel_holds_the_compiled_catalogues(wheel: Path) -> None:
    """``pip install .`` speaks French: each language's .mo and page.json (scripts/messages.py
    compile, committed) are in the wheel as they are; the .po and .pot sources need not be."""
    compiled = sorted((ROOT / "orbito_hw/lang").glob("*/LC_MESSAGES/*.[mj][os]*"))
    assert {p.name for p in compiled} == {"orbito_hw.mo", "page.json"}
    archive = zipfile.ZipFile(wheel)
    for path in compiled:
        name = path.relative_to(ROOT).as_posix()
        assert archive.read(name) == path.read_bytes(), name


def requirements(wheel: Path) -> list[str]:
    """The wheel's ``Requires-Dist`` lines, as its metadata lists them."""
    with zipfile.ZipFile(wheel) as archive:
        metadata = next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
        return [
            line.removeprefix("Requires-Dist:").strip()
            for line in archive.read(metadata).decode().splitlines()
            if line.startswith("Requires-Dist:")
        ]


def test_a_plain_install_pulls_in_no_numpy(wheel: Path) -> None:
    """NumPy is the solve's alone (the ``solve`` extra): ``pip install .`` on a Pi pulls none."""
    requires = requirements(wheel)
    numpy = [r for r in requires if r.lower().startswith("numpy")]
    assert numpy and all("extra ==" in r for r in numpy), numpy
    assert any('extra == "solve"' in r for r in numpy)


def test_build123d_is_the_cad_extras_alone(wheel: Path) -> None:
    """The mechanics' model is an extra (``pip install '.[cad]'``): a board's install pulls
    in no CAD library."""
    requires = requirements(wheel)
    cad = [r for r in requires if r.lower().startswith(("build123d", "matplotlib"))]
    assert len(cad) == 2 and all('extra == "cad"' in r for r in cad), cad


def test_the_readme_test_command_is_what_ci_runs() -> None:
    readme = (ROOT / "README.md").read_text()
    command = next(
        line
        for line in readme.splitlines()
        if line.startswith("python3 -m venv") and "pytest" in line
    )
    assert command in (ROOT / ".ci/run").read_text().splitlines()
    assert '".[test,cad]"' in command  # tests/test_cad.py needs the cad extra under CI=true


NO_NUMPY = (
    "import sys; sys.modules['numpy'] = None  # import numpy raises ImportError\n"
    "from orbito_hw.cli import main\n"
    "sys.exit(main(sys.argv[1:]))\n"
)


def test_the_board_plays_and_analyses_without_numpy(venv: Path, tmp_path: Path) -> None:
    """The demo, the analysis and the levels, with NumPy out of reach; ``solve`` says in
    one line what it needs."""
    python = str(venv / "bin" / "python")
    shown = run_installed(venv, "python", "-c", NO_NUMPY, "run", "--mock", cwd=tmp_path)
    assert "wins" in shown or "draw" in shown, shown[-300:]
    analysis = run_installed(
        venv, "python", "-c", NO_NUMPY, "analyse", "--first", "black", "a1 b3", cwd=tmp_path
    )
    assert json.loads(analysis)["value"] in ("win", "loss", "draw")
    done = subprocess.run(
        [python, "-c", NO_NUMPY, "solve", "--check"], capture_output=True, text=True, cwd=tmp_path
    )
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "orbito-hw[solve]" in done.stderr, done.stderr
