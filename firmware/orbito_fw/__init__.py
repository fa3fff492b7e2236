"""orbito-hw's ring controller firmware: the logic, free of ``machine`` and ``rp2``.

Every module here runs unchanged on MicroPython (the Pico) and on CPython (the host's
link and the simulated microcontroller import the very same files). So: no f-string
``=`` specifiers, no dataclasses, no ``typing`` or ``enum`` at run time, no
``from __future__`` (MicroPython has none); annotations are never evaluated there.
"""

FIRMWARE_VERSION = "0.1.0"
