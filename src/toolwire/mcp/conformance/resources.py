"""The fixture's resources, resource template, subscriptions and completion.

toolwire's own resources are kept results (`toolwire.mcp.server.result_resources`), which exist only
after a trimmed call; the suite's resource scenarios read fixed URIs, so the fixture serves those:
``test://static-text``, ``test://static-binary`` (a PNG), the template
``test://template/{id}/data``, and ``resources/subscribe``/``unsubscribe`` of any URI (kept per
session). ``completion/complete`` suggests values for the template's ``id`` and answers an empty
list for any other reference (toolwire has no prompts).
"""

from __future__ import annotations

import json
import re
from typing import Any

import mcp_types as mt
from mcp.server import Server
from mcp.server.context import ServerRequestContext
from mcp.shared.exceptions import MCPError

from toolwire.mcp.conformance.samples import PNG_BASE64
from toolwire.mcp.server.result_resources import RESOURCE_NOT_FOUND

__all__ = ["TEMPLATE_URI", "install_fixture_resources"]

TEMPLATE_URI = "test://template/{id}/data"
"""The fixture's resource template."""
_TEMPLATE = re.compile(r"^test://template/(?P<id>[^/]+)/data$")
_TEXT_URI = "test://static-text"
_BINARY_URI = "test://static-binary"
_ID_SUGGESTIONS = ("1", "42", "123")


def install_fixture_resources(server: Server[Any]) -> None:
    """Add the fixture's resource, subscription and completion handlers to ``server``."""
    subscriptions = _Subscriptions()
    server.add_request_handler("resources/list", mt.PaginatedRequestParams, _list_resources)
    server.add_request_handler(
        "resources/templates/list", mt.PaginatedRequestParams, _list_templates
    )
    server.add_request_handler("resources/read", mt.ReadResourceRequestParams, _read_resource)
    server.add_request_handler(
        "resources/subscribe", mt.SubscribeRequestParams, subscriptions.subscribe
    )
    server.add_request_handler(
        "resources/unsubscribe", mt.UnsubscribeRequestParams, subscriptions.unsubscribe
    )
    server.add_request_handler("completion/complete", mt.CompleteRequestParams, _complete)


class _Subscriptions:
    """The URIs each client session subscribed to."""

    def __init__(self) -> None:
        self.uris: dict[int, set[str]] = {}

    async def subscribe(
        self, ctx: ServerRequestContext[Any, Any], params: mt.SubscribeRequestParams
    ) -> mt.EmptyResult:
        self.uris.setdefault(id(ctx.session), set()).add(str(params.uri))
        return mt.EmptyResult()

    async def unsubscribe(
        self, ctx: ServerRequestContext[Any, Any], params: mt.UnsubscribeRequestParams
    ) -> mt.EmptyResult:
        self.uris.get(id(ctx.session), set()).discard(str(params.uri))
        return mt.EmptyResult()


async def _list_resources(
    ctx: ServerRequestContext[Any, Any], params: mt.PaginatedRequestParams | None
) -> mt.ListResourcesResult:
    text = mt.Resource(
        uri=_TEXT_URI, name="static-text", description="A fixed text", mime_type="text/plain"
    )
    binary = mt.Resource(
        uri=_BINARY_URI, name="static-binary", description="A 1x1 PNG", mime_type="image/png"
    )
    return mt.ListResourcesResult(resources=[text, binary])


async def _list_templates(
    ctx: ServerRequestContext[Any, Any], params: mt.PaginatedRequestParams | None
) -> mt.ListResourceTemplatesResult:
    template = mt.ResourceTemplate(
        uri_template=TEMPLATE_URI,
        name="template-data",
        description="JSON data for an id",
        mime_type="application/json",
    )
    return mt.ListResourceTemplatesResult(resource_templates=[template])


async def _read_resource(
    ctx: ServerRequestContext[Any, Any], params: mt.ReadResourceRequestParams
) -> mt.ReadResourceResult:
    return mt.ReadResourceResult(contents=[_contents(str(params.uri))])


def _contents(uri: str) -> mt.TextResourceContents | mt.BlobResourceContents:
    if uri == _TEXT_URI:
        text = "This is the content of the static text resource."
        return mt.TextResourceContents(uri=uri, mime_type="text/plain", text=text)
    if uri == _BINARY_URI:
        return mt.BlobResourceContents(uri=uri, mime_type="image/png", blob=PNG_BASE64)
    match = _TEMPLATE.match(uri)
    if match is None:
        raise MCPError(RESOURCE_NOT_FOUND, f"Resource not found: {uri}")
    ident = match.group("id")
    data = {"id": ident, "templateTest": True, "data": f"Data for ID: {ident}"}
    text = json.dumps(data, separators=(",", ":"))
    return mt.TextResourceContents(uri=uri, mime_type="application/json", text=text)


async def _complete(
    ctx: ServerRequestContext[Any, Any], params: mt.CompleteRequestParams
) -> mt.CompleteResult:
    ref = params.ref
    values: list[str] = []
    if getattr(ref, "uri", None) == TEMPLATE_URI and params.argument.name == "id":
        values = [v for v in _ID_SUGGESTIONS if v.startswith(params.argument.value)]
    completion = mt.Completion(values=values, total=len(values), has_more=False)
    return mt.CompleteResult(completion=completion)
