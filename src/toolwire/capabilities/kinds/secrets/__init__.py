"""The ``secrets`` kind: declared secret refs, resolved for the call.

``kind.py`` (declaration and row), ``seam.py`` (`ScopedSecrets`), ``_resolvers.py`` (where values
come from, and `DeclaredSecrets`: what a tool may ask for), ``_env.py`` (values from environment
variables).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from toolwire.lazy import lazy_exports

if TYPE_CHECKING:
    from toolwire.capabilities.kinds.secrets.kind import (
        SECRETS,
        ScopedSecrets,
        SecretsCapability,
        secrets,
    )

__all__ = [
    "SECRETS",
    "ScopedSecrets",
    "SecretsCapability",
    "secrets",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "SECRETS": "toolwire.capabilities.kinds.secrets.kind",
        "ScopedSecrets": "toolwire.capabilities.kinds.secrets.kind",
        "SecretsCapability": "toolwire.capabilities.kinds.secrets.kind",
        "secrets": "toolwire.capabilities.kinds.secrets.kind",
    },
    globals(),
)
