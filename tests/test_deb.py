"""The Debian package's build (scripts/build-deb.sh, deb/): its scripts shellcheck clean, its
command line's errors named, and deb/wheels.py's check that the wheels pip downloaded for
another machine are complete and installable there (pip judges environment markers on the
builder's machine). The build itself needs PyPI: the system test runs it (package_checks.py)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import zipfile
from pathlib import Path
from types import ModuleType

import pytest

from .common.needs import shellcheck

ROOT = Path(__file__).resolve().parent.parent
SCRIPTS = [
    "scripts/build-deb.sh",
    "scripts/build-repo.sh",
    "deb/postinst",
    "deb/prerm",
    "deb/postrm",
]


def wheels_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("deb_wheels", ROOT / "deb/wheels.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def wheel(folder: Path, name: str, version: str, tags: str, requires: list[str]) -> Path:
    path = folder / f"{name}-{version}-{tags}.whl"
    meta = f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"
    meta += "".join(f"Requires-Dist: {r}\n" for r in requires)
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr(f"{name}-{version}.dist-info/METADATA", meta)
    return path


def test_the_scripts_are_shellcheck_clean() -> None:
    done = subprocess.run([shellcheck(), "-S", "style", *SCRIPTS], cwd=ROOT, capture_output=True)
    assert done.returncode == 0, done.stdout.decode()


@pytest.mark.parametrize(
    ("args", "env", "said"),
    [
        (["riscv64", "out"], {}, "ARCH 'riscv64': arm64 or amd64"),
        (["arm64"], {}, "usage: scripts/build-deb.sh ARCH OUTDIR"),
        (["amd64", "out"], {"ORBITO_VERSION_SUFFIX": "-1"}, "ORBITO_VERSION_SUFFIX '-1'"),
    ],
)
def test_build_deb_names_a_bad_argument(
    tmp_path: Path, args: list[str], env: dict[str, str], said: str
) -> None:
    done = subprocess.run(
        ["bash", str(ROOT / "scripts/build-deb.sh"), *args],
        cwd=tmp_path, capture_output=True, text=True, env={"PATH": "/usr/bin:/bin", **env},
    )  # fmt: skip
    assert done.returncode == 2 and said in done.stderr
    assert not (tmp_path / "out").exists()


def test_a_wheel_is_installable_by_its_tags_on_bookworm() -> None:
    installable = wheels_module().installable
    ok = [
        "gpiod-2.5.0-cp311-cp311-manylinux2014_aarch64.manylinux_2_17_aarch64.whl",
        "lgpio-0.2.2.0-cp311-cp311-manylinux_2_34_aarch64.whl",
        "x-1.0-cp37-abi3-manylinux_2_28_aarch64.whl",
        "pyserial-3.5-py2.py3-none-any.whl",
    ]
    wrong = [
        "gpiod-2.5.0-cp311-cp311-manylinux2014_x86_64.whl",  # another machine
        "x-1.0-cp311-cp311-manylinux_2_39_aarch64.whl",  # a newer glibc than bookworm's 2.36
        "x-1.0-cp312-cp312-manylinux2014_aarch64.whl",  # another Python
        "x-1.0-cp311-cp311-musllinux_1_2_aarch64.whl",
    ]
    assert all(installable(Path(name), "aarch64") for name in ok)
    assert not any(installable(Path(name), "aarch64") for name in wrong)


def test_a_requirement_of_the_target_only_is_found_missing(tmp_path: Path) -> None:
    missing = wheels_module().missing
    needs = ["ws281x>=4; platform_machine == 'aarch64'", "toml; python_version < '3.11'"]
    wheel(tmp_path, "blinka", "1.0", "py3-none-any", [*needs, "attrs>=20"])
    wheel(tmp_path, "attrs", "19.0", "py3-none-any", [])
    # On the Pi: ws281x (pip, on x86-64, skipped it), and attrs too old; toml not (3.11).
    assert missing(tmp_path, "aarch64") == (["attrs>=20", "ws281x>=4"], [])
    assert missing(tmp_path, "x86_64") == (["attrs>=20"], [])
    wheel(tmp_path, "attrs", "21.0", "cp311-cp311-manylinux2014_x86_64", [])
    lacking, wrong = missing(tmp_path, "aarch64")
    assert lacking == ["ws281x>=4"]
    assert wrong == ["attrs-21.0-cp311-cp311-manylinux2014_x86_64.whl", "attrs-21.0-cp311-cp311-"
                     "manylinux2014_x86_64.whl (a second attrs)"]  # fmt: skip


def test_the_postinst_runs_the_check_with_debians_python() -> None:
    """The rollback must not depend on the new release's venv: it may not even import."""
    postinst = (ROOT / "deb/postinst").read_text()
    assert 'python3 "$LIB/releases.py" activate "$VERSION"' in postinst
    releases = (ROOT / "orbito_hw/app/releases.py").read_text()
    imports = [line for line in releases.splitlines() if line.startswith(("import ", "from "))]
    assert all(line.split()[1].split(".")[0] in sys.stdlib_module_names | {"__future__"}
               for line in imports), imports  # fmt: skip
