"""orbito-hw ring controller: the Pico's entry point (MicroPython on an RP2040).

``orbito-hw firmware install`` copies this file to the Pico's root as ``main.py``, which
MicroPython runs at boot; it is never imported as ``orbito_fw.main``. Everything that
touches ``machine`` and ``rp2`` is in this file; the rest of ``orbito_fw`` is the logic
and runs unchanged on the host. Pins (change them here to suit a board):

- GP2 STEP, GP3 DIR, GP4 ENABLE (active low) to the stepper driver (A4988, DRV8825, TMC2208);
  DIR high turns the rings counter-clockwise (a press, ``MOVE N``), low clockwise (a
  take-back, ``MOVE -N``): swap the motor's coil pair if it turns the other way
- GP5 index sensor (active low: an open-collector Hall sensor or slotted opto, pulled up)
- GP6..GP21 the 16 square sensors a1..d4 (active low, pulled up), read in one go
- or, on a colour board (setting ``analog``): GP6..GP9 the CD74HC4067 multiplexer's select
  lines S0..S3 (square n on its input Cn), its common pin on GP26 (ADC0); the linear hall
  sensors and the multiplexer on the Pico's 3V3, which is also the ADC's reference
"""

import os
import select
import sys
import time

import machine
import rp2

from orbito_fw.controller import RingController
from orbito_fw.device import Device

STEP_PIN = 2
DIR_PIN = 3
ENABLE_PIN = 4
INDEX_PIN = 5
FIRST_SQUARE_PIN = 6
WATCHDOG_MS = 2000
DIR_SETUP_US = 2  # DIR steady this long before a STEP edge (A4988 0.2 us, DRV8825 0.65 us)
SIO_GPIO_IN = 0xD0000004  # every GPIO's input level in one 32-bit read
MUX_FIRST_PIN = 6  # GP6..GP9: the multiplexer's S0..S3 on a colour board
MUX_LINES = 4
ADC_PIN = 26
MUX_SETTLE_US = 20  # the sensor's output through the mux's 70 ohm into the ADC's 1 pF
LEVEL_SAMPLES = 4  # conversions averaged per square (the RP2040's ADC is noisy)


@rp2.asm_pio(set_init=rp2.PIO.OUT_LOW)
def step_pulse():
    # One word in, one clean pulse out: 32 cycles high at 10 MHz = 3.2 us, longer than
    # any common driver's minimum (A4988 1 us, DRV8825 1.9 us), never cut by Python.
    pull(block)  # noqa: F821 - PIO assembler names
    set(pins, 1)[31]  # noqa: F821
    set(pins, 0)  # noqa: F821


class PicoPort:
    """The hardware port of ``RingController`` on the Pico's pins."""

    def __init__(self):
        self.dir = machine.Pin(DIR_PIN, machine.Pin.OUT, value=1)
        self.enable_pin = machine.Pin(ENABLE_PIN, machine.Pin.OUT, value=1)
        self.index = machine.Pin(INDEX_PIN, machine.Pin.IN, machine.Pin.PULL_UP)
        for n in range(16):
            machine.Pin(FIRST_SQUARE_PIN + n, machine.Pin.IN, machine.Pin.PULL_UP)
        self.sm = rp2.StateMachine(0, step_pulse, freq=10000000, set_base=machine.Pin(STEP_PIN))
        self.sm.active(1)
        self.forward = True
        self.mux = None  # the select lines, set up at the first read of the levels
        self.adc = None

    def step(self, forward):
        # DIR changes only between moves (a move turns one way all along), set before the
        # move's first pulse; the last pulse of the move before ended long ago.
        if forward != self.forward:
            self.dir.value(1 if forward else 0)
            self.forward = forward
            time.sleep_us(DIR_SETUP_US)
        self.sm.put(0)

    def enable(self, on):
        self.enable_pin.value(0 if on else 1)

    def index_active(self):
        return self.index.value() == 0

    def read_squares(self):
        return (~machine.mem32[SIO_GPIO_IN] >> FIRST_SQUARE_PIN) & 0xFFFF

    def read_levels(self):
        if self.adc is None:
            pins = range(MUX_FIRST_PIN, MUX_FIRST_PIN + MUX_LINES)
            self.mux = [machine.Pin(n, machine.Pin.OUT, value=0) for n in pins]
            self.adc = machine.ADC(ADC_PIN)
        levels = []
        for square in range(16):
            for line in range(MUX_LINES):
                self.mux[line].value((square >> line) & 1)
            time.sleep_us(MUX_SETTLE_US)
            total = 0
            for _ in range(LEVEL_SAMPLES):
                total += self.adc.read_u16()
            levels.append(total // LEVEL_SAMPLES)
        return levels


def boot_id():
    return "".join(f"{b:02x}" for b in os.urandom(4))


def start_watchdog(service):
    """Arm the hardware watchdog, fed by a timer only while the main loop keeps ticking.

    The timer lets the watchdog live on at the REPL after Ctrl-C (``service[0]`` set), so
    mpremote can still copy files: an RP2040 watchdog once started cannot be stopped.
    """
    wdt = machine.WDT(timeout=WATCHDOG_MS)
    alive = [True]

    def feed(_timer):
        if alive[0] or service[0]:
            alive[0] = False
            wdt.feed()

    machine.Timer(period=WATCHDOG_MS // 4, mode=machine.Timer.PERIODIC, callback=feed)
    return alive


def main():
    cause = "watchdog" if machine.reset_cause() == machine.WDT_RESET else ""
    port = PicoPort()
    device = Device(RingController(port, reset_cause=cause), boot_id())
    service = [False]
    alive = start_watchdog(service)  # a hung loop restarts the Pico, motor off
    poller = select.poll()
    poller.register(sys.stdin, select.POLLIN)
    read = sys.stdin.buffer.read
    write = sys.stdout.buffer.write
    last = time.ticks_us()
    now = 0  # microseconds since boot, without the 30-bit wrap of ticks_us
    try:
        while True:
            tick = time.ticks_us()
            now += time.ticks_diff(tick, last)
            last = tick
            while poller.poll(0):
                device.feed(read(1), now)
            device.poll(now)
            out = device.take_output()
            if out:
                write(out)
            alive[0] = True
    except KeyboardInterrupt:
        # Ctrl-C (mpremote, never the protocol: frames are printable ASCII): motor off,
        # watchdog kept fed, and the REPL is free for maintenance.
        port.enable(False)
        service[0] = True


main()
