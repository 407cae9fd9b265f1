"""Each provider's response JSON for scripted calls, and the results read back from the
messages an agent sends (the formats of `toolwire.formats`, from the model's side)."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, TypeAlias

__all__ = ["FORMATS", "FormatName", "ScriptedCall", "ScriptedResult", "WireFormat"]

FormatName: TypeAlias = Literal["openai_chat", "openai_responses", "anthropic", "gemini"]
"""A provider wire format a scripted model speaks (a key of `FORMATS`)."""


@dataclass(frozen=True, kw_only=True, slots=True)
class ScriptedCall:
    """One tool call the scripted model makes.

    Attributes:
        name: The tool's name.
        args: The arguments: a mapping, or a string sent as is (OpenAI formats only), such
            as malformed JSON to test ``input_invalid``.
        id: The call's id; ``call_<turn>_<index>`` when not given.
    """

    name: str
    args: Mapping[str, Any] | str
    id: str | None = None


@dataclass(frozen=True, kw_only=True, slots=True)
class ScriptedResult:
    """A tool result the scripted model received.

    Attributes:
        tool_call_id: The call it answers.
        name: The tool's name (as the scripted call named it).
        text: What the model reads.
        is_error: The format's error flag (Anthropic ``is_error``, Gemini ``error``); ``None``
            for the OpenAI formats, which carry errors in the text alone.
    """

    tool_call_id: str
    name: str
    text: str
    is_error: bool | None


Collected: TypeAlias = list[tuple[str | None, str, bool | None]]
"""``(call id or None when the format names none, text, is_error)`` in message order."""


@dataclass(frozen=True, slots=True)
class WireFormat:
    """How one API shows tool calls to the agent and reads the results back."""

    respond: Callable[[int, Sequence[tuple[str, ScriptedCall]], str], dict[str, Any]]
    collect: Callable[[Sequence[Mapping[str, Any]]], Collected]


def _json_args(call: ScriptedCall) -> str:
    return call.args if isinstance(call.args, str) else json.dumps(dict(call.args))


def _object_args(call: ScriptedCall, api: str) -> dict[str, Any]:
    if not isinstance(call.args, str):
        return dict(call.args)
    try:
        parsed = json.loads(call.args)
    except ValueError:
        parsed = None
    if not isinstance(parsed, dict):
        raise ValueError(f"{api} sends tool arguments as a JSON object; {call.args!r} is not one")
    return parsed


# -- OpenAI Chat Completions -----------------------------------------------------------------


def _chat_respond(
    turn: int, calls: Sequence[tuple[str, ScriptedCall]], text: str
) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": None if calls else text}
    if calls:
        message["tool_calls"] = [
            {
                "id": cid,
                "type": "function",
                "function": {"name": c.name, "arguments": _json_args(c)},
            }
            for cid, c in calls
        ]
    choice = {"index": 0, "message": message, "finish_reason": "tool_calls" if calls else "stop"}
    return {
        "id": f"chatcmpl-scripted-{turn}",
        "object": "chat.completion",
        "created": 0,
        "model": "scripted",
        "choices": [choice],
    }


def _chat_collect(messages: Sequence[Mapping[str, Any]]) -> Collected:
    return [
        (str(m.get("tool_call_id")), str(m.get("content", "")), None)
        for m in messages
        if m.get("role") == "tool"
    ]


# -- OpenAI Responses ------------------------------------------------------------------------


def _responses_respond(
    turn: int, calls: Sequence[tuple[str, ScriptedCall]], text: str
) -> dict[str, Any]:
    output: list[dict[str, Any]] = [
        {
            "type": "function_call",
            "id": f"fc_{cid}",
            "call_id": cid,
            "name": c.name,
            "arguments": _json_args(c),
            "status": "completed",
        }
        for cid, c in calls
    ]
    if not calls:
        output.append(
            {
                "type": "message",
                "id": f"msg_scripted_{turn}",
                "role": "assistant",
                "status": "completed",
                "content": [{"type": "output_text", "text": text, "annotations": []}],
            }
        )
    return {
        "id": f"resp_scripted_{turn}",
        "object": "response",
        "created_at": 0,
        "model": "scripted",
        "status": "completed",
        "output": output,
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
    }


def _responses_collect(items: Sequence[Mapping[str, Any]]) -> Collected:
    return [
        (str(item.get("call_id")), str(item.get("output", "")), None)
        for item in items
        if item.get("type") == "function_call_output"
    ]


# -- Anthropic Messages ----------------------------------------------------------------------


def _anthropic_respond(
    turn: int, calls: Sequence[tuple[str, ScriptedCall]], text: str
) -> dict[str, Any]:
    content: list[dict[str, Any]] = [
        {"type": "tool_use", "id": cid, "name": c.name, "input": _object_args(c, "Anthropic")}
        for cid, c in calls
    ] or [{"type": "text", "text": text}]
    return {
        "id": f"msg_scripted_{turn}",
        "type": "message",
        "role": "assistant",
        "model": "scripted",
        "content": content,
        "stop_reason": "tool_use" if calls else "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": 0, "output_tokens": 0},
    }


def _anthropic_collect(messages: Sequence[Mapping[str, Any]]) -> Collected:
    found: Collected = []
    for message in messages:
        blocks = message.get("content")
        if message.get("role") != "user" or not isinstance(blocks, list):
            continue
        for block in blocks:
            if isinstance(block, Mapping) and block.get("type") == "tool_result":
                text = block.get("content", "")
                found.append(
                    (str(block.get("tool_use_id")), str(text), bool(block.get("is_error", False)))
                )
    return found


# -- Gemini ----------------------------------------------------------------------------------


def _gemini_respond(
    turn: int, calls: Sequence[tuple[str, ScriptedCall]], text: str
) -> dict[str, Any]:
    parts: list[dict[str, Any]] = []
    for _, c in calls:
        function_call: dict[str, Any] = {"name": c.name, "args": _object_args(c, "Gemini")}
        if c.id is not None:  # Gemini sends ids only sometimes: only the ones you scripted
            function_call["id"] = c.id
        parts.append({"functionCall": function_call})
    if not calls:
        parts.append({"text": text})
    candidate = {"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}
    return {"candidates": [candidate], "modelVersion": "scripted"}


def _gemini_collect(messages: Sequence[Mapping[str, Any]]) -> Collected:
    found: Collected = []
    for message in messages:
        for part in message.get("parts") or ():
            response = part.get("functionResponse") if isinstance(part, Mapping) else None
            if not isinstance(response, Mapping):
                continue
            body = response.get("response") or {}
            is_error = "error" in body
            text = body.get("error") if is_error else body.get("output", "")
            call_id = response.get("id")
            found.append((str(call_id) if call_id else None, str(text), is_error))
    return found


FORMATS: dict[str, WireFormat] = {
    "openai_chat": WireFormat(_chat_respond, _chat_collect),
    "openai_responses": WireFormat(_responses_respond, _responses_collect),
    "anthropic": WireFormat(_anthropic_respond, _anthropic_collect),
    "gemini": WireFormat(_gemini_respond, _gemini_collect),
}
"""The four formats of `toolwire.formats`, by module name."""
