"""Atomic file replacement: a crash leaves the old file or the new one, never half of either.

`replace_atomically_at` works inside a directory descriptor: the temporary file is created
there (``O_EXCL | O_NOFOLLOW``) and renamed there (``renameat``), so a directory swapped for a
link after it was opened cannot send the new file, or its temporary file, anywhere else.
"""

from __future__ import annotations

import contextlib
import os
import secrets

__all__ = ["replace_atomically", "replace_atomically_at"]


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
    parent, name = os.path.split(target)
    dir_fd = os.open(parent or ".", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        replace_atomically_at(
            dir_fd,
            name,
            payload,
            temp_name=temp_name,
            mode=mode,
            create_mode=create_mode,
            directory=parent,
        )
    finally:
        os.close(dir_fd)


def replace_atomically_at(
    dir_fd: int,
    name: str,
    payload: bytes,
    *,
    temp_name: str,
    mode: int | None = None,
    create_mode: int = 0o666,
    directory: str = "",
) -> None:
    """`replace_atomically` for the entry ``name`` of the directory open as ``dir_fd``.

    The temporary file is created in ``dir_fd`` and renamed over ``name`` in ``dir_fd``; the
    directory is fsynced through it. ``dir_fd`` may be an ``O_PATH`` descriptor. ``directory``
    (the directory's path) only names the files in errors.
    """
    temp = f"{temp_name}{secrets.token_hex(6)}.tmp"
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        fd = os.open(temp, flags, create_mode, dir_fd=dir_fd)
    except OSError as exc:
        raise OSError(exc.errno, exc.strerror, os.path.join(directory, temp)) from None
    try:
        with os.fdopen(fd, "wb") as handle:
            if mode is not None:
                os.fchmod(handle.fileno(), mode)
            handle.write(payload)
            handle.flush()
            os.fsync(handle.fileno())
        try:
            os.replace(temp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
        except OSError as exc:
            paths = os.path.join(directory, temp), os.path.join(directory, name)
            raise OSError(exc.errno, exc.strerror, paths[0], None, paths[1]) from None
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp, dir_fd=dir_fd)
        raise
    with contextlib.suppress(OSError):
        sync_fd = os.open(".", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC, dir_fd=dir_fd)
        try:
            os.fsync(sync_fd)
        finally:
            os.close(sync_fd)
