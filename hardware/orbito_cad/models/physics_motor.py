"""The stepper as the physics drives it: the torque it gives against how far its rotor lags the
step the driver has reached, its pull-out torque at speed, and the time on which it answers a
load.

A hybrid stepper's rotor has ``ROTOR_TEETH`` teeth: one electrical turn is 360/50 = 7.2 deg of
the shaft, four full steps. With the driver's current set, the torque on the rotor follows the
lag ``d`` between the step the driver has made and the rotor as ``T sin(50 d)``: it grows
with the lag up to a full step (1.8 deg, a quarter of the electrical turn), where it is the
most the motor can give, and beyond it falls and turns over: the rotor slips back four steps
(the motor "loses steps"). ``T`` is what the datasheet's pull-out curve gives at that speed
(the current falls behind the driver's as the back EMF grows), scaled by the driver's current.

**The time scale.** The motor's torque is not the load's: between the two stands the inertia of
the rotor, the gears and the disc (``physics_model.armature``), on the spring of the motor's
magnetic field, whose stiffness is ``50 T`` at small lags. A load shorter than that mass on
that spring answers in (``response_time``, about 3 ms at 1.4 A) moves the rotor a little and is
taken by the inertia; only what lasts longer reaches the motor's torque. So the model gives the
motor joint exactly that law: the torque it reports is the torque the motor gives, filtered by
the real inertias, never a contact's spike, and the question "is there enough torque" is
whether the lag ever reaches a full step, equally ``torque / pull_out`` reaching 1. The margin
asked (2x) is ``torque <= pull_out / 2``.
"""

from __future__ import annotations

import itertools
import math

from orbito_cad.board.params import Params
from orbito_cad.models import physics_model as pm

ROTOR_TEETH = 50  # a 1.8 deg hybrid stepper's rotor
# The stepper's own damping (eddy currents, the driver's chopper answering the back EMF) as a
# share of the critical damping of the rotor and the gears on the field's spring: light, as a
# stepper's resonance near 100 full steps/s shows (0.1-0.3 in the literature); the smaller end.
DAMPING_RATIO = 0.1


def pull_out(p: Params, steps_per_s: float) -> float:
    """N m: the most the motor gives at ``steps_per_s`` (micro)steps a second: its pull-out
    curve (``motor_torque_curve``, at the rated current) scaled by the driver's current."""
    rpm = abs(steps_per_s) / (p.motor_steps * p.microsteps) * 60
    curve = p.motor_torque_curve
    full = curve[-1][1]
    for (r0, t0), (r1, t1) in itertools.pairwise(curve):
        if rpm <= r1:
            full = t0 + (t1 - t0) * (rpm - r0) / (r1 - r0)
            break
    return full * p.driver_current / p.motor_rated_current


def stiffness(p: Params) -> float:
    """N m/rad: the field's spring at rest, ``50 T``."""
    return ROTOR_TEETH * pull_out(p, 0.0)


def response_time(p: Params) -> float:
    """s: one over the natural (angular) frequency of the rotor, the gears and the disc on
    the field's spring: loads shorter than this are taken by the inertia."""
    return math.sqrt((pm.armature(p) + pm.disc_inertia(p)[1]) / stiffness(p))


def damping(p: Params) -> float:
    """N m s/rad about the step's own speed."""
    inertia = pm.armature(p) + pm.disc_inertia(p)[1]
    return 2 * DAMPING_RATIO * math.sqrt(stiffness(p) * inertia)


def torque(p: Params, lag: float, slip: float, steps_per_s: float) -> float:
    """N m the motor gives with its rotor ``lag`` radians behind the driver's step, turning
    ``slip`` rad/s slower than the steps, at ``steps_per_s``."""
    return pull_out(p, steps_per_s) * math.sin(ROTOR_TEETH * lag) + damping(p) * slip
