"""What the tests share: a person at the board (``players``), board scripts (``scripts``),
the one way to wait (``wait``), what a test needs from the machine (``needs``), fakes of
systemd, the kernel's GPIO chip and the rings, the browser's board, and the rules' oracle.
No test module imports another: what two share lives here (fixtures in conftest.py)."""
