"""The MCP protocol revisions toolwire speaks, named once, and what differs between them.

Every revision is a date; code names it through these constants and asks the helpers what a
revision does rather than comparing dates:

- **handshake era** (`HANDSHAKE_REVISIONS`, 2024-11-05 … 2025-11-25): ``initialize`` opens a
  session; `negotiate` is what a server settles on for the revision a client asks for.
- **stateless** (`STATELESS_REVISIONS`, 2026-07-28): every request carries its own envelope
  (``_meta``), no session; results carry ``resultType`` and the ``serverInfo`` stamp
  (`has_result_type`).
- **tasks**: the 2025-11-25 core tasks (`supports_core_tasks`); on 2026-07-28 they are the
  ``io.modelcontextprotocol/tasks`` extension.
- **resumable streams**: a 2025-11-25 session's SSE stream starts with a priming event
  (`RESUMABLE_SINCE`).

The standard library only: the stdio fast path reads these before the SDK loads (the tests
check they are the SDK's own lists). The 2026-07-28 listing features of a served registry
(cache hints, ``server/discover``, list changes) are `toolwire.mcp.server.listing_features`.
"""

from __future__ import annotations

import warnings
from typing import Any, Final

from toolwire.errors import ConfigurationError

__all__ = [
    "DEFAULT_NEGOTIATED",
    "HANDSHAKE_REVISIONS",
    "KNOWN_REVISIONS",
    "LATEST",
    "LATEST_HANDSHAKE",
    "RESUMABLE_SINCE",
    "REVISION_2024_11_05",
    "REVISION_2025_03_26",
    "REVISION_2025_06_18",
    "REVISION_2025_11_25",
    "REVISION_2026_07_28",
    "STATELESS_REVISION",
    "STATELESS_REVISIONS",
    "TASKS_REVISION",
    "has_result_type",
    "is_at_least",
    "is_handshake",
    "is_stateless",
    "negotiate",
    "supports_core_tasks",
]

REVISION_2024_11_05: Final = "2024-11-05"
REVISION_2025_03_26: Final = "2025-03-26"
REVISION_2025_06_18: Final = "2025-06-18"
REVISION_2025_11_25: Final = "2025-11-25"
REVISION_2026_07_28: Final = "2026-07-28"

HANDSHAKE_REVISIONS: Final = (
    REVISION_2024_11_05,
    REVISION_2025_03_26,
    REVISION_2025_06_18,
    REVISION_2025_11_25,
)
"""The revisions the ``initialize`` handshake reaches, oldest first."""
STATELESS_REVISIONS: Final = (REVISION_2026_07_28,)
"""The revisions with a per-request envelope and no session (the SDK's "modern" ones)."""
KNOWN_REVISIONS: Final = (*HANDSHAKE_REVISIONS, *STATELESS_REVISIONS)
"""Every revision, oldest first."""

LATEST: Final = KNOWN_REVISIONS[-1]
"""The newest revision."""
LATEST_HANDSHAKE: Final = HANDSHAKE_REVISIONS[-1]
"""What ``initialize`` settles on when the client asks for a revision it does not know."""
STATELESS_REVISION: Final = STATELESS_REVISIONS[-1]
"""The per-request-envelope revision served (a 2026-07-28 result's stamp, ``supportedVersions``)."""
DEFAULT_NEGOTIATED: Final = REVISION_2025_03_26
"""The revision of a session's request without an ``MCP-Protocol-Version`` header (as the SDK
assumes)."""
TASKS_REVISION: Final = REVISION_2025_11_25
"""The revision with core tasks (``tasks`` capability, task-augmented ``tools/call``)."""
RESUMABLE_SINCE: Final = REVISION_2025_11_25
"""The first revision whose SSE streams begin with a priming event (resumable)."""


def is_stateless(revision: str | None) -> bool:
    """Whether ``revision`` is a per-request-envelope one (2026-07-28: no session,
    ``resultType`` on every result)."""
    return revision in STATELESS_REVISIONS


def is_handshake(revision: str | None) -> bool:
    """Whether a request labelled ``revision`` is served in its session (``None``: no label,
    which the SDK takes as the handshake era)."""
    return revision is None or revision in HANDSHAKE_REVISIONS


def has_result_type(revision: str | None) -> bool:
    """Whether results on ``revision`` carry ``resultType`` (and the ``serverInfo`` stamp)."""
    return is_stateless(revision)


def supports_core_tasks(revision: str | None) -> bool:
    """Whether ``revision`` has core tasks (2025-11-25; 2026-07-28 has the extension)."""
    return revision == TASKS_REVISION


def negotiate(requested: str) -> str:
    """The handshake revision a server settles on for the one a client asks for: that one if
    it is known, else `LATEST_HANDSHAKE`."""
    return requested if requested in HANDSHAKE_REVISIONS else LATEST_HANDSHAKE


def is_at_least(revision: str | None, floor: str) -> bool:
    """Whether ``revision`` is a known revision no older than ``floor`` (an unknown one is
    not: revisions are an enumerated set, not an order of strings).

    Raises:
        ConfigurationError: ``floor`` is not a known revision.
    """
    if floor not in KNOWN_REVISIONS:
        raise ConfigurationError(
            f"is_at_least needs a known revision as its floor (one of {KNOWN_REVISIONS}), "
            f"got {floor!r}"
        )
    if revision not in KNOWN_REVISIONS:
        return False
    return KNOWN_REVISIONS.index(revision) >= KNOWN_REVISIONS.index(floor)


_MOVED = frozenset(
    {
        "RevisionServer",
        "ToolListNotifier",
        "listing_cache_hints",
        "listing_fields",
        "server_identity_kwargs",
    }
)


def __getattr__(name: str) -> Any:
    """The listing features' names, which lived here before 0.2 (deprecated; they load the
    SDK, so only on use)."""
    if name not in _MOVED:
        raise AttributeError(f"module 'toolwire.mcp.revision' has no attribute {name!r}")
    import importlib

    warnings.warn(
        f"toolwire.mcp.revision.{name} moved to toolwire.mcp.server.listing_features in "
        "toolwire 0.2; "
        "import it from there (the old path goes in 0.3)",
        DeprecationWarning,
        stacklevel=2,
    )
    return getattr(importlib.import_module("toolwire.mcp.server.listing_features"), name)
