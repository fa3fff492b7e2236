"""The mechanism in motion, the way back (issue 32): every pose of one place turned back from
its end, as swept solids (manifold3d). test_mechanism.py checks the way forwards; the two are
separate modules so that pytest-xdist (a module per worker) checks both ways at once.

They need the ``cad`` extra; without it they are skipped, except under CI=true, where they
fail (``.ci/run`` installs the extra).
"""

from __future__ import annotations

import pytest

from .common import needs

pytestmark = pytest.mark.cad
needs.modules("build123d", "manifold3d")  # the cad extra: fails under CI=true, skips elsewhere
import manifold3d  # noqa: E402
from orbito_cad.assembly.placed import Placed  # noqa: E402

from .common import cad  # noqa: E402


@pytest.fixture(scope="module")
def assembly(tmp_path_factory: pytest.TempPathFactory) -> list[Placed]:
    return cad.assembly(tmp_path_factory)


@pytest.fixture(scope="module")
def meshes(assembly: list[Placed]) -> dict[str, manifold3d.Manifold]:
    return cad.meshes(assembly)


@pytest.mark.parametrize("part", range(cad.SWEEP_PARTS))
def test_nothing_collides_and_every_gap_holds_at_every_pose_back(
    assembly: list[Placed], meshes: dict[str, manifold3d.Manifold], part: int
) -> None:
    """Every pose of one place turned back from its end (a quarter of them in each test): no
    two solids share volume unless they touch by design, cups keep 0.5 mm from each other
    and every moving part 0.5 mm from every fixed one."""
    cad.check_sweep_part(assembly, meshes, "back", part)
