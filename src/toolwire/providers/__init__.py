"""Tool providers: which tools the model sees, per iteration.

```python
from toolwire.providers import ProviderContext, combined, gated_tools, static_tools, take_snapshot

provider = combined(static_tools([search, fetch]), gated_tools(admin_tools, is_admin))
snapshot = await take_snapshot(provider, ProviderContext(iteration=1, session_id="s1"))
```

See ``docs/providers.md`` for the contract and how a snapshot gates dispatch.

Rooms: ``_base.py`` (the `ToolProvider` contract, `list_tools`), ``_static.py`` (`static_tools`),
``_gated.py`` (`gated_tools`), ``_skill_scoped.py`` (`skill_scoped_tools`), ``_combined.py``
(`_combined`), ``_cached.py`` (`_cached`: a TTL cache) and ``_snapshot.py`` (`ToolSnapshot`).
"""

from __future__ import annotations

from toolwire.providers._base import (
    DISCOVERY_COMPLETED,
    DISCOVERY_FAILED,
    TOOL_SHADOWED,
    DiscoveryCompleted,
    DiscoveryFailed,
    ProviderContext,
    ProviderEvent,
    ProviderEventHandler,
    ToolProvider,
    ToolShadowed,
    list_tools,
    list_tools_sync,
    provider_id,
)
from toolwire.providers._cached import CachedTools, cached, context_key
from toolwire.providers._combined import CombinedTools, combined
from toolwire.providers._gated import GatedTools, GatePredicate, gated_tools
from toolwire.providers._skill_scoped import (
    SKILL_SCOPED_ID_PREFIX,
    SkillScopedTools,
    skill_scoped_tools,
)
from toolwire.providers._snapshot import NOT_OFFERED, ToolSnapshot, take_snapshot
from toolwire.providers._static import StaticTools, static_tools

__all__ = [
    "DISCOVERY_COMPLETED",
    "DISCOVERY_FAILED",
    "NOT_OFFERED",
    "SKILL_SCOPED_ID_PREFIX",
    "TOOL_SHADOWED",
    "CachedTools",
    "CombinedTools",
    "DiscoveryCompleted",
    "DiscoveryFailed",
    "GatePredicate",
    "GatedTools",
    "ProviderContext",
    "ProviderEvent",
    "ProviderEventHandler",
    "SkillScopedTools",
    "StaticTools",
    "ToolProvider",
    "ToolShadowed",
    "ToolSnapshot",
    "cached",
    "combined",
    "context_key",
    "gated_tools",
    "list_tools",
    "list_tools_sync",
    "provider_id",
    "skill_scoped_tools",
    "static_tools",
    "take_snapshot",
]
