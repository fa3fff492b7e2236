"""A square's colour read by light, from the optical model (hardware/orbito_cad/models/optics.py,
issue 44): Mitsuba 3 renders what the detector gets, the model turns it into readings.

python benchmarks/optics.py [SPP] [OFFSETS]   (paths per render, 100000 by default; the
                                               marble's offsets round the seat, 8: about
                                               two minutes on one core)

Prints: the windows' geometry; the worst white/black ratio of the light alone over the
seat's heights and offsets; white, black and empty per room light (dark, 500 lux and 10,000
lux of flickering lamps, 10,000 lux of daylight, direct sun) with the noise and the parts'
spread, the white/black ratio after them, and which readings are too bright; what the
reading leaves of the room's flicker and steady light; the stray light through the floor;
the flash's length and what the eye gets; the runtime of one model reading. Writes the
figures' table for the simulated board (hardware/orbito_cad/models/optics_figures.json).
"""

from __future__ import annotations

import sys
import time

from orbito_cad.board.params import PARAMS
from orbito_cad.models import optics
from orbito_cad.models.optics_params import OPTICS, ROOMS
from orbito_cad.models.optics_scene import windows


def mv(x: float | None) -> str:
    return "  too bright" if x is None else f"{x:9.2f} mV"


def main(spp: int = 100_000, n_offsets: int = 8) -> None:
    start = time.perf_counter()
    det, led = windows()
    print(f"windows: the detector's at ({det.top[0]:.2f}, {det.top[1]:.2f}) mm, vertical; the "
          f"LED's at ({led.top[0]:.2f}, {led.top[1]:.2f}), slanted "
          f"{90 - float(__import__('math').degrees(__import__('math').asin(led.axis[2]))):.0f} "
          f"deg to the spot the detector sees; {PARAMS.window_d} mm across")  # fmt: skip
    fig, lits = optics.figures(spp, n_offsets)
    print(f"{fig.poses} poses (two seat heights x centred and {n_offsets} offsets of "
          f"1 mm), {spp} paths a render, {len(lits)} renders")  # fmt: skip
    print("\nthe light alone (lux at the die per cd of red), worst over the seat's range:")
    for kind in fig.pose_ratio:
        ratio, w, b = optics.pose_ratio(lits, kind)
        print(f"  {kind:6s} white/black {ratio:5.1f}  (white at {w.height:.2f} mm, "
              f"({w.dx:+.1f}, {w.dy:+.1f}); black at {b.height:.2f} mm, ({b.dx:+.1f}, "
              f"{b.dy:+.1f}))")  # fmt: skip
    empty = max(x.light.led for x in lits if x.material == "empty")
    print(f"  an empty square: {empty:.4f} lux per cd (the LED's light leaves upwards)")
    c = fig.cancelled
    print(f"\nthe reading: load {OPTICS.load_ohm / 1e3:.1f} kOhm, the LED lit "
          f"{fig.flash.lit_s * 1e3:.1f} ms in a {fig.flash.reading_s * 1e3:.1f} ms reading; "
          f"it keeps {c.led:.3f} of the LED's light, {c.flicker:.2%} of a 100 %-deep flicker "
          f"(100 or 120 Hz, worst phase), {c.steady:.0e} of a steady room light, {c.ramp:.0e} "
          f"of one sliding to nothing over the reading")  # fmt: skip
    print("\nworst over the poses and the parts' spread (the weakest detector and LED: the least")
    print("white, the most black, the most error noise and the room leave; white less its error")
    print("over black plus its error):")
    print(f"{'room':22s} {'marbles':7s} {'white, least':>14s} {'black, most':>14s} "
          f"{'error':>9s} {'white/black':>11s}")  # fmt: skip
    for m in fig.margins:
        if m.ratio is None:
            print(
                f"{m.room:22s} {m.marbles:7s} {'-':>14s} {'-':>14s} {'-':>9s} "
                f"{m.too_bright}/{m.readings} readings too bright: named, never a colour"
            )
            continue
        print(f"{m.room:22s} {m.marbles:7s} {m.white_mv:11.2f} mV {m.black_mv:11.2f} mV "
              f"{m.error_mv:6.2f} mV {m.ratio:11.1f} "
              f"{'holds' if m.ratio >= optics.NEED else 'FAILS'}")  # fmt: skip
    print("\nat a typical square (mV, least to most over the poses; too bright: share):")
    for room in ROOMS:
        rows = [r for r in fig.rows if r.room == room.name]
        cells = "  ".join(f"{r.marble} {mv(r.low_mv).strip()}..{mv(r.high_mv).strip()}"
                          + (f" ({r.too_bright:.0%} too bright)" if r.too_bright else "")
                          for r in rows)  # fmt: skip
        print(f"  {room.name}: {cells}")
    print(f"\na marble's reading is too bright from {fig.too_bright_daylight:,.0f} lux of "
          f"daylight, "
          f"{fig.too_bright_lamps:,.0f} lux of flickering lamps (the strongest detector, "
          f"the worst pose)")  # fmt: skip
    print(f"\nstray light through the floor: the model takes {OPTICS.floor_transmittance:.0e} of "
          f"the room's light at the die; every room light read at 3x keeps it up to "
          f"{fig.floor_limit:.1e}")  # fmt: skip
    f = fig.flash
    print(f"\nthe flash: the LED red at full for {f.lit_s * 1e3:.1f} ms, dark for "
          f"{(f.reading_s - f.lit_s) * 1e3:.1f} ms around it; to the eye (Bloch's law over "
          f"{OPTICS.eye_integration_s * 1e3:.0f} ms) a red of {f.red_cd * 1e3:.0f} mcd, "
          f"{f.red_share:.0%} of the LED's full red, for an instant; a lit square dims to "
          f"{f.display_share:.0%} of itself for an instant (a blink)")  # fmt: skip
    print(f"\none model reading (one pose rendered, {spp} paths): {fig.render_s:.2f} s")
    optics.write_table(fig)
    print(f"table written: {optics.TABLE}")
    print(f"\n{time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:3]))
