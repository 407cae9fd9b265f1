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

from collections.abc import Mapping, Sequence
from typing import Any

from toolwire.calls import CallOutcome, ToolCall
from toolwire.formats._common import (
    FormatError,
    Present,
    ToolLookup,
    present_outcomes,
    to_plain,
    tool_specs,
)
from toolwire.formats._openai import function_parts
from toolwire.tools import Tool

__all__ = ["parse_tool_calls", "tool_definitions", "tool_result_messages"]


def tool_definitions(
    tools: Sequence[Tool] | Sequence[Mapping[str, Any]], *, strict: bool | None = None
) -> list[dict[str, Any]]:
    """``[{"type": "function", "name", "description", "parameters", "strict"}]``.

    ``strict`` is always set explicitly (the Responses API defaults it to ``true``). See
    `toolwire.formats.openai_chat.tool_definitions` for the ``strict`` argument.

    Raises:
        FormatError: ``strict=True`` and a schema cannot be strict.
    """
    return [{"type": "function", **function_parts(spec, strict)} for spec in tool_specs(tools)]


def parse_tool_calls(response: object) -> list[ToolCall]:
    """The ``function_call`` items of a ``Response`` (object or JSON) or of a list of items.

    ``ToolCall.id`` is the item's ``call_id`` (what the output must echo), not its ``id``.
    Other items (messages, reasoning, hosted tool calls) are skipped.

    Raises:
        FormatError: Not a response or item list, or a function call lacks call_id or name.
    """
    plain = to_plain(response)
    if isinstance(plain, Mapping) and "output" in plain:
        items = plain["output"] or []
    elif isinstance(plain, list | tuple):
        items = [to_plain(item) for item in plain]
    else:
        raise FormatError("expected a Response (with 'output') or a list of output items")
    calls: list[ToolCall] = []
    for index, item in enumerate(items):
        if not isinstance(item, Mapping) or item.get("type") != "function_call":
            continue
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
