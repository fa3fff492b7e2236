"""Small files the board keeps beside its journal (the calibration, the board's id, the
seats' links), written the one way: atomically and durably. (The journal, a layer below,
has its own writer.)"""

from __future__ import annotations

import contextlib
import json
import logging
import os
from collections.abc import Callable, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any, ClassVar, Generic, Protocol, TypeVar

from orbito_hw.lang import _

log = logging.getLogger(__name__)


class _Record(Protocol):
    """A dataclass instance, as ``dataclasses.asdict`` takes it."""

    __dataclass_fields__: ClassVar[dict[str, Any]]


R = TypeVar("R", bound=_Record)


def write_durably(path: Path, text: str, encoding: str = "utf-8", mode: int = 0o644) -> None:
    """``text`` at ``path``, atomically and durably: a fresh temporary file beside it (made
    with ``mode``: 0o600 for a file that holds keys), synced, renamed over, the directory
    synced. Never written through whatever stands at the name; OSError as the file system
    says, the temporary file gone (a full disk gets its space back)."""
    tmp = path.with_name(path.name + ".tmp")
    with contextlib.suppress(FileNotFoundError):
        os.unlink(tmp)
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    try:
        with open(fd, "w", encoding=encoding) as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    fd = os.open(path.parent, os.O_RDONLY)
    try:
        with contextlib.suppress(OSError):  # some file systems refuse a directory fsync
            os.fsync(fd)
    finally:
        os.close(fd)


class RecordFile(Generic[R]):
    """A list of records (dataclasses) the board keeps in a JSON file, ``{key: [...]}``,
    readable by its user alone (they hold keys): read at each use, so a command run beside
    the running board (``seat revoke``) is seen at once, and written durably.

    ``unusable`` is the log's line for a damaged file (``{path}``, ``{reason}``; marked with
    ``N_``, translated when told): a damaged file is no record, never one made up."""

    def __init__(self, path: Path, make: Callable[..., R], key: str, unusable: str) -> None:
        self.path = path
        self._make = make
        self._key = key
        self._unusable = unusable
        self._seen: tuple[int, int] | None = None  # the file's (mtime, size) at ``changed``

    def read(self) -> list[R]:
        try:
            raw = json.loads(self.path.read_bytes())
            return [self._make(**item) for item in raw[self._key]]
        except FileNotFoundError:
            return []
        except (OSError, ValueError, TypeError, KeyError) as exc:
            log.warning("%s", _(self._unusable).format(path=self.path, reason=exc))
            return []

    def write(self, records: Sequence[R]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        text = json.dumps({self._key: [asdict(r) for r in records]}, indent=1)
        write_durably(self.path, text, mode=0o600)

    def changed(self) -> list[R] | None:
        """The records if the file changed since the last call (none once it is gone), None
        if it has not (a file still missing at the first call has not): a stat, so a flood of
        requests or messages reads it once."""
        try:
            stat = self.path.stat()
            seen: tuple[int, int] | None = (stat.st_mtime_ns, stat.st_size)
        except OSError:
            seen = None
        if seen == self._seen:
            return None
        self._seen = seen
        return self.read() if seen is not None else []
