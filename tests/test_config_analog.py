"""``sensors.colour`` and ``[analog]``: the colour board's front end in the config, each
bad value or clashing pin one line naming its key; the backend built when chosen."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from gpiozero import Device
from gpiozero.pins.mock import MockFactory

from orbito_hw.app.assemble import open_sensors
from orbito_hw.app.config import example_text, parse_config
from orbito_hw.cli import main
from orbito_hw.errors import ConfigError, HardwareError
from orbito_hw.hw.clock import VirtualClock
from orbito_hw.hw.interfaces import tells_colour

# The hall colour board is a variant of the switch build: the example (which tells colour,
# by light on its TMAG5273 board) with its sensors on GPIO lines, read through [analog].
COLOUR = example_text().replace('sensors = "tmag"', 'sensors = "gpio"')


def problems(*edits: tuple[str, str]) -> tuple[str, ...]:
    text = COLOUR
    for old, new in edits:
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    with pytest.raises(ConfigError) as info:
        parse_config(text, "board.toml")
    return info.value.problems


def test_presence_only_is_the_default_and_the_examples_switch_variant() -> None:
    plain = parse_config(
        example_text()
        .replace('sensors = "tmag"', 'sensors = "gpio"')
        .replace("\ncolour = true\n", "\ncolour = false\n")
    )
    assert not plain.sensors.colour and plain.sensors.pins
    assert not any(key.startswith("analog.") for key, _ in plain.gpio_pins())


def test_a_colour_board_uses_the_select_lines_and_the_i2c_pins_not_the_sensor_pins() -> None:
    config = parse_config(COLOUR)
    keys = dict(config.gpio_pins())
    assert not any(key.startswith("sensors.pins") for key in keys)
    assert [p for k, p in config.gpio_pins() if k.startswith("analog.")] == [5, 6, 13, 16, 2, 3]
    assert "colour sensing: the ADS1115 at I2C address 0x48 on bus 1" in config.summary()
    assert config.analog.front_end().select_pins == (5, 6, 13, 16)


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        (("s0_pin = 5", "s0_pin = 17"), "button.pin: pin 17 is also used by analog.s0_pin"),
        (("s0_pin = 5", "s0_pin = 2"), "analog.s0_pin: pin 2 is I2C bus 1's, for the colour"),
        (("pin = 17\n", "pin = 3\n"), "button.pin: pin 3 is I2C bus 1's, for the colour"),
        (("s1_pin = 6", "s1_pin = 9"), "analog.s1_pin: pin 9 is on the SPI bus that drives"),
        (("s2_pin = 13", "s2_pin = 24"), "drive.dir_pin: pin 24 is also used by analog.s2_pin"),
        (("gain = 1\n", "gain = 4\n"), "analog.gain: 4 reads up to 1.024 V, but a marble's"),
        (("gain = 1\n", "gain = 3\n"), "analog.gain: 3 is not one of 2/3, 1, 2, 4, 8, 16"),
        (
            ("(SCL).\naddress = 0x48", "(SCL).\naddress = 0x50"),
            "analog.address: 0x50 is not an ADS1115's",
        ),
        (
            ("channel = 0\n# The ADS1115's gain", "channel = 4\n# The ADS1115's gain"),
            "analog.channel: 4 is out of range (0..3)",
        ),
        (("data_rate = 860", "data_rate = 900"), "analog.data_rate: 900 is not one of 8, 16"),
        (("s3_pin = 16\n", ""), "analog.s3_pin: missing (the gpio backend needs a pin)"),
        (("s0_pin = 5", "s0_pn = 5"), "analog.s0_pn: unknown key (did you mean analog.s0_pin?)"),
        (("mv_per_gauss = 1.4", "mv_per_gauss = 0"), "analog.mv_per_gauss: 0 is out of range"),
        (("zero_v = 1.65", "zero_v = 0.2"), "analog.zero_v: 0.2 V less a marble's strongest"),
    ],
)
def test_each_bad_value_is_named_by_its_key(edit: tuple[str, str], expected: str) -> None:
    assert any(p.startswith(expected) for p in problems(edit)), problems(edit)


def test_the_pico_reads_the_squares_without_the_pis_select_pins() -> None:
    text = COLOUR.replace('sensors = "gpio"', 'sensors = "serial"')
    text = text.replace('drive = "gpio"', 'drive = "serial"').replace("s0_pin = 5\n", "")
    config = parse_config(text)
    assert not any(key.startswith("analog.") for key, _ in config.gpio_pins())
    assert "colour sensing: the Pico's ADC" in config.summary()


def test_config_check_names_a_clash_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "board.toml"
    path.write_text(COLOUR.replace("s0_pin = 5", "s0_pin = 25"))
    with pytest.raises(SystemExit) as status:
        main(["config", "check", "--config", str(path)])
    assert status.value.code == 2
    out, err = capsys.readouterr()
    assert out == "" and err.splitlines() == [
        f"orbito-hw: {path}: drive.index_pin: pin 25 is also used by analog.s0_pin"
    ]


def test_an_adc_missing_from_the_bus_is_a_fault_naming_its_address(tmp_path: Path) -> None:
    """Off a Pi there is no /dev/i2c-1: the part cannot be opened, and says which bus."""
    config = parse_config(
        COLOUR.replace('state_dir = "/var/lib/orbito-hw"', f'state_dir = "{tmp_path}"')
    )
    Device.pin_factory = MockFactory()
    try:
        with pytest.raises(
            HardwareError, match=r"analog.address: the ADS1115 at I2C address 0x48 on bus 1"
        ):
            open_sensors(config, VirtualClock())
    finally:
        Device.pin_factory.close()
        Device.pin_factory = None
    assert not tells_colour(open_sensors_plain(tmp_path))


def open_sensors_plain(tmp_path: Path) -> object:
    Device.pin_factory = MockFactory()
    try:
        switches = example_text().replace('sensors = "tmag"', 'sensors = "gpio"')
        switches = switches.replace("\ncolour = true\n", "\ncolour = false\n")
        sensors = open_sensors(parse_config(switches), VirtualClock())
        sensors.close()
        return sensors
    finally:
        Device.pin_factory.close()
        Device.pin_factory = None


def test_an_adc_gone_mid_game_is_a_fault_until_it_answers_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The device supervisor: the ADC stops answering, the referee hears the board is
    waiting for it (the board's health names them), and once it answers the sensors are
    opened again."""
    import asyncio

    from orbito_hw.app import devices
    from orbito_hw.hw.analog import AnalogSquares
    from orbito_hw.hw.clock import LoopClock
    from orbito_hw.hw.hall import default_calibration
    from orbito_hw.sim.fake_i2c import FakeAds1115, FakeI2C

    text = COLOUR.replace('lights = "neopixel"', 'lights = "none"')
    text = text.replace('gpio = "auto"', 'gpio = "mock"')
    config = parse_config(text.replace("/var/lib/orbito-hw", str(tmp_path)))
    monkeypatch.setattr(devices, "FIRST_RETRY_S", 0.01)
    loop = asyncio.new_event_loop()
    clock = LoopClock(loop)
    chip = FakeAds1115(clock, lambda _: 1.65 + 0.28)  # a black marble on every square
    bus = FakeI2C(chip)
    opened: list[AnalogSquares] = []

    def open_sensors(
        config: object, clock: object, factory: object, on_lost: object, on_fault: object = None
    ) -> object:
        front = parse_config(text).analog.front_end()
        sensors = AnalogSquares(front, clock, default_calibration(), factory, bus, on_lost)  # type: ignore[arg-type]
        opened.append(sensors)
        return sensors

    monkeypatch.setattr(devices, "open_sensors", open_sensors)
    heard: list[str] = []
    board = devices.Devices(config, clock, loop)
    board.health.watch(lambda health: heard.append(health.fault))

    async def until(what: Callable[[], bool]) -> None:
        while not what():
            await asyncio.sleep(0.01)

    try:
        board.open_now()
        board.start()
        loop.run_until_complete(asyncio.wait_for(until(lambda: board.whole), 5))
        assert board.sensors.read() == 0xFFFF and board.sensors.colours() == (0xFFFF, 0)
        bus.gone = True
        loop.run_until_complete(asyncio.wait_for(until(lambda: "sensors" in board.missing), 5))
        assert board.sensors.read() == 0  # no square reads a marble while the ADC is gone

        # the fault as the ADC was lost (a retry to open it may already follow it: the retries
        # start at once here, FIRST_RETRY_S)
        def lost() -> list[str]:
            return [fault for fault in heard if "stopped answering" in fault]

        loop.run_until_complete(asyncio.wait_for(until(lambda: bool(lost())), 5))
        assert "0x48 on bus 1" in lost()[0]
        assert "the square sensors are missing" in lost()[0]
        bus.gone = False
        loop.run_until_complete(asyncio.wait_for(until(lambda: board.whole), 5))
        loop.run_until_complete(asyncio.wait_for(until(lambda: heard[-1] == ""), 5))
        assert len(opened) == 2 and board.sensors.colours() == (0xFFFF, 0)
    finally:
        board.close()
        loop.close()
