"""orbito-hw's ring controller firmware: the logic, free of ``machine`` and ``rp2``.

``main.py`` is the Pico's entry point (the one file that touches the hardware), kept here so
that the firmware ships whole with the package; it is copied to the Pico's root and never
imported as a module. Every other module runs unchanged on MicroPython (the Pico) and on
CPython (the host's link and the simulated microcontroller import the very same files).
So: no f-string ``=`` specifiers, no dataclasses, no ``typing`` or ``enum`` at run time, no
``from __future__`` (MicroPython has none); annotations are never evaluated there.
"""

FIRMWARE_VERSION = "0.2.2"  # 0.2.1: take-backs at BACK_SHARE of the top speed; 0.2.2: 20 %
