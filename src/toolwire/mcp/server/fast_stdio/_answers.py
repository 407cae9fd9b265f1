"""The results the lean loop sends, shaped as the SDK server shapes them for each revision.

- ``initialize``: the negotiated revision, the capabilities `toolwire.mcp.server` declares
  (logging, ``tools.listChanged``, resources when the registry keeps results, Tasks on
  2025-11-25), ``serverInfo`` with the server's identity, and the instructions; on 2026-07-28
  ``server/discover`` says the same (every ``listChanged`` true: ``subscriptions/listen``
  is served) and offers the Tasks extension.
- on 2025-11-25 every listed tool says ``execution.taskSupport: "optional"``
  (`toolwire.mcp.server._tasks`), and a handshake-era result has no ``resultType``.
- on 2026-07-28 a result has ``resultType``, a listing its cache hint (``ttlMs``,
  ``cacheScope``), and every result the ``serverInfo`` stamp.

``tests/mcp/test_stdio_lean.py`` compares each of these with the SDK server's own answer.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from toolwire.errors import ConfigurationError
from toolwire.execution.handles import handle_store
from toolwire.mcp.revision import (
    STATELESS_REVISION,
    has_result_type,
    is_stateless,
    supports_core_tasks,
)
from toolwire.mcp.server.listing import PER_SESSION_CACHE, tool_entry
from toolwire.version import __version__

if TYPE_CHECKING:
    from toolwire.mcp.server._server import ServeOptions
    from toolwire.registry import ToolRegistry

__all__ = ["SERVER_INFO_KEY", "Answers"]

SERVER_INFO_KEY = "io.modelcontextprotocol/serverInfo"
_TASKS_EXTENSION = "io.modelcontextprotocol/tasks"


@dataclass(frozen=True, slots=True)
class Answers:
    """The fixed parts of a served registry's answers (see the module doc)."""

    registry: ToolRegistry
    server_info: dict[str, Any]
    instructions: str | None
    keeps_results: bool
    ttl_ms: int

    @classmethod
    def for_registry(cls, registry: ToolRegistry, options: ServeOptions) -> Answers:
        """The answers of ``registry`` served with ``options``.

        Raises:
            ConfigurationError: the listing's cache TTL is negative or not finite (as the SDK
                server would refuse it).
        """
        ttl_s = options.tools_list_ttl_s
        if not 0 <= ttl_s < math.inf:
            raise ConfigurationError(
                f"the tools/list cache TTL must be >= 0 seconds, got {ttl_s!r}"
            )
        identity = options.identity
        info: dict[str, Any] = {"name": options.name}
        if identity.title is not None:
            info["title"] = identity.title
        if identity.description is not None:
            info["description"] = identity.description
        info["version"] = __version__
        if identity.website_url is not None:
            info["websiteUrl"] = identity.website_url
        if identity.icons:
            info["icons"] = [icon.as_wire() for icon in identity.icons]
        backends = registry.backends
        store = handle_store(backends.kv_store_factory if backends is not None else None)
        keeps = registry.settings.result_handles is not None and store is not None
        return cls(registry, info, options.instructions, keeps, round(ttl_s * 1000))

    def initialize(self, version: str) -> dict[str, Any]:
        """The ``initialize`` result for the negotiated ``version``."""
        capabilities: dict[str, Any] = {"logging": {}}
        if self.keeps_results:
            capabilities["resources"] = {"subscribe": False, "listChanged": False}
        capabilities["tools"] = {"listChanged": True}
        if supports_core_tasks(version):
            capabilities["tasks"] = _tasks_capability()
        result: dict[str, Any] = {
            "protocolVersion": version,
            "capabilities": capabilities,
            "serverInfo": self._info(),
        }
        if self.instructions is not None:
            result["instructions"] = self.instructions
        return result

    def discover(self) -> dict[str, Any]:
        """The 2026-07-28 ``server/discover`` result (cached like the listing; every
        ``listChanged`` is true since ``subscriptions/listen`` is served)."""
        capabilities: dict[str, Any] = {"logging": {}}
        if self.keeps_results:
            capabilities["resources"] = {"subscribe": True, "listChanged": True}
        capabilities["tools"] = {"listChanged": True}
        capabilities["extensions"] = {_TASKS_EXTENSION: {}}  # toolwire.mcp._task_extension
        result: dict[str, Any] = {
            "ttlMs": self.ttl_ms,
            "cacheScope": "public",
            "supportedVersions": [STATELESS_REVISION],
            "capabilities": capabilities,
        }
        if self.instructions is not None:
            result["instructions"] = self.instructions
        return self.stamped(result)

    def tools(self, version: str) -> dict[str, Any]:
        """The ``tools/list`` result on ``version``."""
        registry = self.registry
        tools = []
        for definition in registry.definitions():
            tool = registry.get(definition["name"])
            if tool is not None:
                entry = tool_entry(tool)
                if supports_core_tasks(version):
                    entry["execution"] = {"taskSupport": "optional"}
                tools.append(entry)
        if not is_stateless(version):
            return {"tools": tools}
        if registry.deferred_names:  # grows with what tool_search finds: re-ask, never share
            listing = {**PER_SESSION_CACHE, "tools": tools}
        else:
            listing = {"ttlMs": self.ttl_ms, "cacheScope": "public", "tools": tools}
        return self.stamped(listing)

    def call_result(self, result: dict[str, Any], version: str) -> dict[str, Any]:
        """A ``tools/call`` result (as `toolwire.mcp.server` builds it) on ``version``."""
        if not has_result_type(version):
            result.pop("resultType", None)
            return result
        return self.stamped(result)

    def stamped(self, result: dict[str, Any]) -> dict[str, Any]:
        """A 2026-07-28 result: ``resultType`` (``complete`` unless set) and the stamp."""
        result.setdefault("resultType", "complete")
        result["_meta"] = {SERVER_INFO_KEY: self._info()}
        return result

    def _info(self) -> dict[str, Any]:
        info = dict(self.server_info)
        if "icons" in info:
            info["icons"] = [dict(icon) for icon in info["icons"]]
        return info


def _tasks_capability() -> dict[str, Any]:
    return {"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}}
