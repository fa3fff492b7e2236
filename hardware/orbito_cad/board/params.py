"""Every dimension of the board, in millimetres, in one place.

Bought parts are given by their datasheet sizes; printed parts by the sizes they are
designed to, with the printer's clearances named. Change a number here and the whole model,
the layout, the BOM and the checks follow. The grid, the rings' order and the press
direction are not here: they come from ``orbito_hw.rules.squares``.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Breakout:
    """A bought sensor board, in its own frame: x along its ``length``, y across, the origin
    at the outline's centre, the chip's side up. Lengths in mm; ``chip`` is the sensor's
    centre; ``sockets`` each a STEMMA QT / Qwiic socket's outline (x0, y0, x1, y1) and
    ``socket_h`` its height over the board, on the side ``sockets_on``."""

    name: str
    length: float
    width: float
    t: float
    chip: tuple[float, float]
    chip_side: str  # "top" (the sockets' side) or "bottom"
    holes: tuple[tuple[float, float], ...]
    hole_d: float
    sockets: tuple[tuple[float, float, float, float], ...]
    socket_h: float
    sockets_on: str  # "top" or "bottom"
    int_pad: tuple[float, float]  # where INT comes out (a 0.1-inch pad): its wire's joint


# Adafruit 6489, TMAG5273A1 (0x35), from Adafruit's own board file
# (adafruit/Adafruit-TMAG5273-3D-Hall-Effect-Magnetometer-Breakout-PCB@543c3c9, "Adafruit
# TMAG5273A1 3D Hall Effect Magnetometer Breakout.brd", as converted to a KiCad module in
# enkhbold470/adafruit-kicad-pcm, footprints/Adafruit_Boards.pretty): the 1.0 x 0.7 inch
# outline (corners rounded 2.54), four 2.5 mm holes on 20.32 x 12.7 mm, the six 0.1-inch
# pads (VCC 3.3V GND SCL SDA INT) along one long edge, a side-entry JST SH socket at each
# short end (4.25 deep, 6.1 wide; SM04B-SRSS-TB: 2.95 tall). The module leaves out the
# SMD parts: the chip is taken at the outline's centre, between the sockets, where
# Adafruit's 1.0 x 0.7 inch sensor boards put their sensor (measure yours: the pocket
# allows 1 mm either way).
ADAFRUIT_6489 = Breakout(
    "Adafruit 6489 (TMAG5273A1, STEMMA QT)", 25.4, 17.78, 1.6, (0.0, 0.0), "top",
    ((-10.16, -6.35), (10.16, -6.35), (-10.16, 6.35), (10.16, 6.35)), 2.5,
    ((7.996, -3.1, 12.246, 3.0), (-12.246, -3.0, -7.996, 3.1)), 2.95, "top", (6.35, 6.35),
)  # fmt: skip
# SparkFun's Mini (SEN-23881, TMAG5273B1 at 0x22), from its EAGLE board
# (sparkfun/SparkFun_Qwiic_Hall_Effect_Sensor_TMAG5273, Hardware/Mini/...Mini.brd, v10):
# 25.4 x 12.7, the chip alone on the underside at (12.52, 7.92) from a corner, two vertical
# Qwiic sockets on top at (4.70, 8.89) and (20.70, 8.89), two stand-off holes (3.3 mm) at
# (2.54, 2.54) and (22.86, 2.54), the 0.1-inch row (INT among it) along y = 1.27; the
# vertical sockets (BM04B-SRSS-TB) 6 x 4.25 and 4.25 tall.
SPARKFUN_23881 = Breakout(
    "SparkFun 23881 Mini (TMAG5273B1, Qwiic)", 25.4, 12.7, 1.6, (-0.18, 1.57), "bottom",
    ((-10.16, -3.81), (10.16, -3.81)), 3.3,
    ((-10.13, -0.46, -5.88, 5.54), (5.88, -0.46, 10.13, 5.54)), 4.25, "top", (0.0, -5.08),
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class Params:
    # --- the grid players see ------------------------------------------------------------
    # Centre to centre of two neighbouring squares. Chosen, not measured (the rule sheets
    # give no sizes): 40 mm leaves room for a 30 mm cup per square with 10 mm between cups,
    # and the 4x4 face (160 mm) and its case (200 mm) fit a 220 mm bed.
    pitch: float = 40.0

    # --- marbles and magnets --------------------------------------------------------------
    marble_d: float = 16.0  # glass marble
    magnet_d: float = 5.0  # N42 disc glued into a 5.2 mm hole drilled in each marble
    magnet_h: float = 3.0
    index_magnet_d: float = 3.0  # N42 disc in the index crank gear
    index_magnet_h: float = 2.0

    # --- sensors and LEDs (bought) --------------------------------------------------------
    hall_w: float = 4.06  # Honeywell SS451A, flat TO-92 body: width, depth, thickness
    hall_d: float = 3.0
    hall_t: float = 1.52
    led_d: float = 10.0  # WS2812B (5050) on a 10 mm round PCB
    led_t: float = 2.6  # PCB 1.0 + LED 1.6
    # The LED sits this far from its square's centre towards the board's centre, beside the
    # hall switch (which must be right under the marble's magnet), and shines up through a
    # window in the floor and the cup's seat.
    led_offset: float = 4.5
    light_window_d: float = 3.0
    # Colour by light (issue 44, models/optics*.py): two windows through the floor on the
    # square's outward side, either side of the sensor's pocket: each ``window_r`` from the
    # square's centre, ``window_angle`` either side of the outward axis, so both stay under
    # the seat's hole with the marble ``marble_offset`` off, and the floor between them (the
    # wall) is several mm thick. The detector's (an ALS-PT19) is vertical; the LED's is
    # slanted to light the spot of the marble the detector sees (face.windows: the optical
    # model and the CAD both read them there).
    window_r: float = 4.0
    window_angle: float = 25.0  # degrees
    window_d: float = 1.4

    # --- motor, gears, bearings, screws (bought) ------------------------------------------
    motor_w: float = 42.3  # NEMA 17
    motor_len: float = 40.0
    motor_boss_d: float = 22.0
    motor_boss_h: float = 2.0
    motor_hole_pitch: float = 31.0  # M3 holes on a 31 mm square
    shaft_d: float = 5.0
    shaft_flat: float = 0.5  # the D-cut: 4.5 mm across the flat
    shaft_len: float = 24.0
    motor_steps: int = 200  # 1.8 deg per full step
    microsteps: int = 16  # TMC2209 standalone, MS1 = MS2 = VIO (the config's 800 steps/place)
    axle_d: float = 5.0  # 5 mm steel rod, one under each crank gear
    bearing_od: float = 16.0  # 625ZZ: 5 x 16 x 5, one in each crank gear
    bearing_w: float = 5.0
    screw_d: float = 3.0  # M3 everywhere
    screw_clear_d: float = 3.4
    screw_head_d: float = 5.7  # ISO 7380 M3 button head
    nut_w: float = 5.8  # an M3 nut's trap: 5.5 across the flats, and room to drop it in
    nut_t: float = 2.6
    axle_len: float = 20.0

    # --- gears: module and teeth (printed) ------------------------------------------------
    # Stub teeth (addendum 0.8 m, dedendum 1.0 m): their tips stay thicker than min_wall.
    gear_module: float = 1.5
    central_teeth: int = 72  # on the motor shaft, under the inner disc
    crank_teeth: int = 18  # four, one per side: 72 / 18 = 4 crank turns per motor turn
    gear_t: float = 6.0
    backlash: float = 0.2  # of the pair, on the pitch circle: half off each gear's teeth
    # The central gear's hub above its teeth: room for the clamp screw's nut by the D-bore.
    gear_boss_d: float = 18.0
    gear_boss_h: float = 9.0

    # --- cups, disc, face (printed) -------------------------------------------------------
    # Under 28.3 mm: two cups meeting at a corner pass 40/sqrt(2) = 28.3 mm apart at
    # mid-stroke (one coming in along a side, one leaving along the next), so 30 mm cups
    # collided there; 27.2 leaves 1.1 mm (the physics: cups off by their play and a
    # start +-0.3 mm off touch at 0.7), and walls of min_wall round the finger holes.
    cup_d: float = 27.2
    # The through hole the marble sits in, on its rim: a 16 mm marble dips 2.7 mm into a
    # 12 mm hole (its bottom 3 mm over the cup's), and the hole leaves a wall to the fingers'.
    seat_d: float = 12.0
    # Four finger holes on a cup's bottom, on its axes: two across the way it travels take
    # the two fingers of a bar, so the cup is pushed on its centre line and cannot turn.
    # (the holes' diameter is ``finger_hole_d``: the finger's and the printer's clearance)
    finger_hole_depth: float = 4.0
    finger_offset: float = 9.8  # each finger hole's centre from the cup's centre
    lead_in: float = 0.4  # 45 deg chamfer at a finger hole's mouth, radial and deep
    face_t: float = 10.0
    face_pocket: float = 6.0  # depth of the channel and of the disc's recess
    face_rim: float = 22.2  # face plate beyond the channel
    disc_r: float = 41.0
    hub_d: float = 18.0  # room for the clamp screw's nut beside the D-bore
    hub_len: float = 16.0

    # --- drive (printed) ------------------------------------------------------------------
    crank_pin_d: float = 5.0
    crank_arm_t: float = 3.5
    crank_arm_margin: float = 2.4  # arm beyond the crank pin
    # Each of a bar's two rails, under its row of fingers: narrower than the slot above it,
    # so a rail never passes under the sensors and LEDs between the slots.
    bar_w: float = 5.2
    bar_h: float = 4.0
    finger_d: float = 4.0
    # 45 deg chamfer round a finger's tip, radial and tall: with the hole's ``lead_in`` a
    # finger finds its hole from up to their sum off (1.2 mm)
    finger_chamfer: float = 0.8
    finger_up: float = 3.0  # how far a finger reaches into its hole with the bar up
    yoke_wall: float = 2.6
    yoke_roof: float = 2.0  # the yoke's roof over the lift's recess
    collar_d: float = 8.0  # on top of each crank pin: the bar's yoke rides on it
    collar_h: float = 4.0  # with a 1 mm chamfer the ramp rides on
    # The pin's shaft between the arm and the collar: the yoke's walls hang round the
    # collar and must clear the arm with the bar down.
    pin_h: float = 5.6
    # The bar rides on its crank pin's slider, whose track in the yoke has a ramp across the
    # middle: up (fingers in the cups) while the pin is on the ring's side of the crank axis,
    # down (fingers clear below the cups) on the way back. The ramp spans +-ramp_half of the
    # pin's travel across the yoke, so the fingers enter and leave the cups within a few
    # degrees of the crank's dead centres, where the yoke hardly moves (layout.bar_lift).
    lift: float = 5.0
    ramp_half: float = 3.0
    # Moving parts keep at least this from fixed ones and from each other (issue 32: 0.5 mm),
    # except where they touch by design (a finger in its cup, a cup on its floor).
    running_gap: float = 0.6

    pi_w: float = 85.0  # Raspberry Pi 4 B board, with its parts on top
    pi_d: float = 56.0
    pi_h: float = 17.0
    pi_holes: tuple[float, float] = (58.0, 49.0)  # M2.5, on a 58 x 49 mm rectangle
    # From the Pi 4 B's mechanical drawing, in the board's own frame: u along the 85 mm edge
    # from the micro-SD card's end, v across from the USB-C edge.
    pi_hole_at: tuple[float, float] = (3.5, 3.5)  # the first M2.5 hole
    pi_usb_c_u: float = 11.2  # USB-C power on the v = 0 edge
    pi_hdmi_u: tuple[float, float] = (26.0, 39.5)  # the two micro-HDMI beside it
    pi_sd_v: float = 28.0  # the micro-SD card, under the board at the u = 0 end
    pi_usb_v: tuple[float, float] = (9.0, 27.0)  # the two USB-A pairs at the u = 85 end
    pi_header_v: float = 52.5  # the 40-pin header's row, from u = 7.1 to 57.9
    pi_board_t: float = 1.4
    pico_w: float = 21.0  # Raspberry Pi Pico
    pico_l: float = 51.0
    pico_holes: tuple[float, float] = (11.4, 47.0)  # M2
    pico_hole_d: float = 1.7  # M2, self-tapping
    board_w: float = 70.0  # perfboard: driver, buck, level shifter, fuse
    board_d: float = 50.0
    board_h: float = 15.0
    standoff_h: float = 4.0
    # The sensors' small boards in the bay (issues 43, 44), each on two standoffs at a
    # diagonal's holes, ``small_hole_in`` from its edges (Adafruit's 0.1 inch): two I2C
    # multiplexers, Adafruit 5626 (PCA9548, eight STEMMA QT ports in two rows of four and
    # one upstream at an end), the CD74HC4067 16:1 analog multiplexer on its breakout (the
    # common 40 x 18 mm module or SparkFun BOB-09056) and the ADS1115 (Adafruit 1085). Their
    # outlines (length, width) are the sellers' quoted sizes, not read from a drawing here:
    # measure yours before printing the case (bay.small_boards places them).
    mux_size: tuple[float, float] = (53.3, 25.4)
    amux_size: tuple[float, float] = (40.6, 17.8)
    adc_size: tuple[float, float] = (28.0, 17.5)
    small_board_h: float = 12.0  # over its standoffs: the board, a STEMMA QT plug and its bend
    small_hole_in: float = 2.54
    button_d: float = 16.0
    button_depth: float = 30.0  # behind the panel, nut and contacts
    button_nut_d: float = 20.0  # its panel nut, across the corners, and thick
    button_nut_t: float = 3.0
    button_x: float = 45.0  # right of the front crank's post
    jack_d: float = 8.0

    # --- case (printed) -------------------------------------------------------------------
    case_wall: float = 3.0
    case_floor: float = 3.0
    # Below the face the case reaches this much further out on each side: the Pi (56 mm
    # deep) fits between the centre plate's posts and the back wall only so.
    case_bay: float = 8.0
    ledge: float = 4.0  # the ledge the face rests on beyond the bay: width and height
    ledge_h: float = 4.0
    cable_notch: float = 10.0  # the face's wires drop through notches this wide in the ledge
    mount_plate_t: float = 3.0
    # 7 mm legs 0.85 mm clear of the motor's body, each in a socket of a floor boss
    mount_leg: float = 7.0
    mount_margin: float = 15.7  # the motor mount's plate beyond the motor's body
    socket_h: float = 3.0  # the bosses' sockets the mount's legs stand in
    screw_tap_d: float = 2.5  # M3 self-tapping into a printed boss
    standoff_d: float = 6.0
    standoff_hole_d: float = 2.2  # M2.5, self-tapping
    status_led_hole_d: float = 5.2
    jack_z: float = 12.0  # the DC jack's centre above the case's floor
    post_d: float = 12.0
    centre_post_d: float = 5.0  # the centre plate's posts: beside the central gear's teeth
    centre_screw_head_d: float = 4.7  # M2.5 button head, self-tapping into the post

    # --- motor and physics -------------------------------------------------------------------
    petg_density: float = 1270.0  # kg/m^3
    marble_mass: float = 0.0045  # kg: a printed marble with its magnets (a glass one: 5.4 g)
    # 17HS4401: its pull-out torque (N m) at its rated 1.7 A against speed (rpm), from the
    # datasheet's curve (24 V, 1/16 step); the driver's current scales it.
    motor_torque_curve: tuple[tuple[float, float], ...] = (
        (0.0, 0.40), (60.0, 0.36), (120.0, 0.32), (300.0, 0.24), (600.0, 0.14),
    )  # fmt: skip
    motor_rated_current: float = 1.7  # A per phase
    # The TMC2209's RMS current, set by its VREF (assembly.md, 1.98 V): at 1.4 A the motor
    # gives twice the torque the physics asks for at mu 0.5 (benchmarks/mechanism.py).
    driver_current: float = 1.4
    rotor_inertia: float = 54e-7  # kg m^2 (54 g cm^2)
    detent_torque: float = 0.02  # N m, unpowered (17HS4401 sheets: 1.5-2.8 N cm)
    drive_efficiency: float = 0.7  # gears, yokes and ramps together, with the bars' guides
    # The index's hall switch reads its magnet within this of it (mechanics.md): homing stops
    # with the crank within index_reach / drive.index_radius of its rest.
    index_reach: float = 2.5
    bar_mass: float = 0.008  # kg: a transfer bar (its 9.9 cm^3 of PETG, 60 % of it solid)

    # --- sensing ----------------------------------------------------------------------------
    # The magnetic model (magnetics.py) reads these. Magnets: N42, remanence 1.28-1.32 T;
    # the model takes the low end, so every field it finds is one a weak magnet still gives.
    remanence: float = 1.28
    # The printed marble: six discs on the axes of a cube, each under a shell of min_wall,
    # all north out in a black marble and south out in a white one (marble.py, marbles.md).
    marble_magnet_d: float = 6.0
    marble_magnet_h: float = 3.0
    # How far a marble's centre may stand off its square's centre at rest: the disc stops
    # within 1.9 deg of the index (0.95 mm at the inner squares), a cup within its finger's
    # play and the channel's running gap.
    marble_offset: float = 1.0
    # The seat's printed hole may come out this much off its diameter, the marble resting
    # higher (smaller hole) or lower (larger).
    seat_tolerance: float = 0.2
    # Each sensor's sensitive point below the face of the package turned to the marble
    # (datasheets: the SS451A's flat TO-92 about 0.8 mm; TI TMAG5273's SOT-23 about 0.65 mm).
    switch_element_depth: float = 0.8
    vector_element_depth: float = 0.65
    # Honeywell SS451A, -40..125 C: operates at 85 G at most, releases at 10 G at least.
    switch_operate_g: float = 85.0
    switch_release_g: float = 10.0
    # TI DRV5055A3 at 3.3 V (single axis): 15 mV/mT +-6 %, zero-field output VCC/2 +-60 mV
    # (+-40 G), its drift over temperature +-1 % of VCC after calibration (+-22 G), noise
    # 130 nT/sqrt(Hz) over its 20 kHz band (0.18 G RMS); the ADS1115 at +-4.096 V adds one
    # 125 uV step (0.08 G). RMS, in all:
    linear_offset_g: float = 40.0
    linear_drift_g: float = 22.0
    linear_noise_g: float = 0.3
    # TI TMAG5273A1 (three axes, +-40 mT, I2C): offset +-0.3 mT an axis (+-3 G), its drift
    # +-0.1 mT after calibration, noise 0.12 mT RMS an axis at 1x averaging, 32x averaging
    # (2.2 ms a conversion) a sixth of it. Peaks are 3.3 RMS.
    vector_offset_g: float = 3.0
    vector_drift_g: float = 1.0
    vector_noise_g: float = 0.2
    # The referee reads the squares one scan after the rings stop: 16 sensors a scan.
    scan_period: float = 0.04
    # The stepper's rotor magnet, modelled bare (no stator round it): an upper bound on the
    # motor's stray field, no measurement of a NEMA 17's being published.
    motor_magnet_od: float = 22.0
    motor_magnet_id: float = 6.0
    motor_magnet_h: float = 4.0
    # Under each square: the sensor's leads run this far from its body before they bend
    # down, with its 100 nF 0805 capacitor soldered across VCC and GND on them.
    hall_lead_stub: float = 2.5
    # The reference board's sensor under each square (issue 43): a TMAG5273 breakout with
    # STEMMA QT sockets (board/breakout.py places it, or says why it cannot).
    breakout: Breakout = ADAFRUIT_6489
    # TI TMAG5273 in its SOT-23-6 (DBV): body 2.9 x 1.6, 2.8 across its leads, 1.45 tall at
    # most; its Hall elements 0.65 under the package's top (vector_element_depth).
    chip_l: float = 2.9
    chip_w: float = 2.8
    chip_h: float = 1.45

    @property
    def sensor_keepout_r(self) -> float:
        """How far from a square's centre its sensor's pocket, leads and capacitor reach,
        a wall beyond: an LED's board stays outside this circle."""
        half_w = self.hall_w / 2 + self.fit
        reach = self.hall_d / 2 + self.fit + self.hall_lead_stub
        return float((half_w**2 + reach**2) ** 0.5) + self.min_wall

    # --- printer ----------------------------------------------------------------------------
    # The one clearance of a printed pin in a printed hole (diametral): a finger in its cup's
    # hole, a crank pin's collar in its yoke. The smallest that lets a printed pin slide in
    # its printed hole to the bottom under a finger's push, without rocking: the tolerance
    # test prints exactly that fit at seven sizes ``fit_step`` apart round this figure and
    # says what to set it to (tolerance-test.md). Tuned FDM printers print holes 0.1-0.2 mm
    # small and pins a little fat: 0.3 is the common reading; the play the cups see is what
    # the printer leaves of it.
    print_clearance: float = 0.3
    # The tolerance test's finger-fit holes, this far apart in diameter: the fit the maker
    # reads off it is right to within half of it (the physics' tolerance sweep takes that).
    fit_step: float = 0.05
    # The least play (diametral) a printed finger keeps in the printed hole the tolerance test
    # reads as the one that fits (in to its foot and out freely, without rocking): taken as
    # 0.075 mm, an assumption (a finger's feel tells no tighter fit from a sticking one), not a
    # measurement. The board's fits print with this play and up to a ``fit_step`` more.
    fit_play: float = 0.075
    slide: float = 0.3  # clearance of a printed bore that turns on a bought steel part
    fit: float = 0.15  # clearance of a bought part pressed or glued into a pocket
    min_wall: float = 1.2  # thinnest wall any printed part may have
    bed: tuple[float, float, float] = (220.0, 220.0, 250.0)
    layer_h: float = 0.2
    nozzle_d: float = 0.4

    # --- derived --------------------------------------------------------------------------
    @property
    def finger_hole_d(self) -> float:
        """A cup's finger hole: the finger with the printed fit's clearance."""
        return self.finger_d + self.print_clearance

    @property
    def crank_r(self) -> float:
        """The crank's throw: a Scotch yoke moves its bar twice this, one square."""
        return self.pitch / 2

    @property
    def crank_distance(self) -> float:
        """Motor axis to each crank axis: the gears' centre distance."""
        return self.gear_module * (self.central_teeth + self.crank_teeth) / 2

    @property
    def channel_w(self) -> float:
        # Cups slide on the channel's floor; across it they keep the running gap from its
        # walls (the fingers steer them, the walls only catch a cup knocked off its square).
        return self.cup_d + 2 * self.running_gap

    @property
    def face_w(self) -> float:
        return 2 * (1.5 * self.pitch + self.channel_w / 2 + self.face_rim)

    @property
    def case_w(self) -> float:
        return self.face_w + 2 * self.slide + 2 * (self.case_wall + self.case_bay)

    @property
    def cup_h(self) -> float:
        return self.face_pocket - self.slide

    # The board's heights, from the bottom of the case up.
    @property
    def z_motor_top(self) -> float:
        return self.case_floor + 0.5 + self.motor_len

    @property
    def z_mount_top(self) -> float:
        return self.z_motor_top + self.mount_plate_t

    @property
    def z_gear(self) -> float:
        """Bottom of the central and crank gears: a running gap over the motor's mount."""
        return self.z_mount_top + self.running_gap

    @property
    def z_arm(self) -> float:
        return self.z_gear + self.gear_t

    @property
    def z_collar(self) -> float:
        """Top of the crank pins' domed collars, on which the bars ride."""
        return self.z_arm + self.crank_arm_t + self.pin_h + self.collar_h

    @property
    def z_rail(self) -> float:
        """Bottom of the bars' rails with the bars up: the rails sit on the yokes' roofs,
        over the lift's recess, and run a running gap under the face."""
        return self.z_collar + self.lift + self.yoke_roof

    @property
    def z_face(self) -> float:
        """Bottom of the face plate."""
        return self.z_rail + self.bar_h + self.running_gap

    @property
    def z_floor_top(self) -> float:
        """Top of the face plate's floor: where the cups and the disc slide."""
        return self.z_face + self.face_t - self.face_pocket

    @property
    def z_top(self) -> float:
        return self.z_face + self.face_t


PARAMS = Params()
