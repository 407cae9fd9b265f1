"""`bridge_into`: keep a `ToolRegistry` in step with an `McpProvider`'s tools."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from toolwire.tools import Tool

if TYPE_CHECKING:
    from toolwire.mcp.client._provider import McpProvider
    from toolwire.registry import ToolRegistry

__all__ = ["bridge_into"]


def bridge_into(registry: ToolRegistry, provider: McpProvider) -> Callable[[], None]:
    """Register the provider's tools now and re-sync whenever they change.

    New tools are registered, changed ones replaced, vanished ones unregistered; tools of
    other origins are never touched. Returns a function that stops syncing (and unregisters
    the provider's tools).

    Raises:
        RegistrationError: one of the provider's names is already taken by a tool that is
            not this provider's.
    """
    owned: set[str] = set()

    def sync(tools: Sequence[Tool]) -> None:
        wanted = {tool.name: tool for tool in tools}
        for name in sorted(owned - wanted.keys()):
            registry.unregister(name)
            owned.discard(name)
        fresh = [tool for name, tool in wanted.items() if name not in owned]
        registry.register_all(fresh)
        for name, tool in wanted.items():
            if name in owned and registry.get(name) is not tool:
                registry.register(tool, replace=True)
        owned.update(wanted)

    sync(provider.tools)
    remove = provider.on_tools_changed(sync)

    def stop() -> None:
        remove()
        for name in sorted(owned):
            registry.unregister(name)
        owned.clear()

    return stop
