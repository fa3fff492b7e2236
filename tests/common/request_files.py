"""Anything at the set-up request's path (issue 34's properties): what a test plants there,
and how it tells afterwards that the same file was moved, not changed."""

from __future__ import annotations

import json
import os
import socket
import stat
from pathlib import Path

import pytest

from orbito_hw.control.requests import NAME

KINDS = ["bytes", "request", "fifo", "symlink", "dangling", "directory", "socket", "huge",
         "other owner"]  # fmt: skip
"""What a test may plant at the request's path."""

Fingerprint = tuple[int, int, int]


def plant(folder: Path, kind: str, raw: bytes, moves: tuple[str, ...]) -> None:
    """Something of ``kind`` at the request's path (``raw`` its bytes where it has some, a
    request's turns from ``moves``)."""
    path = folder / NAME
    if kind == "bytes":
        path.write_bytes(raw)
    elif kind == "request":
        path.write_text(json.dumps({"first": "white", "moves": " ".join(moves)}))
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "symlink":  # to a request that would be good: a link is still refused
        target = folder / "elsewhere.json"
        target.write_text(json.dumps({"first": "white", "moves": moves[0]}))
        path.symlink_to(target)
    elif kind == "dangling":
        path.symlink_to(folder / "nowhere")
    elif kind == "directory":
        path.mkdir()
        (path / "inside").write_bytes(raw)
    elif kind == "socket":
        with socket.socket(socket.AF_UNIX) as sock:
            sock.bind(str(path))
    elif kind == "huge":
        with path.open("wb") as file:
            file.truncate(1 << 30)  # sparse: a gigabyte the taker must not read
    elif kind == "other owner":
        path.write_text(json.dumps({"first": "white", "moves": moves[0]}))
        os.chown(path, 4321, 4321)


def fingerprint(path: Path) -> Fingerprint:
    found = os.lstat(path)
    return found.st_ino, stat.S_IFMT(found.st_mode), found.st_size


def planted(
    folders: pytest.TempPathFactory, kind: str, raw: bytes, moves: tuple[str, ...]
) -> tuple[Path, Fingerprint]:
    """A fresh state directory with ``kind`` planted at its request's path, and that file's
    fingerprint. Only root can give a file to another user: the example is skipped else."""
    if kind == "other owner" and os.geteuid() != 0:
        pytest.skip("only root can give a file to another user")
    folder = folders.mktemp("state")
    plant(folder, kind, raw, moves)
    return folder, fingerprint(folder / NAME)
