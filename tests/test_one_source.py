"""One source for every default and every fact: the palette, the "#rrggbb" codec, the
strip's serpentine, the step planner, the firmware's fault words, the referee's settings
(the same on the simulated board as on a real one), and no second debounce of squares the
Pico already debounced."""

from __future__ import annotations

import ast
import dataclasses
import inspect
import string
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from orbito_fw import controller as fw
from orbito_fw.controller import RingController
from orbito_fw.planner import MIN_ACCEL, Planner

from orbito_hw.app.config import LightsConfig, example_text, parse_config, sim_config
from orbito_hw.app.run import settings
from orbito_hw.control.debounce import Debouncer
from orbito_hw.control.lights import Palette
from orbito_hw.control.settings import Settings
from orbito_hw.errors import ConfigError
from orbito_hw.hw import serial_backend
from orbito_hw.hw.clock import VirtualClock
from orbito_hw.hw.interfaces import MoveReport, SquareListener, parse_rgb, rgb_hex
from orbito_hw.hw.planner import MIN_ACCELERATION, SteppedDrive
from orbito_hw.hw.strip import SERPENTINE, StripLights, pixels_along
from orbito_hw.rules.squares import SQUARE_NAMES
from orbito_hw.sim.harness import MockRun
from orbito_hw.sim.script import parse_script

from .common.standin_rings import StandInRings

SIM_BACKENDS = '[backends]\nsensors = "sim"\nbutton = "sim"\ndrive = "sim"\nlights = "sim"\n'
PICO_SCANS = (
    '[backends]\nsensors = "serial"\nbutton = "sim"\ndrive = "serial"\nlights = "sim"\n'
    "[sensors]\ndebounce_ms = 40\n"
)
COLOURS = st.tuples(*[st.integers(0, 255)] * 3)


# --- the palette ----------------------------------------------------------------------------
def test_the_configs_colours_default_to_the_light_shows_palette() -> None:
    assert LightsConfig().colours == Palette()
    assert parse_config(SIM_BACKENDS).lights.colours == Palette()


def test_the_example_shows_every_colour_at_its_default() -> None:
    config = parse_config(example_text(), "example")
    assert config.lights.colours == Palette()
    table = example_text().split("[lights.colours]")[1]
    keys = [line.split(" = ")[0] for line in table.splitlines() if " = " in line]
    assert keys == [f.name for f in dataclasses.fields(Palette)]


def test_a_colour_in_the_file_reaches_the_referees_palette() -> None:
    config = parse_config(SIM_BACKENDS + '[lights.colours]\nmoving = "#0060FF"\n')
    assert settings(config).palette == dataclasses.replace(Palette(), moving=(0, 96, 255))


def test_the_retired_ready_colour_is_a_note_not_a_refusal() -> None:
    # A board whose config came from an older example must still start after an upgrade.
    config = parse_config(SIM_BACKENDS + '[lights.colours]\nready = "#00ff00"\n', "board.toml")
    note = (
        "lights.colours.ready: no longer used "
        "(the status pixel shows the colour to move); you may delete it"
    )
    assert config.notes == (note,)
    assert f"note: {note}" in config.summary().splitlines()
    assert parse_config(SIM_BACKENDS).notes == ()


# --- the "#rrggbb" codec ----------------------------------------------------------------------
@given(COLOURS)
def test_a_colour_round_trips_through_its_hex_text(colour: tuple[int, int, int]) -> None:
    text = rgb_hex(colour)
    assert len(text) == 7 and text == text.lower()
    assert parse_rgb(text) == colour
    assert parse_rgb(text.upper()) == colour


@given(st.text(string.hexdigits, min_size=6, max_size=6))
def test_hex_text_round_trips_through_its_colour(digits: str) -> None:
    assert rgb_hex(parse_rgb("#" + digits)) == "#" + digits.lower()


@given(
    st.text(string.hexdigits, min_size=6, max_size=6),
    st.integers(0, 5),
    st.sampled_from(" +-_xg\n"),
)
def test_text_with_a_non_hex_digit_is_refused_by_name(digits: str, at: int, bad: str) -> None:
    text = "#" + digits[:at] + bad + digits[at + 1 :]
    with pytest.raises(ValueError, match="is not a colour") as info:
        parse_rgb(text)
    assert repr(text) in str(info.value)


@pytest.mark.parametrize("text", ["ff8800", "#ff88", "#ff88000", "", "##ff880"])
def test_text_of_the_wrong_shape_is_refused(text: str) -> None:
    with pytest.raises(ValueError, match="is not a colour"):
        parse_rgb(text)


@pytest.mark.parametrize("colour", [(256, 0, 0), (0, -1, 0)])
def test_a_channel_out_of_range_has_no_hex_text(colour: tuple[int, int, int]) -> None:
    with pytest.raises(ValueError, match=r"0\.\.255"):
        rgb_hex(colour)


def test_the_config_reads_and_writes_colours_with_the_codec() -> None:
    config = parse_config(SIM_BACKENDS + '[lights.colours]\nerror = "#AbCdEf"\n')
    assert config.lights.colours.error == parse_rgb("#abcdef")
    with pytest.raises(ConfigError, match=r"lights\.colours\.error: '#abcdeg' is not a colour"):
        parse_config(SIM_BACKENDS + '[lights.colours]\nerror = "#abcdeg"\n')


# --- the serpentine -----------------------------------------------------------------------
def test_the_serpentine_runs_back_and_forth_rank_by_rank() -> None:
    names = [SQUARE_NAMES[s] for s in SERPENTINE]
    assert names == "a1 b1 c1 d1 d2 c2 b2 a2 a3 b3 c3 d3 d4 c4 b4 a4".split()


def test_the_config_the_example_and_the_mock_strip_share_the_serpentine() -> None:
    assert LightsConfig().order == SERPENTINE
    assert parse_config(example_text()).lights.order == SERPENTINE
    from orbito_hw.sim import gpio_pins

    assert gpio_pins.SERPENTINE is SERPENTINE


@given(st.permutations(range(16)), st.one_of(st.none(), st.integers(0, 40)))
def test_the_config_and_the_strip_place_pixels_alike(
    order: list[int], status_pixel: int | None
) -> None:
    lights = LightsConfig(order=tuple(order), status_pixel=status_pixel, pixels=41)
    strip = StripLights.along({}, order, status_pixel)
    assert lights.square_pixels() == tuple(strip.pixel_of) == pixels_along(order, status_pixel)
    assert status_pixel not in strip.pixel_of
    assert sorted(strip.pixel_of) == [p for p in range(17) if p != status_pixel][:16]


# --- the step planner ---------------------------------------------------------------------
class RecordingDrive(SteppedDrive):
    """A stepped drive on a virtual clock that notes when each step pulse is made."""

    def __init__(self, clock: VirtualClock, spp: int, speed: float, accel: float) -> None:
        super().__init__(clock, spp, speed, accel)
        self.stamps: list[float] = []

    def _pulse(self) -> None:
        self.stamps.append(self.clock.now())

    def index_active(self) -> bool:
        return False


def firmware_stamps(spp: int, speed: int, accel: int, places: int) -> list[int]:
    """When the Pico's controller makes each step of a move, in µs from its start."""
    rings = StandInRings(spp)
    ctl = RingController(rings)
    for key, value in (("spp", spp), ("speed", speed), ("accel", accel)):
        assert ctl.configure(key, value) == ""
    assert ctl.start_home(1, 0) == ""  # the stand-in sits on the index: homed at once
    ctl.poll(0)
    assert ctl.start_move(places, 2, 0) == ""
    stamps, now = [], 0
    while ctl.busy:
        before = rings.pulses
        wake = ctl.poll(now)
        if rings.pulses > before:
            stamps.append(now)
        now = max(now, wake)
    return stamps


@given(
    st.integers(1, 120), st.integers(100, 40000), st.integers(MIN_ACCEL, 400000), st.integers(1, 3)
)
def test_the_host_steps_exactly_when_the_pico_would(
    spp: int, speed: int, accel: int, places: int
) -> None:
    clock = VirtualClock()
    drive = RecordingDrive(clock, spp, float(speed), float(accel))
    reports: list[MoveReport] = []
    drive.move(places, reports.append)
    clock.advance(places * spp * 0.1)
    assert reports and reports[0].steps == places * spp
    host = [round(t * 1e6) for t in drive.stamps]
    assert host == firmware_stamps(spp, speed, accel, places)


def test_the_gentlest_acceleration_is_one_fact_for_the_planner_and_the_config() -> None:
    assert MIN_ACCELERATION == MIN_ACCEL
    Planner(1600, MIN_ACCEL)
    with pytest.raises(ValueError, match="acceleration too low"):
        Planner(1600, MIN_ACCEL - 1)
    assert parse_config(SIM_BACKENDS + f"[drive]\nacceleration = {MIN_ACCEL}\n")
    with pytest.raises(ConfigError, match=r"drive\.acceleration: 465 is out of range \(466\.\."):
        parse_config(SIM_BACKENDS + "[drive]\nacceleration = 465\n")


# --- the firmware's fault words -----------------------------------------------------------
FIRMWARE_WORDS = {
    fw.HOME_NO_INDEX,
    fw.HOME_TIMEOUT,
    fw.INDEX_STUCK,
    fw.WATCHDOG,
    fw.STOPPED,
    fw.BUSY,
    fw.BAD_VALUE,
    fw.NOT_HOMED,
}


def test_every_fault_the_pico_can_report_has_words_for_a_person() -> None:
    assert set(serial_backend.FAULTS) == FIRMWARE_WORDS


WORDS = FIRMWARE_WORDS | {fw.UNKNOWN_KEY, fw.UNKNOWN_COMMAND}
FIRMWARE = Path(inspect.getfile(fw)).parent


def spelled(path: Path, words: set[str]) -> list[tuple[int, str]]:
    """Where ``path`` writes one of ``words`` as a string of its own."""
    tree = ast.parse(path.read_text())
    return [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and node.value in words
    ]


def test_the_host_names_the_firmwares_words_instead_of_spelling_them() -> None:
    assert spelled(Path(inspect.getfile(serial_backend)), WORDS) == []


def test_the_firmware_spells_each_word_once_where_it_names_it() -> None:
    defined = spelled(FIRMWARE / "controller.py", WORDS | {fw.FAULT})
    assert sorted(word for _, word in defined) == sorted(WORDS | {fw.FAULT})
    for other in ("device.py", "selfcheck.py"):
        assert spelled(FIRMWARE / other, WORDS | {fw.FAULT}) == []


# --- the referee's settings: one set of defaults, and no second debounce -------------------
def test_the_simulated_board_is_refereed_with_a_real_boards_defaults() -> None:
    assert settings(sim_config()) == Settings()
    assert settings(parse_config(SIM_BACKENDS)) == Settings()


def test_the_mock_run_uses_the_config_defaults() -> None:
    run = MockRun()
    try:
        assert run.referee.settings == settings(sim_config())
    finally:
        run.close()


def test_squares_the_pico_scans_are_not_debounced_again() -> None:
    assert settings(parse_config(PICO_SCANS)).debounce == 0
    pi_scans = parse_config(PICO_SCANS.replace('sensors = "serial"', 'sensors = "sim"'))
    assert settings(pi_scans).debounce == 0.04


class Squares:
    """Square sensors moved by hand."""

    def __init__(self) -> None:
        self.mask = 0
        self.listeners: list[SquareListener] = []

    def read(self) -> int:
        return self.mask

    def subscribe(self, listener: SquareListener) -> None:
        self.listeners.append(listener)

    def set(self, square: int, present: bool, when: float) -> None:
        self.mask = self.mask | 1 << square if present else self.mask & ~(1 << square)
        for listener in self.listeners:
            listener(square, present, when)


@given(st.lists(st.tuples(st.integers(0, 15), st.booleans()), max_size=30))
def test_a_zero_debounce_passes_every_change_on_at_once(changes: list[tuple[int, bool]]) -> None:
    clock, squares = VirtualClock(), Squares()
    debouncer = Debouncer(squares, clock, 0)
    seen: list[tuple[int, bool, float]] = []
    debouncer.subscribe(lambda sq, present, when: seen.append((sq, present, when)))
    expected = []
    for k, (square, present) in enumerate(changes):
        before = squares.mask
        squares.set(square, present, float(k))
        if squares.mask != before:
            expected.append((square, present, float(k)))
        assert debouncer.read() == squares.mask  # no clock needed: nothing waits
    assert seen == expected


def test_a_debounce_delay_below_zero_is_refused() -> None:
    with pytest.raises(ValueError, match=r"-0\.01"):
        Debouncer(Squares(), VirtualClock(), -0.01)


def test_a_game_on_already_debounced_squares_is_refereed_the_same() -> None:
    # White places b1 (the rings take it to c1); black moves it on to c2 and places a2.
    script = parse_script("reset white\nput b1\npress\nlift c1\nput c2\nput a2\npress\n")
    runs = [MockRun(), MockRun(settings=dataclasses.replace(Settings(), debounce=0.0))]
    try:
        for run in runs:
            run.run_script(script)
        assert runs[0].events == runs[1].events
        assert [e["turn"] for e in runs[0].events if e["event"] == "turn"] == ["b1", "c1-c2:a2"]
    finally:
        for run in runs:
            run.close()
