"""A good config in words: what ``config check`` prints (config.py's ``Config.summary``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from orbito_hw.lang import _

if TYPE_CHECKING:
    from orbito_hw.app.config import Config


def summary(config: Config) -> str:
    b = config.backends
    lines = [
        _("{source}: ok").format(source=config.source),
        f"backends: sensors={b.sensors} button={b.button} drive={b.drive} lights={b.lights}",
        _("first player: {colour}; state directory: {path}").format(
            colour=config.board.first, path=config.board.state_dir
        ),
        _("drive: {steps} steps/place, {speed} steps/s, {acceleration} steps/s^2").format(
            steps=config.drive.steps_per_place,
            speed=f"{config.drive.max_speed:g}",
            acceleration=f"{config.drive.acceleration:g}",
        ),
    ]
    lines += [_("note: {note}").format(note=note) for note in config.notes]
    if config.web.enabled:
        lines.append(
            _("web page: {url}").format(url=f"http://{config.web.bind}:{config.web.port}/")
        )
    if config.remote.enabled:
        r = config.remote
        lines.append(
            _("remote game: {game} on {broker}, this board plays {colour}").format(
                game=r.game, broker=r.broker, colour=r.plays
            )
        )
    if b.drive == "serial" or b.sensors == "serial":
        lines.append(
            _("serial: {port} at {baud} baud").format(
                port=config.serial.port, baud=config.serial.baud
            )
        )
    if config.sensors.colour:
        lines.append(_("colour sensing: {how}").format(how=config.analog.described(b.sensors)))
    pins = config.gpio_pins()
    if pins:
        lines.append(_("GPIO pins in use: {n}").format(n=len(pins)))
    return "\n".join(lines)
