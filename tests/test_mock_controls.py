"""The simulated board's page controls (mock/page.py) are the real board's, set up whole.

``MockControls`` once skipped ``BoardControls.__init__``: what the parent set there (its
referee, its opponent for the next game) was missing on the child, and whichever parent
method read it failed only when first called.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from orbito_hw.mock.page import MockControls
from orbito_hw.mock.realtime import RealTime
from orbito_hw.rules.squares import parse_square
from orbito_hw.sim.harness import MockRun
from orbito_hw.web.controls import BoardControls


def test_the_mock_controls_set_up_everything_their_parent_does(tmp_path: Path) -> None:
    async def test() -> None:
        run = MockRun(tmp_path)
        controls = MockControls(run, RealTime(run, asyncio.get_running_loop()))
        real = BoardControls(run.referee, run.state_dir, run.settings.first)
        assert set(vars(real)) <= set(vars(controls))
        assert (controls.state_dir, controls.first) == (real.state_dir, real.first)
        # Behaviour as before: a click puts a marble, and the controls follow the
        # controller that runs now, a new one after a power cut.
        controls.lift_or_put(parse_square("b2"))
        assert run.physics.occupancy() == 1 << parse_square("b2")
        run.power_cut()
        assert controls.referee is run.referee

    asyncio.run(test())
