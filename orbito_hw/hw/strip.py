"""The ``neopixel`` backend: a NeoPixel (WS2812) strip under the squares.

The strip runs in whatever order it was laid (``SERPENTINE`` on the example board);
``order`` lists the square under each pixel, and an optional status pixel sits at
``status_pixel``. The adafruit libraries are imported only here, when the backend is
chosen; off a Pi, opening the real strip raises NotImplementedError (Blinka's "Board not
supported").
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from orbito_hw.hw.interfaces import RGB, Frame
from orbito_hw.rules.squares import parse_square

OFF: RGB = (0, 0, 0)

SERPENTINE: Final = tuple(
    parse_square(n) for n in "a1 b1 c1 d1 d2 c2 b2 a2 a3 b3 c3 d3 d4 c4 b4 a4".split()
)
"""The square under each pixel of a strip laid back and forth under the board: rank 1 left
to right, rank 2 back, and so on (the example wiring, and the config's default order)."""


def pixels_along(order: Sequence[int], status_pixel: int | None = None) -> tuple[int, ...]:
    """The strip index of each square's pixel (indexed by square) on a strip whose pixels,
    from the data input on, sit under ``order``'s squares, the status pixel stepped over."""
    free = [i for i in range(len(order) + 1) if i != status_pixel][: len(order)]
    pixel_of = [0] * 16
    for square, pixel in zip(order, free, strict=True):
        pixel_of[square] = pixel
    return tuple(pixel_of)


class StripLights:
    """``pixel_of[square]`` is the strip index of the pixel under ``square``."""

    def __init__(
        self, strip: Any, pixel_of: Sequence[int], status_pixel: int | None = None
    ) -> None:
        if len(set(pixel_of)) != 16 or status_pixel in pixel_of:
            raise ValueError("each square needs a pixel of its own, apart from the status pixel")
        self.strip = strip
        self.pixel_of = list(pixel_of)
        self.status_pixel = status_pixel
        self._cap: float | None = None  # the brightness cap, while a pixel is shown past it

    @classmethod
    def along(
        cls, strip: Any, order: Sequence[int], status_pixel: int | None = None
    ) -> StripLights:
        """A strip whose pixels, from the data input on, sit under ``order``'s squares
        (the status pixel stepped over)."""
        return cls(strip, pixels_along(order, status_pixel), status_pixel)

    def show(self, frame: Frame, status: RGB | None = None) -> None:
        if self._cap is not None:  # back under the cap after a flash
            self.strip.brightness, self._cap = self._cap, None
        for square, pixel in enumerate(self.pixel_of):
            self.strip[pixel] = frame[square] or OFF
        if self.status_pixel is not None:
            self.strip[self.status_pixel] = status or OFF
        self.strip.show()

    def show_full(self, frame: Frame, status: RGB | None, square: int) -> None:
        """``frame`` as ``show`` draws it, but ``square``'s pixel at its full value past the
        brightness cap (a colour reading's flash, hw/light.py: the optical model counts the
        LED's full red). The strip runs uncapped for this frame, every other pixel scaled by
        the cap as the strip itself would (the same bytes on the wire); ``show`` puts the cap
        back."""
        cap = self._cap = self.strip.brightness if self._cap is None else self._cap
        self.strip.brightness = 1.0
        for sq, pixel in enumerate(self.pixel_of):
            colour = frame[sq] or OFF
            self.strip[pixel] = colour if sq == square else _capped(colour, cap)
        if self.status_pixel is not None:
            self.strip[self.status_pixel] = _capped(status or OFF, cap)
        self.strip.show()

    def shown(self) -> tuple[list[RGB | None], RGB | None]:
        """What the strip holds, back in square order (before brightness)."""
        squares: list[RGB | None] = [None] * 16
        for square, pixel in enumerate(self.pixel_of):
            colour = tuple(self.strip[pixel])[:3]
            squares[square] = None if colour == OFF else (colour[0], colour[1], colour[2])
        status = None
        if self.status_pixel is not None:
            s = tuple(self.strip[self.status_pixel])[:3]
            status = None if s == OFF else (s[0], s[1], s[2])
        return squares, status

    def close(self) -> None:
        self.strip.fill(OFF)
        self.strip.show()
        deinit = getattr(self.strip, "deinit", None)
        if deinit is not None:
            deinit()


def _capped(colour: RGB, cap: float) -> RGB:
    """A colour as a strip capped at ``cap`` sends it (adafruit_pixelbuf: int(value x cap))."""
    r, g, b = colour
    return (int(r * cap), int(g * cap), int(b * cap))


def open_neopixel(pin: int, count: int, brightness: float, pixel_order: str) -> Any:
    """The real strip on BCM pin ``pin`` (GPIO10 via SPI, or 12/18/21 via PWM/PCM)."""
    import board
    import neopixel

    return neopixel.NeoPixel(
        getattr(board, f"D{pin}"),
        count,
        brightness=brightness,
        auto_write=False,
        pixel_order=pixel_order,
    )


def fake_strip(count: int, brightness: float, pixel_order: str) -> Any:
    """A strip that runs adafruit_pixelbuf's real brightness and byte-order code and keeps
    the bytes it would send down the wire in ``sent``."""
    from adafruit_pixelbuf import PixelBuf

    class FakeStrip(PixelBuf):  # type: ignore[misc]
        sent = b""

        def _transmit(self, buffer: bytearray) -> None:
            self.sent = bytes(buffer)

    return FakeStrip(count, byteorder=pixel_order, brightness=brightness, auto_write=False)
