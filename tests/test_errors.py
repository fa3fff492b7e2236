"""Errors by cause, in one tree: every error class of the package derives from OrbitoError,
the ones the hardware or the OS causes are OSErrors, bad input is a ValueError, and the
command line turns each into one line and exit 2."""

from __future__ import annotations

import argparse
import importlib
import inspect
import pkgutil
from collections.abc import Callable
from pathlib import Path

import pytest

import orbito_hw
from orbito_hw import cli
from orbito_hw.errors import HardwareError, OrbitoError


def package_modules() -> list[str]:
    return sorted(
        info.name
        for info in pkgutil.walk_packages(orbito_hw.__path__, "orbito_hw.")
        if not info.name.endswith("__main__")
    )


def defined_errors() -> list[type[BaseException]]:
    """Every exception class defined in a module of the package."""
    found: list[type[BaseException]] = []
    for name in package_modules():
        module = importlib.import_module(name)
        for value in vars(module).values():
            if (
                isinstance(value, type)
                and issubclass(value, BaseException)
                and value.__module__ == name
            ):
                found.append(value)
    return found


def error_classes() -> dict[str, type[BaseException]]:
    """Every exception class defined in a module of the package, by name."""
    return {error.__name__: error for error in defined_errors()}


ERRORS = error_classes()
BUILTIN_ERRORS = (ValueError, OSError, RuntimeError, LookupError, EOFError)
"""The builtins the package's errors also are, as gpiozero's are: a caller that knows nothing
of orbito-hw catches them by cause (bad input, the machine, a bug or a state that forbids it,
a thing not there, the end of input)."""
HARDWARE = [
    "HardwareError",
    "LinkError",
    "LinkTimeoutError",
    "FirmwareVersionError",
    "ControllerRestartedError",
    "JournalUnavailableError",
    "StateDirBusyError",
]
BAD_INPUT = [
    "NotationError",
    "IllegalTurnError",
    "ReplayError",
    "ConfigError",
    "ScriptError",
    "CommandError",
    "UsageError",
    "SolutionError",
]


def test_the_walk_finds_the_errors_of_every_layer() -> None:
    # A walk that missed the subpackages would pass the next test vacuously.
    assert {*HARDWARE, *BAD_INPUT, "OrbitoError", "SimError", "TransitionError"} <= set(ERRORS)


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_every_error_class_of_the_package_derives_from_orbito_error(name: str) -> None:
    error = ERRORS[name]
    assert issubclass(error, OrbitoError), f"{error.__module__}.{name} is not an OrbitoError"


def test_every_error_class_has_a_name_of_its_own() -> None:
    # Two classes of one name (as hw/gpio.py's PinError beside gpiozero's was) read alike in
    # a traceback and in an ``except``; the walk by name would also hide one of them.
    names = [error.__name__ for error in defined_errors()]
    assert sorted(n for n in set(names) if names.count(n) > 1) == []
    from gpiozero import exc as gpiozero_errors

    theirs = {n for n, v in vars(gpiozero_errors).items() if isinstance(v, type)}
    assert sorted(set(names) & theirs) == []


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_every_error_class_is_named_an_error(name: str) -> None:
    assert name.endswith("Error"), f"{ERRORS[name].__module__}.{name}: a name ending in Error"


@pytest.mark.parametrize("name", sorted(set(ERRORS) - {"OrbitoError"}))
def test_every_error_class_is_also_the_matching_builtin(name: str) -> None:
    error = ERRORS[name]
    assert issubclass(error, BUILTIN_ERRORS), f"{error.__module__}.{name} is only an OrbitoError"


@pytest.mark.parametrize("name", HARDWARE)
def test_the_hardware_and_the_os_raise_os_errors(name: str) -> None:
    assert issubclass(ERRORS[name], OSError)
    assert not issubclass(ERRORS[name], ValueError)


@pytest.mark.parametrize("name", BAD_INPUT)
def test_bad_input_raises_value_errors(name: str) -> None:
    assert issubclass(ERRORS[name], ValueError)
    assert not issubclass(ERRORS[name], OSError)


def test_no_error_is_both_bad_input_and_the_machine() -> None:
    both = [n for n, e in ERRORS.items() if issubclass(e, ValueError) and issubclass(e, OSError)]
    assert both == []


def test_a_referee_bug_is_a_runtime_error() -> None:
    assert issubclass(ERRORS["TransitionError"], RuntimeError)


# --- the command line: one line, exit 2 -------------------------------------------------
SPECIAL: dict[str, Callable[[str], BaseException]] = {
    "NotationError": lambda text: ERRORS["NotationError"]("zz", text),
    "IllegalTurnError": lambda text: ERRORS["IllegalTurnError"]("a1", text, "..../..../..../B..."),
    "ReplayError": lambda text: ERRORS["ReplayError"](3, "a1", text),
    "PinOpenError": lambda text: ERRORS["PinOpenError"](8, text),
}


def instance(name: str, text: str) -> BaseException:
    """An instance of the error class ``name`` whose message holds ``text``."""
    if name in SPECIAL:
        return SPECIAL[name](text)
    error = ERRORS[name]
    if inspect.isfunction(error.__init__):  # its own constructor: one message, or SPECIAL
        parameters = list(inspect.signature(error.__init__).parameters.values())[1:]
        required = [p.name for p in parameters if p.default is p.empty]
        assert len(required) <= 1, f"{name} takes {required}: add it to SPECIAL"
    return error(text)


class RaisingParser:
    """Stands in for the command line's parser: its command raises ``error``."""

    def __init__(self, error: BaseException) -> None:
        self.error = error

    def parse_args(self, argv: object) -> argparse.Namespace:
        def func(args: argparse.Namespace) -> int:
            raise self.error

        return argparse.Namespace(func=func)


@pytest.mark.parametrize("name", sorted(n for n, e in ERRORS.items() if issubclass(e, OrbitoError)))
def test_the_cli_turns_each_error_into_one_line_and_exit_2(
    name: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    error = instance(name, "c3 is\nnot wired")  # a line break in a message stays one line
    monkeypatch.setattr(cli, "build_parser", lambda: RaisingParser(error))
    with pytest.raises(SystemExit) as exit_:
        cli.main([])
    assert exit_.value.code == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.count("\n") == 1 and err.startswith("orbito-hw: ")
    assert "c3 is not wired" in err
    assert err.rstrip("\n") == "orbito-hw: " + " ".join(str(error).splitlines())


def test_an_error_outside_the_tree_is_not_swallowed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cli, "build_parser", lambda: RaisingParser(KeyError("a bug")))
    with pytest.raises(KeyError):
        cli.main([])


# --- raised by the real code paths ---------------------------------------------------------
def sim_config(tmp_path: Path, lights: str) -> Path:
    path = tmp_path / "config.toml"
    path.write_text(
        f'[board]\nstate_dir = "{tmp_path / "state"}"\n'
        f'[backends]\nsensors = "sim"\nbutton = "sim"\ndrive = "sim"\nlights = "{lights}"\n'
    )
    return path


def test_a_simulated_part_on_a_real_board_is_a_config_error(tmp_path: Path) -> None:
    # Only an edit of the config can mend it: a ConfigError (exit 2, never restarted), where
    # a part that cannot be opened is a HardwareError the service waits out (issue 23).
    from orbito_hw.app.assemble import build_board
    from orbito_hw.app.config import load_config
    from orbito_hw.errors import ConfigError
    from orbito_hw.hw.clock import VirtualClock

    with pytest.raises(
        ValueError, match=r'backends\.sensors: "sim" is the simulated board'
    ) as info:
        build_board(load_config(sim_config(tmp_path, "none")), VirtualClock())
    assert isinstance(info.value, ConfigError) and not isinstance(info.value, HardwareError)


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["lights", "off"], "backends.lights: 'sim' is not for a real board"),
        (["run"], 'backends.sensors: "sim" is the simulated board: use run --mock'),
    ],
)
def test_a_command_reports_a_hardware_error_in_one_line(
    argv: list[str], expected: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = sim_config(tmp_path, "sim")
    with pytest.raises(SystemExit) as exit_:
        cli.main([*argv, "--config", str(config)])
    assert exit_.value.code == 2
    assert capsys.readouterr().err == f"orbito-hw: {config}: {expected}\n"


def test_a_port_that_cannot_be_opened_is_an_os_error() -> None:
    from orbito_hw.hw.serial_link import LinkError, SerialLink

    with pytest.raises(OSError, match="/nonexistent/ttyPico") as info:
        SerialLink("/nonexistent/ttyPico").open()
    assert isinstance(info.value, LinkError)


def test_a_pico_that_stops_answering_times_out_without_reconnecting() -> None:
    # LinkTimeoutError is an OSError now; the link's "the port failed: reconnect" handler must
    # not take it for one (it would reconnect for 20 s instead of reporting the timeout).
    from orbito_hw.hw.serial_link import LinkSettings, LinkTimeoutError, SerialLink
    from orbito_hw.sim.board import SimBoard
    from orbito_hw.sim.pico import FakePico
    from orbito_hw.sim.world import SimRings

    settings = LinkSettings(reply_timeout=0.05, retries=1, reconnect_timeout=5.0)
    with FakePico(SimRings(SimBoard())) as pico:
        link = SerialLink(pico.path, settings)
        link.open()
        try:
            pico.output_filter = lambda data: b""  # the Pico hears, but no reply comes back
            with pytest.raises(LinkTimeoutError, match="did not answer SQ"):
                link.request("SQ")
            assert link.reconnects == 0
        finally:
            link.close()
