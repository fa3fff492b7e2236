"""Physical models generated from the CAD's parameters, each proving a design claim with a
real engine: the optical model of a square's colour reading (``optics``, Mitsuba 3).

Imported only by their tests, their benchmarks and the CAD build (the cad extra)."""
