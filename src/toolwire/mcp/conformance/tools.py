"""The fixture's tools: the names, arguments and answers the conformance suite's server
scenarios expect, written as ordinary toolwire tools.

Each answers through toolwire's own result path: text is ``Ok.value``; images, audio and embedded
resources are ``Ok.structured`` keys the server turns into content blocks
(`toolwire.mcp.server.media`); a failure is an `Err`; progress is ``ctx.emit``; logs, sampling and
elicitation go through the client of the call (`toolwire.mcp.server.peer.current_peer`).
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import anyio

from toolwire.context import ProgressEvent, ToolContext
from toolwire.mcp.conformance.samples import PNG_BASE64, WAV_BASE64
from toolwire.mcp.server.peer import McpPeer, PeerUnavailableError, current_peer
from toolwire.results import Err, ErrorCode, Ok, ToolResult
from toolwire.tools import Tool, ToolAnnotations

__all__ = ["FIXTURE_TOOLSET", "fixture_tools"]

FIXTURE_TOOLSET = "conformance"
"""The toolset of every fixture tool."""
SCHEMA_2020_12 = "https://json-schema.org/draft/2020-12/schema"
_STEP_S = 0.05
_NO_ARGS: dict[str, Any] = {"type": "object", "properties": {}}
Execute = Callable[[dict[str, Any], ToolContext], Awaitable[ToolResult]]


async def _simple_text(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    return Ok("This is a simple text response for testing.")


async def _image(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    return Ok("A 1x1 red PNG.", structured={"image": _png()})


async def _audio(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    audio = {"mime_type": "audio/wav", "data": WAV_BASE64}
    return Ok("0.1 s of silence as WAV.", structured={"audio": audio})


async def _embedded_resource(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    resource = {
        "uri": "test://embedded-resource",
        "mime_type": "text/plain",
        "text": "This is an embedded resource content.",
    }
    return Ok("An embedded resource.", structured={"resource": resource})


async def _mixed_content(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    resource = {
        "uri": "test://mixed-content-resource",
        "mime_type": "application/json",
        "text": json.dumps({"test": "data", "value": 123}, separators=(",", ":")),
    }
    return Ok("Multiple content types test:", structured={"image": _png(), "resource": resource})


async def _with_logging(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    peer = current_peer()
    steps = ("Tool execution started", "Tool processing data", "Tool execution completed")
    for index, message in enumerate(steps):
        if index:
            await anyio.sleep(_STEP_S)
        if peer is not None:
            await peer.log("info", message, logger="conformance")
    return Ok("Tool with logging executed successfully.")


async def _with_progress(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    for index, percent in enumerate((0.0, 50.0, 100.0)):
        if index:
            await anyio.sleep(_STEP_S)
        ctx.emit(
            ProgressEvent(
                tool_name="test_tool_with_progress",
                message=f"{percent:g}/100",
                percent=percent,
                audience="user",
            )
        )
    return Ok("Tool with progress executed successfully.")


async def _error(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    return Err("This tool intentionally returns an error for testing", ErrorCode.EXECUTION_FAILED)


async def _sampling(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    async def ask(peer: McpPeer) -> ToolResult:
        answer = await peer.sample(str(args["prompt"]), max_tokens=100)
        text = getattr(answer.content, "text", None)
        return Ok(f"LLM response: {text if text is not None else answer.content}")

    return await _with_peer(ask)


async def _elicitation(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    schema = {
        "type": "object",
        "properties": {
            "username": {"type": "string", "description": "User's response"},
            "email": {"type": "string", "description": "User's email address"},
        },
        "required": ["username", "email"],
    }
    return await _elicit(str(args["message"]), schema, "User response")


async def _elicitation_defaults(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    status = ["active", "inactive", "pending"]
    schema = {
        "type": "object",
        "properties": {
            "name": {"type": "string", "description": "User name", "default": "John Doe"},
            "age": {"type": "integer", "description": "User age", "default": 30},
            "score": {"type": "number", "description": "User score", "default": 95.5},
            "status": {"type": "string", "enum": status, "default": "active"},
            "verified": {"type": "boolean", "description": "Verified", "default": True},
        },
    }
    message = "Please review and update the form fields with defaults"
    return await _elicit(message, schema, "Elicitation completed")


async def _elicitation_enums(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    def titled(prefix: str, names: tuple[str, ...]) -> list[dict[str, str]]:
        return [{"const": f"value{i}", "title": f"{n} {prefix}"} for i, n in enumerate(names, 1)]

    ordinals = ("First", "Second", "Third")
    options = ["option1", "option2", "option3"]
    schema = {
        "type": "object",
        "properties": {
            "untitledSingle": {"type": "string", "enum": options},
            "titledSingle": {"type": "string", "oneOf": titled("Option", ordinals)},
            "legacyEnum": {
                "type": "string",
                "enum": ["opt1", "opt2", "opt3"],
                "enumNames": ["Option One", "Option Two", "Option Three"],
            },
            "untitledMulti": {"type": "array", "items": {"type": "string", "enum": options}},
            "titledMulti": {"type": "array", "items": {"anyOf": titled("Choice", ordinals)}},
        },
    }
    return await _elicit(
        "Please select options from the enum fields", schema, "Elicitation completed"
    )


async def _reconnection(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    # SEP-1699 polling: end the request's SSE stream before answering; the client resumes it
    # with Last-Event-ID and gets the answer from the event store (toolwire.mcp.server.resumable).
    peer = current_peer()
    close = peer.context.close_sse_stream if peer is not None else None
    if close is not None:
        await close()
        await anyio.sleep(_STEP_S)
    return Ok("Reconnection test completed successfully.")


async def _json_schema(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    return Ok(f"Received: {json.dumps(args, sort_keys=True)}")


async def _elicit(message: str, schema: dict[str, Any], label: str) -> ToolResult:
    async def ask(peer: McpPeer) -> ToolResult:
        answer = await peer.elicit(message, schema)
        content = json.dumps(answer.content or {}, sort_keys=True)
        return Ok(f"{label}: action={answer.action}, content={content}")

    return await _with_peer(ask)


async def _with_peer(ask: Callable[[McpPeer], Awaitable[ToolResult]]) -> ToolResult:
    peer = current_peer()
    if peer is None:
        return Err(
            "this tool needs an MCP client to ask (serve it over MCP)", ErrorCode.NOT_AVAILABLE
        )
    try:
        return await ask(peer)
    except PeerUnavailableError as exc:
        return Err(str(exc), ErrorCode.NOT_AVAILABLE)


def _png() -> dict[str, str]:
    return {"mime_type": "image/png", "data": PNG_BASE64}


def _string_arg(name: str, description: str) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {name: {"type": "string", "description": description}},
        "required": [name],
    }


_JSON_SCHEMA_2020_12: dict[str, Any] = {
    "$schema": SCHEMA_2020_12,
    "type": "object",
    "$defs": {
        "address": {
            "type": "object",
            "properties": {"street": {"type": "string"}, "city": {"type": "string"}},
        }
    },
    "properties": {"name": {"type": "string"}, "address": {"$ref": "#/$defs/address"}},
    "additionalProperties": False,
}

_SPECS: tuple[tuple[str, str, Execute, Mapping[str, Any]], ...] = (
    ("test_simple_text", "Answers with one text block.", _simple_text, _NO_ARGS),
    ("test_image_content", "Answers with a PNG image block.", _image, _NO_ARGS),
    ("test_audio_content", "Answers with a WAV audio block.", _audio, _NO_ARGS),
    (
        "test_embedded_resource",
        "Answers with an embedded text resource.",
        _embedded_resource,
        _NO_ARGS,
    ),
    (
        "test_multiple_content_types",
        "Answers with text, an image and a resource.",
        _mixed_content,
        _NO_ARGS,
    ),
    (
        "test_tool_with_logging",
        "Sends three info log messages while it runs.",
        _with_logging,
        _NO_ARGS,
    ),
    ("test_tool_with_progress", "Reports progress 0, 50 and 100 of 100.", _with_progress, _NO_ARGS),
    ("test_error_handling", "Always fails (isError: true).", _error, _NO_ARGS),
    (
        "test_sampling",
        "Asks the client's model (sampling).",
        _sampling,
        _string_arg("prompt", "The prompt to send to the LLM"),
    ),
    (
        "test_elicitation",
        "Asks the user for a username and e-mail.",
        _elicitation,
        _string_arg("message", "The message to show the user"),
    ),
    (
        "test_elicitation_sep1034_defaults",
        "Asks with defaults for every primitive type.",
        _elicitation_defaults,
        _NO_ARGS,
    ),
    (
        "test_elicitation_sep1330_enums",
        "Asks with the five enum forms of SEP-1330.",
        _elicitation_enums,
        _NO_ARGS,
    ),
    (
        "test_reconnection",
        "Closes its SSE stream, then answers (the client resumes the stream).",
        _reconnection,
        _NO_ARGS,
    ),
    (
        "json_schema_2020_12_tool",
        "Tool with JSON Schema 2020-12 features",
        _json_schema,
        _JSON_SCHEMA_2020_12,
    ),
)


def fixture_tools() -> list[Tool]:
    """The fixture's tools (toolset ``conformance``, read-only, no capabilities)."""
    return [
        Tool(
            name=name,
            description=description,
            schema=schema,
            execute=execute,
            toolset=FIXTURE_TOOLSET,
            annotations=ToolAnnotations(read_only=True, open_world=False),
        )
        for name, description, execute, schema in _SPECS
    ]
