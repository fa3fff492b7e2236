"""The system test's world, in the VM: the board's mechanics on a gpio-sim chip.

orbito-hw drives a real kernel GPIO chip (gpio-sim) with lgpio; this process is everything on
the other side of the pins. It reads the STEP, DIR and ENABLE outputs from the kernel's
``gpio_value`` trace events (every level the service sets, in order: sysfs would miss a
pulse), turns the rings one motor step per STEP rising edge while ENABLE is active, and drives
the inputs through gpio-sim's ``pull`` files: a square's sensor reads a marble only while a
full pocket sits on it (within ``SENSE_WINDOW`` steps), the index sensor while the rings sit
within ``INDEX_WINDOW`` steps of a place (a hall switch sees its magnet over a few steps; the
drive, creeping, stops at the first step it reads), the button while a hand holds it.

A consumer that requests a line with a pull bias sets gpio-sim's pull to it (what a real
pull resistor does to a line nobody drives), so the world puts its own level back after
every ``gpio_direction`` event: the sensors overpower the pull, as a hall switch does.

The marbles and the rings' position are kept in ``STATE`` (atomic writes, fsync'd), so they
survive a hard power-off of the VM as a real board's marbles would.

  world.py serve              the world (orbito-world.service)
  world.py put a2 | lift c1 | clear | press | release | tap | state | wait-still
  world.py pico plug | unplug | cut STEPS | state      the Pico's USB cable (pico.py)
"""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import threading
import time
import tomllib
from pathlib import Path
from typing import Any

from orbito_hw.rules.squares import INNER_RING, OUTER_RING, SQUARE_NAMES, parse_square

CONFIG = Path("/etc/orbito-test/board.toml")  # the board's config, as the service gets it
STATE = Path("/var/lib/orbito-world/state.json")
SOCKET = "/run/orbito-world.sock"
CONFIGFS = Path("/sys/kernel/config/gpio-sim/orbito")
TRACING = Path("/sys/kernel/tracing/instances/orbito-world")
LINES = 28  # BCM 0..27, one gpio-sim line each
# The Pi 4's header chip's label: the service finds its chip by label, as on a Pi
# (hw/gpiod_factory.py default_chip), whatever number the kernel gave it (on arm64's "virt"
# machine gpiochip0 is the board's own PL061, and gpio-sim comes second).
LABEL = "pinctrl-bcm2711"
SENSE_WINDOW_SHARE = 4  # a sensor reads a pocket within a quarter place of its square
INDEX_WINDOW_SHARE = 5  # the index magnet is seen within a fifth of a place
TAP_S = 0.4  # a press held longer than the button's debounce
STILL_S = 0.6  # no step for this long: the rings are at rest

RING_OF = {sq: (ring, i) for ring in (OUTER_RING, INNER_RING) for i, sq in enumerate(ring)}


class Chip:
    """The gpio-sim chip: made live through configfs, its lines driven through sysfs."""

    def __init__(self) -> None:
        subprocess.run(["modprobe", "gpio-sim"], check=True)
        if not CONFIGFS.exists():
            bank = CONFIGFS / "gpio-bank0"
            bank.mkdir(parents=True)
            (bank / "num_lines").write_text(str(LINES))
            (bank / "label").write_text(LABEL)
        if (CONFIGFS / "live").read_text().strip() != "1":  # live already: the world restarted
            (CONFIGFS / "live").write_text("1")
        device = (CONFIGFS / "dev_name").read_text().strip()
        chip = (CONFIGFS / "gpio-bank0" / "chip_name").read_text().strip()
        self.sysfs = Path("/sys/devices/platform") / device / chip
        # The chip's first global line number, which the trace events carry.
        [self.base] = [
            int((entry / "base").read_text())
            for entry in Path("/sys/class/gpio").glob("gpiochip*")
            if (entry / "label").read_text().strip() == LABEL
        ]

    def drive(self, line: int, high: bool) -> None:
        (self.sysfs / f"sim_gpio{line}" / "pull").write_text("pull-up" if high else "pull-down")

    def level(self, line: int) -> bool:
        return (self.sysfs / f"sim_gpio{line}" / "value").read_text().strip() == "1"


class World:
    def __init__(self, chip: Chip, config: dict[str, Any]) -> None:
        self.chip = chip
        sensors, drive, button = config["sensors"], config["drive"], config["button"]
        self.sensor_pin = {parse_square(n): p for n, p in sensors["pins"].items()}
        self.sensor_low = sensors.get("active", "low") == "low"
        self.button_pin, self.button_low = button["pin"], button.get("active", "low") == "low"
        self.index_pin = drive["index_pin"]
        self.index_low = drive.get("index_active", "low") == "low"
        self.step_pin, self.dir_pin, self.enable_pin = (
            drive["step_pin"],
            drive["dir_pin"],
            drive["enable_pin"],
        )
        self.enable_level = drive.get("enable_active", "low") == "high"
        self.forward_level = not drive.get("invert_direction", False)
        self.spp = int(drive.get("steps_per_place", 800))
        self.sense_window = self.spp // SENSE_WINDOW_SHARE
        self.index_window = self.spp // INDEX_WINDOW_SHARE
        self.lock = threading.Lock()
        self.steps = 0
        self.pockets: set[tuple[int, int]] = set()
        self.pressed = False
        self.levels: dict[int, bool] = {}  # outputs as last set by the service
        self.last_step = 0.0
        # When the button's line was last pressed and released (time.monotonic(): the
        # journal's monotonic stamps are on its clock): gpiod_checks.py's press latency.
        self.button_at = {"press": 0.0, "release": 0.0}
        self.saved_steps = 0
        self.step_count = 0
        self.pico: Any = None  # the Pico on USB (pico.py), made by serve()
        self._load()

    # --- geometry, as orbito_hw/sim/board.py has it -------------------------------------
    def offset(self) -> int:
        return self.steps % self.spp

    def near(self) -> bool:
        off = self.offset()
        return min(off, self.spp - off) <= self.sense_window

    def pocket_on(self, square: int) -> tuple[int, int]:
        ring, i = RING_OF[square]
        off = self.offset()
        turned = self.steps // self.spp + (1 if off > self.spp // 2 else 0)
        return len(ring), (i - turned) % len(ring)

    def present(self, square: int) -> bool:
        return self.near() and self.pocket_on(square) in self.pockets

    def index(self) -> bool:
        off = self.offset()
        return min(off, self.spp - off) <= self.index_window

    # --- the lines ----------------------------------------------------------------------
    def inputs(self) -> dict[int, bool]:
        """Every input line's level as the world drives it."""
        want = {pin: self.present(sq) != self.sensor_low for sq, pin in self.sensor_pin.items()}
        want[self.index_pin] = self.index() != self.index_low
        want[self.button_pin] = self.pressed != self.button_low
        return want

    def apply(self, only: set[int] | None = None) -> None:
        """Drive the inputs that differ from the world (``only``: those lines, whatever they
        read, just (re)claimed with a pull)."""
        for pin, high in self.inputs().items():
            reclaimed = only is not None and pin in only
            if reclaimed or (only is None and self.chip.level(pin) != high):
                self.chip.drive(pin, high)

    def on_value(self, line: int, high: bool) -> None:
        was = self.levels.get(line)
        self.levels[line] = high
        if line != self.step_pin or not high or was is True:
            return
        if self.levels.get(self.enable_pin) != self.enable_level:
            return  # a driver ignores STEP while it is disabled
        self.step(self.levels.get(self.dir_pin, self.forward_level) == self.forward_level)

    def step(self, forward: bool) -> None:
        """One motor step (the Pi's STEP line, or the Pico's motor: pico.py)."""
        before = (self.near(), self.index(), self.steps // self.spp)
        self.steps += 1 if forward else -1
        self.step_count += 1
        self.last_step = time.monotonic()
        if (self.near(), self.index(), self.steps // self.spp) != before:
            self.apply()

    # --- the Pico's view of the rings (pico.py calls these on its own thread) ---------------
    def pico_step(self, forward: bool) -> None:
        with self.lock:
            self.step(forward)

    def index_active(self) -> bool:
        return self.index()

    def read_squares(self) -> int:
        return sum(1 << sq for sq in self.sensor_pin if self.present(sq))

    # --- the journal of the world ------------------------------------------------------
    def _load(self) -> None:
        if STATE.exists():
            data = json.loads(STATE.read_text())
            self.steps = int(data["steps"])
            self.pockets = {(int(a), int(b)) for a, b in data["pockets"]}
        self.saved_steps = self.steps

    def save(self) -> None:
        STATE.parent.mkdir(parents=True, exist_ok=True)
        tmp = STATE.with_suffix(".tmp")
        with tmp.open("w") as file:
            json.dump({"steps": self.steps, "pockets": sorted(self.pockets)}, file)
            file.flush()
            os.fsync(file.fileno())
        os.replace(tmp, STATE)
        directory = os.open(STATE.parent, os.O_RDONLY)
        try:
            os.fsync(directory)
        finally:
            os.close(directory)
        self.saved_steps = self.steps

    def still(self) -> bool:
        return time.monotonic() - self.last_step > STILL_S

    def snapshot(self) -> dict[str, Any]:
        return {
            "steps": self.steps,
            "offset": self.offset(),
            "index": self.index(),
            "still": self.still(),
            "pulses": self.step_count,
            "present": [SQUARE_NAMES[sq] for sq in self.sensor_pin if self.present(sq)],
            "enabled": self.levels.get(self.enable_pin) == self.enable_level,
            "button_at": dict(self.button_at),
        }

    # --- what a hand does -----------------------------------------------------------------
    def command(self, words: list[str]) -> dict[str, Any]:
        verb, args = words[0], words[1:]
        if verb in ("put", "lift"):
            with self.lock:
                if not self.still() or not self.near():
                    return {"error": "the rings are turning"}
                pocket = self.pocket_on(parse_square(args[0]))
                if verb == "put" and pocket in self.pockets:
                    return {"error": f"{args[0]} holds a marble"}
                if verb == "lift" and pocket not in self.pockets:
                    return {"error": f"{args[0]} holds no marble"}
                (self.pockets.add if verb == "put" else self.pockets.discard)(pocket)
                self.save()
                self.apply()
        elif verb in ("press", "release", "tap"):
            with self.lock:
                self.pressed = verb != "release"
                self.button_at["press" if self.pressed else "release"] = time.monotonic()
                self.apply({self.button_pin})
            if verb == "tap":
                time.sleep(TAP_S)
                with self.lock:
                    self.pressed = False
                    self.button_at["release"] = time.monotonic()
                    self.apply({self.button_pin})
        elif verb == "wait-still":
            deadline = time.monotonic() + float(args[0] if args else 60)
            while not self.still() and time.monotonic() < deadline:
                time.sleep(0.1)
            with self.lock:
                if self.steps != self.saved_steps:
                    self.save()  # at rest and saved: a power cut from now on loses nothing
        elif verb == "clear":  # every marble off the board (the rings at rest)
            with self.lock:
                self.pockets.clear()
                self.save()
                self.apply()
        elif verb == "pico":  # the Pico's USB cable: plug, unplug, state
            if self.pico is None:
                return {"error": "no USB gadget: see the world's log"}
            if args[0] in ("plug", "unplug"):
                getattr(self.pico, args[0])()
            elif args[0] == "cut":  # pull the cable after N more motor steps
                self.pico.cut(int(args[1]))
            return {**self.pico.state(), "steps": self.steps}
        elif verb != "state":
            return {"error": f"unknown command {verb!r}"}
        with self.lock:
            return self.snapshot()


def trace(world: World) -> None:
    """Follow the kernel's gpio trace events for the chip's lines, for ever."""
    chip = world.chip
    TRACING.mkdir(exist_ok=True)
    (TRACING / "tracing_on").write_text("0")
    (TRACING / "buffer_size_kb").write_text("4096")
    events = TRACING / "events" / "gpio"
    span = f"gpio >= {chip.base} && gpio < {chip.base + LINES}"
    (events / "gpio_value" / "filter").write_text(f"{span} && get == 0")
    (events / "gpio_direction" / "filter").write_text(span)
    for name in ("gpio_value", "gpio_direction"):
        (events / name / "enable").write_text("1")
    (TRACING / "trace").write_text("")
    (TRACING / "tracing_on").write_text("1")
    value = re.compile(rb"gpio_value: (\d+) set (\d+)")
    direction = re.compile(rb"gpio_direction: (\d+) +(in|out)")
    with (TRACING / "trace_pipe").open("rb", buffering=0) as pipe:
        pending = b""
        while True:
            pending += pipe.read(65536)
            *lines, pending = pending.split(b"\n")
            touched: set[int] = set()
            with world.lock:
                for line in lines:
                    if m := value.search(line):
                        world.on_value(int(m[1]) - chip.base, m[2] == b"1")
                    elif m := direction.search(line):
                        touched.add(int(m[1]) - chip.base)
                if touched:  # a line (re)claimed with a pull: the sensors drive it again
                    world.apply(touched)


def keep(world: World) -> None:
    """Save the rings' position once they come to rest (a power cut keeps the marbles)."""
    while True:
        time.sleep(0.2)
        with world.lock:
            if world.steps != world.saved_steps and world.still():
                world.save()


def usb_pico(world: World) -> Any:
    """The Pico as a USB gadget (pico.py), unplugged; None if this kernel cannot make one
    (the checks that need it fail, saying so; the others run)."""
    from pico import UsbPico

    class Rings:  # the world's rings as the firmware's port sees them
        step = staticmethod(world.pico_step)
        index_active = staticmethod(world.index_active)
        read_squares = staticmethod(world.read_squares)

    try:
        return UsbPico(Rings())
    except (OSError, subprocess.CalledProcessError, ValueError) as exc:
        print(f"world: no USB gadget: {exc}", file=sys.stderr, flush=True)
        return None


def serve() -> None:
    config = tomllib.loads(CONFIG.read_text())
    world = World(Chip(), config)
    with world.lock:
        world.apply()
    threading.Thread(target=trace, args=(world,), daemon=True).start()
    threading.Thread(target=keep, args=(world,), daemon=True).start()
    world.pico = usb_pico(world)
    if os.path.exists(SOCKET):
        os.unlink(SOCKET)
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(SOCKET)
    server.listen(8)
    notify = os.environ.get("NOTIFY_SOCKET")
    if notify:
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
            sock.sendto(b"READY=1", notify.replace("@", "\0", 1))
    while True:
        conn, _ = server.accept()
        threading.Thread(target=answer, args=(world, conn), daemon=True).start()


def answer(world: World, conn: socket.socket) -> None:
    with conn, conn.makefile("rw") as stream:
        for line in stream:
            try:
                reply = world.command(line.split())
            except (KeyError, ValueError, IndexError) as exc:
                reply = {"error": f"{type(exc).__name__}: {exc}"}
            stream.write(json.dumps(reply) + "\n")
            stream.flush()


def client(words: list[str]) -> int:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.connect(SOCKET)
        sock.sendall((" ".join(words) + "\n").encode())
        reply = sock.makefile().readline()
    print(reply.strip())
    return 1 if "error" in json.loads(reply) else 0


if __name__ == "__main__":
    if sys.argv[1:] == ["serve"]:
        serve()
    else:
        sys.exit(client(sys.argv[1:]))
