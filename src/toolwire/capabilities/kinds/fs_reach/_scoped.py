"""`ReachScopedFs`: file access limited to read and write reach, behind the deny floor.

Every operation first turns its path into a *reachable* canonical path (`check_reach`), then
hands only that path to the operating system:

1. **Canonicalise**: absolute paths are taken as they are; a relative path resolves against
   ``base_dir`` (refused when there is none). ``.``, ``..`` and repeated slashes are collapsed
   lexically, so the kernel never sees a ``..``.
2. **Deny floor first**: the path must not equal or sit below an entry of
   `toolwire.safety.sensitive_paths` (recomputed from ``$HOME`` on each check) or of ``deny``,
   in any letter case (a case-insensitive file system opens ``.SSH`` as ``.ssh``).
3. **Allowed prefixes**: the path must equal or sit below one of the side's prefixes (lexical;
   the first match wins). Nothing on disk is touched for a path that fails 2 or 3, so a refusal
   never reveals whether an out-of-reach path exists.
4. **Symbolic links**: the segments *below* the matched prefix are walked one at a time from the
   prefix's directory descriptor (`toolwire.capabilities.kinds.fs_reach.beneath`): each is looked at
   without following it, and each directory opened ``O_NOFOLLOW`` relative to the one before. The
   walk stops at the first missing segment (writing a new file is fine; a write creates the missing
   directories as it walks). At a link, the path is rewritten to the link's target plus the
   remaining segments and steps 2-4 run again, at most 32 times. Segments above the prefix are not
   walked: the operator chose that layout.

Every refusal raises `PathNotReachableError` whose message starts ``PATH_NOT_REACHABLE:`` and
names only the path the caller gave. **Paths are resolved where they are used**: the walk ends
with the descriptor of the directory the last segment is in, and every operation acts on that
descriptor and name (``openat``, ``fstatat``, ``renameat``, ``unlinkat``, never following a last
link), then checks the descriptor it ended with: a regular file for a read, and a directory still
beneath the prefix by its device and inode ancestry. A directory swapped for a link while a call
runs cannot lead it outside: the call works on what it walked, or fails, or resolves again.

**Only regular files are read** (`toolwire.capabilities.kinds.fs_reach.regular_files`): a named
pipe, a socket or a device is refused without blocking, saying what it is; a directory raises
`IsADirectoryError`. `stat` tells what is at a path (where it leads, kind, identity, size, time)
without opening it; metadata is not contents, so read reach *or* write reach allows it. Blocking
calls run in a worker thread. POSIX only.
"""

from __future__ import annotations

import builtins
import os
from collections.abc import Callable, Sequence
from typing import TypeVar

import anyio.to_thread

from toolwire.capabilities.kinds.fs_reach._file_operations import (
    exists_at,
    list_at,
    mkdir_at,
    mtime_at,
    remove_in,
    size_at,
    write_at,
)
from toolwire.capabilities.kinds.fs_reach.beneath import Located, walk_beneath
from toolwire.capabilities.kinds.fs_reach.regular_files import read_regular_file, stat_path
from toolwire.capabilities.kinds.fs_reach.seam import DirEntry, PathStat
from toolwire.errors import ConfigurationError, PathNotReachableError
from toolwire.safety.protected_paths import ProtectedPaths, is_protected
from toolwire.safety.sensitive_paths import is_sensitive

__all__ = ["MAX_SYMLINK_HOPS", "PathStat", "ReachScopedFs", "canonical_path"]

_T = TypeVar("_T")

MAX_SYMLINK_HOPS = 32
"""Symbolic links followed while resolving one path before it is refused."""


def canonical_path(path: str, base_dir: str | None = None) -> str | None:
    """``path`` made absolute (against ``base_dir``) and normalised; ``None`` when impossible.

    Returns ``None`` for a relative path without ``base_dir``, an empty path, or one holding NUL.
    """
    if not path or "\0" in path:
        return None
    if not os.path.isabs(path):
        if base_dir is None or not os.path.isabs(base_dir):
            return None
        path = os.path.join(base_dir, path)
    normal = os.path.normpath(path)
    # normpath keeps a leading "//" (POSIX allows it); collapse it like every other slash.
    return "/" + normal.lstrip("/") if normal.startswith("//") else normal


def _under(path: str, prefix: str) -> bool:
    return prefix == "/" or path == prefix or path.startswith(prefix + "/")


def _prefixes(side: str, values: Sequence[str], base_dir: str | None) -> tuple[str, ...]:
    if isinstance(values, str):
        raise ConfigurationError(f"ReachScopedFs({side}=...) takes a list of paths, not a string")
    out: list[str] = []
    for value in values:
        canonical = canonical_path(value, base_dir)
        if canonical is None:
            raise ConfigurationError(
                f"ReachScopedFs({side}=...): {value!r} is not an absolute path; "
                "pass absolute paths or base_dir= to resolve relative ones"
            )
        out.append(canonical)
    return tuple(dict.fromkeys(out))


class ReachScopedFs:
    """A `ScopedFs` over the local file system, limited to ``read`` and ``write`` prefixes.

    Args:
        read: Path prefixes that `read`, `read_bytes`, `exists`, `list`, `list_entries`,
            `mtime`, `size` and `stat` may reach.
        write: Path prefixes that `write`, `mkdir`, `remove` and `stat` may reach (writing does
            not imply reading; `stat` reads no contents).
        deny: Extra prefixes refused on both sides, on top of the sensitive-path floor (which
            always applies).
        base_dir: Directory that relative paths (arguments and prefixes) resolve against;
            without it relative paths are refused.
        protected: What no write may touch inside a write root, at every link the path
            follows (`toolwire.safety.protected_paths`); ``None``: the defaults.

    Raises:
        ConfigurationError: a prefix is relative and there is no ``base_dir``.
    """

    __slots__ = ("_base_dir", "_deny", "_protected", "_read", "_write")

    def __init__(
        self,
        read: Sequence[str],
        write: Sequence[str],
        *,
        deny: Sequence[str] | None = None,
        base_dir: str | None = None,
        protected: ProtectedPaths | None = None,
    ) -> None:
        if base_dir is not None and not os.path.isabs(base_dir):
            raise ConfigurationError(f"ReachScopedFs(base_dir={base_dir!r}) must be absolute")
        self._base_dir = base_dir
        self._protected = protected
        self._read = _prefixes("read", read, base_dir)
        self._write = _prefixes("write", write, base_dir)
        self._deny = _prefixes("deny", deny or (), base_dir)

    @property
    def read_prefixes(self) -> tuple[str, ...]:
        """The canonical read prefixes."""
        return self._read

    @property
    def write_prefixes(self) -> tuple[str, ...]:
        """The canonical write prefixes."""
        return self._write

    @property
    def deny_prefixes(self) -> tuple[str, ...]:
        """The extra deny prefixes (the sensitive-path floor applies besides these)."""
        return self._deny

    @property
    def base_dir(self) -> str | None:
        """The directory relative paths resolve against."""
        return self._base_dir

    def __repr__(self) -> str:
        return f"ReachScopedFs(read={self._read!r}, write={self._write!r}, deny={self._deny!r})"

    def check_reach(self, path: str, kind: str) -> str:
        """The canonical, link-free path ``path`` reaches, if ``kind`` may reach it.

        Args:
            path: The path asked for.
            kind: ``"read"`` or ``"write"``.

        Raises:
            PathNotReachableError: out of reach, on the deny floor, escaping through a link or
                following too many links.
        """
        with self._locate(path, kind) as located:
            return located.path

    def _locate(self, path: str, kind: str, *, create: bool = False) -> Located:
        """Check ``path`` for ``kind`` and walk it to its last segment (see the module doc).

        With ``create``, the missing directories on the way are created as the walk goes.
        """
        if kind not in ("read", "write"):
            raise ValueError(f"kind must be 'read' or 'write', got {kind!r}")
        allowed = self._read if kind == "read" else self._write
        current = canonical_path(path, self._base_dir)
        if current is None:
            raise PathNotReachableError(
                f'PATH_NOT_REACHABLE: {kind} of "{path}" needs an absolute path'
            )
        hops = 0
        while True:
            self._check_floor(current, path, kind)
            if kind == "write":
                self._check_protected(current, path)
            prefix = next((p for p in allowed if _under(current, p)), None)
            if prefix is None:
                reason = (
                    "resolves outside the allowlist through a symbolic link"
                    if hops
                    else "is not permitted"
                )
                raise PathNotReachableError(f'PATH_NOT_REACHABLE: {kind} of "{path}" {reason}')
            step = walk_beneath(current, prefix, asked=path, kind=kind, create=create)
            if isinstance(step, Located):
                return step
            hops += 1
            if hops > MAX_SYMLINK_HOPS:
                raise PathNotReachableError(
                    f'PATH_NOT_REACHABLE: {kind} of "{path}" follows too many symbolic links '
                    "to resolve"
                )
            current = step

    def _check_floor(self, current: str, asked: str, kind: str) -> None:
        folded = current.casefold()
        if is_sensitive(current) or any(_under(folded, d.casefold()) for d in self._deny):
            raise PathNotReachableError(
                f'PATH_NOT_REACHABLE: {kind} of "{asked}" hits the always-deny floor'
            )

    def _check_protected(self, current: str, asked: str) -> None:
        why = is_protected(current, self._protected)
        if why is not None:
            raise PathNotReachableError(
                f'PATH_NOT_REACHABLE: write of "{asked}" is refused: it is protected ({why})'
            )

    async def _run(
        self, path: str, kind: str, operation: Callable[[Located], _T], *, create: bool = False
    ) -> _T:
        """Check and walk ``path``, then run ``operation`` on where it leads, in a worker thread
        (all of it touches the disk)."""

        def run() -> _T:
            with self._locate(path, kind, create=create) as located:
                return operation(located)

        return await anyio.to_thread.run_sync(run)

    async def read(self, path: str) -> str:
        """The file as UTF-8 text, invalid bytes replaced. Raises FileNotFoundError."""
        return (await self.read_bytes(path)).decode("utf-8", errors="replace")

    async def read_bytes(self, path: str) -> bytes:
        """The file's bytes. Raises FileNotFoundError."""
        return await self._run(path, "read", lambda located: read_regular_file(located, path))

    async def write(self, path: str, data: str | bytes) -> None:
        """Write atomically (temporary file in the same directory, fsync, rename).

        Parents are created. An existing file keeps its permission bits; a new one gets the
        process umask's default.
        """
        payload = data.encode("utf-8") if isinstance(data, str) else bytes(data)
        await self._run(path, "write", lambda located: write_at(located, payload), create=True)

    async def exists(self, path: str) -> bool:
        """Whether the path exists (refused when out of read reach)."""
        return await self._run(path, "read", exists_at)

    async def list(self, path: str) -> builtins.list[str]:
        """Entry names of a directory, sorted; empty when it does not exist."""
        return [entry.name for entry in await self.list_entries(path)]

    async def list_entries(self, path: str) -> builtins.list[DirEntry]:
        """Entries sorted by name; empty when the directory does not exist.

        ``is_dir`` does not follow links: a link to a directory is reported as not a directory,
        so a listing never describes what lies outside reach.
        """
        return await self._run(path, "read", list_at)

    async def mtime(self, path: str) -> float | None:
        """Modification time in seconds since the epoch, or ``None`` when missing."""
        return await self._run(path, "read", mtime_at)

    async def stat(self, path: str) -> PathStat:
        """What is at ``path`` — where it leads, its kind, identity, size and time — unopened.

        Allowed with read reach or with write reach (metadata is not contents); a path in
        neither is refused as a read would be.
        """

        def look() -> PathStat:
            with self._locate_either(path) as located:
                return stat_path(located)

        return await anyio.to_thread.run_sync(look)

    def _locate_either(self, path: str) -> Located:
        try:
            return self._locate(path, "read")
        except PathNotReachableError as refusal:
            try:
                return self._locate(path, "write")
            except PathNotReachableError:
                raise refusal from None

    async def remove(self, path: str) -> bool:
        """Delete a file or a symbolic link (a write); ``False`` when it did not exist.

        A link is removed itself, never its target; both the path and what it resolves to
        must be in write reach.

        Raises:
            IsADirectoryError: the path is a directory (directories are never removed).
        """

        def remove_entry() -> bool:
            self.check_reach(path, "write")
            lexical = canonical_path(path, self._base_dir) or path  # absolute once checked
            with self._locate(os.path.dirname(lexical), "write") as parent:
                return remove_in(parent, os.path.basename(lexical))

        return await anyio.to_thread.run_sync(remove_entry)

    async def size(self, path: str) -> int | None:
        """The file's size in bytes (a read), or ``None`` when it does not exist."""
        return await self._run(path, "read", size_at)

    async def mkdir(self, path: str) -> None:
        """Create a directory and its parents; a no-op when it exists."""
        await self._run(path, "write", mkdir_at, create=True)
