"""The web page's access code: the config's, or one made once and kept in the state directory.

Kept apart from the server (server.py) so ``orbito-hw web code`` prints the code without
loading aiohttp. The code is compared in constant time (``hmac.compare_digest``): a page
that guesses learns nothing from how long a refusal takes.
"""

from __future__ import annotations

import hmac
import os
import secrets
from pathlib import Path
from typing import Final, Protocol

from orbito_hw.errors import ConfigError

WEB_CODE_CHARS: Final = "abcdefghjkmnpqrstuvwxyz23456789"
"""What an access code is made of: no 0/o, 1/l/i to misread on a phone."""
WEB_CODE_LENGTH: Final = range(6, 65)
"""How long an access code may be: a short one is guessed, a long one is not typed."""

CODE_FILE: Final = "web-code"
"""The generated code's file in the state directory (mode 0600: the service user's only)."""
GENERATED_LENGTH: Final = 10  # 31^10: some 8e14 codes, typed on a phone in a few seconds


class CodeSetting(Protocol):
    """Where the config may name the code (``[web]``: the app's ``WebConfig``)."""

    @property
    def code(self) -> str | None: ...


def access_code(web: CodeSetting, state_dir: Path) -> str:
    """The board's access code: ``[web] code``, else the one kept in ``state_dir`` (made
    on first use). ConfigError naming the file if it cannot be read or written."""
    if web.code is not None:
        return web.code
    path = state_dir / CODE_FILE
    try:
        return _read(path) or _make(path)
    except OSError as exc:
        raise ConfigError(f"cannot keep the web access code in {path}: {exc.strerror}") from None


def _read(path: Path) -> str | None:
    try:
        text = path.read_text(encoding="ascii", errors="replace").strip()
    except FileNotFoundError:
        return None
    valid = len(text) in WEB_CODE_LENGTH and all(c in WEB_CODE_CHARS for c in text)
    return text if valid else None  # a damaged file: a fresh code replaces it


def _make(path: Path) -> str:
    code = "".join(secrets.choice(WEB_CODE_CHARS) for _ in range(GENERATED_LENGTH))
    path.parent.mkdir(parents=True, exist_ok=True)
    temp = path.with_name(f".{path.name}.tmp")
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="ascii") as file:
        file.write(code + "\n")
    # Made by root (sudo orbito-hw web code), it must still be the service user's to read.
    owner = path.parent.stat()
    if os.geteuid() == 0 and (owner.st_uid, owner.st_gid) != (0, 0):
        os.chown(temp, owner.st_uid, owner.st_gid)
    os.replace(temp, path)
    return code


def code_matches(given: str | None, code: str | None) -> bool:
    """Whether ``given`` is the access code; always True when the board needs none (None),
    in constant time otherwise."""
    if code is None:
        return True
    if given is None:
        return False
    try:  # a header's bytes that are not UTF-8, a JSON "\ud800": no code, a plain 403
        offered = given.encode()
    except UnicodeEncodeError:
        return False
    return hmac.compare_digest(offered, code.encode())
