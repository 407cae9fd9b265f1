"""OpenAI Responses API: function tools out, ``function_call`` items in, outputs back.

```python
from toolwire.formats import openai_responses

response = client.responses.create(
    model=..., input=items, tools=openai_responses.tool_definitions(tools)
)
calls = openai_responses.parse_tool_calls(response)
outcomes = await registry.execute_parallel(calls, ctx)
items += [item.model_dump(exclude_none=True) for item in response.output]
items += openai_responses.tool_result_messages(outcomes, tools=registry)
```
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from toolwire.calls import CallOutcome, ToolCall
from toolwire.formats._common import (
    FormatError,
    Present,
    ToolLookup,
    callers_of,
    present_outcomes,
    to_plain,
    tool_specs,
    typed_items,
)
from toolwire.formats._deferred import group_of, loaded_names, passed_through
from toolwire.formats._openai import function_parts
from toolwire.tools import Tool

__all__ = [
    "ToolSearchRequest",
    "loaded_tools",
    "parse_tool_calls",
    "parse_tool_search_calls",
    "tool_callers",
    "tool_definitions",
    "tool_result_messages",
    "tool_search_output",
]

_CLIENT_SEARCH_DESCRIPTION = (
    "Find tools that are not loaded yet: describe what you need to do in a few words."
)
_CLIENT_SEARCH_PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "query": {"type": "string", "description": "What you need, in a few words."},
        "limit": {"type": "integer", "minimum": 1, "maximum": 20},
    },
    "required": ["query"],
    "additionalProperties": False,
}


def tool_definitions(
    tools: Sequence[Tool] | Sequence[Mapping[str, Any]],
    *,
    strict: bool | None = None,
    deferred: Collection[str] = (),
    namespaces: Mapping[str, str] | None = None,
    tool_search: Literal["server", "client"] = "server",
) -> list[dict[str, Any]]:
    """``[{"type": "function", "name", "description", "parameters", "strict"}]``.

    ``strict`` is always set explicitly (the Responses API defaults it to ``true``). See
    `toolwire.formats.openai_chat.tool_definitions` for the ``strict`` argument. A mapping's
    ``allowed_callers`` is passed through.

    Args:
        tools: Tools, or neutral definitions such as ``registry.definitions()``.
        strict: See above.
        deferred: Names sent with ``"defer_loading": true`` (e.g.
            ``registry.deferred_names``); when any is sent, a ``{"type": "tool_search"}`` tool
            is added so the model can load them.
        namespaces: ``{group: description}``: the functions of each group (MCP server, else
            toolset) go into a ``{"type": "namespace", ...}`` of that name, as OpenAI advises
            for deferred tools.
        tool_search: ``"server"`` (OpenAI searches) or ``"client"`` (you answer its
            ``tool_search_call`` items with `tool_search_output`, e.g. from
            ``toolwire.tool_search``).

    Raises:
        FormatError: ``strict=True`` and a schema cannot be strict.
    """
    definitions: list[dict[str, Any]] = []
    grouped: dict[str, list[dict[str, Any]]] = {}
    any_deferred = False
    for item, spec in zip(tools, tool_specs(tools), strict=True):
        definition = {"type": "function", **function_parts(spec, strict), **passed_through(item)}
        if spec.name in deferred:
            definition["defer_loading"] = True
            any_deferred = True
        group = group_of(item) if namespaces else None
        if namespaces and group is not None and group in namespaces:
            if group not in grouped:
                grouped[group] = []
                definitions.append(
                    {
                        "type": "namespace",
                        "name": group,
                        "description": namespaces[group],
                        "tools": grouped[group],
                    }
                )
            grouped[group].append(definition)
        else:
            definitions.append(definition)
    if any_deferred:
        definitions.append(_search_tool(tool_search))
    return definitions


def _search_tool(execution: str) -> dict[str, Any]:
    if execution == "server":
        return {"type": "tool_search"}
    if execution != "client":
        raise FormatError(f"tool_search must be 'server' or 'client', got {execution!r}")
    return {
        "type": "tool_search",
        "execution": "client",
        "description": _CLIENT_SEARCH_DESCRIPTION,
        "parameters": _CLIENT_SEARCH_PARAMETERS,
    }


@dataclass(frozen=True, kw_only=True, slots=True)
class ToolSearchRequest:
    """A ``tool_search_call`` the client executes.

    Attributes:
        call_id: What the `tool_search_output` must echo.
        query: The words the model searched for (``""`` when it sent none).
        limit: How many tools it asked for (``5`` when it did not say).
    """

    call_id: str
    query: str
    limit: int = 5


def _items(response: object) -> list[Any]:
    plain = to_plain(response)
    if isinstance(plain, Mapping) and "output" in plain:
        return list(plain["output"] or [])
    if isinstance(plain, list | tuple):
        return [to_plain(item) for item in plain]
    raise FormatError("expected a Response (with 'output') or a list of output items")


def parse_tool_search_calls(response: object) -> list[ToolSearchRequest]:
    """The client-executed ``tool_search_call`` items of a response.

    Raises:
        FormatError: Not a response or item list, or such an item lacks its ``call_id``.
    """
    requests: list[ToolSearchRequest] = []
    for index, item in enumerate(_items(response)):
        if not isinstance(item, Mapping) or item.get("type") != "tool_search_call":
            continue
        if item.get("execution") != "client":
            continue
        call_id = item.get("call_id")
        if not isinstance(call_id, str) or not call_id:
            raise FormatError(f"output[{index}] (tool_search_call) needs 'call_id'")
        arguments = item.get("arguments")
        if isinstance(arguments, str):
            try:
                arguments = json.loads(arguments)
            except ValueError:
                arguments = {}
        args = arguments if isinstance(arguments, Mapping) else {}
        query, limit = args.get("query"), args.get("limit")
        requests.append(
            ToolSearchRequest(
                call_id=call_id,
                query=query if isinstance(query, str) else "",
                limit=limit if isinstance(limit, int) and not isinstance(limit, bool) else 5,
            )
        )
    return requests


def tool_search_output(
    call_id: str,
    tools: Sequence[Tool] | Sequence[Mapping[str, Any]],
    *,
    strict: bool | None = None,
) -> dict[str, Any]:
    """The ``tool_search_output`` input item answering a client ``tool_search_call`` with the
    definitions of the tools found (mark them found for the session too:
    ``ToolSearch.mark_found``)."""
    return {
        "type": "tool_search_output",
        "call_id": call_id,
        "execution": "client",
        "status": "completed",
        "tools": tool_definitions(tools, strict=strict),
    }


def loaded_tools(response: object) -> list[str]:
    """The names of the tools OpenAI's own search loaded (its ``tool_search_output`` items),
    in order: mark them found for the session (``ToolSearch.mark_found``) before running the
    calls, so the session's snapshot offers them."""
    names: list[str] = []
    for item in _items(response):
        if isinstance(item, Mapping) and item.get("type") == "tool_search_output":
            names.extend(loaded_names(item.get("tools") or ()))
    return list(dict.fromkeys(names))


def tool_callers(response: object) -> dict[str, dict[str, Any]]:
    """``{call_id: caller}`` of the function calls that carry a ``caller`` (programmatic tool
    calling: ``{"type": "program", "caller_id": ...}``)."""
    return callers_of(_items(response), "function_call", "call_id")


def parse_tool_calls(response: object) -> list[ToolCall]:
    """The ``function_call`` items of a ``Response`` (object or JSON) or of a list of items.

    ``ToolCall.id`` is the item's ``call_id`` (what the output must echo), not its ``id``.
    Other items (messages, reasoning, hosted tool calls) are skipped.

    Raises:
        FormatError: Not a response or item list, or a function call lacks call_id or name.
    """
    calls: list[ToolCall] = []
    for index, item in typed_items(_items(response), "function_call"):
        call_id, name = item.get("call_id"), item.get("name")
        if not isinstance(call_id, str) or not call_id or not isinstance(name, str) or not name:
            raise FormatError(f"output[{index}] (function_call) needs 'call_id' and 'name'")
        arguments = item.get("arguments")
        args = arguments if isinstance(arguments, str) and arguments.strip() else "{}"
        calls.append(ToolCall(id=call_id, name=name, args=args))
    return calls


def tool_result_messages(
    outcomes: Sequence[CallOutcome],
    *,
    present: Present | None = None,
    tools: ToolLookup | None = None,
) -> list[dict[str, Any]]:
    """One ``{"type": "function_call_output", "call_id", "output"}`` input item per outcome.

    See `toolwire.formats.openai_chat.tool_result_messages` for ``present`` and ``tools``.
    """
    texts = present_outcomes(outcomes, present, tools)
    return [
        {"type": "function_call_output", "call_id": outcome.tool_call_id, "output": text}
        for outcome, text in zip(outcomes, texts, strict=True)
    ]
