"""The case's plan in numbers: where the fixed frame holds the face, the centre plate and the
motor's mount.

The face is screwed down at its four corners (``face_screw_points``) onto bosses of the case's
ledge, which stands back round each side's middle where the yoke swings out under it
(``yoke_gap``); the centre plate stands on four posts (``centre_posts``), the motor's mount
on four legs (``mount_leg_points``). The case and the face are cut round these points
(``parts/case.py``, ``parts/track.py``), the cable drawing avoids them (``make/routing.py``)
and the cables' paths go round them (``bay.py``): pure Python, no solid.
"""

from __future__ import annotations

from orbito_cad.board.gearing import yoke_half_width
from orbito_cad.board.params import PARAMS, Params


def face_screw_points(p: Params = PARAMS) -> list[tuple[float, float]]:
    """Where the face is screwed down onto the case's corner bosses (M3 self-tapping):
    near each corner, on the face's rim between the channel and the edge."""
    c = (p.face_w / 2 + 1.5 * p.pitch + p.channel_w / 2) / 2
    return [(sx * c, sy * c) for sx in (-1, 1) for sy in (-1, 1)]


def face_boss_r(p: Params = PARAMS) -> float:
    """The corner bosses' radius round a face screw's pilot hole."""
    return p.screw_tap_d / 2 + 2 * p.min_wall


def yoke_gap(p: Params = PARAMS) -> float:
    """Half the ledge's gap round each side's middle: the yoke reaches out under the ledge
    there, and travels the crank's throw either way along the side."""
    return p.crank_r + yoke_half_width(p) + p.yoke_wall + 2 * p.running_gap


def centre_posts(p: Params = PARAMS) -> list[tuple[float, float, float]]:
    """The centre plate's four posts: (x, y, radius), on the diagonals inside the inner slots,
    clear of the central gear's teeth, the crank arms and the bars' rails. Each stands on the
    case's floor up to ``centre_post_top`` (the plate's underside)."""
    # the screw's head sinks into the plate inside the channel's inner wall
    wall = 1.5 * p.pitch - p.channel_w / 2
    at = wall - p.centre_screw_head_d / 2 - 0.3 - p.min_wall
    r = p.centre_post_d / 2
    return [(sx * at, sy * at, r) for sx in (-1, 1) for sy in (-1, 1)]


def centre_post_top(p: Params = PARAMS) -> float:
    """The centre plate's posts end under the plate: level with the face's underside."""
    return p.z_face


def mount_leg_points(p: Params = PARAMS) -> list[tuple[float, float]]:
    """The motor mount's four legs, at the corners of its plate."""
    c = (p.motor_w + p.mount_margin) / 2 - p.mount_leg / 2
    return [(sx * c, sy * c) for sx in (-1, 1) for sy in (-1, 1)]
