"""`FilteredAttachments`: the turn's attachments, limited to the kinds a tool declared.

The host (chat surface, CLI, MCP client) puts the user's files somewhere local and describes
each as an `Attachment` with a ``file://`` URL. A tool sees only the kinds it declared, and can
open only what it was shown:

- `open` checks the attachment's ``ref`` is in the tool's list **and** that the URL the tool
  passes equals the listed one. Without that check a tool could relabel any local path as "the
  user's attachment" and have it opened on its behalf (a confused deputy).
- Only ``file://`` URLs open. With a ``cache_dir``, the file must also sit inside it (after
  resolving links), so an attachment list cannot point a tool at the rest of the disk.

`attachment_read_dirs` gives the read-reach prefixes that let the tool read the opened files
through its `ScopedFs`.
"""

from __future__ import annotations

import builtins
import os
from collections.abc import Sequence
from typing import Literal
from urllib.parse import unquote, urlsplit

from toolwire.capabilities.seams import Attachment, AttachmentKind, OpenedAttachment
from toolwire.errors import CapabilityError

__all__ = ["FilteredAttachments", "attachment_path", "attachment_read_dirs"]

Kinds = Sequence[AttachmentKind] | Literal["*"]


def _visible(attachments: Sequence[Attachment], kinds: Kinds) -> tuple[Attachment, ...]:
    if kinds == "*":
        return tuple(attachments)
    if isinstance(kinds, str):
        raise TypeError(f"kinds is a list of kinds or '*': [{kinds!r}]")
    return tuple(a for a in attachments if a.kind in kinds)


def attachment_path(url: str) -> str | None:
    """The local path of a ``file://`` URL (``file:///tmp/a%20b.png`` → ``/tmp/a b.png``).

    Returns ``None`` for other schemes, a remote host or a relative path.
    """
    parts = urlsplit(url)
    if parts.scheme != "file" or parts.netloc not in ("", "localhost"):
        return None
    path = unquote(parts.path)
    if not path.startswith("/") or "\0" in path:
        return None
    return os.path.normpath(path)


def _inside(path: str, directory: str) -> bool:
    real, root = os.path.realpath(path), os.path.realpath(directory)
    return real == root or real.startswith(root.rstrip("/") + "/")


def attachment_read_dirs(
    attachments: Sequence[Attachment],
    kinds: Kinds,
    *,
    cache_dir: str | None = None,
) -> tuple[str, ...]:
    """Read-reach prefixes for the ``file://`` attachments of ``kinds``.

    Each prefix is an attachment's **own file path**, not its whole directory: reach matches a
    prefix exactly or below it, so the tool can read what it was given and nothing beside it.
    Attachments outside ``cache_dir`` (when set) are left out, as `open` would refuse them.
    """
    paths: list[str] = []
    for attachment in _visible(attachments, kinds):
        path = attachment_path(attachment.url)
        if path is None or (cache_dir is not None and not _inside(path, cache_dir)):
            continue
        paths.append(path)
    return tuple(dict.fromkeys(paths))


class FilteredAttachments:
    """A `ScopedAttachments` over the turn's attachments of the declared kinds.

    Args:
        attachments: Every attachment of the turn.
        kinds: The declared kinds, or ``"*"`` for all.
        cache_dir: Where the host keeps attachment files; when set, only files inside it open.
    """

    __slots__ = ("_by_ref", "_cache_dir", "_visible")

    def __init__(
        self, attachments: Sequence[Attachment], kinds: Kinds, *, cache_dir: str | None
    ) -> None:
        self._visible = _visible(attachments, kinds)
        self._by_ref = {a.ref: a for a in self._visible}
        self._cache_dir = cache_dir

    def list(self) -> builtins.list[Attachment]:
        """The attachments this tool may see, in the turn's order."""
        return list(self._visible)

    async def open(self, attachment: Attachment) -> OpenedAttachment:
        """A local path for ``attachment``.

        Raises:
            LookupError: the ref is not among this tool's attachments.
            CapabilityError: the URL differs from the listed one, or the file lies outside the
                attachment cache.
            ValueError: the URL is not a local ``file://`` URL.
        """
        listed = self._by_ref.get(attachment.ref)
        if listed is None:
            raise LookupError(f'No attachment with ref "{attachment.ref}"')
        if attachment.url != listed.url:
            raise CapabilityError(
                f'attachment "{attachment.ref}" was opened with a URL that is not the one '
                "the user attached"
            )
        return self._open_listed(listed)

    async def open_by_ref(self, ref: str) -> OpenedAttachment:
        """A local path for the attachment with ``ref``.

        Raises:
            LookupError: no attachment of this tool has ``ref``.
        """
        listed = self._by_ref.get(ref)
        if listed is None:
            raise LookupError(f'No attachment with ref "{ref}"')
        return self._open_listed(listed)

    def _open_listed(self, listed: Attachment) -> OpenedAttachment:
        path = attachment_path(listed.url)
        if path is None:
            scheme = urlsplit(listed.url).scheme or "(none)"
            raise ValueError(f"Unsupported URL scheme in attachment: {scheme}")
        if self._cache_dir is not None and not _inside(path, self._cache_dir):
            raise CapabilityError(f'attachment "{listed.ref}" lies outside the attachment cache')
        return OpenedAttachment(path=path)

    def __repr__(self) -> str:
        return f"FilteredAttachments(refs={[a.ref for a in self._visible]!r})"
