"""The ``shared_storage`` kind: key-value stores of scopes the tool picks from its context.

``kind.py`` (declaration and row), ``seam.py`` (`SharedStores`), ``_stores.py``
(`FactorySharedStores`, the seam over a ``kv_store_factory``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from toolwire.lazy import lazy_exports

if TYPE_CHECKING:
    from toolwire.capabilities.kinds.shared_storage.kind import (
        SHARED_STORAGE,
        SharedStorageCapability,
        SharedStores,
        shared_storage,
    )

__all__ = [
    "SHARED_STORAGE",
    "SharedStorageCapability",
    "SharedStores",
    "shared_storage",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "SHARED_STORAGE": "toolwire.capabilities.kinds.shared_storage.kind",
        "SharedStorageCapability": "toolwire.capabilities.kinds.shared_storage.kind",
        "SharedStores": "toolwire.capabilities.kinds.shared_storage.kind",
        "shared_storage": "toolwire.capabilities.kinds.shared_storage.kind",
    },
    globals(),
)
