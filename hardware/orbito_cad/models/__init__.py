"""What judges the assembly: its motion pose by pose (``motion``) and swept (``sweep``), the
interferences and the STLs (``checks``), the teeth in mesh (``teeth``), the physics of the
cups and the drive in MuJoCo (``physics``, ``physics_model``, ``physics_motor``,
``physics_tolerance``), the squares' magnetic sensing (``magnetics``) and the optical model of a
square's colour read by light (``optics``, ``optics_scene``, ``optics_params``: Mitsuba 3)."""
