"""The optical model's own facts: the parts' datasheet figures, the materials, the room.

The board's geometry (the floor and its two windows, the cup and its seat, the marble, its
heights and offsets) is not here: the model takes it from ``orbito_cad.board.params``,
``orbito_cad.board.face.windows`` and ``orbito_cad.models.magnetics``, as the CAD does.
What is here is new with the optics (issue 44), each figure with its source; the
reflectances are the calibration's to replace, square by square (``doctor``), so the model
takes the unkind end of each range. Lengths in mm, light in lux and candela (the detector is
rated in lux).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Material:
    """A marble's surface: its diffuse reflectance for the LED's red light and for room
    light (visible, broadband), and its gloss (the GGX roughness of a dielectric coat of
    index ``ior``: a printed surface is rough, glass is smooth)."""

    name: str
    red: float
    visible: float
    roughness: float
    ior: float


# Printed PETG: white PETG reflects 0.75-0.9 of visible light (titanium-white plastics);
# black, carbon-pigmented, 0.03-0.06. Glass marbles: opal (milk) glass 0.65-0.8, black glass
# 0.01-0.03, both under a smooth surface whose Fresnel reflection (4 % at normal incidence,
# n = 1.52) the model adds. The low end of white, the high end of black: the worst pair.
WHITE_PETG = Material("white PETG", 0.75, 0.75, 0.3, 1.57)
BLACK_PETG = Material("black PETG", 0.06, 0.06, 0.3, 1.57)
WHITE_GLASS = Material("white glass", 0.65, 0.65, 0.05, 1.52)
BLACK_GLASS = Material("black glass", 0.03, 0.03, 0.05, 1.52)
MARBLES = {"PETG": (WHITE_PETG, BLACK_PETG), "glass": (WHITE_GLASS, BLACK_GLASS)}


@dataclass(frozen=True, slots=True)
class Room:
    """A room's light on the board's face: its illuminance (lux), whether it is daylight
    (red-rich: the detector gives ``pt_daylight_factor`` times the current per lux), whether
    it flickers (lamps on the mains: ``ripple_depth`` at twice its frequency) and whether it
    is the sun's beam (straight down, the unkind way: into an empty seat's window)."""

    name: str
    lux: float
    daylight: bool
    flickers: bool
    beam: bool = False


# Dark; a living room's lamps; a workshop's floodlights (10,000 lux of flickering lamps: a
# bound no home reaches); a bright room by a window; direct sun, about 100,000 lux at noon.
ROOMS = (
    Room("dark", 0.0, False, False),
    Room("500 lux, lamps", 500.0, False, True),
    Room("10,000 lux, lamps", 10_000.0, False, True),
    Room("10,000 lux, daylight", 10_000.0, True, False),
    Room("direct sun", 100_000.0, True, False, beam=True),
)


@dataclass(frozen=True, slots=True)
class OpticsParams:
    # --- the LED: its red channel is the reading's light ------------------------------------
    # Worldsemi WS2812B (5050) at full PWM, each channel's low end: red (620-630 nm) 390-420
    # mcd, green (515-530 nm) 660-720, blue (465-475 nm) 180-200. White and black pigments
    # reflect about alike across the visible, so the channel is the detector's choice: red,
    # where its response peaks (630 nm), as the first estimate took it.
    # LEDs of one reel and their ageing are taken 20 % either side (led_spread).
    led_red_cd: float = 0.39
    led_green_cd: float = 0.66
    led_blue_cd: float = 0.18
    led_spread: float = 0.2
    # The 5050's light leaves its package through a round opening about 3.5 mm across: the
    # model's emitter is that opening, Lambertian (the datasheet's 120 deg viewing angle).
    led_emitting_d: float = 3.5
    # The WS2812B's PWM runs at about 400 Hz under full duty: at 255 the red die is on
    # throughout, so the reading's light is steady. A frame of the chain's 16 LEDs (24 bits
    # at 1.25 us each) and the latch (the V5 sheet: 280 us low) each time the LED changes.
    strip_bit_s: float = 1.25e-6
    strip_latch_s: float = 280e-6
    # --- the detector: Everlight ALS-PT19-315C/L177, a phototransistor with the eye's
    # response (peak 630 nm), 1.7 x 0.8 x 0.6 mm. 200 uA at 1000 lux of fluorescent light
    # (the sheet's typical); its spread over parts is the family's (ALS-PT17-51C: 7-15-23 uA
    # at 100 lux), +-50 %.
    pt_ua_per_lux: float = 0.20
    pt_spread: float = 0.5
    # Per lux, red LED light (625 nm) against the fluorescent light the sheet rates: the
    # response peaks at 630 nm, so above 1; 1 is the model's (low) bound. Sunlight and
    # incandescent light carry more red and near infrared per lux: the family's sheet gives
    # 4.8 times the fluorescent current under illuminant A; the model takes it for the sun.
    pt_red_factor: float = 1.0
    pt_daylight_factor: float = 4.8
    pt_dark_ua: float = 0.1  # at most, in the dark: a steady offset the LED-off reading removes
    pt_vce_sat: float = 0.4  # its collector-emitter saturation: the output's ceiling below VCC
    # Rise and fall 0.11 / 0.22 ms with a 7.5 kOhm load (the sheet), scaling with the load
    # (the output's RC): the model waits five time constants after each LED change.
    pt_fall_s: float = 0.22e-3
    pt_rated_load: float = 7.5e3
    pt_die_d: float = 0.5  # the sensitive area the model averages the irradiance over
    # --- the load and the ADC: the phototransistor into a load resistor, through a
    # CD74HC4067 (70 Ohm, under 1 nA: nothing against the load) into the ADS1115 ----------
    vcc: float = 3.3
    # The load: the model's sweep (optics.md) trades the reading's margin, which noise eats
    # at a small load, against the room light that saturates it at a large one. 4.7 kOhm
    # keeps 4x in direct sun and saturates from 150,000 lux; 47 kOhm kept 5.4x but was too
    # bright from 15,000 lux of daylight.
    load_ohm: float = 4.7e3
    # The ADS1115's programmable ranges (+-V), 16 bits; the reading picks the smallest that
    # holds its LED-off level with room for the LED's light (module optics, ``pga_range``).
    pga_ranges: tuple[float, ...] = (4.096, 2.048, 1.024, 0.512, 0.256)
    adc_sps: float = 860.0  # its fastest rate: one conversion each 1.16 ms
    # The sheet's noise at 860 SPS is within 1-2 codes at every range; the model takes 2 codes
    # RMS and a peak of 3.3 RMS (as the magnetic model does).
    adc_noise_codes: float = 2.0
    noise_peak: float = 3.3
    # --- the face's materials ------------------------------------------------------------
    # The face (dark PETG): its diffuse reflectance, and how much of the room's light gets
    # through its floor to the detector (black PETG, 1.25 mm over a pocket): a bound, the
    # benchmark prints the largest the reading tolerates.
    floor_reflectance: float = 0.05
    floor_transmittance: float = 1e-4
    # The cups and the disc are natural PETG, translucent (their glow is the squares'
    # display): a printed shell lets about half of the light that is not reflected through
    # each face, diffusely (``principledthin``'s diffuse transmission).
    cup_reflectance: float = 0.85
    cup_diffuse_transmission: float = 0.5
    # --- the room ----------------------------------------------------------------------
    # Lamps on the mains flicker at twice its frequency; a cheap LED lamp or a magnetic
    # ballast's tube goes down to nothing (a full-wave rectified sine: 100 % ripple).
    ripple_depth: float = 1.0
    ripple_hz: tuple[float, ...] = (100.0, 120.0)
    # --- the eye ---------------------------------------------------------------------------
    # Bloch's law: a flash shorter than about 50-100 ms looks like a steady light of its
    # energy spread over that time; the model takes 50 ms (the flash looks brightest).
    eye_integration_s: float = 0.05

    @property
    def conversion_s(self) -> float:
        return 1.0 / self.adc_sps

    @property
    def frame_s(self) -> float:
        """One update of the LED chain: 16 LEDs' 24 bits and the latch."""
        return 16 * 24 * self.strip_bit_s + self.strip_latch_s

    @property
    def settle_s(self) -> float:
        """Five of the detector's time constants at the load (its fall time is 2.2 of them)."""
        return 5 * self.pt_fall_s / 2.2 * self.load_ohm / self.pt_rated_load


OPTICS = OpticsParams()
