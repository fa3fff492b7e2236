"""The cable-routing drawing (``cable-routing.svg``): the case seen from above, from the model.

Drawn: the case's walls and the bay, the face's outline and the ledge's notches, the posts,
the motor's mount, the Pi (with its connectors), the Pico, the perfboard, the index sensor,
the button and the openings, the sensors' small boards (the two I2C multiplexers, the
CD74HC4067, the ADS1115) on their standoffs, each square's hall switch and LED with the LED
chain in the config's order, and every cable's path of ``bay.cable_paths``. Standard library
only (beside the model), so tests compare it with the committed hardware/cable-routing.svg.
"""

from __future__ import annotations

from xml.sax.saxutils import escape

from orbito_cad.board import bay
from orbito_cad.board import layout as geo
from orbito_cad.board.face import led_centre
from orbito_cad.board.frame import centre_posts, mount_leg_points
from orbito_cad.board.gearing import index_sensor_xy
from orbito_cad.board.params import PARAMS, Params
from orbito_hw.hw.facts import BoardFacts
from orbito_hw.hw.tmag_chip import TmagConfig, square_channel
from orbito_hw.rules.squares import SQUARE_NAMES, SQUARES

SCALE = 3.2  # px per mm
MARGIN = 60  # px round the case
LEGEND_W = 300  # px beside it
COLOURS = (
    "#d62728", "#1f77b4", "#ff7f0e", "#9467bd", "#8c564b", "#2ca02c", "#e377c2", "#17becf",
    "#bcbd22", "#7f7f7f", "#4e342e", "#ad1457", "#00838f", "#558b2f", "#283593", "#ef6c00",
)  # fmt: skip


def svg(config: BoardFacts, p: Params = PARAMS) -> str:
    half = p.case_w / 2
    size = 2 * half * SCALE + 2 * MARGIN

    def at(x: float, y: float) -> str:
        return f"{MARGIN + (x + half) * SCALE:.1f},{MARGIN + (half - y) * SCALE:.1f}"

    def polyline(points: list[tuple[float, float]], style: str) -> str:
        return f'<polyline points="{" ".join(at(x, y) for x, y in points)}" fill="none" {style}/>'

    def xy(x: float, y: float) -> tuple[float, float]:
        return (MARGIN + (x + half) * SCALE, MARGIN + (half - y) * SCALE)

    def rect(cx: float, cy: float, w: float, d: float, style: str) -> str:
        x, y = xy(cx - w / 2, cy + d / 2)
        return (f'<rect x="{x:.1f}" y="{y:.1f}" width="{w * SCALE:.1f}" '
                f'height="{d * SCALE:.1f}" {style}/>')  # fmt: skip

    def circle(cx: float, cy: float, r: float, style: str) -> str:
        x, y = xy(cx, cy)
        return f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{r * SCALE:.1f}" {style}/>'

    def text(cx: float, cy: float, words: str, size: int = 11, anchor: str = "middle") -> str:
        x, y = xy(cx, cy)
        return (f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" text-anchor="{anchor}">'
                f"{escape(words)}</text>")  # fmt: skip

    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{size + LEGEND_W:.0f}" '
        f'height="{size:.0f}" font-family="sans-serif">',
        f'<rect width="{size + LEGEND_W:.0f}" height="{size:.0f}" fill="white"/>',
        f'<text x="{MARGIN}" y="30" font-size="18">orbito-hw: cable routing, the case seen '
        "from above (face off)</text>",
        rect(0, 0, p.case_w, p.case_w, 'fill="#eceff1" stroke="#455a64" stroke-width="2"'),
        rect(0, 0, 2 * bay.inner(p), 2 * bay.inner(p), 'fill="white" stroke="#455a64"'),
        rect(0, 0, p.face_w, p.face_w, 'fill="none" stroke="#90a4ae" stroke-dasharray="6 4"'),
        text(0, p.face_w / 2 - 5, "the face's edge (dashed), on the ledge", 10),
    ]
    mount = p.motor_w + p.mount_margin
    out.append(rect(0, 0, mount, mount, 'fill="#cfd8dc" stroke="#607d8b"'))
    out.append(rect(0, 0, p.motor_w, p.motor_w, 'fill="#616161" stroke="#212121"'))
    out.append(text(0, 0, "motor under its mount", 11))
    for x, y in mount_leg_points(p):
        out.append(rect(x, y, p.mount_leg, p.mount_leg, 'fill="#607d8b"'))
    for side in geo.sides():
        out.append(circle(*side.crank_axis(p), p.post_d / 2, 'fill="#9e9e9e"'))
    for x, y, r in centre_posts(p):
        out.append(circle(x, y, r, 'fill="#455a64"'))
    ix, iy = index_sensor_xy(p)
    out.append(rect(ix, iy, 5, 5, 'fill="#212121"'))
    out.append(text(ix, iy - 7, "index sensor", 10))
    for name, (cx, cy), (w, d) in (
        ("Raspberry Pi 4 B", bay.pi_xy(p), (p.pi_w, p.pi_d)),
        ("Pico", bay.pico_xy(p), (p.pico_l, p.pico_w)),
        ("perfboard: driver, buck, 74AHCT125, fuse", bay.board_xy(p), (p.board_w, p.board_d)),
    ):
        out.append(rect(cx, cy, w, d, 'fill="#c8e6c9" stroke="#2e7d32" fill-opacity="0.8"'))
        out.append(text(cx, cy, name, 11))
    for b in bay.small_boards(p):
        out.append(rect(*b.centre, *b.size, 'fill="#e1bee7" stroke="#6a1b9a"'))
        words = b.name.replace("I2C multiplexer", "mux")
        out.append(text(b.centre[0], b.centre[1], words, 9))
    for x, y in bay.small_holes(p):
        out.append(circle(x, y, p.standoff_d / 2, 'fill="none" stroke="#6a1b9a"'))
    header = bay.on_pi(7.1, p.pi_header_v, p), bay.on_pi(57.9, p.pi_header_v, p)
    (hx0, hy), (hx1, _) = header
    out.append(rect((hx0 + hx1) / 2, hy, abs(hx1 - hx0), 5, 'fill="#1b5e20"'))
    out.append(text((hx0 + hx1) / 2, hy - 8, "40-pin header", 9))
    for u, v, label in ((p.pi_w, p.pi_usb_v[0], "USB"), (p.pi_w, p.pi_usb_v[1], "USB")):
        x, y = bay.on_pi(u, v, p)
        out.append(text(x + 2, y, label, 9, "start"))
    for o in bay.openings(p):
        i = bay.inner(p) + p.case_wall / 2
        x, y = {"back": (o.at, i), "front": (o.at, -i), "right": (i, o.at),
                "left": (-i, o.at)}[o.wall]  # fmt: skip
        w, d = (o.w, p.case_wall + 2) if o.wall in ("back", "front") else (p.case_wall + 2, o.w)
        out.append(rect(x, y, w, d, 'fill="#ffcc80" stroke="#e65100"'))
        dx, dy = {"back": (0, 8), "front": (0, -11), "right": (5, 0), "left": (-5, 0)}[o.wall]
        anchor = {"right": "start", "left": "end"}.get(o.wall, "middle")
        out.append(text(x + dx, y + dy, o.name, 10, anchor))
    for name, (x, y) in bay.notches(p):
        out.append(rect(x, y, p.cable_notch, p.ledge, 'fill="#ffe082" stroke="#ff8f00"'))
        out.append(text(x, y + (6 if y > 0 else -9), f"notch: {name}", 10))
    for s in SQUARES:
        x, y = geo.square_centre(s, p)
        out.append(rect(x, y, p.hall_w, p.hall_d, 'fill="#1f77b4"'))
        out.append(text(x, y + 4, SQUARE_NAMES[s], 10))
        out.append(circle(*led_centre(s, p), p.led_d / 2, 'fill="none" stroke="#ff7f0e"'))
    channels = TmagConfig().channels
    for s in SQUARES:
        mux, _ = square_channel(channels[s])
        route = bay.sensor_route(s, mux, p)
        out.append(polyline(route, 'stroke="#6a1b9a" stroke-width="1" stroke-dasharray="2 3"'))
        out.append(circle(*route[1], 1.2, 'fill="#6a1b9a"'))
    chain = [led_centre(s, p) for s in config.lights.order]
    out.append(polyline(chain, 'stroke="#ff7f0e" stroke-width="1.5" stroke-dasharray="3 3"'))
    legend = [
        ("#1f77b4", "hall switch under each square (wires to the Pi's header)"),
        ("#ff7f0e", "LED module; dashed: the chain, DOUT to DIN, in lights.order"),
        ("#6a1b9a", "each square's sensor cable (dotted): down at the dot, to its multiplexer"),
    ]
    for n, (name, path) in enumerate(bay.cable_paths(p).items()):
        colour = COLOURS[n % len(COLOURS)]
        out.append(polyline(path, f'stroke="{colour}" stroke-width="3" stroke-opacity="0.8"'))
        legend.append((colour, name))
    y0 = MARGIN
    x0 = size + 10
    for n, (colour, words) in enumerate(legend):
        y = y0 + 22 * n
        out.append(f'<rect x="{x0:.0f}" y="{y - 9}" width="18" height="6" fill="{colour}"/>')
        out.append(f'<text x="{x0 + 24:.0f}" y="{y}" font-size="11">{escape(words)}</text>')
    notes = [
        "Cables run on the floor under the drive (nothing",
        "below the gears moves), clear of the posts; the",
        "face's wires drop through the ledge's notches.",
        "The Pico's cable plugs into the Pi's USB inside.",
    ]
    for n, line in enumerate(notes):
        y = y0 + 22 * len(legend) + 20 + 15 * n
        out.append(f'<text x="{x0:.0f}" y="{y}" font-size="11">{escape(line)}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"
