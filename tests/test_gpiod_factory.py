"""The gpiod pin factory (hw/gpiod_factory.py) on gpiozero's terms, against a fake kernel
GPIO chip (tests/common/fake_gpiod.py: the bindings' real types, only ``gpiod.Chip`` replaced), so
it runs on any Linux machine. The real kernel and gpio-sim: tests/system/gpiod_checks.py."""

from __future__ import annotations

import asyncio
import gc
import threading
import time
from collections.abc import Callable, Iterator
from datetime import timedelta
from importlib.metadata import entry_points
from pathlib import Path

import pytest
from gpiod.line import Bias, Direction, Edge
from gpiozero import Device, DigitalInputDevice, OutputDevice
from gpiozero.exc import (
    PinFixedPull,
    PinInvalidBounce,
    PinInvalidEdges,
    PinInvalidFunction,
    PinInvalidPull,
    PinPWMUnsupported,
    PinSetInput,
)
from gpiozero.pins.mock import MockFactory
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from orbito_hw.app.assemble import build_board, open_pin_factory
from orbito_hw.app.config import BackendsConfig, Config, example_text, parse_config
from orbito_hw.control.debounce import Debouncer
from orbito_hw.errors import ConfigError, HardwareError
from orbito_hw.hw import gpio, gpiod_factory
from orbito_hw.hw.clock import VirtualClock
from orbito_hw.hw.gpio import GpioButton, GpioDrive, GpioSensors, PinOpenError
from orbito_hw.hw.gpiod_factory import GpiodFactory, PinLineBusyError, _EdgeReader, _LoopEdges
from orbito_hw.sim.gpio_pins import DEFAULT_PINS as PINS

from .common.fake_gpiod import Kernel, installed

PI4 = 0xC03112  # a Pi 4's revision: gpiozero's board info (pin names, physical pulls)


@pytest.fixture
def kernel(monkeypatch: pytest.MonkeyPatch) -> Iterator[Kernel]:
    monkeypatch.setattr(GpiodFactory, "_get_revision", lambda self: PI4)
    with installed(monkeypatch, Kernel()) as fake:
        yield fake


def watched(loop: asyncio.AbstractEventLoop) -> set[int]:
    """The descriptors a loop's selector waits on (its own self-pipe left out)."""
    keys = loop._selector.get_map().values()  # type: ignore[attr-defined]
    return {key.fd for key in keys} - {loop._ssock.fileno()}  # type: ignore[attr-defined]


class RunningLoop:
    """An asyncio loop running on a thread of its own, as the controller's runs while the
    devices' supervisor opens and closes parts from a worker (here: the test's thread)."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="loop", daemon=True)
        self.thread.start()

    def watched(self) -> set[int]:
        return watched(self.loop)

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)
        self.loop.close()


@pytest.fixture(params=["thread", "loop"])
def factory(kernel: Kernel, request: pytest.FixtureRequest) -> Iterator[GpiodFactory]:
    """The factory with its edges read on its own thread (gpiozero's way), or on a running
    asyncio loop (the controller's): every test of the factory holds for both."""
    running = RunningLoop() if request.param == "loop" else None
    factory = GpiodFactory(loop=running.loop if running is not None else None)
    yield factory
    factory.close()
    if running is not None:
        assert running.watched() == set()  # no reader left on a descriptor closed
        running.close()
    # A device whose pin would not open keeps gpiozero's reservation of it (with every
    # factory) until it is collected: collected here, so the next test may use the pin.
    gc.collect()
    assert kernel.open_requests == set() and kernel.open_chips == 0  # all of it, every time


def wait_for(done: Callable[[], bool], timeout: float = 2.0) -> None:
    deadline = time.monotonic() + timeout
    while not done():
        assert time.monotonic() < deadline, "the edge thread delivered nothing"
        time.sleep(0.002)


def test_gpiozero_finds_the_factory_by_name(
    kernel: Kernel, monkeypatch: pytest.MonkeyPatch
) -> None:
    [entry] = [ep for ep in entry_points(group="gpiozero_pin_factories") if ep.name == "gpiod"]
    assert entry.load() is GpiodFactory
    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "gpiod")
    made = Device._default_pin_factory()
    try:
        assert isinstance(made, GpiodFactory)
        assert made.chip_path == Path("/dev/gpiochip0")
    finally:
        made.close()


def test_an_input_gets_the_kernels_pull_and_reads_the_line(
    kernel: Kernel, factory: GpiodFactory
) -> None:
    button = DigitalInputDevice(17, pull_up=True, bounce_time=0.02, pin_factory=factory)
    line = kernel.lines[17]
    assert line.consumer == "orbito-hw" and line.settings.direction is Direction.INPUT
    assert line.settings.bias is Bias.PULL_UP
    assert line.settings.debounce_period == timedelta(milliseconds=20)  # the kernel debounces
    assert line.settings.edge_detection is Edge.BOTH  # gpiozero's input always listens
    assert not button.is_active  # pulled up, nothing pressing: active low is inactive
    kernel.drive(17, False)
    assert button.is_active
    assert button.pin.bounce == 0.02 and button.pin.pull == "up"
    button.close()
    assert line.request is None and line.consumer == ""


def test_edges_come_from_the_kernel_with_its_timestamps(
    kernel: Kernel, factory: GpiodFactory
) -> None:
    sensor = DigitalInputDevice(5, pull_up=True, pin_factory=factory)
    heard: list[tuple[float, bool]] = []
    listen = lambda ticks, state: heard.append((ticks, state))  # noqa: E731
    sensor.pin.when_changed = listen  # gpiozero keeps a weak reference: so do we a strong one
    assert kernel.lines[5].settings.edge_detection is Edge.BOTH
    kernel.drive(5, False, at_ns=1_000_000_000)
    kernel.drive(5, True, at_ns=1_250_000_000)
    wait_for(lambda: len(heard) == 2)
    assert heard == [(1.0, False), (1.25, True)]  # the kernel's CLOCK_MONOTONIC, in seconds
    sensor.pin.when_changed = None
    assert kernel.lines[5].settings.edge_detection is Edge.NONE
    sensor.close()


def test_a_device_hears_activation_through_gpiozero(kernel: Kernel, factory: GpiodFactory) -> None:
    sensor = DigitalInputDevice(6, pull_up=True, pin_factory=factory)
    activated = threading.Event()
    sensor.when_activated = activated.set
    kernel.drive(6, False)
    assert activated.wait(2)
    assert sensor.is_active and sensor.active_time is not None
    sensor.close()


def test_rising_or_falling_edges_only(kernel: Kernel, factory: GpiodFactory) -> None:
    pin = factory.pin(12)
    pin.input_with_pull("down")
    pin.edges = "rising"
    heard: list[bool] = []
    listen = lambda ticks, state: heard.append(state)  # noqa: E731
    pin.when_changed = listen
    for level in (True, False, True, False):
        kernel.drive(12, level)
    wait_for(lambda: len(heard) == 2)
    time.sleep(0.05)
    assert heard == [True, True] and pin.edges == "rising"
    pin.close()


def test_an_output_starts_at_its_first_level_without_a_glitch(
    kernel: Kernel, factory: GpiodFactory
) -> None:
    # ENABLE, active low and off: the line must go straight to high, never low on the way.
    enable = OutputDevice(22, active_high=False, initial_value=False, pin_factory=factory)
    line = kernel.lines[22]
    assert line.settings.direction is Direction.OUTPUT
    assert [level for _, level in line.writes] == [True]
    enable.on()
    enable.off()
    assert [level for _, level in line.writes] == [True, False, True]
    assert enable.pin.state is True and enable.value == 0
    enable.close()


def test_gpiozero_pin_errors(kernel: Kernel, factory: GpiodFactory) -> None:
    pin = factory.pin(20)
    pin.input_with_pull("up")
    with pytest.raises(PinSetInput, match="GPIO20"):
        pin.state = 1
    with pytest.raises(PinInvalidPull, match="GPIO20"):
        pin.pull = "sideways"
    with pytest.raises(PinInvalidEdges, match="GPIO20"):
        pin.edges = "sometimes"
    with pytest.raises(PinInvalidBounce):
        pin.bounce = -1
    with pytest.raises(PinInvalidFunction, match="GPIO20"):
        pin.function = "alt0"
    pin.output_with_state(True)
    with pytest.raises(PinFixedPull, match="GPIO20"):
        pin.pull = "down"
    with pytest.raises(PinPWMUnsupported):
        pin.frequency = 100
    assert pin.frequency is None
    pin.close()


def test_a_physical_pull_up_cannot_be_pulled_down(kernel: Kernel, factory: GpiodFactory) -> None:
    pin = factory.pin(2)  # GPIO2 (I2C SDA) has a 1.8 kOhm pull-up on the board
    with pytest.raises(PinFixedPull, match="GPIO2 has a physical pull-up"):
        pin.input_with_pull("down")
    pin.close()


def test_a_line_another_process_holds_is_busy_naming_pin_and_holder(
    kernel: Kernel, factory: GpiodFactory
) -> None:
    kernel.hold(8, "spi0 CS0")
    with pytest.raises(
        PinLineBusyError, match=r"GPIO8 is busy: line 8 of /dev/gpiochip0 is held by"
    ):
        DigitalInputDevice(8, pin_factory=factory)


def test_a_busy_sensor_is_hw_gpios_one_line_and_the_others_are_closed(
    kernel: Kernel, factory: GpiodFactory
) -> None:
    busy = PINS.squares[3]
    kernel.hold(busy, "gpioset")
    with pytest.raises(PinOpenError) as caught:
        GpioSensors(PINS, VirtualClock(), factory)
    assert caught.value.pin == busy and caught.value.busy
    assert f"GPIO {busy}: GPIO{busy} is busy" in str(caught.value)
    held = [n for n, line in kernel.lines.items() if line.consumer == "orbito-hw"]
    assert held == []  # the three squares opened before it were closed again


def test_close_releases_everything_and_twice_is_fine(kernel: Kernel) -> None:
    factory = GpiodFactory()
    sensor = DigitalInputDevice(5, pull_up=True, pin_factory=factory)
    sensor.when_activated = lambda: None  # the edge thread runs
    assert isinstance(factory._reader, _EdgeReader)
    thread = factory._reader._thread
    assert thread is not None and thread.is_alive()
    factory.close()
    factory.close()
    assert not thread.is_alive()
    assert kernel.open_requests == set() and kernel.open_chips == 0


def test_a_closed_pin_can_be_opened_again(kernel: Kernel, factory: GpiodFactory) -> None:
    first = DigitalInputDevice(9, pull_up=True, pin_factory=factory)
    first.close()
    kernel.hold(9, "someone else")  # meanwhile the line was free for another process
    with pytest.raises(PinLineBusyError):
        DigitalInputDevice(9, pin_factory=factory)
    kernel.lines[9].request, kernel.lines[9].consumer = None, ""
    again = DigitalInputDevice(9, pull_up=True, pin_factory=factory)
    kernel.drive(9, False)
    assert again.is_active
    again.close()


def test_no_chip_is_an_error_naming_the_chip(kernel: Kernel) -> None:
    with pytest.raises(FileNotFoundError, match="gpiochip7"):
        GpiodFactory(7)


def test_the_default_chip_is_the_pis_own(kernel: Kernel, monkeypatch: pytest.MonkeyPatch) -> None:
    kernel.paths = {"/dev/gpiochip0", "/dev/gpiochip4"}
    monkeypatch.setattr(gpiod_factory, "chips", lambda: [Path(p) for p in sorted(kernel.paths)])
    assert gpiod_factory.default_chip() == Path("/dev/gpiochip0")  # labelled pinctrl-bcm2711
    kernel.label = "gpio-sim"
    assert gpiod_factory.default_chip() == Path("/dev/gpiochip0")  # no Pi chip: the first


def own_wakeups(thread: threading.Thread) -> int:
    status = Path(f"/proc/self/task/{thread.native_id}/status").read_text()
    counts = [int(line.split()[1]) for line in status.splitlines() if "ctxt_switches" in line]
    return sum(counts)


def test_the_edge_thread_sleeps_in_the_kernel_while_nothing_happens(
    kernel: Kernel, factory: GpiodFactory
) -> None:
    sensors = [DigitalInputDevice(pin, pull_up=True, pin_factory=factory) for pin in range(4, 22)]
    for sensor in sensors:
        sensor.when_activated = lambda: None
    if isinstance(factory._reader, _LoopEdges):  # no thread at all: the loop's epoll waits
        assert "gpiod-edges\n" not in thread_names()
        heard = threading.Event()
        on: list[str] = []

        def on_loop() -> None:
            on.append(threading.current_thread().name)
            heard.set()

        sensors[0].when_activated = on_loop
        kernel.drive(4, False)
        assert heard.wait(2) and on == ["loop"]  # the edge's callback ran on the loop
        for sensor in sensors:
            sensor.close()
        return
    thread = factory._reader._thread
    assert thread is not None
    time.sleep(0.05)
    comm = Path(f"/proc/self/task/{thread.native_id}/comm").read_text()
    assert comm == "gpiod-edges\n"  # named for top -H and the system test's figures
    before = own_wakeups(thread)
    time.sleep(0.5)
    assert own_wakeups(thread) == before  # lgpio's thread would have woken 1,000 times
    activated = threading.Event()
    sensors[0].when_activated = activated.set
    kernel.drive(4, False)
    assert activated.wait(2)
    assert own_wakeups(thread) > before  # and an edge does wake it
    for sensor in sensors:
        sensor.close()


def thread_names() -> list[str]:
    return [task.joinpath("comm").read_text() for task in Path("/proc/self/task").iterdir()]


def test_a_part_closed_from_a_worker_while_the_loop_reads_leaves_no_reader(
    kernel: Kernel,
) -> None:
    """The devices' supervisor closes and opens parts on a worker thread while the loop
    reads edges: each line is released only once the loop has stopped watching its
    descriptor, and a line closed and claimed again works at once."""
    running = RunningLoop()
    factory = GpiodFactory(loop=running.loop)
    try:
        for _ in range(20):
            sensor = DigitalInputDevice(6, pull_up=True, pin_factory=factory)
            heard = threading.Event()
            sensor.when_activated = heard.set
            kernel.drive(6, False)
            assert heard.wait(2)
            fd = sensor.pin.request.fd
            assert fd in running.watched()
            sensor.close()
            assert fd not in running.watched() and kernel.lines[6].request is None
            kernel.drive(6, True)
    finally:
        factory.close()
        running.close()
    assert kernel.open_requests == set()


def test_a_closed_loop_lets_the_lines_go_and_watches_nothing(kernel: Kernel) -> None:
    """The controller's loop closed first (a part still closing on a worker at shutdown):
    its pins open and close all the same, and release their lines."""
    loop = asyncio.new_event_loop()
    factory = GpiodFactory(loop=loop)
    sensor = DigitalInputDevice(8, pull_up=True, pin_factory=factory)
    sensor.when_activated = lambda: None
    loop.close()
    late = DigitalInputDevice(9, pull_up=True, pin_factory=factory)
    late.when_activated = lambda: None
    sensor.close()
    late.close()
    assert kernel.lines[8].request is None and kernel.lines[9].request is None
    factory.close()
    assert kernel.open_requests == set()


def test_a_stopped_loop_lets_the_lines_go_at_once(kernel: Kernel) -> None:
    loop = asyncio.new_event_loop()
    factory = GpiodFactory(loop=loop)
    sensor = DigitalInputDevice(7, pull_up=True, pin_factory=factory)
    sensor.when_activated = lambda: None
    assert watched(loop) == {sensor.pin.request.fd}
    sensor.close()  # the loop is not running: its readers are this thread's to change
    assert kernel.lines[7].request is None and watched(loop) == set()
    factory.close()
    loop.close()


def test_the_board_parts_on_the_factory(kernel: Kernel, factory: GpiodFactory) -> None:
    clock = VirtualClock()
    sensors = GpioSensors(PINS, clock, factory)
    button = GpioButton(PINS, clock, factory)
    heard: list[tuple[int, bool]] = []
    sensors.subscribe(lambda sq, present, when: heard.append((sq, present)))
    kernel.drive(PINS.squares[4], False)  # a magnet on a2 pulls its reed switch low
    wait_for(lambda: clock.next_due() is not None)
    clock.advance(0)
    assert heard == [(4, True)] and sensors.read() == 1 << 4
    assert kernel.lines[PINS.button].settings.debounce_period == timedelta(0)
    sensors.close()
    button.close()


@pytest.mark.parametrize("steps_per_place", [200, 800])
def test_the_stepper_makes_exactly_its_pulses(
    kernel: Kernel, factory: GpiodFactory, steps_per_place: int
) -> None:
    clock = VirtualClock()
    drive = GpioDrive(PINS, clock, steps_per_place, 4000.0, 20000.0, factory=factory)
    reports: list[object] = []
    drive.move(1, reports.append)
    clock.advance(5.0)
    rising = [t for t, level in kernel.lines[PINS.step].writes if level]
    assert len(reports) == 1 and len(rising) == steps_per_place
    enable = [level for _, level in kernel.lines[PINS.enable].writes]
    assert enable == [True, False, True]  # off (active low) at rest, on for the move, off
    drive.close()


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    gaps=st.lists(st.integers(min_value=1, max_value=40), min_size=1, max_size=12),
    debounce=st.sampled_from([0, 10, 20]),
)
def test_every_kernel_edge_reaches_gpiozero_in_order_and_debounce_is_the_kernels(
    kernel: Kernel, factory: GpiodFactory, gaps: list[int], debounce: int
) -> None:
    # A sensor line chattering: level changes ``gaps`` ms apart; the kernel debounces
    # (a change counts once the line stayed ``debounce`` ms). Whatever the kernel reports
    # reaches gpiozero, every edge, in order, with the kernel's time; no other.
    kernel.lines[13].driven = None  # hypothesis reuses the kernel: the line starts free
    sensor = DigitalInputDevice(
        13, pull_up=True, bounce_time=debounce / 1000 or None, pin_factory=factory
    )
    heard: list[tuple[float, bool]] = []
    listen = lambda ticks, state: heard.append((ticks, state))  # noqa: E731
    sensor.pin.when_changed = listen
    start = time.monotonic_ns()
    ms, level = 0, True
    for gap in gaps:
        ms += gap
        kernel.advance(start + ms * 1_000_000)  # the debounce timer fires first
        level = not level
        kernel.drive(13, level, at_ns=start + ms * 1_000_000)
    kernel.advance(start + (ms + 100) * 1_000_000)
    expected = expected_edges(gaps, debounce)
    wait_for(lambda: len(heard) >= len(expected))
    assert [round((t - start / 1e9) * 1000, 6) for t, _ in heard] == [t for t, _ in expected]
    assert [state for _, state in heard] == [state for _, state in expected]
    assert sensor.is_active == (not level)
    sensor.close()


def expected_edges(gaps: list[int], debounce: int) -> list[tuple[float, bool]]:
    """The kernel's edges for level changes ``gaps`` ms apart from high: a change is an edge
    once the line kept its level ``debounce`` ms (0: at once), stamped at that time."""
    edges: list[tuple[float, bool]] = []
    times = [sum(gaps[: i + 1]) for i in range(len(gaps))]
    level, reported = True, True
    for i, at in enumerate(times):
        level = not level
        until = times[i + 1] if i + 1 < len(times) else None
        if debounce == 0:
            edges.append((float(at), level))
            reported = level
        elif (until is None or until - at >= debounce) and level != reported:
            edges.append((float(at + debounce), level))
            reported = level
    return edges


# --- choosing the factory (backends.gpio) and the kernel's time in the referee's events -----
@pytest.fixture
def no_factory_yet(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.delenv("GPIOZERO_PIN_FACTORY", raising=False)
    old, Device.pin_factory = Device.pin_factory, None
    yield
    Device.pin_factory = old


def test_auto_is_gpiod_where_it_can_run(
    kernel: Kernel, no_factory_yet: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(gpio, "gpiod_usable", lambda: True)
    made = gpio.pin_factory("auto")
    assert isinstance(made, GpiodFactory)
    assert gpio.factory_name(made) == "GpiodFactory on /dev/gpiochip0"
    made.close()
    monkeypatch.setattr(gpio, "gpiod_usable", lambda: False)
    assert gpio.pin_factory("auto") is None  # gpiozero's own order: lgpio, RPi.GPIO...


def test_auto_leaves_a_chosen_factory_alone(
    kernel: Kernel, no_factory_yet: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(gpio, "gpiod_usable", lambda: True)
    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "lgpio")
    assert gpio.pin_factory("auto") is None  # the environment chose: gpiozero reads it
    monkeypatch.delenv("GPIOZERO_PIN_FACTORY")
    Device.pin_factory = MockFactory()
    assert gpio.pin_factory("auto") is None  # as the tests' MockFactory
    assert isinstance(gpio.pin_factory("mock"), MockFactory)  # the config may name any


def test_a_library_that_cannot_run_names_the_config_key(kernel: Kernel) -> None:
    config = Config(source="board.toml", backends=BackendsConfig(gpio="gpiod"))
    kernel.paths = set()  # no GPIO chip on this machine
    with pytest.raises(HardwareError, match=r"board.toml: backends.gpio = 'gpiod': cannot drive"):
        open_pin_factory(config)
    with pytest.raises(ConfigError, match=r"backends.gpio: 'pigpiod' is not one of auto, gpiod"):
        parse_config(SIM_PARTS + 'gpio = "pigpiod"\n')


SIM_PARTS = '[backends]\nsensors = "sim"\nbutton = "sim"\ndrive = "sim"\nlights = "sim"\n'


class MonotonicClock(VirtualClock):
    monotonic = True  # as LoopClock: the kernel's stamps are on its time


def test_a_sensor_change_is_dated_by_the_kernel(kernel: Kernel, factory: GpiodFactory) -> None:
    clock = MonotonicClock(start=100.0)
    sensors = GpioSensors(PINS, clock, factory)
    button = GpioButton(PINS, clock, factory)
    heard: list[tuple[str, bool, float]] = []
    sensors.subscribe(lambda sq, present, when: heard.append((f"square {sq}", present, when)))
    button.subscribe(lambda pressed, when: heard.append(("button", pressed, when)))
    kernel.drive(PINS.squares[0], False, at_ns=99_250_000_000)
    kernel.drive(PINS.button, False, at_ns=99_500_000_000)
    wait_for(lambda: len(clock._timers) == 2)
    clock.advance(0)
    assert heard == [("square 0", True, 99.25), ("button", True, 99.5)]
    sensors.close()
    button.close()


@given(age=st.floats(0, 0.2), held=st.floats(0.001, 0.3))
def test_the_debounce_counts_from_the_edges_stamps(age: float, held: float) -> None:
    # A marble put down at the kernel's ``now - age`` and lifted ``held`` s later, each
    # edge reaching the event loop at its stamp or later (the loop busy till now): passed
    # on if and only if it stayed the debounce delay, however late the loop got to it.
    delay = 0.05
    assume(abs(held - delay) > 1e-6)  # the boundary itself is the float's, not ours
    clock = VirtualClock(start=10.0)
    stub = StubSensors()
    debounced = Debouncer(stub, clock, delay)
    heard: list[tuple[bool, float]] = []
    debounced.subscribe(lambda sq, present, when: heard.append((present, when)))
    put = clock.now() - age
    stub.tell(2, True, put)
    lifted = put + held
    if lifted > clock.now():
        clock.run_until(lifted)
    stub.tell(2, False, lifted)  # both waiting together when the lift is older than now
    clock.advance(1.0)
    assert (heard[:1] == [(True, put)]) == (held > delay)
    assert debounced.read() == 0


class StubSensors:
    def __init__(self) -> None:
        self.listeners: list[Callable[[int, bool, float], None]] = []

    def read(self) -> int:
        return 0

    def subscribe(self, listener: Callable[[int, bool, float], None]) -> None:
        self.listeners.append(listener)

    def tell(self, square: int, present: bool, when: float) -> None:
        for listener in self.listeners:
            listener(square, present, when)


def gpiod_board_config() -> Config:
    """The switch build (its 16 squares on GPIO lines, every part on the kernel's lines): the
    reference board's sensors are on I2C, which this fake kernel has no bus for."""
    text = example_text().replace('lights = "neopixel"', 'lights = "none"', 1)
    text = text.replace('sensors = "tmag"', 'sensors = "gpio"', 1)
    text = text.replace("\ncolour = true\n", "\ncolour = false\n", 1)  # hall switches: presence
    return parse_config(text.replace('gpio = "auto"', 'gpio = "gpiod"', 1), "board.toml")


def test_the_board_runs_on_the_configs_library_and_closes_it(kernel: Kernel) -> None:
    config = gpiod_board_config()
    with build_board(config, VirtualClock(), realtime=False) as board:
        held = sorted(n for n, line in kernel.lines.items() if line.consumer == "orbito-hw")
        assert held == sorted(pin for _, pin in config.gpio_pins())
        assert board.pins is not None
    assert kernel.open_requests == set() and kernel.open_chips == 0


def test_a_busy_line_closes_the_parts_and_the_factory(kernel: Kernel) -> None:
    config = gpiod_board_config()
    kernel.hold(config.button.pin or 0, "gpioset")
    with pytest.raises(HardwareError, match=r"button.pin = 17: GPIO 17 is busy"):
        build_board(config, VirtualClock(), realtime=False)
    assert [line.consumer for line in kernel.lines.values() if line.consumer] == ["gpioset"]
    assert len(kernel.open_requests) == 0 and kernel.open_chips == 0
    gc.collect()  # gpiozero's reservation of the busy pin (see the factory fixture)


def test_a_line_whose_edges_cannot_be_read_is_dropped_not_the_others(
    kernel: Kernel, factory: GpiodFactory, caplog: pytest.LogCaptureFixture
) -> None:
    broken = DigitalInputDevice(10, pull_up=True, pin_factory=factory)
    sound = DigitalInputDevice(11, pull_up=True, pin_factory=factory)
    heard = threading.Event()
    sound.when_activated = heard.set

    def gone() -> list[object]:  # the read of a chip unplugged
        raise OSError(19, "No such device")

    broken.pin._pending_events = gone
    kernel.drive(10, False)
    wait_for(lambda: "GPIO10: its edges cannot be read: [Errno 19]" in caplog.text)
    kernel.drive(11, False)
    assert heard.wait(2)  # the thread lives on for the other lines
    broken.close()
    sound.close()
