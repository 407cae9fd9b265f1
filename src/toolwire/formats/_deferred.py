"""What the tool-search wire formats share: a definition's group, the keys passed through,
and the names in the tool lists a provider's search loads (see `toolwire.tool_search`)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from toolwire.tools import Tool

__all__ = ["PASSED_THROUGH", "group_of", "loaded_names", "passed_through"]

PASSED_THROUGH = ("allowed_callers",)
"""Keys of a definition mapping copied as they are (programmatic tool calling's markers)."""


def group_of(item: object) -> str | None:
    """A tool's MCP server (``mcp__<server>__<tool>``), else its toolset (a `Tool`) or its
    ``"namespace"`` key (a mapping)."""
    if isinstance(item, Tool):
        return item.mcp_server or item.toolset
    if not isinstance(item, Mapping):
        return None
    name = item.get("name")
    if isinstance(name, str) and name.startswith("mcp__"):
        parts = name.split("__")
        if len(parts) >= 3 and parts[1]:
            return parts[1]
    namespace = item.get("namespace")
    return namespace if isinstance(namespace, str) and namespace else None


def passed_through(item: object) -> dict[str, Any]:
    """The `PASSED_THROUGH` keys a definition mapping carries."""
    if not isinstance(item, Mapping):
        return {}
    return {key: item[key] for key in PASSED_THROUGH if key in item}


def loaded_names(definitions: Iterable[Any]) -> list[str]:
    """The function names in a loaded tool list, namespaces opened, in order, once each."""
    names: list[str] = []
    for definition in definitions:
        if not isinstance(definition, Mapping):
            continue
        if definition.get("type") == "namespace":
            names.extend(loaded_names(definition.get("tools") or ()))
            continue
        name = definition.get("name")
        if isinstance(name, str) and name and name not in names:
            names.append(name)
    return list(dict.fromkeys(names))
