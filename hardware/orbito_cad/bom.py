"""The bill of materials, from the model and the config (written out by build)."""

from __future__ import annotations

from orbito_cad.params import PARAMS, Params
from orbito_hw.app.config import Config


def bom(config: Config, p: Params = PARAMS) -> str:
    return "# BOM\n"
