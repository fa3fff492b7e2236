"""``web``: the board's web page. ``web code`` prints the access code its controls need;
``web enabled`` says (exit 0 or 1) whether ``[web]`` is on, for scripts/install.sh."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from orbito_hw.lang import _


def register(sub: Any) -> None:
    p = sub.add_parser("web", help=_("the web page: its access code (web code)"))
    p.add_argument(
        "action",
        choices=["code", "enabled"],
        help=_("code: print the access code; enabled: exit 0 if [web] is on, 1 if not"),
    )
    p.add_argument(
        "--config",
        metavar="PATH",
        help=_("the board's config (default /etc/orbito-hw/config.toml)"),
    )
    p.set_defaults(func=cmd_web)


def cmd_web(args: argparse.Namespace) -> int:
    from orbito_hw.app.config import DEFAULT_PATH, load_config

    config = load_config(args.config or DEFAULT_PATH)
    if args.action == "enabled":
        return 0 if config.web.enabled else 1
    from orbito_hw.web.access import CODE_FILE, access_code

    state_dir = config.board.state_dir
    made = config.web.code is None and not (state_dir / CODE_FILE).exists()
    print(access_code(config.web, state_dir))
    if made:  # say where: a file (maybe a folder) appeared on this machine
        text = _("made a new access code in {path} (board.state_dir)")
        print(f"orbito-hw: {text.format(path=state_dir / CODE_FILE)}", file=sys.stderr)
    return 0
