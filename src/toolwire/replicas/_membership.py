"""`replicas_for`: the `ReplicaState` ``toolwire serve`` runs with, from ``[replicas]``.

With ``enabled`` (or ``TOOLWIRE_REPLICAS=1``) it joins the group on the configured store (its
first heartbeat is written before serving starts), names this replica in the ids of the
background processes it starts, and leaves the group (removes its heartbeat) when serving
ends. A browser backend claims each session's browser for the replica that opened it
(`toolwire.replicas.claims`). Otherwise it yields ``None`` and nothing changes.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

from toolwire.errors import ConfigurationError
from toolwire.replicas._settings import ReplicaSettings
from toolwire.replicas._state import ReplicaState

if TYPE_CHECKING:
    from toolwire.capabilities.resolver import CapabilityBackends

__all__ = ["replicas_for"]


@asynccontextmanager
async def replicas_for(
    table: Mapping[str, Any] | None,
    backends: CapabilityBackends,
    *,
    environ: Mapping[str, str] | None = None,
) -> AsyncIterator[ReplicaState | None]:
    """This server's replica state (``None`` unless ``[replicas]`` enables it).

    Raises:
        ConfigurationError: replicas are enabled without a shared store (none, or
            ``memory://``), or ``[replicas]`` is malformed.
        StoreError: the store cannot be reached to write the first heartbeat.
    """
    settings = ReplicaSettings.from_config(table, environ)
    if not settings.enabled:
        yield None
        return
    backend = backends.kv_backend
    if backend is None:
        raise ConfigurationError(
            "[replicas] enabled needs a shared store: set [store] url to redis://... or "
            "postgresql://..."
        )
    state = ReplicaState(backend, settings)
    from toolwire.capabilities.kinds.process.background import ProcessManager

    manager = getattr(backends.processes, "manager", None)
    if isinstance(manager, ProcessManager):
        manager.replica = state.owner  # process ids name this replica
    browser = backends.kind_backends.get("browser")
    if hasattr(browser, "claims"):  # a BrowserBackend: sessions' browsers claimed per replica
        from toolwire.replicas.claims import SessionClaims

        browser.claims = SessionClaims(backend, state.owner)
    async with state.running():
        yield state
