"""Result handles over MCP: a ``resource_link`` in the result, ``resources/list`` and
``resources/read``.

When the registry keeps trimmed results (`toolwire.execution.handles`), a ``tools/call``
result whose value ends with a handle line also carries a ``resource_link`` block
(``toolwire://results/<handle>``). ``resources/list`` lists the handles of the caller's session
and principal, and ``resources/read`` answers a handle's whole text; another session's or
credential's handle, an expired or an evicted one is "resource not found" (``-32002``), as
spec'd for an unknown URI. The text is
presented as it would be inline: secrets redacted, and for an untrusted tool, template tokens
stripped and the ``<untrusted ...>`` wrapper around it. The model can also page through it
with the ``read_result`` tool.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from toolwire.capabilities.seams import KeyValueStore
from toolwire.execution.handles import (
    HandleRecord,
    find_handle,
    handle_owner,
    handle_store,
    load_record,
    session_handles,
)
from toolwire.mcp.server.auth._principals import request_principal
from toolwire.results import Ok, ToolResult
from toolwire.safety._redaction import redact_secrets
from toolwire.safety._untrusted import strip_template_tokens, wrap_untrusted

if TYPE_CHECKING:  # the SDK loads when the resources are served (result_link needs none)
    from mcp.server import Server
    from mcp.server.context import ServerRequestContext

    from toolwire.registry import ToolRegistry

    SessionOf = Callable[[ServerRequestContext[Any, Any]], str]

__all__ = ["RESOURCE_NOT_FOUND", "RESULT_URI_PREFIX", "result_link", "serve_result_resources"]

RESULT_URI_PREFIX = "toolwire://results/"
"""The URI of a kept result is this prefix and its handle."""
RESOURCE_NOT_FOUND = -32002
"""The JSON-RPC error code MCP gives an unknown resource."""


def result_link(result: ToolResult) -> dict[str, Any] | None:
    """The ``resource_link`` block for a result that ends with a handle line, or ``None``."""
    if not isinstance(result, Ok):
        return None
    handle = find_handle(result.value)
    if handle is None:
        return None
    return {
        "type": "resource_link",
        "uri": RESULT_URI_PREFIX + handle,
        "name": handle,
        "mimeType": "text/plain",
        "description": "The whole result this text was cut from (or page it with read_result)",
    }


def serve_result_resources(
    server: Server[Any], registry: ToolRegistry, session_of: SessionOf
) -> None:
    """Answer ``resources/list`` and ``resources/read`` for the registry's kept results.

    Does nothing when the registry keeps none (no ``result_handles`` or no key-value store).
    """
    import mcp_types as mt

    backends = registry.backends
    factory = backends.kv_store_factory if backends is not None else None
    store = handle_store(factory)
    if registry.settings.result_handles is None or store is None:
        return

    async def list_resources(
        ctx: ServerRequestContext[Any, Any], params: mt.PaginatedRequestParams | None
    ) -> mt.ListResourcesResult:
        principal = request_principal(ctx.request)
        handles = await session_handles(store, session_of(ctx), principal)
        return mt.ListResourcesResult(
            resources=[
                mt.Resource(
                    uri=RESULT_URI_PREFIX + handle,
                    name=handle,
                    mime_type="text/plain",
                    size=size,
                    description="A result kept whole when it was trimmed",
                )
                for handle, size in handles
            ]
        )

    async def read_resource(
        ctx: ServerRequestContext[Any, Any], params: mt.ReadResourceRequestParams
    ) -> mt.ReadResourceResult:
        owner = handle_owner(session_of(ctx), request_principal(ctx.request))
        record = await _record(store, owner, params.uri)
        text = _presented(record)
        contents = mt.TextResourceContents(uri=params.uri, mime_type="text/plain", text=text)
        return mt.ReadResourceResult(contents=[contents])

    server.add_request_handler("resources/list", mt.PaginatedRequestParams, list_resources)
    server.add_request_handler("resources/read", mt.ReadResourceRequestParams, read_resource)


async def _record(store: KeyValueStore, owner: str, uri: str) -> HandleRecord:
    handle = uri[len(RESULT_URI_PREFIX) :] if uri.startswith(RESULT_URI_PREFIX) else ""
    record = await load_record(store, owner, handle) if handle else None
    if record is None:
        from mcp.shared.exceptions import MCPError

        raise MCPError(
            RESOURCE_NOT_FOUND,
            f"Resource not found: {uri} (it expired, was evicted, or belongs to another session)",
        )
    return record


def _presented(record: HandleRecord) -> str:
    text = redact_secrets(record.text).text
    if record.untrusted:
        text = strip_template_tokens(text).text
        text = wrap_untrusted(text, source=f"result:{record.handle}", tool=record.tool)
    return text
