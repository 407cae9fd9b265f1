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
from collections.abc import Mapping, Sequence
from typing import Any

from toolwire.calls import CallOutcome, ToolCall
from toolwire.formats._common import (
    FormatError,
    Present,
    ToolLookup,
    copy_schema,
    present_outcomes,
    to_plain,
    tool_specs,
)
from toolwire.formats._strict import strict_schema
from toolwire.results import Err
from toolwire.tools import Tool

__all__ = [
    "parse_tool_calls",
    "tool_definitions",
    "tool_result_message",
    "tool_result_messages",
]


def tool_definitions(
    tools: Sequence[Tool] | Sequence[Mapping[str, Any]], *, strict: bool | None = None
) -> list[dict[str, Any]]:
    """``[{"name", "description", "input_schema"}]``.

    Args:
        tools: Tools, or neutral definitions such as ``registry.definitions()``.
        strict: ``None``/``False`` (default): no ``strict`` key. ``True``: Anthropic strict
            tool use for every tool (``"strict": true`` and ``additionalProperties: false``
            throughout); raises when a schema cannot be strict without changing its meaning.

    Raises:
        FormatError: ``strict=True`` and a schema cannot be strict.
    """
    definitions: list[dict[str, Any]] = []
    for spec in tool_specs(tools):
        definition: dict[str, Any] = {"name": spec.name, "description": spec.description}
        if strict:
            schema, reason = strict_schema(spec.schema, dialect="anthropic")
            if schema is None:
                raise FormatError(f"tool {spec.name!r} cannot use strict tool use: {reason}")
            definition["input_schema"] = schema
            definition["strict"] = True
        else:
            definition["input_schema"] = copy_schema(spec.schema)
        definitions.append(definition)
    return definitions


def parse_tool_calls(message: object) -> list[ToolCall]:
    """The ``tool_use`` blocks of a ``Message`` (object or JSON) or of a content-block list.

    ``input`` is kept as the mapping the model sent. Server-side tool blocks
    (``server_tool_use``) are Anthropic's own and are skipped.

    Raises:
        FormatError: Not a message or block list, or a ``tool_use`` lacks its id or name.
    """
    plain = to_plain(message)
    if isinstance(plain, Mapping) and "content" in plain:
        blocks = plain["content"]
    elif isinstance(plain, list | tuple):
        blocks = [to_plain(block) for block in plain]
    else:
        raise FormatError("expected a Message (with 'content') or a list of content blocks")
    if isinstance(blocks, str):
        return []
    calls: list[ToolCall] = []
    for index, block in enumerate(blocks or ()):
        if not isinstance(block, Mapping) or block.get("type") != "tool_use":
            continue
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
