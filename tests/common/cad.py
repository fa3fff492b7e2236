"""The board's printed parts built once for a whole test run, and the assembly and its meshes
made from them (issue 35).

Building ``whole.PRINTED`` takes 15-20 s (the case alone half of it), and four test modules
need the same parts: the first to ask builds them and writes each in OpenCascade's binary BRep
(every number kept exactly: a part read back meshes to the same STL, byte for byte, as the part
built afresh; the text BRep rounds, and does not). The files are in the run's own temporary
folder, shared by every pytest-xdist worker under a lock, so a worker that asks while another
builds waits for it instead of building them too (two builds at once on two cores take as long
as one after the other). A run starts with an empty folder: nothing is kept from a run to the
next, so a changed part is never read stale.

Every caller gets its own copy read from the files, never a shape another module has used: a
shape keeps the triangulation it was last meshed with, and what a test measures must not hang
on what ran before it.

Import it only after ``needs.modules("build123d")``.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import pickle
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from build123d import Part
from OCP.BinTools import BinTools  # type: ignore[import-untyped]
from OCP.TopoDS import TopoDS_Shape  # type: ignore[import-untyped]
from orbito_cad.assembly import whole
from orbito_cad.assembly.placed import Placed
from orbito_cad.board.params import PARAMS, Params
from orbito_cad.make.printing import Print


def run_folder(factory: pytest.TempPathFactory) -> Path:
    """The run's temporary folder, the same for every xdist worker (each has its own
    ``popen-gwN`` under it)."""
    base = factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


@contextmanager
def _locked(path: Path) -> Iterator[None]:
    with path.open("a") as held:
        fcntl.flock(held, fcntl.LOCK_EX)  # released when the file closes
        yield


def _key(p: Params) -> str:
    return hashlib.sha256(repr(p).encode()).hexdigest()[:16]


def _write(part: Part, path: Path) -> None:
    if not isinstance(part, Part) or part.label or part.color is not None or part.children:
        # only a plain solid comes back the same from the file; anything more is not cached
        raise TypeError(f"{path.stem}: a {type(part).__name__} is not a plain Part")
    BinTools.Write_s(part.wrapped, str(path))


def _read(path: Path) -> Part:
    shape = TopoDS_Shape()
    BinTools.Read_s(shape, str(path))
    return Part(shape)


def printed(factory: pytest.TempPathFactory, p: Params = PARAMS) -> dict[str, Part]:
    """Every part of ``whole.PRINTED`` built from ``p``, by name: a fresh copy for the caller,
    built once for the run."""
    folder = run_folder(factory) / f"cad-parts-{_key(p)}"
    with _locked(run_folder(factory) / "cad-parts.lock"):
        if not (folder / "done").exists():
            folder.mkdir(exist_ok=True)
            for name, make in whole.PRINTED.items():
                _write(make(p), folder / f"{name}.brep")
            (folder / "done").touch()
    return {name: _read(folder / f"{name}.brep") for name in whole.PRINTED}


def built(factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Print]]:
    """``orbito-hw cad build`` run once for the run, of the parts built once (``printed``),
    shared by every worker as the parts are: its folder, and what the print table says of
    each printed part and the tolerance test, as the build measured them on the STLs it
    wrote (``build.export_printed``). The build takes a minute; a worker that asks while
    another builds waits for it."""
    from orbito_cad.make import build

    from orbito_hw.cli import main

    folder = run_folder(factory) / f"cad-build-{_key(PARAMS)}"
    with _locked(run_folder(factory) / "cad-build.lock"):
        if not (folder / "done").exists():
            parts = printed(factory)
            measured: dict[str, Print] = {}
            export = build.export_printed

            def kept(*args: Any, **kwargs: Any) -> dict[str, Print]:
                measured.update(export(*args, **kwargs))
                return measured

            with prebuilt(parts), pytest.MonkeyPatch.context() as patch:
                patch.setattr(build, "export_printed", kept)
                assert main(["cad", "build", str(folder)]) == 0
            (folder / "prints.pickle").write_bytes(pickle.dumps(measured))
            (folder / "done").touch()
    prints: dict[str, Print] = pickle.loads((folder / "prints.pickle").read_bytes())
    return folder, prints


def assembly(factory: pytest.TempPathFactory, p: Params = PARAMS) -> list[Placed]:
    """``whole.assembly(p)``, of parts built once for the run."""
    return whole.assembly(p, printed(factory, p))


@contextmanager
def prebuilt(built: Mapping[str, Any], p: Params = PARAMS) -> Iterator[None]:
    """Within it, ``whole.PRINTED``'s makers give the parts ``built`` (from ``p``) rather than
    building them again; for any other parameters they build as before."""
    with pytest.MonkeyPatch.context() as patch:
        for name, make in list(whole.PRINTED.items()):

            def made(q: Params = PARAMS, name: str = name, make: Any = make) -> Any:
                return built[name] if q == p else make(q)

            patch.setitem(whole.PRINTED, name, made)
        yield


def meshes(placed: list[Placed]) -> dict[str, Any]:
    """Each solid of ``placed`` as a manifold3d mesh, by name (``mesh.manifold``)."""
    from orbito_cad.parts import mesh

    return {x.name: mesh.manifold(x.solid) for x in placed}


# --- the swept-solid check in parts ------------------------------------------------------------
POSES = 361  # one place forward, the first at rest and the last at its end (0.28 deg apart)
# Each way's poses are checked in this many tests, so that no one test takes long and the two
# ways, in two modules (test_mechanism, test_mechanism_back), run on two workers at once.
SWEEP_PARTS = 4


def swept(way: str) -> list[float]:
    """The places one sweep moves through: one place ``forward``, or ``back`` from its end."""
    from orbito_cad.models import motion

    places = motion.forward(POSES)
    if way == "back":
        return [1.0, *reversed(places)]  # the rings at the end of a place, turned back
    if way != "forward":
        raise ValueError(f"{way!r}: a sweep goes forward or back")
    return places


def sweep_part(way: str, part: int) -> range:
    """The indices into ``swept(way)`` that test ``part`` (of ``SWEEP_PARTS``) checks: one run
    of consecutive poses; the parts together are every pose once."""
    count = len(swept(way))
    return range(part * count // SWEEP_PARTS, (part + 1) * count // SWEEP_PARTS)


def check_sweep_part(placed: list[Placed], meshes: dict[str, Any], way: str, part: int) -> None:
    """Test ``part`` of the ``way`` sweep: every one of its poses checked, no two solids sharing
    volume unless they touch by design, every gap held (``sweep.sweep``'s limits)."""
    from orbito_cad.models import sweep

    at = sweep_part(way, part)
    found = sweep.sweep(placed, swept(way), meshes=meshes, measure=0.0, at=at)
    assert found.poses == len(at) > 0
    assert found.overlaps == []
    assert found.close == []
