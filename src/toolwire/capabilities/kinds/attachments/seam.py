"""The seam of the ``attachments`` kind: `ScopedAttachments` and its values."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Protocol, runtime_checkable

__all__ = ["Attachment", "AttachmentKind", "OpenedAttachment", "ScopedAttachments"]

AttachmentKind = Literal["image", "file", "audio"]


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
