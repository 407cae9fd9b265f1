"""`HostDir`: a sandbox backend's private directory on the host (mode 0700).

It holds the stand-ins for hidden files (an empty file, a two-line ``passwd``) and the egress
listeners' sockets; it is removed when the backend closes (or is collected unclosed, or at
interpreter exit).
"""

from __future__ import annotations

import os
import pwd
import shutil
import tempfile
import threading
import weakref
from collections.abc import Callable

from toolwire.capabilities.kinds.process.sandbox._layout import HostFiles

__all__ = ["HostDir"]


def _remove_tree(path: str) -> None:
    shutil.rmtree(path, ignore_errors=True)


def _passwd_lines() -> str:
    uid, gid = os.geteuid(), os.getegid()
    try:
        name = pwd.getpwuid(uid).pw_name
    except KeyError:
        name = "user"
    home = os.environ.get("HOME") or "/"
    lines = [f"{name}:x:{uid}:{gid}:{name}:{home}:/bin/sh"]
    if uid != 0:
        lines.insert(0, "root:x:0:0:root:/root:/bin/sh")
    lines.append("nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin")
    return "\n".join(lines) + "\n"


class HostDir:
    """The private directory (see the module docstring); made on first use."""

    def __init__(self) -> None:
        self._path: str | None = None
        self._files: HostFiles | None = None
        self._lock = threading.Lock()
        self._cleanup: Callable[[], object] | None = None

    def files(self) -> HostFiles:
        """The stand-in files, creating the directory first if needed (blocking)."""
        with self._lock:
            return self._make()

    def _make(self) -> HostFiles:
        if self._files is None:
            path = tempfile.mkdtemp(prefix="toolwire-sandbox-")
            empty = os.path.join(path, "empty")
            passwd = os.path.join(path, "passwd")
            with open(empty, "w", encoding="utf-8"):
                pass
            with open(passwd, "w", encoding="utf-8") as handle:
                handle.write(_passwd_lines())
            for name in (empty, passwd):
                os.chmod(name, 0o444)
            self._path, self._files = path, HostFiles(empty_file=empty, passwd=passwd)
            # removed at close, or when the backend is dropped unclosed, or at exit
            self._cleanup = weakref.finalize(self, _remove_tree, path)
        return self._files

    @property
    def path(self) -> str:
        """The directory (created on first use)."""
        with self._lock:
            self._make()
            assert self._path is not None
            return self._path

    def remove(self) -> None:
        """Delete the directory and what is in it (blocking); it is made again if used."""
        with self._lock:
            cleanup, self._cleanup = self._cleanup, None
            self._path = self._files = None
        if cleanup is not None:
            cleanup()
