"""Where the electronics sit in the case, where their connectors meet its walls, and the
paths their cables take: plain numbers, read by ``case`` (standoffs and openings) and
``routing`` (the cable-routing drawing).

Below the face the drive fills the middle (the motor and its mount, the four crank posts, the
centre plate's four posts); the electronics stand in the bay between those and the walls:

- the **Pi** in the back right corner, turned half round, so its USB-C power and micro-HDMI
  face the back wall and its micro-SD card the right wall; its USB-A and Ethernet face into
  the case, where the Pico's cable plugs in;
- the **Pico** at the back left, its USB end towards the Pi;
- the **perfboard** (driver, buck, level shifter, fuse) at the front left, by the motor, the
  index sensor, the DC jack and the LED chain's first pixel (a1);
- the **button** and the status LED in the front wall, the **DC jack** in the left wall.
"""

from __future__ import annotations

from dataclasses import dataclass

from orbito_cad.board.frame import centre_posts
from orbito_cad.board.gearing import index_sensor_xy
from orbito_cad.board.params import PARAMS, Params

Point = tuple[float, float]


def inner(p: Params = PARAMS) -> float:
    """Half the case's inside below the face: the bay's walls."""
    return p.case_w / 2 - p.case_wall


SD_OUT = 2.5  # how far a micro-SD card stands out of the Pi's edge: into its slot in the wall


def pi_corner(p: Params = PARAMS) -> Point:
    """The Pi's board corner at u = v = 0 (the SD card's end, the USB-C edge): the back right
    corner of its outline, the board turned half round."""
    return (inner(p) - SD_OUT + 0.5, inner(p) - 1.0)


def on_pi(u: float, v: float, p: Params = PARAMS) -> Point:
    """A point of the Pi's drawing (u, v) in the case's frame."""
    x, y = pi_corner(p)
    return (x - u, y - v)


def pi_box(p: Params = PARAMS) -> tuple[Point, Point]:
    """The Pi's board outline: (min corner, max corner)."""
    (x0, y0), (x1, y1) = on_pi(p.pi_w, p.pi_d, p), on_pi(0, 0, p)
    return ((x0, y0), (x1, y1))


def pi_xy(p: Params = PARAMS) -> Point:
    (x0, y0), (x1, y1) = pi_box(p)
    return ((x0 + x1) / 2, (y0 + y1) / 2)


def pi_holes(p: Params = PARAMS) -> list[Point]:
    u0, v0 = p.pi_hole_at
    du, dv = p.pi_holes
    return [on_pi(u0 + i * du, v0 + j * dv, p) for i in (0, 1) for j in (0, 1)]


def pico_xy(p: Params = PARAMS) -> Point:
    """The Pico at the back left, its long side along the back wall, its USB end (+x)
    pointing at the Pi's USB ports."""
    return (-p.pico_l / 2 - 20.0, inner(p) - p.pico_w / 2 - 12.0)


def pico_holes(p: Params = PARAMS) -> list[Point]:
    x, y = pico_xy(p)
    across, along = p.pico_holes
    return [(x + i * along / 2, y + j * across / 2) for i in (-1, 1) for j in (-1, 1)]


def board_xy(p: Params = PARAMS) -> Point:
    """The perfboard in the front left corner."""
    return (-inner(p) + p.board_w / 2 + 2, -inner(p) + p.board_d / 2 + 2)


def board_holes(p: Params = PARAMS) -> list[Point]:
    x, y = board_xy(p)
    hx, hy = p.board_w - 8, p.board_d - 8
    return [(x + i * hx / 2, y + j * hy / 2) for i in (-1, 1) for j in (-1, 1)]


@dataclass(frozen=True, slots=True)
class Opening:
    """A hole through a wall: its centre along the wall (``at``), its height above the case's
    bottom (``z``, the centre), its width and height; ``wall`` is "back", "front", "left" or
    "right"."""

    name: str
    wall: str
    at: float
    z: float
    w: float
    h: float


def openings(p: Params = PARAMS) -> list[Opening]:
    """Every opening in the case's walls, from the parts' positions and the Pi's drawing."""
    board_top = p.case_floor + p.standoff_h + p.pi_board_t
    usb_c = on_pi(p.pi_usb_c_u, 0, p)[0]
    hdmi = [on_pi(u, 0, p)[0] for u in p.pi_hdmi_u]
    sd = on_pi(0, p.pi_sd_v, p)[1]
    button_z = p.case_floor + (p.z_face - p.case_floor) / 2
    return [
        # a USB-C plug's overmould is about 12 x 6.5 mm; the socket's centre 1.6 mm over
        # the board
        Opening("Pi USB-C power", "back", usb_c, board_top + 1.6, 13.0, 7.5),
        Opening(
            "Pi micro-HDMI",
            "back",
            sum(hdmi) / 2,
            board_top + 1.6,
            abs(hdmi[1] - hdmi[0]) + 12.0,
            8.0,
        ),
        # the card sits under the board: room for a fingertip to pull it
        Opening("Pi micro-SD card", "right", sd, p.case_floor + p.standoff_h - 0.7, 15.0, 5.0),
        Opening("DC jack", "left", -30.0, p.case_floor + p.jack_z, p.jack_d, p.jack_d),
        Opening("Orbito button", "front", p.button_x, button_z, p.button_d, p.button_d),
        Opening(
            "status LED",
            "front",
            p.button_x + p.button_d + 6,
            button_z,
            p.status_led_hole_d,
            p.status_led_hole_d,
        ),
    ]


def notches(p: Params = PARAMS) -> list[tuple[str, Point]]:
    """Where the face's wires drop through the ledge (the notch's centre on the ledge):
    the squares' sensors at the back right beside the Pi's header, the LED chain's start
    (a1) at the front left over the perfboard's level shifter; clear of the corners' bosses
    and the yokes' gaps."""
    edge = p.face_w / 2 + p.slide - p.ledge / 2
    return [("sensors", (55.0, edge)), ("LEDs", (-55.0, -edge))]


def cable_paths(p: Params = PARAMS) -> dict[str, list[Point]]:
    """Each cable's path seen from above, from end to end, along the floor or the walls:
    clear of the posts and under the drive (nothing below the gears moves)."""
    i = inner(p)
    pi0, _ = pi_box(p)
    ix, iy = index_sensor_xy(p)
    cx, cy, cr = max(centre_posts(p))
    header_y = on_pi(0, p.pi_header_v, p)[1]
    header = on_pi((7.1 + 57.9) / 2, p.pi_header_v, p)
    bx, by = board_xy(p)
    board_n = by + p.board_d / 2  # the perfboard's back edge
    board_e = bx + p.board_w / 2
    px, py = pico_xy(p)
    usb = on_pi(p.pi_w, p.pi_usb_v[0], p)
    (sx, sy), (lx, ly) = (xy for _, xy in notches(p))
    back_row = header_y + 3  # between the centre plate's posts and the crank post
    return {
        "face sensors": [(sx, sy), (sx, header_y + 6), (header[0], header_y + 6), header],
        "centre plate": [(cx + cr, cy + cr), (cx + cr + 3, header_y - 2), header],
        "LED chain DIN": [(lx, ly), (lx, board_n - 6)],
        "motor": [(-p.motor_w / 2, 0.0), (-34.0, -20.0), (-34.0, board_n - 4)],
        "index sensor": [(ix, iy), (ix, by), (board_e - 4, by)],
        "DC jack": [(-i, -30.0), (-i + 12, -30.0), (-i + 12, board_n - 4)],
        "Pico USB": [(px + p.pico_l / 2, py), (usb[0] - 35, usb[1]), usb],
        "Pico to driver": [(px - p.pico_l / 2, py), (-i + 6, py), (-i + 6, board_n - 4)],
        "5 V and GPIO": [(bx, board_n - 4), (-i + 8, board_n + 4), (-i + 8, back_row - 10),
                         (-60.0, back_row), (header[0], back_row), header],
        "button": [(p.button_x, -i + p.button_d), (i - 10, -i + p.button_d),
                   (i - 10, pi0[1] - 3), (header[0], pi0[1] - 3), header],
    }  # fmt: skip
