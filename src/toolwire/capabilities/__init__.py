"""Capabilities: what a tool declares it needs from the world, kind by kind.

A tool declares what it needs; the registry resolves only that, scoped, into the seams of its
`ToolContext`. An empty declaration (``ToolCapabilities()``) means "no side effects" and needs
no backends.

```python
from toolwire.capabilities import network, storage, ToolCapabilities

caps = ToolCapabilities.of(network(["api.github.com", "*.githubusercontent.com"]),
                           storage("session", ttl_seconds_default=1800))
```

Each kind is one folder of `toolwire.capabilities.kinds` (declaration, factory and
`CapabilityKind` record in its ``kind`` module, the seam protocol in its ``seam`` module, its
backends) and one row of `KINDS`, the table the resolver loops over. A tool
reads any kind's seam with ``ctx.seam(KIND)``; the six kinds of spec 01 also fill a typed field
(``ctx.kv_store``, ``ctx.scoped_fs``, ...). See ``docs/capabilities.md``.

Host patterns: an exact host, ``*.example.com`` (subdomains only, **not** ``example.com``
itself), or ``*`` ("whatever the personality's network policy allows").

Rooms: ``kinds/`` (one folder per kind: declaration, seam, backends), ``kind.py``
(`CapabilityKind`, the record of a kind), ``_declarations.py`` (`ToolCapabilities`, at most one
declaration per kind), ``seams.py`` (the seams a `ToolContext` carries), ``_backends.py``
(`CapabilityBackends`, `CapabilityScope`), ``resolver.py`` (declaration + backends → seams) and
``defaults.py`` (`create_backends`: a default set of backends for one machine).
"""

from __future__ import annotations

from toolwire.capabilities._declarations import ToolCapabilities
from toolwire.capabilities.kind import (
    SEAM_FIELDS,
    Capability,
    CapabilityKind,
    Resolution,
    kind_name,
)
from toolwire.capabilities.kinds import (
    ARCHIVE,
    ATTACHMENTS,
    FS_REACH,
    KINDS,
    NETWORK,
    PROCESS,
    SECRETS,
    SHARED_STORAGE,
    STORAGE,
)
from toolwire.capabilities.kinds.archive.kind import ArchiveCapability, archive
from toolwire.capabilities.kinds.attachments.kind import AttachmentsCapability, attachments
from toolwire.capabilities.kinds.fs_reach.kind import (
    FROM_PERSONALITY,
    FsReachCapability,
    PathReach,
    fs_reach,
)
from toolwire.capabilities.kinds.network.kind import NetworkCapability, network
from toolwire.capabilities.kinds.process.kind import ProcessCapability, process
from toolwire.capabilities.kinds.secrets.kind import SecretsCapability, secrets
from toolwire.capabilities.kinds.shared_storage.kind import SharedStorageCapability, shared_storage
from toolwire.capabilities.kinds.storage.kind import StorageCapability, StorageScope, storage

__all__ = [
    "ARCHIVE",
    "ATTACHMENTS",
    "FROM_PERSONALITY",
    "FS_REACH",
    "KINDS",
    "NETWORK",
    "PROCESS",
    "SEAM_FIELDS",
    "SECRETS",
    "SHARED_STORAGE",
    "STORAGE",
    "ArchiveCapability",
    "AttachmentsCapability",
    "Capability",
    "CapabilityKind",
    "FsReachCapability",
    "NetworkCapability",
    "PathReach",
    "ProcessCapability",
    "Resolution",
    "SecretsCapability",
    "SharedStorageCapability",
    "StorageCapability",
    "StorageScope",
    "ToolCapabilities",
    "archive",
    "attachments",
    "fs_reach",
    "kind_name",
    "network",
    "process",
    "secrets",
    "shared_storage",
    "storage",
]
