"""A club's broker for the tests (docs/broker.md): mosquitto with TLS (a certificate of the
test's own authority, made with the openssl command), a password file (mosquitto_passwd)
and an ACL giving each game's topics to its players, each writing its own colour's only."""

from __future__ import annotations

import getpass
import subprocess
from pathlib import Path

from .needs import tool
from .two_boards import Broker, mosquitto


def _openssl(folder: Path, *argv: str) -> None:
    program = tool("openssl", "apt-get install openssl", ["/usr/bin/openssl"])
    subprocess.run([program, *argv], cwd=folder, check=True, capture_output=True)


def _certificates(folder: Path) -> Path:
    """A certificate authority of the test's own and the broker's certificate for 127.0.0.1;
    the authority's file (what a board's ``ca_file`` names)."""
    ec = ("-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes")
    _openssl(folder, "req", "-x509", *ec, "-keyout", "ca.key", "-out", "ca.crt", "-days", "2",
             "-subj", "/CN=orbito-hw test club CA")  # fmt: skip
    _openssl(folder, "req", *ec, "-keyout", "server.key", "-out", "server.csr",
             "-subj", "/CN=127.0.0.1")  # fmt: skip
    (folder / "san.ext").write_text("subjectAltName=IP:127.0.0.1\n")
    _openssl(
        folder,
        "x509",
        "-req",
        "-in",
        "server.csr",
        "-CA",
        "ca.crt",
        "-CAkey",
        "ca.key",
        "-CAcreateserial",
        "-out",
        "server.crt",
        "-days",
        "2",
        "-extfile",
        "san.ext",
    )
    return folder / "ca.crt"


# docs/broker.md's ACL: each player reads its game and writes its own colour's topics only.
ACL = """\
user club-night.black
topic read orbito-hw/club-night/#
topic readwrite orbito-hw/club-night/black/#

user club-night.white
topic read orbito-hw/club-night/#
topic readwrite orbito-hw/club-night/white/#

user other-game.black
topic read orbito-hw/other-game/#
topic readwrite orbito-hw/other-game/black/#
"""
PASSWORDS = {"club-night.black": "b-secret", "club-night.white": "w-secret",
             "other-game.black": "o-secret"}  # fmt: skip


def club_broker(folder: Path, wss: bool = True) -> tuple[Broker, Path]:
    """docs/broker.md's mosquitto.conf, on loopback ports: mqtts and wss behind the
    certificate (``wss`` False: plain ws, for a browser that trusts no test authority), no
    anonymous client, a password file and the ACL; the broker (not started) and the
    authority's certificate."""
    ca = _certificates(folder)
    passwd = tool("mosquitto_passwd", "apt-get install mosquitto", ["/usr/bin/mosquitto_passwd"])
    passwords = folder / "passwords"
    for n, (user, password) in enumerate(PASSWORDS.items()):
        create = ["-c"] if n == 0 else []
        subprocess.run([passwd, *create, "-b", str(passwords), user, password], check=True)
    (folder / "acl").write_text(ACL)
    broker = Broker(mosquitto(), folder, websockets=True)
    tls = f"certfile {folder / 'server.crt'}\nkeyfile {folder / 'server.key'}\n"
    ws_tls = tls if wss else ""
    broker.config.write_text(
        # Started as root, mosquitto would become the user ``mosquitto``, who cannot read the
        # test's folder: it stays the test's own user (ignored when not root).
        f"user {getpass.getuser()}\n"
        "per_listener_settings false\nallow_anonymous false\n"
        f"password_file {passwords}\nacl_file {folder / 'acl'}\n"
        "persistence false\nlog_dest none\n"
        f"listener {broker.port} 127.0.0.1\n{tls}"
        f"listener {broker.ws_port} 127.0.0.1\nprotocol websockets\n{ws_tls}"
    )
    return broker, ca
