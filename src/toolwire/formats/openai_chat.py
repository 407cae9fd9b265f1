"""OpenAI Chat Completions: ``tools`` out, ``message.tool_calls`` in, ``role: tool`` results out.

```python
from toolwire.formats import openai_chat

response = client.chat.completions.create(
    model=..., messages=messages, tools=openai_chat.tool_definitions(tools)
)
calls = openai_chat.parse_tool_calls(response)
outcomes = await registry.execute_parallel(calls, ctx)
messages += [response.choices[0].message.model_dump(exclude_none=True)]
messages += openai_chat.tool_result_messages(outcomes, tools=registry)
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
    """``[{"type": "function", "function": {name, description, parameters, strict}}]``.

    Args:
        tools: Tools, or neutral definitions such as ``registry.definitions()``.
        strict: ``None`` (default): strict wherever the schema allows it without changing its
            meaning; ``True``: strict for every tool or raise; ``False``: never strict.

    Raises:
        FormatError: ``strict=True`` and a schema cannot be strict (the message says why).
    """
    return [
        {"type": "function", "function": function_parts(spec, strict)} for spec in tool_specs(tools)
    ]


def parse_tool_calls(response: object, *, choice: int = 0) -> list[ToolCall]:
    """The tool calls of a ``ChatCompletion`` (object or JSON), or of one assistant message.

    ``arguments`` stay the JSON string the model sent (the registry validates it; malformed
    JSON becomes an ``input_invalid`` result, not an exception); an empty string means ``{}``.

    Raises:
        FormatError: The value is not a chat completion or assistant message, or a tool call
            lacks its id or name, or is not a function call.
    """
    plain = to_plain(response)
    if not isinstance(plain, Mapping):
        raise FormatError("expected a ChatCompletion or an assistant message mapping")
    if "choices" in plain:
        try:
            message = plain["choices"][choice]["message"]
        except (IndexError, KeyError, TypeError):
            raise FormatError(f"the completion has no choices[{choice}].message") from None
    elif "tool_calls" in plain or plain.get("role") == "assistant":
        message = plain
    else:
        raise FormatError("expected a ChatCompletion (with 'choices') or an assistant message")
    calls: list[ToolCall] = []
    for index, item in enumerate(message.get("tool_calls") or ()):
        calls.append(_call(index, item))
    return calls


def _call(index: int, item: Any) -> ToolCall:
    if not isinstance(item, Mapping):
        raise FormatError(f"tool_calls[{index}] is not an object")
    kind = item.get("type", "function")
    if kind != "function":
        raise FormatError(
            f"tool_calls[{index}] has type {kind!r}; only function tools are supported"
        )
    function = item.get("function")
    call_id = item.get("id")
    if not isinstance(call_id, str) or not call_id or not isinstance(function, Mapping):
        raise FormatError(f"tool_calls[{index}] needs an 'id' and a 'function'")
    name = function.get("name")
    if not isinstance(name, str) or not name:
        raise FormatError(f"tool_calls[{index}].function has no 'name'")
    arguments = function.get("arguments")
    args = arguments if isinstance(arguments, str) and arguments.strip() else "{}"
    return ToolCall(id=call_id, name=name, args=args)


def tool_result_messages(
    outcomes: Sequence[CallOutcome],
    *,
    present: Present | None = None,
    tools: ToolLookup | None = None,
) -> list[dict[str, Any]]:
    """One ``{"role": "tool", "tool_call_id", "content"}`` message per outcome, in order.

    Args:
        outcomes: What ``execute_parallel`` returned.
        present: Outcome → text; default: `toolwire.presenting.present`.
        tools: Where the default presenter finds each tool (for untrusted wrapping):
            a registry, a snapshot or a ``dict``.
    """
    texts = present_outcomes(outcomes, present, tools)
    return [
        {"role": "tool", "tool_call_id": outcome.tool_call_id, "content": text}
        for outcome, text in zip(outcomes, texts, strict=True)
    ]
