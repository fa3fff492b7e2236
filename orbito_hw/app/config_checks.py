"""The config's value checks: each says what is wrong with a value, in words that name
it, or None when it is fine (config.py's reader puts the key in front)."""

from __future__ import annotations

import ipaddress
import os
from collections.abc import Callable
from typing import Any, Final

from orbito_hw.errors import shown
from orbito_hw.hw.interfaces import parse_rgb
from orbito_hw.lang import _
from orbito_hw.remote.protocol import check_name, parse_broker_url
from orbito_hw.rules.squares import SQUARE_NAMES
from orbito_hw.web.access import WEB_CODE_LENGTH

NAME_MAX: Final = 255  # bytes in one name of a path, and in the whole path, on Linux
PATH_MAX: Final = 4095
GPIO_PINS: Final = range(28)  # BCM 0..27: every GPIO on the 40-pin header


class Missing:
    pass


MISSING: Final = Missing()
Check = Callable[[Any], str | None]  # the problem with a value, or None when it is fine


def is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def i2c_address(value: Any, allowed: tuple[int, ...], sentence: str) -> str | None:
    """None when ``value`` is one of the ``allowed`` addresses; else ``sentence`` (marked for
    the catalogue, its ``{value}`` the value as a builder wrote it: 0x.. for a number)."""
    if is_int(value) and value in allowed:
        return None
    return sentence.format(value=f"0x{value:02x}" if is_int(value) and value >= 0 else shown(value))


def is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def int_in(lo: int, hi: int) -> Check:
    def check(value: Any) -> str | None:
        if not is_int(value):
            return _("expected a whole number, got {value}").format(value=shown(value))
        if lo <= value <= hi:
            return None
        return _("{value} is out of range ({lo}..{hi})").format(value=value, lo=lo, hi=hi)

    return check


def positive(hi: float) -> Check:
    def check(value: Any) -> str | None:
        if not is_number(value):
            return _("expected a number, got {value}").format(value=shown(value))
        if 0 < value <= hi:
            return None
        return _("{value} is out of range (above 0, at most {hi})").format(
            value=value, hi=f"{hi:g}"
        )

    return check


def number_in(lo: float, hi: float) -> Check:
    def check(value: Any) -> str | None:
        if not is_number(value):
            return _("expected a number, got {value}").format(value=shown(value))
        if lo <= value <= hi:
            return None
        text = _("{value} is out of range ({lo}..{hi})")
        return text.format(value=value, lo=f"{lo:g}", hi=f"{hi:g}")

    return check


def nonzero(hi: float) -> Check:
    def check(value: Any) -> str | None:
        if not is_number(value):
            return _("expected a number, got {value}").format(value=shown(value))
        if value == 0 or abs(value) > hi:
            text = _("{value} is out of range (not 0, at most {hi} either way)")
            return text.format(value=value, hi=f"{hi:g}")
        return None

    return check


def one_of_ints(options: tuple[int, ...]) -> Check:
    def check(value: Any) -> str | None:
        if is_int(value) and value in options:
            return None
        return _one_of().format(value=shown(value), options=", ".join(map(str, options)))

    return check


def adc_gain(options: tuple[str, ...]) -> Check:
    """An ADS1115 gain: a whole number of ``options`` (1, 2, 4...) or the string "2/3"."""

    def check(value: Any) -> str | None:
        text = str(value) if is_int(value) else value if isinstance(value, str) else None
        if text in options:
            return None
        return _one_of().format(value=shown(value), options=", ".join(options))

    return check


def choice(options: tuple[str, ...]) -> Check:
    def check(value: Any) -> str | None:
        if isinstance(value, str) and value in options:
            return None
        return _one_of().format(value=shown(value), options=", ".join(options))

    return check


def _one_of() -> str:  # said when asked: in the language of that moment
    return _("{value} is not one of {options}")


def pin(value: Any) -> str | None:
    if not is_int(value):
        return _("expected a BCM GPIO number, got {value}").format(value=shown(value))
    return (
        None if value in GPIO_PINS else _("pin {pin} is not a GPIO (BCM 0..27)").format(pin=value)
    )


def colour(value: Any) -> str | None:
    if not isinstance(value, str):
        return _('{value} is not a colour ("#rrggbb")').format(value=shown(value))
    try:
        parse_rgb(value)
    except ValueError as exc:
        return str(exc)
    return None


def text(value: Any) -> str | None:
    return (
        None
        if isinstance(value, str) and value.strip()
        else _("expected a non-empty string, got {value}").format(value=shown(value))
    )


def path(value: Any) -> str | None:
    """A path the OS takes: no NUL, encodable, within POSIX's NAME_MAX and PATH_MAX, so a
    bad one fails ``config check`` instead of ``run``."""
    trouble = text(value)
    if trouble:
        return trouble
    if "\0" in value:
        return _("a path cannot hold a NUL character")
    try:
        raw = os.fsencode(value)
    except UnicodeEncodeError:
        return _("a path the file system's encoding cannot write")
    if len(raw) > PATH_MAX or any(len(name) > NAME_MAX for name in raw.split(b"/")):
        too_long = _("a path longer than {path_max} bytes or with a name longer than {name_max}")
        return too_long.format(path_max=PATH_MAX, name_max=NAME_MAX)
    return None


def flag(value: Any) -> str | None:
    if isinstance(value, bool):
        return None
    return _("expected true or false, got {value}").format(value=shown(value))


def address(value: Any) -> str | None:
    """An IPv4 or IPv6 address to listen on (not a host name: nothing to look up at boot)."""
    if not isinstance(value, str):
        return _("expected an IP address, got {value}").format(value=shown(value))
    try:
        ipaddress.ip_address(value)
    except ValueError:
        text = _("{value} is not an IP address (like 0.0.0.0, 127.0.0.1 or ::)")
        return text.format(value=shown(value))
    return None


def broker(value: Any) -> str | None:
    if not isinstance(value, str):
        return _("expected a URL like mqtt://HOST:1883, got {value}").format(value=shown(value))
    try:
        parse_broker_url(value, need_game=False)
    except ValueError as exc:
        return str(exc)
    return None


def name(what: str) -> Check:
    def check(value: Any) -> str | None:
        if not isinstance(value, str):
            return _("expected a name, got {value}").format(value=shown(value))
        try:
            check_name(value, what)
        except ValueError as exc:
            return str(exc)
        return None

    return check


def access_code(value: Any) -> str | None:
    if not isinstance(value, str):
        return _("expected a text of letters and digits, got {value}").format(value=shown(value))
    if len(value) not in WEB_CODE_LENGTH or not value.isascii() or not value.isalnum():
        lo, hi = WEB_CODE_LENGTH.start, WEB_CODE_LENGTH.stop - 1
        text = _("{value} is not {lo} to {hi} letters and digits")
        return text.format(value=shown(value), lo=lo, hi=hi)
    return None


def status_pixel(value: Any) -> str | None:
    return None if value == "none" else int_in(0, 1023)(value)


def square_order(value: Any) -> str | None:
    """``lights.order``: the 16 square names, each once, in the strip's order."""
    if not isinstance(value, list) or not all(isinstance(n, str) for n in value):
        return _("expected a list of the 16 square names along the strip")
    bad = [repr(n) for n in value if n not in SQUARE_NAMES]
    twice = [n for n in SQUARE_NAMES if value.count(n) > 1]
    absent = [n for n in SQUARE_NAMES if n not in value]
    trouble = []
    if bad:
        trouble.append(_("not squares (a1..d4): {names}").format(names=" ".join(bad)))
    if twice:
        trouble.append(_("listed twice: {squares}").format(squares=" ".join(twice)))
    if absent:
        trouble.append(_("missing: {squares}").format(squares=" ".join(absent)))
    if trouble:
        return _("must list each square once ({trouble})").format(trouble=", ".join(trouble))
    return None


def pull_for(active: str | None) -> str:
    """The pull an input needs: one that is active low idles high, pulled up (and the other
    way round)."""
    return "down" if active == "high" else "up"
