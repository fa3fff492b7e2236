"""The wheels of a package for another machine, checked complete for that machine.

``pip download --platform`` picks wheels built for the target, but it evaluates the
requirements' environment markers on this machine (an x86-64 builder reads
``platform_machine == 'aarch64'`` as false). So after pip, this script reads every wheel's
own requirements, evaluates their markers as the target would (Linux, CPython 3.11, its
machine), downloads what is missing the same way, and fails naming any wheel that the
target could not install (a wrong platform tag) or any requirement no wheel satisfies.

    python deb/wheels.py MACHINE WHEEL_DIR -- PIP_DOWNLOAD_ARGS...

MACHINE is aarch64 or x86_64; PIP_DOWNLOAD_ARGS are pip download's platform options.
"""

from __future__ import annotations

import re
import subprocess
import sys
import zipfile
from email.parser import Parser
from pathlib import Path

try:
    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name
    from packaging.version import Version
except ImportError:  # pip's own copy, always there where pip is
    from pip._vendor.packaging.requirements import Requirement  # type: ignore[no-redef]
    from pip._vendor.packaging.utils import canonicalize_name  # type: ignore[no-redef]
    from pip._vendor.packaging.version import Version  # type: ignore[no-redef]

# Debian bookworm: CPython 3.11, glibc 2.36 (manylinux up to 2_36).
PYTHON = "3.11"
GLIBC = (2, 36)


def environment(machine: str) -> dict[str, str]:
    return {
        "implementation_name": "cpython",
        "implementation_version": PYTHON + ".2",
        "os_name": "posix",
        "platform_machine": machine,
        "platform_python_implementation": "CPython",
        "platform_release": "",
        "platform_system": "Linux",
        "platform_version": "",
        "python_full_version": PYTHON + ".2",
        "python_version": PYTHON,
        "sys_platform": "linux",
        "extra": "",
    }


def installable(wheel: Path, machine: str) -> bool:
    """Whether the target can install this wheel, by the tags in its name."""
    _, _, python, abi, platform = wheel.stem.rsplit("-", 4)
    if platform == "any":
        return abi == "none" and any(p in ("py3", "cp311", "py311") for p in python.split("."))
    if not ({"cp311"} & set(python.split(".")) or abi == "abi3"):
        return False
    for tag in platform.split("."):
        old = {"manylinux2014": (2, 17), "manylinux2010": (2, 12), "manylinux1": (2, 5)}
        found = re.fullmatch(r"(manylinux2014|manylinux2010|manylinux1)_(\w+)", tag)
        if found and found.group(2) == machine and old[found.group(1)] <= GLIBC:
            return True
        found = re.fullmatch(r"manylinux_(\d+)_(\d+)_(\w+)", tag)
        if found and found.group(3) == machine and (int(found[1]), int(found[2])) <= GLIBC:
            return True
    return False


def metadata(wheel: Path) -> tuple[str, Version, list[str]]:
    with zipfile.ZipFile(wheel) as archive:
        name = next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
        meta = Parser().parsestr(archive.read(name).decode())
    requires = meta.get_all("Requires-Dist") or []
    return canonicalize_name(meta["Name"]), Version(meta["Version"]), requires


def unmarked(req: Requirement) -> str:
    extras = f"[{','.join(sorted(req.extras))}]" if req.extras else ""
    return f"{req.name}{extras}{req.specifier}"


def missing(folder: Path, machine: str) -> tuple[list[str], list[str]]:
    """The requirements no wheel satisfies, and the wheels the target cannot install."""
    env = environment(machine)
    wheels = sorted(folder.glob("*.whl"))
    have: dict[str, Version] = {}
    wrong = [w.name for w in wheels if not installable(w, machine)]
    needs: list[Requirement] = []
    for wheel in wheels:
        name, version, requires = metadata(wheel)
        if name in have:
            wrong.append(f"{wheel.name} (a second {name})")
        have[name] = version
        for text in requires:
            req = Requirement(text)
            if req.marker is None or req.marker.evaluate(env):
                needs.append(req)
    # Without their markers: pip would judge them on this machine again, and skip them.
    lacking = sorted(
        {
            req.name
            + (f"[{','.join(sorted(req.extras))}]" if req.extras else "")
            + str(req.specifier)
            for req in needs
            if canonicalize_name(req.name) not in have
            or not req.specifier.contains(have[canonicalize_name(req.name)], prereleases=True)
        }
    )
    return lacking, wrong


def main(argv: list[str]) -> int:
    machine, folder, pip_args = argv[0], Path(argv[1]), argv[3:]
    assert machine in ("aarch64", "x86_64") and argv[2] == "--", __doc__
    for _ in range(5):  # each round downloads what the last one's wheels asked for
        lacking, wrong = missing(folder, machine)
        if wrong:
            print(f"wheels.py: not installable on {machine}: {', '.join(wrong)}", file=sys.stderr)
            return 1
        if not lacking:
            print(f"wheels.py: {len(list(folder.glob('*.whl')))} wheels, complete for {machine}")
            return 0
        print(f"wheels.py: {machine} also needs {', '.join(lacking)}", flush=True)
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "-q", "-d", str(folder), *pip_args, *lacking],
            check=True,
        )
    print(f"wheels.py: still missing for {machine}: {', '.join(lacking)}", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
