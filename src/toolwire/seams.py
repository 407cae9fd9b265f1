"""The capability seams a tool sees on its `ToolContext`: interfaces and the values they carry.

The registry resolves only what a tool declared (see `toolwire.capabilities`) and hands the tool
these scoped objects; implementations live in `toolwire.backends`. A tool never imports
``os``, ``subprocess`` or an HTTP client to reach the world: it goes through these.
"""

from __future__ import annotations

import builtins
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal, Protocol, runtime_checkable

__all__ = [
    "Attachment",
    "AttachmentKind",
    "DirEntry",
    "FetchResponse",
    "KeyValueStore",
    "NetworkPolicy",
    "OpenedAttachment",
    "ProcessResult",
    "ReadRecord",
    "ScopedAttachments",
    "ScopedFetch",
    "ScopedFs",
    "ScopedProcess",
    "ScopedSecrets",
]

AttachmentKind = Literal["image", "file", "audio"]


@runtime_checkable
class KeyValueStore(Protocol):
    """A string → string store, already partitioned by ``(tool, scope_id)``.

    Keys and values are strings; serialise structured data with JSON. Keys written with a TTL
    become invisible to `get` and `list` once expired.
    """

    async def get(self, key: str) -> str | None:
        """The value, or ``None`` when the key is absent or expired."""
        ...

    async def set(self, key: str, value: str, ttl_seconds: float | None = None) -> None:
        """Upsert ``key``; ``ttl_seconds`` (> 0) makes it expire, ``None`` uses the default."""
        ...

    async def delete(self, key: str) -> None:
        """Remove ``key``; a no-op when absent."""
        ...

    async def list(self, prefix: str = "") -> list[str]:
        """Every live key starting with ``prefix`` (taken literally: no wildcards), sorted."""
        ...

    async def increment(self, key: str, by: int = 1) -> int:
        """Atomically add ``by`` to the integer stored at ``key`` (0 when absent); the new value."""
        ...


@runtime_checkable
class ScopedSecrets(Protocol):
    """Resolves the secret references a tool declared, and nothing else."""

    async def get(self, ref: str) -> str:
        """The secret's value.

        Raises:
            SecretNotDeclaredError: the ref was not declared (the message never echoes it).
            KeyError: the ref was declared but no resolver knows it.
        """
        ...


@dataclass(frozen=True, kw_only=True, slots=True)
class FetchResponse:
    """A completed, size-capped HTTP response."""

    status: int
    headers: Mapping[str, str]
    body: bytes
    url: str
    """The final URL after redirects."""
    hops: int = 0
    """How many redirects were followed."""
    truncated: bool = False
    """True when the body was cut at the response-size cap."""

    @property
    def text(self) -> str:
        """The body decoded as UTF-8, invalid bytes replaced."""
        return self.body.decode("utf-8", errors="replace")


@runtime_checkable
class ScopedFetch(Protocol):
    """HTTP limited to the tool's declared hosts and the network policy."""

    async def fetch(
        self,
        url: str,
        *,
        method: str = "GET",
        headers: Mapping[str, str] | None = None,
        body: bytes | str | None = None,
        timeout_s: float | None = None,
    ) -> FetchResponse:
        """Fetch ``url``; redirects are followed and re-validated.

        Raises:
            HostNotAllowedError: the host or its address is refused.
        """
        ...


@dataclass(frozen=True, kw_only=True, slots=True)
class DirEntry:
    """One entry of a directory listing."""

    name: str
    is_dir: bool


@runtime_checkable
class ScopedFs(Protocol):
    """File access limited to the tool's resolved read and write reach.

    Every refusal raises `PathNotReachableError` whose message starts ``PATH_NOT_REACHABLE:``.
    """

    async def read(self, path: str) -> str:
        """The file as UTF-8 text (invalid bytes replaced). Raises FileNotFoundError."""
        ...

    async def read_bytes(self, path: str) -> bytes:
        """The file's bytes. Raises FileNotFoundError."""
        ...

    async def write(self, path: str, data: str | bytes) -> None:
        """Write atomically (temporary file + rename); parents are created."""
        ...

    async def exists(self, path: str) -> bool:
        """Whether the path exists (within read reach)."""
        ...

    async def list(self, path: str) -> list[str]:
        """Entry names of a directory, sorted; empty when it does not exist."""
        ...

    async def list_entries(self, path: str) -> builtins.list[DirEntry]:
        """Entries with their kind, sorted by name; empty when the directory does not exist."""
        ...

    async def mtime(self, path: str) -> float | None:
        """Modification time in seconds since the epoch, or ``None`` when missing."""
        ...

    async def size(self, path: str) -> int | None:
        """The file's size in bytes, or ``None`` when missing (check before reading a file
        that could be huge)."""
        ...

    async def mkdir(self, path: str) -> None:
        """Create a directory and its parents; a no-op when it exists."""
        ...

    async def remove(self, path: str) -> bool:
        """Delete a file (or a symbolic link, never its target); ``False`` when it was absent.

        Raises:
            IsADirectoryError: the path is a directory.
        """
        ...


@dataclass(frozen=True, kw_only=True, slots=True)
class ProcessResult:
    """What a finished child process left."""

    exit_code: int
    stdout: str
    stderr: str
    timed_out: bool = False
    aborted: bool = False
    dropped_stdout_bytes: int = 0
    """Bytes dropped from the middle of stdout to keep memory bounded (head and tail kept)."""
    dropped_stderr_bytes: int = 0


@runtime_checkable
class ScopedProcess(Protocol):
    """Runs only the tool's declared binaries, with no shell and a scrubbed environment."""

    async def spawn(
        self,
        binary: str,
        args: Sequence[str] = (),
        *,
        cwd: str | None = None,
        env: Mapping[str, str] | None = None,
        timeout: float | None = None,
    ) -> ProcessResult:
        """Run ``binary args...`` to completion.

        Raises:
            BinaryNotAllowedError: the binary was not declared.
            OSError: the process could not be started.
        """
        ...


@dataclass(frozen=True, kw_only=True, slots=True)
class Attachment:
    """A file the user attached to the turn."""

    ref: str
    kind: AttachmentKind
    url: str
    name: str = ""
    mime_type: str | None = None


@dataclass(frozen=True, kw_only=True, slots=True)
class OpenedAttachment:
    """A local path at which an attachment can be read."""

    path: str


@runtime_checkable
class ScopedAttachments(Protocol):
    """The turn's attachments, filtered to the kinds the tool declared."""

    def list(self) -> list[Attachment]:
        """The attachments this tool may see."""
        ...

    async def open(self, attachment: Attachment) -> OpenedAttachment:
        """A local path for ``attachment``; its URL must match the scoped entry's."""
        ...

    async def open_by_ref(self, ref: str) -> OpenedAttachment:
        """A local path for the attachment with ``ref``."""
        ...


@dataclass(frozen=True, kw_only=True, slots=True)
class ReadRecord:
    """What `read_file` remembers about a file, for STALE_WRITE checks."""

    mtime: float
    read_at_turn: int


@dataclass(frozen=True, kw_only=True, slots=True)
class NetworkPolicy:
    """Per-personality network reach; ``deny`` is checked first.

    ``*.x.com`` matches subdomains of x.com, never x.com itself. An empty or absent ``allow``
    list means every public host is allowed.
    """

    allow: tuple[str, ...] = ()
    deny: tuple[str, ...] = ()
    allow_private_urls: bool = False
