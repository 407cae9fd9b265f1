"""The ``attachments`` kind: the turn's attachments of the declared kinds.

``kind.py`` (declaration and row), ``seam.py`` (`ScopedAttachments` and its values),
``_filtered.py`` (`FilteredAttachments`, the seam limited to the declared kinds).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from toolwire.lazy import lazy_exports

if TYPE_CHECKING:
    from toolwire.capabilities.kinds.attachments.kind import (
        ATTACHMENTS,
        Attachment,
        AttachmentKind,
        AttachmentsCapability,
        OpenedAttachment,
        ScopedAttachments,
        attachment_files,
        attachments,
    )

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

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "ATTACHMENTS": "toolwire.capabilities.kinds.attachments.kind",
        "Attachment": "toolwire.capabilities.kinds.attachments.kind",
        "AttachmentKind": "toolwire.capabilities.kinds.attachments.kind",
        "AttachmentsCapability": "toolwire.capabilities.kinds.attachments.kind",
        "OpenedAttachment": "toolwire.capabilities.kinds.attachments.kind",
        "ScopedAttachments": "toolwire.capabilities.kinds.attachments.kind",
        "attachment_files": "toolwire.capabilities.kinds.attachments.kind",
        "attachments": "toolwire.capabilities.kinds.attachments.kind",
    },
    globals(),
)
