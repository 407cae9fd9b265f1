"""Definition pinning for bridged MCP servers: a tool is trusted as it was first seen.

```python
pins = DefinitionPins.in_backend(backend)             # the configured store ([store] url)
async with McpProvider(config, pins=pins) as provider:
    ...
await pins.approve("files", "write_file")             # or: toolwire mcp approve files write_file
```

The first definition of each bridged tool (its name, description, input and output schemas)
is hashed and recorded in the key-value store, under ``<server>/<tool>``. A later listing
whose definition hashes differently is a *change*: it is recorded as pending and, with the
server's ``pin`` setting

- ``"refuse"`` (the default): the tool is not served until the change is approved;
- ``"warn"``: the changed tool is served, and a warning is logged at every listing until the
  change is approved;
- ``"off"``: nothing is recorded or checked.

Approving (`DefinitionPins.approve`, ``toolwire mcp approve <server> [<tool>]``) makes the
pending definition the pinned one. A definition that changes back to the pinned one is served
again and its pending change forgotten. So a server cannot change what a tool does — or what
its description tells the model — after it was trusted.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from toolwire.capabilities.kinds.storage.seam import AtomicKeyValueStore, KeyValueStore
from toolwire.errors import ConfigurationError

if TYPE_CHECKING:  # the SDK's types only annotate here (opening a registry needs no SDK)
    import mcp_types as mt

    from toolwire.stores._base import KeyValueBackend

__all__ = ["PIN_MODES", "DefinitionPins", "PinMode", "PinnedTool", "definition_hash"]

logger = logging.getLogger("toolwire.mcp")

PinMode = Literal["refuse", "warn", "off"]
PIN_MODES: tuple[PinMode, ...] = ("refuse", "warn", "off")
"""The values of a server's ``pin`` setting."""
_STORE_TOOL = "mcp_pins"
_CAS_ATTEMPTS = 8


def definition_hash(spec: mt.Tool) -> str:
    """``sha256:<hex>`` of the tool's name, description, input schema and output schema.

    The JSON is canonical (sorted keys, no spaces), so the hash does not depend on the order
    in which the server wrote its schema's keys.
    """
    body = {
        "name": spec.name,
        "description": spec.description,
        "inputSchema": spec.input_schema,
        "outputSchema": spec.output_schema,
    }
    canonical = json.dumps(
        body, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str
    )
    return "sha256:" + hashlib.sha256(canonical.encode("utf-8")).hexdigest()


@dataclass(frozen=True, slots=True)
class PinnedTool:
    """One pinned definition.

    Attributes:
        server: The server's configured name.
        tool: The tool's name on the server.
        pinned: The hash of the trusted definition.
        pending: The hash of a changed definition awaiting approval, if any.
    """

    server: str
    tool: str
    pinned: str
    pending: str | None = None


class DefinitionPins:
    """The pinned definitions of every bridged server, in a key-value store.

    Args:
        store: Where the pins live; a store several processes share (the configured
            ``[store] url``) makes one approval count for all of them.
    """

    def __init__(self, store: KeyValueStore) -> None:
        self._store = store

    @classmethod
    def in_backend(cls, backend: KeyValueBackend) -> DefinitionPins:
        """The pins in ``backend``'s own namespace for them (``tool:mcp_pins``)."""
        return cls(backend.scoped(_STORE_TOOL, f"tool:{_STORE_TOOL}"))

    async def screen(self, server: str, specs: Sequence[mt.Tool], mode: PinMode) -> list[mt.Tool]:
        """The tools of ``specs`` that may be served under ``mode``, pinning first sightings.

        Raises:
            ConfigurationError: ``mode`` is not one of `PIN_MODES`.
        """
        if mode not in PIN_MODES:
            raise ConfigurationError(f"pin must be one of {list(PIN_MODES)}, got {mode!r}")
        if mode == "off":
            return list(specs)
        served: list[mt.Tool] = []
        for spec in specs:
            record = await self._sight(server, spec.name, definition_hash(spec))
            if record.pending is None:
                served.append(spec)
                continue
            logger.warning(
                "MCP server %r: the definition of tool %r changed since it was pinned (%s); %s "
                "until approved: toolwire mcp approve %s %s",
                server,
                spec.name,
                record.pending,
                "served anyway (pin = warn)" if mode == "warn" else "not served",
                server,
                spec.name,
            )
            if mode == "warn":
                served.append(spec)
        return served

    async def approve(self, server: str, tool: str | None = None) -> list[str]:
        """Pin the pending definition of ``tool`` (every pending tool of ``server`` when
        ``None``); the names approved, sorted (empty when nothing was pending)."""
        approved: list[str] = []
        for record in await self.entries(server):
            if record.pending is None or (tool is not None and record.tool != tool):
                continue
            expected = _encode(record)
            fresh = PinnedTool(server, record.tool, record.pending)
            if await self._replace(_key(server, record.tool), expected, _encode(fresh)):
                approved.append(record.tool)
        return sorted(approved)

    async def forget(self, server: str, tool: str | None = None) -> int:
        """Drop the pins of ``tool`` (all of ``server``'s when ``None``); how many were dropped.
        The next definition seen is then pinned afresh."""
        dropped = 0
        for record in await self.entries(server):
            if tool is None or record.tool == tool:
                await self._store.delete(_key(server, record.tool))
                dropped += 1
        return dropped

    async def entries(self, server: str | None = None) -> list[PinnedTool]:
        """Every pin (of ``server`` only, when given), sorted by server and tool."""
        records: list[PinnedTool] = []
        for key in await self._store.list(f"{server}/" if server is not None else ""):
            raw = await self._store.get(key)
            if raw is not None and (record := _decode(key, raw)) is not None:
                records.append(record)
        return records

    async def _sight(self, server: str, tool: str, digest: str) -> PinnedTool:
        key = _key(server, tool)
        for _ in range(_CAS_ATTEMPTS):
            raw = await self._store.get(key)
            record = _decode(key, raw) if raw is not None else None
            if record is None:
                wanted = PinnedTool(server, tool, digest)
            elif record.pinned == digest:
                wanted = PinnedTool(server, tool, digest)  # back to the trusted definition
            else:
                wanted = PinnedTool(server, tool, record.pinned, digest)
            if record == wanted or await self._replace(key, raw, _encode(wanted)):
                return wanted
        raise ConfigurationError(
            f"MCP server {server!r}: the pin of tool {tool!r} kept changing under concurrent "
            "writers; is another process rewriting the store's mcp_pins namespace?"
        )

    async def _replace(self, key: str, expected: str | None, value: str) -> bool:
        if isinstance(self._store, AtomicKeyValueStore):
            return await self._store.compare_and_set(key, expected, value)
        await self._store.set(key, value)
        return True


def _key(server: str, tool: str) -> str:
    return f"{server}/{tool}"


def _encode(record: PinnedTool) -> str:
    return json.dumps({"pinned": record.pinned, "pending": record.pending}, sort_keys=True)


def _decode(key: str, raw: str) -> PinnedTool | None:
    server, _, tool = key.partition("/")
    try:
        data = json.loads(raw)
        pinned = data["pinned"]
        pending = data.get("pending")
    except (ValueError, KeyError, TypeError):
        logger.warning("MCP pins: the record %r is not valid JSON; ignored", key)
        return None
    if not isinstance(pinned, str) or not (pending is None or isinstance(pending, str)):
        return None
    return PinnedTool(server, tool, pinned, pending)
