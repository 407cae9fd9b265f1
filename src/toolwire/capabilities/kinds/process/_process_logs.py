"""Log files of background processes: rotation, tail reads and following.

Used by `toolwire.capabilities.kinds.process.background`; one writer (the pump thread) appends, any
number of readers read. A file that reaches its size limit is renamed to ``.1`` (older generations
shift up, the oldest beyond the limit is dropped) and a new file is started.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable

__all__ = [
    "TAIL_WINDOW_BYTES",
    "RotatingLog",
    "line_matcher",
    "read_from",
    "tail_generations",
    "tail_lines",
]

TAIL_WINDOW_BYTES = 1 << 20
"""Bytes read from the end of a log for a tail, or per read when following."""


class RotatingLog:
    """An append-only log file rotated at ``max_bytes``, keeping ``backups`` old generations.

    Files are cut at line ends, so a line never straddles two generations; only a single line
    longer than ``max_bytes`` is split.
    """

    def __init__(self, path: str, max_bytes: int, backups: int) -> None:
        self.path = path
        self._max = max_bytes
        self._backups = backups
        self._file = open(path, "ab", buffering=0)  # noqa: SIM115 - closed in close()
        self._size = self._file.tell()
        self._kept = 0  # old generations on disk: .1 .. .<kept>
        while self._kept < backups and os.path.exists(f"{path}.{self._kept + 1}"):
            self._kept += 1

    def write(self, data: bytes) -> None:
        """Append ``data``, rotating first whenever the current file would overflow."""
        while data:
            room = self._max - self._size
            if len(data) <= room:
                chunk, data = data, b""
            else:
                cut = data.rfind(b"\n", 0, room) + 1
                if cut == 0 and self._size > 0:
                    self._rotate()  # the line starts in a fresh file
                    continue
                cut = cut or room  # one line longer than a whole file: split it
                chunk, data = data[:cut], data[cut:]
            self._file.write(chunk)
            self._size += len(chunk)
            if data:
                self._rotate()

    def _rotate(self) -> None:
        self._file.close()
        if self._backups > 0:
            for generation in range(min(self._kept, self._backups - 1), 0, -1):
                os.replace(f"{self.path}.{generation}", f"{self.path}.{generation + 1}")
            os.replace(self.path, f"{self.path}.1")
            self._kept = min(self._kept + 1, self._backups)
        self._file = open(self.path, "wb", buffering=0)  # noqa: SIM115
        self._size = 0

    def close(self) -> None:
        """Close the current file."""
        self._file.close()


def line_matcher(pattern: str) -> Callable[[str], bool]:
    """A test for ``/regex/`` (searched) or a plain substring."""
    if len(pattern) >= 2 and pattern.startswith("/") and pattern.endswith("/"):
        compiled = re.compile(pattern[1:-1])
        return lambda line: compiled.search(line) is not None
    return lambda line: pattern in line


def read_from(path: str, offset: int) -> tuple[bytes, int]:
    """Bytes of ``path`` from ``offset`` on (from 0 when the file was rotated under us)."""
    try:
        with open(path, "rb") as handle:
            size = os.fstat(handle.fileno()).st_size
            if size < offset:
                offset = 0
            handle.seek(offset)
            data = handle.read(TAIL_WINDOW_BYTES)
    except FileNotFoundError:
        return b"", offset
    return data, offset + len(data)


def tail_lines(path: str, count: int) -> list[str]:
    """The last ``count`` lines of ``path`` (within its last `TAIL_WINDOW_BYTES`)."""
    try:
        with open(path, "rb") as handle:
            size = os.fstat(handle.fileno()).st_size
            handle.seek(max(0, size - TAIL_WINDOW_BYTES))
            data = handle.read()
    except FileNotFoundError:
        return []
    text = data.decode("utf-8", errors="replace")
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines[-count:] if count > 0 else []


def tail_generations(path: str, lines: int, backups: int) -> list[str]:
    """The last ``lines`` lines of the log at ``path``, reaching into its older generations
    (``path.1`` ... ``path.<backups>``) when the current one holds fewer."""
    found: list[str] = []
    for candidate in (path, *(f"{path}.{g}" for g in range(1, backups + 1))):
        if len(found) >= lines:
            break
        found = tail_lines(candidate, lines - len(found)) + found
    return found[-lines:] if lines > 0 else []
