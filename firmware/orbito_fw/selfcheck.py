"""Self-checks of the firmware logic that run on any Python: CPython, MicroPython under
Node (CI), or the Pico itself (``import orbito_fw.selfcheck; orbito_fw.selfcheck.run()``).

They use only what every port has, so an import or a built-in that MicroPython lacks
fails here before it fails on a Pico.
"""

from .controller import BAD_VALUE, FAULT, HOME_NO_INDEX, IDLE, NOT_HOMED, RingController
from .device import Device
from .planner import Planner
from .protocol import PROTOCOL_VERSION, Deframer, encode, fields


class Rings:
    """A stand-in for the rings: the index reads active on whole places only, and
    ``slip`` steps are swallowed by a stalling motor."""

    def __init__(self, spp: int) -> None:
        self.spp = spp
        self.position = 0  # motor steps actually made, modulo nothing
        self.pulses = 0
        self.slip = 0
        self.enabled = False
        self.squares = 0
        self.levels = [32768] * 16  # a colour board's sensors: no field on any square

    def step(self, forward: bool) -> None:
        self.pulses += 1
        if self.slip > 0:
            self.slip -= 1
        else:
            self.position += 1 if forward else -1

    def enable(self, on: bool) -> None:
        self.enabled = on

    def index_active(self) -> bool:
        return self.position % self.spp == 0

    def read_squares(self) -> int:
        return self.squares

    def read_levels(self) -> "list[int]":
        return list(self.levels)


def check(condition: bool, what: str) -> None:
    if not condition:
        raise AssertionError("self-check failed: " + what)


def accel_within(d1: int, d2: int, accel: float) -> bool:
    """The speed change between two intervals (µs) over the time between their middles,
    within ``accel`` up to what rounding each step time to 1 µs can add."""
    measured = abs(1e6 / d2 - 1e6 / d1) / ((d1 + d2) / 2e6)
    rounding = 2e12 * (1 / (d1 * (d1 - 1)) + 1 / (d2 * (d2 - 1))) / (d1 + d2)
    return measured <= accel * (d1 + d2 + 2) / (d1 + d2) + rounding


def run_until_idle(ctl: RingController, now: int, limit: int = 10000000) -> int:
    while ctl.busy:
        now = max(now, ctl.poll(now))
        check(now < limit, "the move ends")
    return now


def check_protocol() -> None:
    frame = encode(7, ["MOVE", "3"])
    d = Deframer()
    check(d.feed(frame) == [(7, ["MOVE", "3"])], "round trip")
    check(d.feed(b"\x00zz" + frame[:6] + b"junk" + frame) == [(7, ["MOVE", "3"])], "resync")
    check(d.garbage == 3 and d.cut == 1, "garbage and cut counted")
    bad = bytearray(frame)
    bad[3] ^= 0x01
    check(d.feed(bytes(bad)) == [] and d.bad == 1, "CRC error dropped")
    check(fields(["OK", "a=1", "b=x"]) == {"a": "1", "b": "x"}, "fields")


def check_planner() -> None:
    planner = Planner(2000, 8000)
    for steps in (0, 1, 2, 3, 17, 250, 1200):
        plan = planner.plan(steps)
        intervals = [plan.interval(k) for k in range(steps)]
        check(len(intervals) == steps, "step count")
        for k, d in enumerate(intervals):
            check(d >= planner.d_min, "speed limit")
            if k:
                check(accel_within(intervals[k - 1], d, 8000), "acceleration bound")


def check_controller() -> None:
    rings = Rings(50)
    ctl = RingController(rings)
    ctl.configure("spp", 50)
    check(ctl.start_move(1, 1, 0) == NOT_HOMED, "a move needs homing first")
    rings.position = 10
    check(ctl.start_home(2, 0) == "", "home starts")
    now = run_until_idle(ctl, 0)
    check(ctl.at_index and ctl.steps == 40 and rings.position == 50, "homed on the index")
    check(ctl.start_move(3, 3, now) == "", "move starts")
    now = run_until_idle(ctl, now)
    check(ctl.steps == 150 and rings.position == 200 and ctl.at_index, "three places")
    rings.slip = 4
    ctl.start_move(1, 4, now)
    now = run_until_idle(ctl, now)
    check(not ctl.at_index and not ctl.homed and ctl.mismatches > 0, "lost steps seen")
    rings.spp = 10000  # the index never comes: homing must give up
    ctl.start_home(5, now)
    run_until_idle(ctl, now)
    check(ctl.state == FAULT and ctl.fault == HOME_NO_INDEX, "homing fault")
    check(ctl.start_move(1, 6, now) == FAULT, "no move on a fault")
    ctl.clear()
    check(ctl.state == IDLE and ctl.start_move(1, 7, now) == NOT_HOMED, "home after clear")


def check_move_back() -> None:
    rings = Rings(50)
    ctl = RingController(rings)
    ctl.configure("spp", 50)
    ctl.start_home(1, 0)
    now = run_until_idle(ctl, 0)
    check(ctl.start_move(-2, 2, now) == "", "a move back starts")
    now = run_until_idle(ctl, now)
    check(rings.position == -100 and ctl.steps == 100 and ctl.at_index, "two places back")
    check(ctl.places == -2 and ctl.homed, "the move back is reported as asked")
    rings.slip = 4
    ctl.start_move(-1, 3, now)
    now = run_until_idle(ctl, now)
    check(rings.position == -146 and not ctl.at_index and not ctl.homed, "lost steps back")
    ctl.start_home(4, now)  # homing goes on forward, to the index ahead
    run_until_idle(ctl, now)
    check(rings.position == -100 and ctl.homed, "homed forward")
    for places in (101, -101):
        check(ctl.start_move(places, 5, now) == BAD_VALUE, "a move of at most 100 places")


def check_device() -> None:
    rings = Rings(20)
    dev = Device(RingController(rings), "b00t")
    d = Deframer()
    dev.feed(encode(1, ["HELLO", str(PROTOCOL_VERSION), "s1"]), 0)
    dev.feed(encode(2, ["CFG", "spp=20"]) + encode(3, ["HOME"]), 0)
    for _ in range(3):  # the same MOVE three times: one move
        dev.feed(encode(4, ["MOVE", "2"]), 0)
    now = 0
    while dev.controller.busy:
        now = max(now, dev.poll(now))
    replies = d.feed(dev.take_output())
    check([r[0] for r in replies] == [1, 2, 3, 4, 4, 4], "replies echo the sequence")
    check(replies[3][1] == ["OK", "MOVE"] and replies[4][1] == ["OK", "MOVE"], "retry ok")
    check(rings.position == 40 and dev.commands_run == 3, "the move ran once")
    dev.feed(
        encode(5, ["MOVE", "-1"]) + encode(6, ["MOVE", "-x"]) + encode(7, ["MOVE", "--1"]), now
    )
    while dev.controller.busy:
        now = max(now, dev.poll(now))
    replies = d.feed(dev.take_output())
    check([r[1][0] for r in replies] == ["OK", "ERR", "ERR"], "MOVE -1 runs, -x and --1 do not")
    check(rings.position == 20, "MOVE -1 turned the rings one place back")


def check_levels() -> None:
    rings = Rings(20)
    dev = Device(RingController(rings), "b00t")
    d = Deframer()
    dev.feed(encode(1, ["CFG", "scan=1", "analog=1", "deadband=100"]), 0)
    dev.poll(0)
    rings.levels[10] = 32768 + 99  # noise inside the deadband: nothing
    dev.poll(2000)
    rings.levels[5] = 32768 + 4000  # a marble on b2
    dev.poll(4000)
    dev.feed(encode(2, ["LV"]), 4000)
    frames = d.feed(dev.take_output())
    events = [w for _, w in frames if w[0] == "EV"]
    check(len(events) == 17, "every level once at the first scan, then b2's")
    check(events[-1] == ["EV", "LV", "5", "36768", "4"], "b2's new level")
    levels = fields(frames[-1][1])["levels"].split(",")
    check(levels[5] == "36768" and levels[10] == "32768", "LV: the levels last reported")


def run() -> str:
    check_protocol()
    check_planner()
    check_controller()
    check_move_back()
    check_device()
    check_levels()
    return "orbito_fw self-checks passed"
