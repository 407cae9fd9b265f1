"""The ``attachments`` kind: the turn's attachments of the declared kinds, through
``ctx.attachments``.

The seam is a ``FilteredAttachments`` over the backends' ``inbound_attachments`` then the
turn's own. Declared attachments also reach the file seam: their files (each file, not its
directory) join the read side of the tool's file reach, and a tool without ``fs_reach`` gets a
read-only file reach over just those files (see `attachment_files` and the ``fs_reach`` kind).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal, get_args

from toolwire.capabilities.kind import Capability, CapabilityKind, Resolution, non_empty_strings
from toolwire.capabilities.kinds.attachments.seam import (
    Attachment,
    AttachmentKind,
    OpenedAttachment,
    ScopedAttachments,
)
from toolwire.errors import ToolDefinitionError

__all__ = [
    "ATTACHMENTS",
    "Attachment",
    "AttachmentKind",
    "AttachmentsCapability",
    "OpenedAttachment",
    "ScopedAttachments",
    "attachment_files",
    "attachments",
]


@dataclass(frozen=True, kw_only=True, slots=True)
class AttachmentsCapability(Capability):
    """The turn's attachments of these kinds (or ``*`` for all)."""

    kinds: tuple[AttachmentKind, ...] | Literal["*"]


def attachments(kinds: Iterable[AttachmentKind] | Literal["*"]) -> AttachmentsCapability:
    """Declare the attachment kinds the tool may open (``image``, ``file``, ``audio`` or ``*``)."""
    if kinds == "*":
        return AttachmentsCapability(kinds="*")
    values = non_empty_strings("attachments(kinds)", kinds)
    allowed = get_args(AttachmentKind)
    for kind in values:
        if kind not in allowed:
            raise ToolDefinitionError(
                f"attachments(kinds): {kind!r} is not one of {', '.join(allowed)} or '*'"
            )
    return AttachmentsCapability(kinds=values)  # type: ignore[arg-type,unused-ignore]


def _turn(call: Resolution) -> tuple[Attachment, ...]:
    return (*call.backends.inbound_attachments, *call.scope.turn_attachments)


def attachment_files(call: Resolution) -> tuple[str, ...]:
    """The files of the attachments the tool declared and may open (none when it declared none).

    These are what the ``fs_reach`` kind adds to the tool's read reach.
    """
    declared = call.capabilities.get(ATTACHMENTS)
    if declared is None:
        return ()
    from toolwire.capabilities.kinds.attachments._filtered import attachment_read_dirs

    cache_dir = call.backends.attachment_cache_dir
    return attachment_read_dirs(_turn(call), declared.kinds, cache_dir=cache_dir)


def _resolve(declared: AttachmentsCapability, call: Resolution) -> ScopedAttachments:
    from toolwire.capabilities.kinds.attachments._filtered import FilteredAttachments

    cache_dir = call.backends.attachment_cache_dir
    return FilteredAttachments(_turn(call), declared.kinds, cache_dir=cache_dir)


ATTACHMENTS: CapabilityKind[AttachmentsCapability, ScopedAttachments] = CapabilityKind(
    name="attachments",
    declaration=AttachmentsCapability,
    resolve=_resolve,
    context_field="attachments",
)
"""``attachments(kinds)`` → ``ctx.attachments``; needs no backend."""
