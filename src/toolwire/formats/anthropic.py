"""Anthropic Messages: ``tools`` out, ``tool_use`` blocks in, one ``tool_result`` message out.

```python
from toolwire.formats import anthropic as fmt

message = client.messages.create(
    model=..., max_tokens=1024, messages=messages, tools=fmt.tool_definitions(tools)
)
calls = fmt.parse_tool_calls(message)
outcomes = await registry.execute_parallel(calls, ctx)
messages += [{"role": "assistant", "content": message.model_dump()["content"]}]
messages += fmt.tool_result_messages(outcomes, tools=registry)
```
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping, Sequence
from typing import Any, Literal

from toolwire.calls import CallOutcome, ToolCall
from toolwire.formats._common import (
    FormatError,
    Present,
    ToolLookup,
    callers_of,
    copy_schema,
    present_outcomes,
    to_plain,
    tool_specs,
    typed_items,
)
from toolwire.formats._deferred import passed_through
from toolwire.formats._strict import strict_schema
from toolwire.results import Err
from toolwire.tools import Tool

__all__ = [
    "TOOL_SEARCH_TOOLS",
    "loaded_tools",
    "parse_tool_calls",
    "tool_callers",
    "tool_definitions",
    "tool_reference_result",
    "tool_result_message",
    "tool_result_messages",
]

TOOL_SEARCH_TOOLS: Mapping[str, dict[str, str]] = {
    "bm25": {"type": "tool_search_tool_bm25_20251119", "name": "tool_search_tool_bm25"},
    "regex": {"type": "tool_search_tool_regex_20251119", "name": "tool_search_tool_regex"},
}
"""Anthropic's own tool search tools, by the kind of query Claude writes."""


def tool_definitions(
    tools: Sequence[Tool] | Sequence[Mapping[str, Any]],
    *,
    strict: bool | None = None,
    deferred: Collection[str] = (),
    tool_search: Literal["bm25", "regex"] | None = "bm25",
) -> list[dict[str, Any]]:
    """``[{"name", "description", "input_schema"}]``.

    A mapping's ``allowed_callers`` (programmatic tool calling) is passed through.

    Args:
        tools: Tools, or neutral definitions such as ``registry.definitions()``.
        strict: ``None``/``False`` (default): no ``strict`` key. ``True``: Anthropic strict
            tool use for every tool (``"strict": true`` and ``additionalProperties: false``
            throughout); raises when a schema cannot be strict without changing its meaning.
        deferred: Names sent with ``"defer_loading": true`` (e.g.
            ``registry.deferred_names``). When any is sent and ``tool_search`` is set,
            Anthropic's tool search tool of that kind is added (`TOOL_SEARCH_TOOLS`); with
            ``tool_search=None`` you search yourself and answer with `tool_reference_result`.

    Raises:
        FormatError: ``strict=True`` and a schema cannot be strict, or ``tool_search`` is
            not a known kind.
    """
    if tool_search is not None and tool_search not in TOOL_SEARCH_TOOLS:
        raise FormatError(f"tool_search must be 'bm25', 'regex' or None, got {tool_search!r}")
    definitions: list[dict[str, Any]] = []
    any_deferred = False
    for item, spec in zip(tools, tool_specs(tools), strict=True):
        definition: dict[str, Any] = {"name": spec.name, "description": spec.description}
        if strict:
            schema, reason = strict_schema(spec.schema, dialect="anthropic")
            if schema is None:
                raise FormatError(f"tool {spec.name!r} cannot use strict tool use: {reason}")
            definition["input_schema"] = schema
            definition["strict"] = True
        else:
            definition["input_schema"] = copy_schema(spec.schema)
        definition.update(passed_through(item))
        if spec.name in deferred:
            definition["defer_loading"] = True
            any_deferred = True
        definitions.append(definition)
    if any_deferred and tool_search is not None:
        definitions.append(dict(TOOL_SEARCH_TOOLS[tool_search]))
    return definitions


def _blocks(message: object) -> list[Any]:
    plain = to_plain(message)
    if isinstance(plain, Mapping) and "content" in plain:
        blocks = plain["content"]
    elif isinstance(plain, list | tuple):
        blocks = [to_plain(block) for block in plain]
    else:
        raise FormatError("expected a Message (with 'content') or a list of content blocks")
    return [] if isinstance(blocks, str) else list(blocks or ())


def loaded_tools(message: object) -> list[str]:
    """The names of the tools a search loaded, in order: the ``tool_reference`` blocks of
    Anthropic's ``tool_search_tool_result`` blocks, and of ``tool_result`` blocks (a search of
    your own answered with `tool_reference_result`). Mark them found for the session
    (``ToolSearch.mark_found``) before running the calls, so its snapshot offers them.

    Raises:
        FormatError: Not a message or block list.
    """
    names: list[str] = []
    for block in _blocks(message):
        if not isinstance(block, Mapping):
            continue
        content = block.get("content")
        if block.get("type") == "tool_search_tool_result" and isinstance(content, Mapping):
            references = content.get("tool_references") or ()
        elif block.get("type") == "tool_result" and isinstance(content, list):
            references = content
        else:
            continue
        for reference in references:
            if isinstance(reference, Mapping) and reference.get("type") == "tool_reference":
                name = reference.get("tool_name")
                if isinstance(name, str) and name:
                    names.append(name)
    return list(dict.fromkeys(names))


def tool_reference_result(tool_use_id: str, names: Sequence[str]) -> dict[str, Any]:
    """A ``tool_result`` block answering a search of your own (e.g. toolwire's
    ``tool_search``) with ``tool_reference`` blocks, so Claude loads those deferred tools; a
    text block when nothing was found (Anthropic rejects an empty result)."""
    content: list[dict[str, Any]] = [{"type": "tool_reference", "tool_name": n} for n in names]
    if not content:
        content = [{"type": "text", "text": "No tool matches."}]
    return {"type": "tool_result", "tool_use_id": tool_use_id, "content": content}


def tool_callers(message: object) -> dict[str, dict[str, Any]]:
    """``{tool_use_id: caller}`` of the ``tool_use`` blocks that carry a ``caller``
    (programmatic tool calling: ``{"type": "code_execution_20250825", "tool_id": ...}``).

    Raises:
        FormatError: Not a message or block list.
    """
    return callers_of(_blocks(message), "tool_use", "id")


def parse_tool_calls(message: object) -> list[ToolCall]:
    """The ``tool_use`` blocks of a ``Message`` (object or JSON) or of a content-block list.

    ``input`` is kept as the mapping the model sent. Server-side tool blocks
    (``server_tool_use``) are Anthropic's own and are skipped.

    Raises:
        FormatError: Not a message or block list, or a ``tool_use`` lacks its id or name.
    """
    calls: list[ToolCall] = []
    for index, block in typed_items(_blocks(message), "tool_use"):
        call_id, name = block.get("id"), block.get("name")
        if not isinstance(call_id, str) or not call_id or not isinstance(name, str) or not name:
            raise FormatError(f"content[{index}] (tool_use) needs 'id' and 'name'")
        raw = block.get("input")
        args: str | Mapping[str, Any] = (
            dict(raw) if isinstance(raw, Mapping) else "{}" if raw is None else json.dumps(raw)
        )
        calls.append(ToolCall(id=call_id, name=name, args=args))
    return calls


def tool_result_message(
    outcomes: Sequence[CallOutcome],
    *,
    present: Present | None = None,
    tools: ToolLookup | None = None,
) -> dict[str, Any]:
    """The one user message answering every ``tool_use``: ``tool_result`` blocks, in order.

    Each block is ``{"type": "tool_result", "tool_use_id", "content"}``, with
    ``"is_error": true`` when the outcome is an ``Err``. See
    `toolwire.formats.openai_chat.tool_result_messages` for ``present`` and ``tools``.

    Raises:
        FormatError: ``outcomes`` is empty (Anthropic rejects an empty user message).
    """
    if not outcomes:
        raise FormatError("no outcomes: a tool_result message needs at least one result")
    texts = present_outcomes(outcomes, present, tools)
    blocks: list[dict[str, Any]] = []
    for outcome, text in zip(outcomes, texts, strict=True):
        block: dict[str, Any] = {
            "type": "tool_result",
            "tool_use_id": outcome.tool_call_id,
            "content": text,
        }
        if isinstance(outcome.result, Err):
            block["is_error"] = True
        blocks.append(block)
    return {"role": "user", "content": blocks}


def tool_result_messages(
    outcomes: Sequence[CallOutcome],
    *,
    present: Present | None = None,
    tools: ToolLookup | None = None,
) -> list[dict[str, Any]]:
    """`tool_result_message` as a list to append (empty when there are no outcomes)."""
    if not outcomes:
        return []
    return [tool_result_message(outcomes, present=present, tools=tools)]
