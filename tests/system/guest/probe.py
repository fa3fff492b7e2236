"""Run as the installed unit's ExecStart (in a copy of the unit, tests/system/vm.py): what can
the service's sandbox reach? One JSON line on stdout (the journal): for each path, whether a
file could be written there (left there as MARK: the driver then looks from outside the
sandbox, where only the state directory may show it; a private /tmp takes writes that nobody
else sees); for each socket family, whether one could be opened and used."""

from __future__ import annotations

import json
import os
import socket
import sys

MARK = ".orbito-probe"
PATHS = [
    "/var/lib/orbito-hw",  # its state directory: the one place it must write
    "/tmp",
    "/etc/orbito-hw",
    "/opt/orbito-hw",
    "/etc",
    "/root",
    "/home",
    "/var/tmp",
    "/usr/local",
    "/dev/shm",
]


def writable(directory: str) -> bool:
    try:
        with open(os.path.join(directory, MARK), "w") as file:
            file.write("x")
    except OSError:
        return False
    return True


def network(family: int, address: tuple[str, int]) -> str:
    """'blocked' (no such socket, or the connection refused by the sandbox), else 'open'."""
    try:
        sock = socket.socket(family, socket.SOCK_STREAM)
    except OSError as exc:
        return f"blocked ({exc.strerror})"
    try:
        sock.settimeout(3)
        sock.connect(address)
    except PermissionError as exc:
        return f"blocked ({exc.strerror})"
    except OSError as exc:
        return f"open ({exc.strerror})"  # the socket exists: the network is reachable
    finally:
        sock.close()
    return "open"


def main() -> None:
    host, port = sys.argv[1], int(sys.argv[2])
    report = {
        "user": os.getuid(),
        "writable": {path: writable(path) for path in PATHS},
        "inet": network(socket.AF_INET, (host, port)),
        "netlink": network_netlink(),
    }
    print("PROBE " + json.dumps(report, sort_keys=True), flush=True)


def network_netlink() -> str:
    try:
        socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 0).close()
    except OSError as exc:
        return f"blocked ({exc.strerror})"
    return "open"


if __name__ == "__main__":
    main()
