"""The hardware layer: small interfaces (``interfaces``) and their backends.

Backends: ``sim`` (the simulated board), ``gpio`` (gpiozero), ``neopixel`` and ``serial``
(the Pico ring controller). A backend module imports its library only when it is chosen.
"""
