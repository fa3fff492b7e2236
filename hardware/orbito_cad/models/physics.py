"""The mechanism in a physics engine (MuJoCo): the cups, their fingers and the marbles pushed
through places on the drive's own speed profile.

What is modelled, from ``params`` and ``layout`` (nothing copied): the 12 outer cups as free
bodies on the channel's floor between its walls, each with its four finger holes (four thin
walls each: a square hole as wide as the round one) and its seat (a ring of capsules on which
the marble rests); the 16 marbles as free spheres; the four bars' fingers (capsules, 4 mm) and the
inner disc with its four seats. Every contact between them is real, with friction ``mu``.

What is idealised: the drive train. The gears, cranks, yokes and ramps are stiff, so the bars
and the disc follow the motor's angle exactly (``layout.bar_displacement``, ``bar_lift``,
``disc_angle``) as kinematically driven bodies; the motor's angle follows the step profile of
the project's own planner (``orbito_fw.planner``, as the Pi or the Pico makes the steps) from
the config's ``drive`` table. The torque the motor must give is the power every driven part
takes from the contacts (virtual work: each bar's contact force along its way times its
speed, the disc's contact torque), plus lifting the bars, the drive's friction (the gears' and
yokes' efficiency) and the rotor's inertia, over the motor's speed.
"""

from __future__ import annotations

import functools
import itertools
import math
from dataclasses import dataclass, field

import mujoco
import numpy as np

from orbito_cad.board import layout as geo
from orbito_cad.board.params import PARAMS, Params
from orbito_hw.rules.squares import INNER_RING, OUTER_RING, SQUARE_NAMES, SQUARES

MM = 1e-3
TIMESTEP = 2e-4  # s: half the contacts' time constant; the fingers' play is 0.15 mm
SEAT_CAPSULES = 6  # a seat's rim
WATCH_EVERY = 5  # engine steps between looks at the forces (1 ms)
TORQUE_TIME = 0.002  # s: the rotor's response (about 1 / (2 pi 80 Hz))
WALL_R = 0.3  # mm: the capsules that make a hole's wall and a seat's rim
MU = (0.2, 0.5)  # the friction of PETG on PETG, dry to sticky (issue 32's range)
JITTER = (0.3, 2.0)  # mm, deg: how far a cup or a marble may start off its place
# contact groups (contype = conaffinity): what may touch what
BODY, FINGER, SEAT = 1, 2, 4


@dataclass(frozen=True)
class Drive:
    """The motor and its driver, and the drive's figures from the config."""

    steps_per_place: int = 800
    max_speed: float = 1600.0  # steps/s
    acceleration: float = 4000.0  # steps/s^2
    home_speed: float = 400.0  # steps/s (RingDrive.home)


def _xml(p: Params, mu: float, one_finger: bool = False) -> str:
    """The model's MJCF, in metres."""
    m = MM
    cup_r, cup_h = p.cup_d / 2 * m, p.cup_h * m
    seat_r = p.seat_d / 2 + WALL_R
    ring = 1.5 * p.pitch
    half_w = p.channel_w / 2
    parts = [
        f'<mujoco model="orbito-rings"><option timestep="{TIMESTEP}" gravity="0 0 -9.81" '
        f'cone="elliptic" impratio="10"/>',
        f'<default><geom friction="{mu} 0.005 0.0001" solref="0.004 1" '
        f'solimp="0.95 0.99 0.0001" condim="3"/></default><worldbody>',
        f'<geom name="floor" type="plane" size="0.2 0.2 0.01" contype="{BODY}" '
        f'conaffinity="{BODY}"/>',
    ]
    # the channel's walls: an outer square and an inner one, 6 mm high
    for k, (r_wall, sign) in enumerate(((ring + half_w, 1), (ring - half_w, -1))):
        for i, (dx, dy) in enumerate(((1, 0), (0, 1), (-1, 0), (0, -1))):
            cx, cy = dx * (r_wall + sign * 2) * m, dy * (r_wall + sign * 2) * m
            # the outer walls meet beyond the corners, the inner ones exactly at them
            reach = (r_wall + 4 if sign > 0 else r_wall) * m
            sx, sy = (2 * m, reach) if dx else (reach, 2 * m)
            parts.append(
                f'<geom name="wall{k}{i}" type="box" pos="{cx} {cy} {p.face_pocket / 2 * m}" '
                f'size="{sx} {sy} {p.face_pocket / 2 * m}" contype="{BODY}" conaffinity="{BODY}"/>'
            )
    cup_mass = _cup_mass(p)
    for s in OUTER_RING:
        x, y = geo.square_centre(s, p)
        name = SQUARE_NAMES[s]
        parts.append(f'<body name="cup_{name}" pos="{x * m} {y * m} 0"><freejoint/>')
        parts.append(
            f'<geom name="cup_{name}" type="cylinder" size="{cup_r} {cup_h / 2}" '
            f'pos="0 0 {cup_h / 2}" mass="{cup_mass}" contype="{BODY}" conaffinity="{BODY}"/>'
        )
        # each finger hole's wall as four thin boxes: a square hole as wide as the round
        # one, so a finger pushing along or across meets a flat wall (a ring of capsules
        # let a finger wedge between two of them)
        half = p.finger_hole_d / 2
        wall_z = p.finger_hole_depth / 2 * m
        for hx, hy in geo.cup_holes(p):
            for dx, dy in ((1, 0), (0, 1), (-1, 0), (0, -1)):
                cx, cy = (hx + dx * (half + WALL_R)) * m, (hy + dy * (half + WALL_R)) * m
                size = (WALL_R * m, (half + 2 * WALL_R) * m) if dx else (
                    (half + 2 * WALL_R) * m, WALL_R * m)  # fmt: skip
                parts.append(
                    f'<geom type="box" pos="{cx} {cy} {wall_z}" size="{size[0]} {size[1]} '
                    f'{wall_z}" mass="0" contype="{FINGER}" conaffinity="{FINGER}"/>'
                )
        parts.append(_seat_ring(seat_r, p.cup_h, p))
        parts.append("</body>")
    # the disc: kinematic, its seats at the cups' height
    parts.append('<body name="disc" mocap="true" pos="0 0 0">')
    for s in INNER_RING:
        x, y = geo.square_centre(s, p)
        parts.append(_seat_ring(seat_r, p.cup_h, p, (x, y)))
    parts.append("</body>")
    # the bars: kinematic, each a body at its crank's axis with its fingers
    for side in geo.sides():
        tag = SQUARE_NAMES[side.starts[0]]
        ax, ay = side.crank_axis(p)
        parts.append(f'<body name="bar_{tag}" mocap="true" pos="{ax * m} {ay * m} 0">')
        r = p.finger_d / 2
        tip = p.finger_up - (p.lift - geo.bar_lift(0.0, p))  # above the floor, at rest
        points = geo.finger_points(side, p)
        if one_finger:  # the first design: only the finger outside the centre line
            ox, oy = side.outward
            points = [f for f in points if ox * f[0] + oy * f[1] > 1.5 * p.pitch]
        for fx, fy in points:
            cx, cy = (fx - ax) * m, (fy - ay) * m
            parts.append(
                f'<geom type="capsule" fromto="{cx} {cy} {(tip - r - 8) * m} {cx} {cy} '
                f'{(tip - r) * m}" size="{r * m}" contype="{FINGER}" conaffinity="{FINGER}"/>'
            )
        parts.append("</body>")
    marble_mass = p.marble_mass
    for s in SQUARES:
        x, y = geo.square_centre(s, p)
        z = _marble_rest_z(p)
        parts.append(
            f'<body name="marble_{SQUARE_NAMES[s]}" pos="{x * m} {y * m} {z * m}"><freejoint/>'
            f'<geom type="sphere" size="{p.marble_d / 2 * m}" mass="{marble_mass}" '
            f'contype="{SEAT}" conaffinity="{SEAT}"/></body>'
        )
    parts.append("</worldbody></mujoco>")
    return "".join(parts)


def _seat_ring(seat_r: float, z: float, p: Params, at: tuple[float, float] = (0, 0)) -> str:
    """A seat's rim: capsules round a circle at the top of the cup (or disc)."""
    m = MM
    out = []
    for j in range(SEAT_CAPSULES):
        a0 = 2 * math.pi * j / SEAT_CAPSULES
        a1 = 2 * math.pi * (j + 1) / SEAT_CAPSULES
        x0, y0 = at[0] + seat_r * math.cos(a0), at[1] + seat_r * math.sin(a0)
        x1, y1 = at[0] + seat_r * math.cos(a1), at[1] + seat_r * math.sin(a1)
        zz = (z - WALL_R) * m
        out.append(
            f'<geom type="capsule" fromto="{x0 * m} {y0 * m} {zz} {x1 * m} {y1 * m} {zz}" '
            f'size="{WALL_R * m}" mass="0" contype="{SEAT}" conaffinity="{SEAT}"/>'
        )
    return "".join(out)


def _marble_rest_z(p: Params) -> float:
    """A marble's centre above the floor, resting on its seat's rim."""
    rim = p.seat_d / 2 + WALL_R
    return p.cup_h - WALL_R + math.sqrt((p.marble_d / 2 + WALL_R) ** 2 - rim**2)


def _cup_mass(p: Params) -> float:
    """kg: the cup's PETG (a solid print, the heaviest case)."""
    area = math.pi * (p.cup_d**2 - p.seat_d**2) / 4 - 4 * math.pi * p.finger_hole_d**2 / 4
    return area * p.cup_h * 1e-9 * p.petg_density


@functools.cache
def _lift_table(p: Params) -> np.ndarray:
    """``layout.bar_lift`` over one crank turn, every 0.1 deg (it is costly to evaluate
    at every step of the engine)."""
    return np.array([geo.bar_lift(math.radians(i / 10), p) for i in range(3601)])


def _lift(p: Params, phi: float) -> float:
    table = _lift_table(p)
    at = (math.degrees(phi) % 360.0) * 10
    i = int(at)
    return float(table[i] + (table[min(i + 1, 3600)] - table[i]) * (at - i))


@functools.cache
def _model(p: Params, mu: float, one_finger: bool = False) -> mujoco.MjModel:
    return mujoco.MjModel.from_xml_string(_xml(p, mu, one_finger))


# --- the drive's profile ---------------------------------------------------------------------
def profile(drive: Drive, places: int, speed: float | None = None) -> np.ndarray:
    """The times (s) of each step of a move of ``places`` places (negative: back) on the
    planner's trapezoid, or at the constant ``speed`` (homing)."""
    from orbito_fw.planner import US, Planner

    steps = abs(places) * drive.steps_per_place
    if speed is not None:
        return np.arange(1, steps + 1) / speed
    planner = Planner(drive.max_speed, drive.acceleration)
    plan = (planner if places >= 0 else planner.backwards()).plan(steps)
    return np.cumsum([plan.interval(k) / US for k in range(steps)])


# --- the board in the engine ------------------------------------------------------------------
@dataclass
class PlaceReport:
    """One place's figures."""

    cup_offset: float = 0.0  # mm: the farthest a cup came to rest from its square's centre
    cup_turn: float = 0.0  # deg: the most a cup turned
    marble_offset: float = 0.0  # mm: the farthest a marble sat from its seat's centre (ever)
    cup_force: float = 0.0  # N: the most two cups pressed on each other
    peak_torque: float = 0.0  # N m at the motor
    torque_share: float = 0.0  # the most of the motor's usable torque (at its speed) asked
    lifted: float = 0.0  # mm: the most a cup rose off the floor
    missed: list[str] = field(default_factory=list)  # cups that did not reach their square
    duration: float = 0.0  # s of the move


class Board:
    """The rings in the engine: cups and marbles on their squares, the drive at rest."""

    def __init__(
        self,
        p: Params = PARAMS,
        mu: float = 0.3,
        seed: int = 0,
        jitter: tuple[float, float] = (0.0, 0.0),
        drive: Drive = Drive(),
        one_finger: bool = False,
    ) -> None:
        self.p, self.mu, self.drive = p, mu, drive
        self.model = _model(p, mu, one_finger)
        self.data = mujoco.MjData(self.model)
        self.rng = np.random.default_rng(seed)
        self.places = 0.0  # where the drive stands, in places from the start
        self.torque = 0.0  # N m the motor gives now (smoothed)
        self.on: dict[str, int] = {}  # each cup's square now
        m = self.model
        self.cups = {SQUARE_NAMES[s]: m.body(f"cup_{SQUARE_NAMES[s]}").id for s in OUTER_RING}
        self.marbles = {SQUARE_NAMES[s]: m.body(f"marble_{SQUARE_NAMES[s]}").id for s in SQUARES}
        self.bars = {SQUARE_NAMES[side.starts[0]]: side for side in geo.sides()}
        self.cup_geoms = {m.geom(f"cup_{n}").id: n for n in self.cups}
        self.bar_bodies = {m.body(f"bar_{t}").id: t for t in self.bars}
        self.disc_body = m.body("disc").id
        self.geom_body = np.array(m.geom_bodyid)
        self.is_cup_geom = np.zeros(m.ngeom, bool)
        self.is_cup_geom[list(self.cup_geoms)] = True
        self.is_bar_body = np.zeros(m.nbody, bool)
        self.is_bar_body[list(self.bar_bodies)] = True
        self.bar_side = {b: self.bars[t] for b, t in self.bar_bodies.items()}
        shift, turn = jitter
        for s in OUTER_RING:  # each cup off its square by up to `shift` mm and `turn` deg
            name = SQUARE_NAMES[s]
            self.on[name] = s
            dx, dy = self.rng.uniform(-shift, shift, 2) * MM
            a = math.radians(self.rng.uniform(-turn, turn))
            adr = m.jnt_qposadr[m.body_jntadr[self.cups[name]]]
            self.data.qpos[adr] += dx
            self.data.qpos[adr + 1] += dy
            self.data.qpos[adr + 3 : adr + 7] = [math.cos(a / 2), 0, 0, math.sin(a / 2)]
            madr = m.jnt_qposadr[m.body_jntadr[self.marbles[name]]]
            self.data.qpos[madr : madr + 2] += np.array([dx, dy]) + self.rng.uniform(
                -shift, shift, 2) * MM  # fmt: skip
        self._pose(0.0)
        mujoco.mj_forward(self.model, self.data)
        self.settle(0.3)

    # --- the kinematic parts --------------------------------------------------------------
    def _pose(self, places: float) -> None:
        """Put the bars and the disc where the drive's angle puts them."""
        phi = geo.crank_angle(places)
        u = geo.bar_displacement(phi, self.p)
        dz = (_lift(self.p, phi) - _lift(self.p, 0.0)) * MM
        for tag, side in self.bars.items():
            ax, ay = side.crank_axis(self.p)
            i = self.model.body_mocapid[self.model.body(f"bar_{tag}").id]
            self.data.mocap_pos[i] = [(ax + side.along[0] * u) * MM,
                                      (ay + side.along[1] * u) * MM, dz]  # fmt: skip
        a = math.radians(geo.disc_angle(places, self.p))
        i = self.model.body_mocapid[self.disc_body]
        self.data.mocap_quat[i] = [math.cos(a / 2), 0, 0, math.sin(a / 2)]

    def settle(self, seconds: float) -> None:
        for _ in range(int(seconds / TIMESTEP)):
            mujoco.mj_step(self.model, self.data)

    # --- a move --------------------------------------------------------------------------
    def move(self, places: int, speed: float | None = None, cut_at: float | None = None,
             settle: float = 0.1) -> PlaceReport:  # fmt: skip
        """Turn the rings ``places`` places (negative: back) on the drive's profile (or at a
        constant ``speed``), then let everything settle; ``cut_at`` stops the motor dead at
        that fraction of the move (a power cut: its steps stop, its holding torque gone)."""
        times = profile(self.drive, places, speed)
        sign = 1 if places >= 0 else -1
        if cut_at is not None:
            times = times[: int(len(times) * cut_at)]
        report = self.run(times, sign, settle)
        if cut_at is None:
            self._arrived(report, places)
        return report

    def run(self, times: np.ndarray, sign: int, settle: float = 0.1) -> PlaceReport:
        """Make the steps at ``times`` (s), each 1/steps_per_place of a place that way."""
        report = PlaceReport()
        start = self.places
        last_step = len(times)
        end_t = times[-1] if last_step else 0.0
        t, k, n = 0.0, 0, 0
        before = start
        while t < end_t:
            while k < last_step and times[k] <= t:
                k += 1
            # between steps the rotor turns on, smoothly (a 1/16 microstep is 0.03 deg)
            frac = k / self.drive.steps_per_place
            if k < last_step:
                t0 = times[k - 1] if k else 0.0
                frac += (t - t0) / (times[k] - t0) / self.drive.steps_per_place
            now = start + sign * frac
            self._pose(now)
            mujoco.mj_step(self.model, self.data)
            n += 1
            if n % WATCH_EVERY == 0:
                self._watch(report, now, abs(now - before) * self.drive.steps_per_place
                            / (WATCH_EVERY * TIMESTEP))  # fmt: skip
                before = now
            t += TIMESTEP
        self.places = start + sign * last_step / self.drive.steps_per_place
        self._pose(self.places)
        for i in range(int(settle / TIMESTEP)):
            mujoco.mj_step(self.model, self.data)
            if i % WATCH_EVERY == 0:
                self._watch(report, self.places)
        report.duration = float(end_t)
        return report

    def _watch(self, report: PlaceReport, places: float, speed: float = 0.0) -> None:
        """Forces and offsets at this instant: cup on cup, the motor's torque, the marbles."""
        m, d = self.model, self.data
        n = d.ncon
        g1, g2 = d.contact.geom1[:n], d.contact.geom2[:n]
        b1, b2 = self.geom_body[g1], self.geom_body[g2]
        cupcup = self.is_cup_geom[g1] & self.is_cup_geom[g2]
        barred = self.is_bar_body[b1] ^ self.is_bar_body[b2]
        f6 = np.zeros(6)
        for i in np.nonzero(cupcup)[0]:
            mujoco.mj_contactForce(m, d, int(i), f6)
            report.cup_force = max(report.cup_force, float(abs(f6[0])))
        phi = geo.crank_angle(places)
        # d(position)/d(place) of a bar: along its side and up
        du = self.p.crank_r * math.sin(phi) * 2 * math.pi * MM
        eps = 1e-3
        dz = (_lift(self.p, phi + eps) - _lift(self.p, phi - eps)) / (2 * eps) * 2 * math.pi * MM
        work = 0.0  # J per place the bars give the cups, at this instant's rate
        for i in np.nonzero(barred)[0]:
            mujoco.mj_contactForce(m, d, int(i), f6)
            frame = d.contact.frame[i].reshape(3, 3)
            force = frame.T @ f6[:3]  # on geom2
            bar = int(b1[i]) if self.is_bar_body[b1[i]] else int(b2[i])
            if bar == b2[i]:
                force = -force  # what the bar gives geom1
            side = self.bar_side[bar]
            along = force[0] * side.along[0] + force[1] * side.along[1]
            work += along * du + force[2] * dz
        work += 4 * self.p.bar_mass * 9.81 * dz  # lifting the bars (their drop gives it back)
        raw = max(work, 0.0) / (math.pi / 2) / self.p.drive_efficiency
        # The rotor on its magnetic spring rings at about 250 Hz (its holding torque times
        # 50 pole pairs over its inertia): contact spikes shorter than that are taken by its
        # inertia, not its torque. So the torque it must give is the load smoothed over
        # TORQUE_TIME (and the engine's friction chatter with it).
        a = 1 - math.exp(-WATCH_EVERY * TIMESTEP / TORQUE_TIME)
        self.torque = torque = self.torque + a * (raw - self.torque)
        report.peak_torque = max(report.peak_torque, torque)
        report.torque_share = max(report.torque_share, torque / usable_torque(self.p, speed,
                                  self.drive))  # fmt: skip
        for name, body in self.marbles.items():
            report.marble_offset = max(report.marble_offset, self._marble_off(name, body, places))
        z = d.xpos[list(self.cups.values()), 2] / MM
        report.lifted = max(report.lifted, float(z.max()))

    def _marble_off(self, name: str, body: int, places: float) -> float:
        """How far a marble sits from its seat's centre (in the plane)."""
        d = self.data
        square = next(s for s in SQUARES if SQUARE_NAMES[s] == name)
        if square in INNER_RING:
            a = math.radians(geo.disc_angle(places, self.p))
            x, y = geo.square_centre(square, self.p)
            cx, cy = x * math.cos(a) - y * math.sin(a), x * math.sin(a) + y * math.cos(a)
            return math.hypot(d.xpos[body][0] / MM - cx, d.xpos[body][1] / MM - cy)
        cup = self.cups[name]
        return float(np.hypot(*(d.xpos[body][:2] - d.xpos[cup][:2])) / MM)

    def _arrived(self, report: PlaceReport, places: int) -> None:
        for name, body in self.cups.items():
            to = self.on[name]
            for _ in range(abs(places)):
                to = geo.after(to, 1) if places > 0 else next(
                    q for q in OUTER_RING if geo.after(q, 1) == to)  # fmt: skip
            self.on[name] = to
            x, y = geo.square_centre(to, self.p)
            off = math.hypot(self.data.xpos[body][0] / MM - x, self.data.xpos[body][1] / MM - y)
            quat = self.data.xquat[body]
            turn = abs(math.degrees(2 * math.atan2(quat[3], quat[0])))
            turn = min(turn, 360 - turn) % 90
            turn = min(turn, 90 - turn)
            report.cup_offset = max(report.cup_offset, off)
            report.cup_turn = max(report.cup_turn, turn)
            if off > self.p.pitch / 4:
                report.missed.append(name)


def usable_torque(p: Params, speed: float, drive: Drive) -> float:
    """N m the motor gives at ``speed`` steps/s: its pull-out curve, scaled by the driver's
    current."""
    rpm = speed / (p.motor_steps * p.microsteps) * 60
    curve = p.motor_torque_curve
    for (r0, t0), (r1, t1) in itertools.pairwise(curve):
        if rpm <= r1:
            full = t0 + (t1 - t0) * (rpm - r0) / (r1 - r0)
            break
    else:
        full = curve[-1][1]
    return full * p.driver_current / p.motor_rated_current


@dataclass
class Cut:
    """A power cut mid-place, and the homing after it."""

    at: float  # the fraction of the place when the power went
    coast: float  # how much further the motor turned on its own (fraction of a place)
    between: float  # mm: the farthest a cup stood from any square when it stopped
    after_home: PlaceReport  # the place finished by homing


def power_cut(board: Board, at: float) -> Cut:
    """Cut the power at ``at`` of a place forwards, let the rotor coast to rest against the
    drive's friction, then home as the referee does at its next start (RingDrive.home: on
    counter-clockwise at the homing speed to the index, which every place ends on)."""
    p, drive = board.p, board.drive
    start = board.places
    board.move(1, cut_at=at, settle=0.05)
    # the rotor's energy against the friction the drive needs (the torque that moves the
    # cups, at the efficiency) and the detent: a quarter degree at most
    speed = 2 * math.pi * drive.max_speed / (p.motor_steps * p.microsteps)  # rad/s, at most
    energy = 0.5 * p.rotor_inertia * speed**2
    coast = energy / p.detent_torque / (2 * math.pi / 4)  # places
    stopped = {n: (x, y) for n, (x, y) in cup_positions(board).items()}
    between = max(min(math.dist(c, geo.square_centre(s, p)) for s in OUTER_RING)
                  for c in stopped.values())  # fmt: skip
    done = board.places - start
    left = 1.0 - done
    report = PlaceReport()
    if left > 0:
        steps = round(left * drive.steps_per_place)
        times = np.arange(1, steps + 1) / drive.home_speed
        report = board.run(times, 1)
        board._arrived(report, 1)
    return Cut(at, coast, between, report)


def places_and_back(board: Board, n: int) -> list[PlaceReport]:
    """``n`` places forwards, then ``n`` back: each place's report."""
    return [board.move(1) for _ in range(n)] + [board.move(-1) for _ in range(n)]


def random_places(count: int, seed: int, per_board: int = 20) -> list[PlaceReport]:
    """``count`` places on boards with friction 0.2 to 0.5, each board's cups and marbles
    started up to 0.3 mm and 2 deg off, each place forwards or back at random."""
    rng = np.random.default_rng(seed)
    out: list[PlaceReport] = []
    while len(out) < count:
        board = Board(mu=float(rng.uniform(MU[0], MU[1])), seed=int(rng.integers(1 << 30)),
                      jitter=JITTER)  # fmt: skip
        for _ in range(min(per_board, count - len(out))):
            out.append(board.move(1 if rng.random() < 0.7 else -1))
    return out


def cup_positions(board: Board) -> dict[str, tuple[float, float]]:
    return {n: (board.data.xpos[b][0] / MM, board.data.xpos[b][1] / MM)
            for n, b in board.cups.items()}  # fmt: skip
