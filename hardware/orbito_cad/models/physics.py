"""The mechanism in MuJoCo, one model: the cups, their fingers and the marbles pushed through
places by the drive's own dynamics, on the drive's own step profile.

The drive is bodies and joints, never a body moved by hand (MuJoCo gives a mocap body no
velocity, so the contacts' damping would take a moving finger for still): the motor is a hinge
carrying the disc, with the rotor's and the gears' inertia (``physics_model.armature``),
driven by the stepper's own law (``physics_motor``: its torque against its rotor's lag behind
the step the planner, ``orbito_hw.hw.planner`` on the config's ``[drive]``, has reached; its
pull-out curve at speed); each bar slides along its side, tied to the motor's angle by the
Scotch yoke's kinematics (the gears' backlash a lag of the cranks, the collar's play in the
yoke a limited joint), and **rests on its ramp by its weight** (a contact, not a joint: where
the ramp falls away faster than gravity the bar floats, where it rises fast it launches the
bar). Its fingers (the solid's chamfered shape), the cups with their round finger holes, lead-in
chamfers and ends, the marbles on their seats and the channel's walls are real contacts,
friction ``mu`` (elliptic cones); every size is the CAD's (``physics_model``), with a printer's
errors if asked (``physics_model.Errors``). The gears' losses are a torque against the motor,
the load it drives through them times ``1 / drive_efficiency - 1``. In a power cut the motor
lets go and the rotor's detent torque acts as friction; the cups' and the bars' inertia and
the bars' weight on the ramps move the drive as they will, then homing (``RingDrive.home``:
counter-clockwise at the homing speed to the index) finishes the place.

What is idealised: the gears, the yokes and the ramps are rigid (joint equalities re-linearised
every step), the bars guided (no tipping), the printed parts solid and rigid, the floor flat;
the fingers' slots are not modelled (fingers touch only the cups).
"""

from __future__ import annotations

import functools
import inspect
import math
from dataclasses import dataclass, field
from importlib.resources import files
from pathlib import Path

import mujoco
import numpy as np

from orbito_cad.board import layout as geo
from orbito_cad.board.gearing import index_radius
from orbito_cad.board.params import PARAMS, Params
from orbito_cad.models import physics_model as pm
from orbito_cad.models import physics_motor as motor
from orbito_hw.hw.facts import DriveConfig, read_drive
from orbito_hw.hw.planner import Planner, SteppedDrive, step_delays  # type: ignore[attr-defined]
from orbito_hw.rules.squares import INNER_RING, OUTER_RING, SQUARE_NAMES, Square

MM = pm.MM
# s: contacts and couplings are stiff at 4 steps' time constant. Halving it moves the cups'
# offsets by 0.02 mm and the peak torque by 7 %; the deepest contact is 0.24 mm (0.09 mm).
TIMESTEP = 5e-4
WATCH_EVERY = 4  # engine steps between looks at the forces and offsets
LIFT_GRID = 7200  # the ramp's lift tabulated over one crank turn
LOSS_SPEED = 0.05  # rad/s: the gears' losses turn with the motor's way, smoothly about rest
# the example config as the package ships it (from a checkout or a wheel alike)
CONFIG = Path(str(files("orbito_hw").joinpath("config.example.toml")))
HOME_SPEED: float = inspect.signature(SteppedDrive).parameters["home_speed"].default
LIFTED = 0.2  # mm: a cup's bottom this far off the floor somewhere has been lifted (issue 45)
STILL = 1.0  # mm/s: a cup slower than this has stopped
MARBLE_OFF = 1.0  # mm from its seat's centre: a marble no longer sits in its seat


@functools.cache
def drive_config() -> DriveConfig:
    """The drive's figures, from the project's example config (one source)."""
    return read_drive(CONFIG)


def step_times(places: int, drive: DriveConfig | None = None) -> np.ndarray:
    """When each motor step of a move of ``places`` places falls (s from its start), on the
    planner's trapezoid, as the Pi or the Pico makes them."""
    d = drive or drive_config()
    planner = Planner(d.max_speed, d.acceleration)
    if places < 0:
        planner = planner.backwards()  # a take-back's lower speed, as the drive makes it
    delays = step_delays(planner, abs(places) * d.steps_per_place)
    return np.cumsum(delays)


def index_window(p: Params = PARAMS) -> float:
    """Radians of crank either side of rest within which the index switch reads."""
    return p.index_reach / index_radius(p)


# --- the couplings: the yoke and the ramp as functions of the motor's angle -------------
@dataclass(frozen=True)
class Kinematics:
    """Each bar's place along its side and its height (m) as functions of the motor's angle
    (radians), with their first two derivatives, for the joint equalities."""

    p: Params

    @functools.cached_property
    def ratio(self) -> float:
        """Crank radians per motor radian."""
        return geo.crank_turns_per_motor_turn(self.p)

    @functools.cached_property
    def place(self) -> float:
        """Motor radians per place."""
        return math.radians(geo.disc_degrees_per_place(self.p))

    @functools.cached_property
    def lift(self) -> np.ndarray:
        """The bar's height (m, 0 up) and its derivatives by the crank angle, tabulated."""
        from scipy.interpolate import CubicSpline  # type: ignore[import-untyped]

        phi = np.linspace(0, 2 * math.pi, LIFT_GRID + 1)
        z = np.array([geo.bar_lift(a, self.p) - self.p.lift for a in phi]) * MM
        z[-1] = z[0]
        spline = CubicSpline(phi, z, bc_type="periodic")
        return np.array([spline(phi), spline(phi, 1), spline(phi, 2)])

    def along(self, theta: float, phase: float = 0.0) -> tuple[float, float, float]:
        """``phase``: crank radians the cranks stand ahead of the motor (the gears' play)."""
        k, r = self.ratio, self.p.crank_r * MM
        phi = k * theta + phase
        return r * (1 - math.cos(phi)), k * r * math.sin(phi), k * k * r * math.cos(phi)

    def up(self, theta: float, phase: float = 0.0) -> tuple[float, float, float]:
        k = self.ratio
        at = (k * theta + phase) % (2 * math.pi) / (2 * math.pi) * LIFT_GRID
        i = int(at)
        f = at - i
        z, dz, ddz = (1 - f) * self.lift[:, i] + f * self.lift[:, i + 1]
        return float(z), float(k * dz), float(k * k * ddz)


def _poly(theta: float, f: tuple[float, float, float]) -> tuple[float, float, float]:
    """A quadratic in the motor's angle that matches ``f`` and its derivatives at ``theta``."""
    v, d1, d2 = f
    return v - d1 * theta + d2 * theta**2 / 2, d1 - d2 * theta, d2 / 2


# --- what a place did -----------------------------------------------------------------------
@dataclass
class PlaceReport:
    """One move's figures: ``cup_offset`` and ``cup_turn`` once the motor has stopped."""

    cup_offset: float = 0.0  # mm: the farthest a cup stopped from its square's centre
    cup_turn: float = 0.0  # deg: the most a cup stopped turned from square
    marble_offset: float = 0.0  # mm: the farthest a marble ever sat from its seat's centre
    cup_force: float = 0.0  # N: the most two cups ever pressed on each other
    torque: float = 0.0  # N m: the most the motor gave (its law: the inertias between)
    torque_share: float = 0.0  # the most of its pull-out torque at that speed it gave
    load: float = 0.0  # N m: the most the couplings and losses ever took, unfiltered
    lifted: float = 0.0  # mm: the most a cup's bottom rose off the floor (at its edge)
    cup_speed: float = 0.0  # mm/s: the fastest cup when the motor stopped
    marbles_off: int = 0  # marbles more than MARBLE_OFF from their seat's centre at the end
    missed: list[str] = field(default_factory=list)  # cups not on their square
    duration: float = 0.0  # s: the move's steps

    def merge(self, other: PlaceReport) -> None:
        for name in ("cup_offset", "cup_turn", "marble_offset", "cup_force", "torque",
                     "torque_share", "load", "lifted", "cup_speed", "duration"):  # fmt: skip
            setattr(self, name, max(getattr(self, name), getattr(other, name)))
        self.marbles_off = max(self.marbles_off, other.marbles_off)
        self.missed += other.missed


@dataclass
class CutReport:
    """A power cut: where the drive coasted to, and what homing made of it."""

    cut_at: float  # the fraction of the place made when the power went
    coasted: float  # places the drive ran on (negative: back) after the cut
    index: bool  # the index read where the drive came to rest
    home_steps: int  # the steps homing made
    outcome: str  # "finished" (every cup on its next square), "undone" (on its first), or what
    marble_offset: float  # mm, the most during the cut and the homing
    cup_offset: float  # mm from the squares of the outcome, after homing


class Board:
    """The rings in the engine: the cups and the marbles on their squares, the drive at rest.

    ``mu`` is every contact's friction; ``fingers`` the bars' fingers (``layout.finger_points``,
    or ``physics_model.one_finger`` for the first design); ``errors`` a printer's on the
    sizes drawn (by default ``physics_model.calibrated``: the fit set from the tolerance
    test, as the maker builds it)."""

    def __init__(self, p: Params = PARAMS, mu: float = 0.3, seed: int = 0,
                 fingers: pm.Fingers = geo.finger_points,
                 errors: pm.Errors | None = None) -> None:  # fmt: skip
        errors = pm.calibrated(p) if errors is None else errors
        self.p, self.errors = p, errors
        self.model = mujoco.MjModel.from_xml_string(pm.mjcf(p, mu, TIMESTEP, fingers, errors))
        self.data = mujoco.MjData(self.model)
        self.rng = np.random.default_rng(seed)
        self.kin = Kinematics(p)
        self.drive = drive_config()
        m = self.model
        self.motor_dof = int(m.jnt_dofadr[m.joint("motor").id])
        self.motor_q = int(m.jnt_qposadr[m.joint("motor").id])
        sides = [SQUARE_NAMES[side.starts[0]] for side in geo.sides()]
        self.along_eq = [m.equality(f"along_{t}").id for t in sides]
        self.up_eq = [m.equality(f"up_{t}").id for t in sides]
        self.cups = {s: m.body(f"cup_{SQUARE_NAMES[s]}").id for s in OUTER_RING}
        self.on: dict[int, Square] = {s: s for s in OUTER_RING}  # cup (by start) -> square
        self.marbles = {s: m.body(f"marble_{SQUARE_NAMES[s]}").id for s in OUTER_RING}
        self.inner = {s: m.body(f"marble_{SQUARE_NAMES[s]}").id for s in INNER_RING}
        self.cup_ids = list(self.cups.values())
        self.marble_ids = [self.marbles[s] for s in self.cups]
        self.inner_ids = list(self.inner.values())
        self.inner_seats = np.array([geo.square_centre(s, p) for s in self.inner])
        self.is_cup = np.zeros(m.ngeom, bool)
        self.is_cup[[m.geom(f"cup_{SQUARE_NAMES[s]}").id for s in OUTER_RING]] = True
        self.step_angle = 2 * math.pi / (p.motor_steps * p.microsteps)
        self.lag = pm.gear_lag(p, errors)  # the cranks behind the motor, the way it turns
        self.phase = 0.0
        self.loss = 0.0  # N m: the gears' losses against the motor now
        self.rubbed = self.model.geom_friction[:, 0] > 0  # the contacts with friction
        self.guides = [m.jnt_dofadr[m.joint(f"play_{t}").id] for t in sides]
        self.places = 0  # whole places made: where the index last read
        for tag in sides:  # the ramps and the bars on them as the crank stands at rest
            for joint in ("up", "drop"):
                self.data.qpos[m.jnt_qposadr[m.joint(f"{joint}_{tag}").id]] = self.kin.up(0)[0]
        self.target = (0.0, 0.0)  # the motor's angle and speed as the steps make them
        self.powered = True
        self._couple(0.0)
        mujoco.mj_forward(m, self.data)
        self.settle(0.05)

    # --- state ---------------------------------------------------------------------------
    @property
    def theta(self) -> float:
        return float(self.data.qpos[self.motor_q])

    def set_friction(self, mu: float) -> None:
        self.model.geom_friction[self.rubbed, 0] = mu
        self.model.dof_frictionloss[self.guides] = mu * self.p.bar_mass * pm.G

    def scatter(self, shift: float, turn: float) -> None:
        """Every cup and marble back on its square, each off by up to ``shift`` mm and
        ``turn`` deg at random, at rest."""
        m, d = self.model, self.data
        for start, body in self.cups.items():
            x, y = geo.square_centre(self.on[start], self.p)
            dx, dy = self.rng.uniform(-shift, shift, 2)
            a = math.radians(self.rng.uniform(-turn, turn))
            q = m.jnt_qposadr[m.body_jntadr[body]]
            d.qpos[q : q + 7] = [(x + dx) * MM, (y + dy) * MM, 0, math.cos(a / 2), 0, 0,
                                 math.sin(a / 2)]  # fmt: skip
            mq = m.jnt_qposadr[m.body_jntadr[self.marbles[start]]]
            mx, my = self.rng.uniform(-shift, shift, 2)
            d.qpos[mq : mq + 7] = [(x + dx + mx) * MM, (y + dy + my) * MM,
                                   pm.seat_rest_z(self.p) * MM, 1, 0, 0, 0]  # fmt: skip
        d.qvel[:] = 0
        self.settle(0.05)

    def settle(self, seconds: float, report: PlaceReport | None = None) -> None:
        for i in range(round(seconds / TIMESTEP)):
            self._step()
            if report is not None and i % WATCH_EVERY == 0:
                self._watch(report)

    def _couple(self, theta: float) -> None:
        """The bars' equalities to the kinematics around the motor's angle ``theta``."""
        eq = self.model.eq_data
        eq[self.along_eq, 0:3] = _poly(theta, self.kin.along(theta, self.phase))
        eq[self.up_eq, 0:3] = _poly(theta, self.kin.up(theta, self.phase))

    def _step(self) -> None:
        d = self.data
        self._couple(self.theta)
        omega = float(d.qvel[self.motor_dof])
        if self.powered:  # the stepper's law about the step the driver has reached
            angle, speed = self.target
            d.ctrl[0] = motor.torque(self.p, angle - self.theta, speed - omega,
                                     speed / self.step_angle)  # fmt: skip
        else:
            d.ctrl[0] = 0.0
        # the gears' losses: against the motor's way, the load it drives through them (the
        # couplings' torque on its shaft, as the last step left it) times 1/efficiency - 1
        load = abs(float(d.qfrc_constraint[self.motor_dof]))
        self.loss = load * (1 / self.p.drive_efficiency - 1)
        d.qfrc_applied[self.motor_dof] = -self.loss * math.tanh(omega / LOSS_SPEED)
        mujoco.mj_step(self.model, d)

    # --- moves ---------------------------------------------------------------------------
    def move(self, places: int, settle: float = 0.05) -> PlaceReport:
        """Turn the rings ``places`` places (negative: back, a take-back) on the drive's
        profile; the cups' offsets are read when the motor stops, then after ``settle``."""
        report = PlaceReport()
        sign = 1 if places > 0 else -1
        self.phase = -sign * self.lag  # the gears' play taken up the way the motor turns
        self._run(step_times(places, self.drive), sign, report)
        self._arrived(report, places)
        self.settle(settle, report)
        self._arrived(report, 0)
        report.marbles_off = int((self._marble_offsets() > MARBLE_OFF).sum())
        return report

    def _run(self, times: np.ndarray, sign: int, report: PlaceReport,
             until_index: bool = False) -> int:  # fmt: skip
        """Make the steps at ``times``; the servo follows them smoothly (a microstep is
        0.11 deg of the motor). Returns the steps made (homing stops at the index)."""
        start = self.target[0]
        t, k, n = 0.0, 0, 0
        end = float(times[-1]) if len(times) else 0.0
        while t < end:
            while k < len(times) and times[k] <= t:
                k += 1
                if until_index and self.index_active(start + sign * k * self.step_angle):
                    self.target = (start + sign * k * self.step_angle, 0.0)
                    return k
            frac, speed = float(k), 0.0
            if k < len(times):
                t0 = times[k - 1] if k else 0.0
                frac += (t - t0) / (times[k] - t0)
                speed = sign * self.step_angle / (times[k] - t0)
            self.target = (start + sign * frac * self.step_angle, speed)
            self._step()
            n += 1
            if n % WATCH_EVERY == 0:
                self._watch(report)
            t += TIMESTEP
        self.target = (start + sign * len(times) * self.step_angle, 0.0)
        report.duration = end
        return len(times)

    def index_active(self, theta: float) -> bool:
        phi = self.kin.ratio * theta
        return abs(math.remainder(phi, 2 * math.pi)) <= index_window(self.p)

    # --- a power cut ---------------------------------------------------------------------
    def cut(self, at: float, places: int = 1, shift: float = 0.0) -> CutReport:
        """Cut the power ``at`` (a fraction) through a move of ``places``: the motor's
        current goes, the mechanism coasts against its friction and the rotor's detent
        until it stops; then home as the referee does (``RingDrive.home``)."""
        m, d = self.model, self.data
        report = PlaceReport()
        start = {s: self.on[s] for s in self.cups}
        times = step_times(places, self.drive)
        made = max(1, int(len(times) * at))
        sign = 1 if places > 0 else -1
        theta0 = self.theta
        self._run(times[:made], sign, report)
        self.powered = False
        m.dof_frictionloss[self.motor_dof] = self.p.detent_torque
        for _ in range(round(2.0 / TIMESTEP)):  # until all is still, 2 s at most
            self._step()
            self._watch(report)
            if abs(d.qvel[self.motor_dof]) < 1e-3 and self._fastest_cup() < STILL:
                break
        coasted = (self.theta - theta0) / self.kin.place - sign * made / self.drive.steps_per_place
        self.powered = True
        m.dof_frictionloss[self.motor_dof] = 0
        # the driver wakes at the nearest full step's microstep... the rotor's own angle
        self.target = (self.theta, 0.0)
        index = self.index_active(self.theta)
        homed = 0
        if not index:  # homing: on counter-clockwise at its speed until the index reads
            limit = self.drive.steps_per_place + self.drive.steps_per_place // 4
            homed = self._run(np.arange(1, limit + 1) / HOME_SPEED, 1, report, until_index=True)
        self.settle(0.05, report)
        turned = round(self.theta / self.kin.place)
        outcome, offset = self._outcome(start, turned - self.places)
        self.places = turned
        return CutReport(at, coasted, index, homed, outcome, report.marble_offset, offset)

    def _outcome(self, start: dict[int, Square], places: int) -> tuple[str, float]:
        names = {0: "undone", 1: "finished"}
        worst, best = math.inf, ""
        for n in (0, 1, -1, 2):
            offset = max(self._off(body, geo.after(start[s], n) if n >= 0 else _before(start[s]))
                         for s, body in self.cups.items())  # fmt: skip
            if offset < worst:
                worst, best = offset, names.get(n, f"{n} places")
        for s in self.cups:
            self.on[s] = geo.after(start[s], places) if places >= 0 else _before(start[s])
        if worst > self.p.pitch / 4:
            best = "cups between squares"
        return best, worst

    # --- what is measured ----------------------------------------------------------------
    def _fastest_cup(self) -> float:
        return max(float(np.linalg.norm(self.data.cvel[b][3:5])) for b in self.cups.values()) / MM

    def _off(self, body: int, square: Square) -> float:
        x, y = geo.square_centre(square, self.p)
        return math.hypot(self.data.xpos[body][0] / MM - x, self.data.xpos[body][1] / MM - y)

    def _marble_offsets(self) -> np.ndarray:
        """mm: each marble from its seat's centre, in the plane (outer ring, then inner)."""
        xy = self.data.xpos[:, :2] / MM
        outer = np.hypot(*(xy[self.marble_ids] - xy[self.cup_ids]).T)
        c, s = math.cos(self.theta), math.sin(self.theta)
        seats = self.inner_seats @ np.array([[c, s], [-s, c]])
        inner = np.hypot(*(xy[self.inner_ids] - seats).T)
        return np.concatenate([outer, inner])

    def _watch(self, report: PlaceReport) -> None:
        """This instant's forces and offsets: cup on cup, the motor's torque, the marbles."""
        m, d = self.model, self.data
        n = d.ncon
        g1, g2 = d.contact.geom1[:n], d.contact.geom2[:n]
        f6 = np.zeros(6)
        for i in np.nonzero(self.is_cup[g1] & self.is_cup[g2])[0]:
            mujoco.mj_contactForce(m, d, int(i), f6)
            report.cup_force = max(report.cup_force, float(f6[0]))
        given = abs(float(d.ctrl[0]))
        usable = motor.pull_out(self.p, self.target[1] / self.step_angle)
        report.torque = max(report.torque, given)
        report.torque_share = max(report.torque_share, given / usable)
        load = abs(float(d.qfrc_constraint[self.motor_dof])) + self.loss
        report.load = max(report.load, load)
        report.marble_offset = max(report.marble_offset, float(self._marble_offsets().max()))
        # the highest point of a cup's bottom: its centre's height, and its edge's as it tilts
        tilt = np.sqrt(np.maximum(0.0, 1 - d.xmat[self.cup_ids, 8] ** 2))
        edge = d.xpos[self.cup_ids, 2] + (self.p.cup_d + self.errors.cup) / 2 * MM * tilt
        report.lifted = max(report.lifted, float(edge.max()) / MM)

    def _arrived(self, report: PlaceReport, places: int) -> None:
        """Each cup against the square it should be on after ``places`` more places."""
        d = self.data
        report.cup_speed = max(report.cup_speed, self._fastest_cup())
        report.missed = []
        for start, body in self.cups.items():
            to = self.on[start]
            to = geo.after(to, places) if places >= 0 else _before(to, -places)
            self.on[start] = to
            off = self._off(body, to)
            w, _, _, z = d.xquat[body]
            turn = abs(math.degrees(2 * math.atan2(z, w))) % 90
            report.cup_offset = max(report.cup_offset, off)
            report.cup_turn = max(report.cup_turn, min(turn, 90 - turn))
            if off > self.p.pitch / 4:
                report.missed.append(SQUARE_NAMES[start])
        self.places += places


def _before(square: Square, places: int = 1) -> Square:
    """The square a marble on ``square`` came from ``places`` presses ago."""
    return geo.after(square, 12 - places % 12)
