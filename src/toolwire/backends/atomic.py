"""Atomic file replacement: a crash leaves the old file or the new one, never half of either."""

from __future__ import annotations

import contextlib
import os
import secrets

__all__ = ["replace_atomically"]


def replace_atomically(
    target: str,
    payload: bytes,
    *,
    temp_name: str,
    mode: int | None = None,
    create_mode: int = 0o666,
) -> None:
    """Write ``payload`` to a temporary file beside ``target``, fsync it, rename it over
    ``target``, then fsync the directory.

    Args:
        target: The file to create or replace; its directory must exist.
        payload: The new content.
        temp_name: The temporary file's name prefix (it gets a random suffix); it must not be
            mistaken for a real entry by whoever lists the directory.
        mode: Permission bits to set on the new file (``None``: ``create_mode`` less the umask).
        create_mode: The mode the temporary file is created with.
    """
    parent = os.path.dirname(target)
    temp = os.path.join(parent, f"{temp_name}{secrets.token_hex(6)}.tmp")
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    fd = os.open(temp, flags, create_mode)
    try:
        with os.fdopen(fd, "wb") as handle:
            if mode is not None:
                os.fchmod(handle.fileno(), mode)
            handle.write(payload)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise
    with contextlib.suppress(OSError):
        dir_fd = os.open(parent or ".", os.O_RDONLY | os.O_DIRECTORY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)
