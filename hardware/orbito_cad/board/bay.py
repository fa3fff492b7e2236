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
- the **button** and the status LED in the front wall, the **DC jack** in the left wall;
- the sensors' small boards (``small_boards``) on the right: the two I2C multiplexers
  (0x71 in front of 0x70) along the right wall between the right crank's post and the wall,
  the CD74HC4067 in the front right corner and the ADS1115 beside it, all low on the floor
  under the drive (nothing below the gears moves) and under the button's body.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import pairwise

from orbito_cad.board.frame import centre_posts, mount_leg_points
from orbito_cad.board.gearing import index_sensor_xy
from orbito_cad.board.layout import sides as geo_sides
from orbito_cad.board.layout import square_centre
from orbito_cad.board.params import PARAMS, Params
from orbito_hw.rules.squares import INNER_RING

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
class SmallBoard:
    """A small board on the floor: its centre and its size along x and along y."""

    name: str
    centre: Point
    size: Point

    @property
    def key(self) -> str:
        """Its name in the assembly: ``i2c_multiplexer_0x70``, ``cd74hc4067``, ..."""
        return self.name.lower().replace(" ", "_")


def small_boards(p: Params = PARAMS) -> list[SmallBoard]:
    """The sensors' boards: the multiplexers turned along the right wall, 0x70 nearest the
    Pi's header (the bus comes in there and goes on to 0x71, then the ADS1115), the
    CD74HC4067 in the front right corner and the ADS1115 left of it, its analog input beside
    the CD74HC4067's COM. The multiplexers come first, in the config's order (0x70, 0x71:
    ``tmag.muxes``)."""
    i = inner(p)
    ml, mw = p.mux_size
    al, aw = p.amux_size
    dl, dw = p.adc_size
    mux_x = i - mw / 2 - 2.0
    amux = (i - al / 2 - 1.0, -i + aw / 2 + 1.0)
    return [
        SmallBoard("I2C multiplexer 0x70", (mux_x, 16.0), (mw, ml)),
        SmallBoard("I2C multiplexer 0x71", (mux_x, -40.0), (mw, ml)),
        SmallBoard("CD74HC4067", amux, (al, aw)),
        SmallBoard("ADS1115", (20.0, -i + dw / 2 + 1.0), (dl, dw)),
    ]


def small_holes(p: Params = PARAMS) -> list[Point]:
    """Two holes of each small board, on a diagonal, ``small_hole_in`` from its edges."""
    out = []
    for b in small_boards(p):
        (x, y), (sx, sy) = b.centre, b.size
        dx, dy = sx / 2 - p.small_hole_in, sy / 2 - p.small_hole_in
        out += [(x - dx, y - dy), (x + dx, y + dy)]
    return out


CABLE_SLACK = 60.0  # mm on each sensor cable: the plugs' bends and dressing it down
CABLE_LENGTHS = (100.0, 200.0, 300.0, 500.0)  # STEMMA QT / Qwiic cables as sold


def sensor_drop(square: int, p: Params = PARAMS) -> tuple[Point, float]:
    """Where a square's sensor cable leaves the face downwards, and how far it runs under the
    face to get there (mm). An outer square's cable goes down between its side's two rails:
    a corner's at once (nothing turns under a corner); an edge square's first runs along its
    channel past the end of the yoke's sweep (the middle of the side, under the edge squares).
    An inner square's runs under the centre plate to its nearest post and down it (the
    central gear fills the middle under the plate)."""
    x, y = square_centre(square, p)
    if square in INNER_RING:
        px, py, _ = min(centre_posts(p), key=lambda q: (q[0] - x) ** 2 + (q[1] - y) ** 2)
        return (px, py), ((px - x) ** 2 + (py - y) ** 2) ** 0.5
    if abs(abs(x) - abs(y)) < 1e-6:
        return (x, y), 0.0
    yoke = p.crank_r + (p.collar_d + p.print_clearance) / 2 + p.yoke_wall
    reach = yoke + p.running_gap + 1.5  # and a bundle's half
    if abs(y) > abs(x):  # along a side running in x
        d = reach if x > 0 else -reach
        return (d, y), abs(d - x)
    d = reach if y > 0 else -reach
    return (x, d), abs(d - y)


def mount_clear(p: Params = PARAMS) -> float:
    """How far from the board's centre (along x or y) a cable on the floor keeps clear of the
    motor mount's legs in their sockets (case.py's), with a bundle's half and a millimetre."""
    boss = p.mount_leg + 2 * p.fit + 4 * p.min_wall
    return max(abs(y) for _, y in mount_leg_points(p)) + boss / 2 + 1.5 + 1.0


def road(mux: int, p: Params = PARAMS) -> float:
    """The line along the floor (its y) that the sensor cables of multiplexer ``mux`` follow
    to it: ``mount_clear`` from the centre, on the multiplexer's side (the motor and its
    mount fill the floor's middle)."""
    my = small_boards(p)[mux].centre[1]
    return mount_clear(p) if my >= 0 else -mount_clear(p)


def sensor_route(square: int, mux: int, p: Params = PARAMS) -> list[Point]:
    """A square's sensor cable seen from above: from under the square to where it goes down
    (``sensor_drop``), then on the floor out to ``mount_clear`` if it came down nearer the
    middle, across to its multiplexer's ``road`` and along it to the multiplexer's side
    facing the board's centre."""
    (dx, dy), _ = sensor_drop(square, p)
    board = small_boards(p)[mux]
    y, clear = road(mux, p), mount_clear(p)
    x = dx if abs(dx) >= clear else (clear if dx > 0 else -clear)
    return [square_centre(square, p), (dx, dy), (x, dy), (x, y),
            (board.centre[0] - board.size[0] / 2, y)]  # fmt: skip


def sensor_cable(square: int, mux: int, p: Params = PARAMS) -> float:
    """A square's sensor cable to multiplexer ``mux`` (0: the first, 0x70), mm: its run under
    the face, down to the floor, along the floor by ``sensor_route`` and ``CABLE_SLACK``."""
    route = sensor_route(square, mux, p)
    floor = sum(abs(a[0] - b[0]) + abs(a[1] - b[1]) for a, b in pairwise(route[1:]))
    _, run = sensor_drop(square, p)
    return run + (p.z_face - p.case_floor) + floor + CABLE_SLACK


def cable_length(mm: float) -> float:
    """The shortest cable sold that reaches ``mm``."""
    return next((c for c in CABLE_LENGTHS if c >= mm), CABLE_LENGTHS[-1])


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
    boards = {b.name: b for b in small_boards(p)}
    # the first multiplexer (0x70) nearest the Pi, the second (0x71) in front of it
    mux1, mux0 = boards["I2C multiplexer 0x70"].centre, boards["I2C multiplexer 0x71"].centre
    mux1_half = boards["I2C multiplexer 0x70"].size[1] / 2
    mux0_half = boards["I2C multiplexer 0x71"].size[1] / 2
    amux, adc = boards["CD74HC4067"].centre, boards["ADS1115"].centre
    amux_half, amux_w = boards["CD74HC4067"].size[0] / 2, boards["CD74HC4067"].size[1] / 2
    adc_half, adc_w = boards["ADS1115"].size[1] / 2, boards["ADS1115"].size[0]
    # the right corridor: a bundle's half (1.5 mm) clear of the right crank's post, inside
    # the multiplexers; crossing to it in front of the 0x71 multiplexer
    right = max((s.crank_axis(p) for s in geo_sides()), key=lambda a: a[0])
    corridor = right[0] + p.post_d / 2 + 1.5
    corridor_y = mux0[1] - mux0_half - 8.0
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
        "button, CD74HC4067 S0-S3": [(p.button_x, -i + p.button_d), (p.button_x, corridor_y),
                                     (corridor, corridor_y), (corridor, pi0[1] - 3),
                                     (header[0], pi0[1] - 3), header],
        "sensors' bus: Pi to 0x70": [header, (header[0], pi0[1] - 1), (mux1[0], pi0[1] - 1),
                                     (mux1[0], mux1[1] + mux1_half)],
        "0x70 on to 0x71": [(mux1[0] + 5, mux1[1] - mux1_half), (mux1[0] + 5, mux0[1] + mux0_half)],
        "0x71 on to the ADS1115": [(mux0[0], mux0[1] - mux0_half), (mux0[0], corridor_y + 3),
                                   (adc[0], corridor_y + 3), (adc[0], adc[1] + adc_half)],
        "CD74HC4067 COM to ADS1115 A0": [(amux[0] - amux_half, amux[1]),
                                         (adc[0] + adc_w / 2, adc[1])],
        "CD74HC4067 S0-S3": [(amux[0], amux[1] + amux_w), (amux[0], corridor_y),
                             (corridor, corridor_y)],
    }  # fmt: skip
