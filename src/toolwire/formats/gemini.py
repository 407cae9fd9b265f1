"""Google Gemini: function declarations out, ``functionCall`` parts in, responses out.

Gemini may send function calls without ids; it matches responses by name and order. Such
calls get stable synthetic ids (``gemini-<index>-<hash8>`` of index, name and canonical
arguments) so the registry can run them like any other call; `GeminiCallIds` maps them back.

```python
from google.genai import types
from toolwire.formats import gemini

config = types.GenerateContentConfig(tools=gemini.tool_definitions(tools))
response = client.models.generate_content(model=..., contents=contents, config=config)
calls, ids = gemini.read_tool_calls(response)
outcomes = await registry.execute_parallel(calls, ctx)
contents += [response.candidates[0].content, gemini.tool_result_message(outcomes, call_ids=ids)]
```
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from toolwire.calls import CallOutcome, ToolCall
from toolwire.formats._common import (
    FormatError,
    Present,
    ToolLookup,
    canonical_json,
    copy_schema,
    present_outcomes,
    to_plain,
    tool_specs,
)
from toolwire.results import Err
from toolwire.tools import Tool

__all__ = [
    "GeminiCallIds",
    "GeminiCallRef",
    "parse_tool_calls",
    "read_tool_calls",
    "synthetic_call_id",
    "tool_definitions",
    "tool_result_message",
    "tool_result_messages",
]

_SYNTHETIC = re.compile(r"^gemini-\d+-[0-9a-f]{8}$")


def tool_definitions(
    tools: Sequence[Tool] | Sequence[Mapping[str, Any]], *, strict: bool | None = None
) -> list[dict[str, Any]]:
    """``[{"functionDeclarations": [{name, description, parametersJsonSchema}]}]``: one Tool.

    The schema goes in ``parametersJsonSchema`` (full JSON Schema) rather than the OpenAPI
    subset of ``parameters``, so nothing is lost in translation. Empty input gives ``[]``.

    Raises:
        FormatError: ``strict=True``: Gemini has no strict mode for function declarations.
    """
    if strict:
        raise FormatError("Gemini has no strict mode for function declarations; omit strict")
    declarations = [
        {
            "name": spec.name,
            "description": spec.description,
            "parametersJsonSchema": copy_schema(spec.schema),
        }
        for spec in tool_specs(tools)
    ]
    return [{"functionDeclarations": declarations}] if declarations else []


@dataclass(frozen=True, kw_only=True, slots=True)
class GeminiCallRef:
    """Where one parsed call came from.

    Attributes:
        tool_call_id: The id the `ToolCall` carries (Gemini's, or a synthetic one).
        name: The function name.
        index: Position among the response's function calls.
        api_id: Gemini's own id, or ``None`` when it sent none.
    """

    tool_call_id: str
    name: str
    index: int
    api_id: str | None


@dataclass(frozen=True, slots=True)
class GeminiCallIds:
    """The calls of one response, in order, to map outcomes back to Gemini's calls."""

    refs: tuple[GeminiCallRef, ...] = ()

    def get(self, tool_call_id: str) -> GeminiCallRef | None:
        """The call a `ToolCall` id belongs to, or ``None``."""
        return next((ref for ref in self.refs if ref.tool_call_id == tool_call_id), None)


def synthetic_call_id(index: int, name: str, args: Mapping[str, Any]) -> str:
    """``gemini-<index>-<hash8>``: the same call in the same position always gets the same id."""
    digest = hashlib.sha256(canonical_json([index, name, args]).encode()).hexdigest()[:8]
    return f"gemini-{index}-{digest}"


def _content(plain: Any, candidate: int) -> Mapping[str, Any]:
    if isinstance(plain, Mapping) and "candidates" in plain:
        try:
            content = plain["candidates"][candidate].get("content") or {}
        except (IndexError, TypeError, AttributeError):
            raise FormatError(f"the response has no candidates[{candidate}]") from None
        return content if isinstance(content, Mapping) else {}
    if isinstance(plain, Mapping) and "parts" in plain:
        return plain
    raise FormatError("expected a GenerateContentResponse (with 'candidates') or a Content")


def read_tool_calls(
    response: object, *, candidate: int = 0
) -> tuple[list[ToolCall], GeminiCallIds]:
    """The ``functionCall`` parts of a response (object or JSON) or of a ``Content``.

    Calls without an id get `synthetic_call_id`. Both camelCase (REST JSON) and snake_case
    (``model_dump()``) field names are read.

    Returns:
        The calls in order, and the `GeminiCallIds` that maps them back.

    Raises:
        FormatError: Not a response or content, or a function call has no name.
    """
    content = _content(to_plain(response), candidate)
    calls: list[ToolCall] = []
    refs: list[GeminiCallRef] = []
    for part in content.get("parts") or ():
        if not isinstance(part, Mapping):
            continue
        call = part.get("functionCall", part.get("function_call"))
        if not isinstance(call, Mapping):
            continue
        index = len(calls)
        name = call.get("name")
        if not isinstance(name, str) or not name:
            raise FormatError(f"function call #{index} has no 'name'")
        raw = call.get("args")
        args: dict[str, Any] = dict(raw) if isinstance(raw, Mapping) else {}
        api_id = call.get("id") if isinstance(call.get("id"), str) and call.get("id") else None
        call_id = api_id or synthetic_call_id(index, name, args)
        calls.append(ToolCall(id=call_id, name=name, args=args))
        refs.append(GeminiCallRef(tool_call_id=call_id, name=name, index=index, api_id=api_id))
    return calls, GeminiCallIds(tuple(refs))


def parse_tool_calls(response: object, *, candidate: int = 0) -> list[ToolCall]:
    """The calls of `read_tool_calls`, without the id map."""
    return read_tool_calls(response, candidate=candidate)[0]


def _ordered(
    outcomes: Sequence[CallOutcome], call_ids: GeminiCallIds | None
) -> list[tuple[CallOutcome, str | None]]:
    if call_ids is None:
        return [(o, None if _SYNTHETIC.match(o.tool_call_id) else o.tool_call_id) for o in outcomes]
    by_id = {outcome.tool_call_id: outcome for outcome in outcomes}
    unknown = sorted(set(by_id) - {ref.tool_call_id for ref in call_ids.refs})
    if unknown:
        raise FormatError(f"outcome {unknown[0]!r} answers no call of this response")
    missing = [ref.tool_call_id for ref in call_ids.refs if ref.tool_call_id not in by_id]
    if missing:
        raise FormatError(f"call {missing[0]!r} has no outcome; Gemini needs one per call")
    return [(by_id[ref.tool_call_id], ref.api_id) for ref in call_ids.refs]


def tool_result_message(
    outcomes: Sequence[CallOutcome],
    *,
    present: Present | None = None,
    tools: ToolLookup | None = None,
    call_ids: GeminiCallIds | None = None,
) -> dict[str, Any]:
    """``{"role": "user", "parts": [{"functionResponse": {...}}, ...]}`` answering every call.

    Each response is ``{"name", "response": {"output": text}}`` (``{"error": text}`` for an
    ``Err``), plus ``"id"`` when Gemini sent one. With ``call_ids`` (from `read_tool_calls`)
    the parts follow the calls' order and every call must have exactly one outcome; without
    it, outcomes keep their order and synthetic ids are left out.

    Raises:
        FormatError: No outcomes, or ``call_ids`` does not match the outcomes.
    """
    if not outcomes:
        raise FormatError("no outcomes: a function-response message needs at least one part")
    ordered = _ordered(outcomes, call_ids)
    texts = present_outcomes([outcome for outcome, _ in ordered], present, tools)
    parts: list[dict[str, Any]] = []
    for (outcome, api_id), text in zip(ordered, texts, strict=True):
        key = "error" if isinstance(outcome.result, Err) else "output"
        response: dict[str, Any] = {"name": outcome.name, "response": {key: text}}
        if api_id is not None:
            response["id"] = api_id
        parts.append({"functionResponse": response})
    return {"role": "user", "parts": parts}


def tool_result_messages(
    outcomes: Sequence[CallOutcome],
    *,
    present: Present | None = None,
    tools: ToolLookup | None = None,
    call_ids: GeminiCallIds | None = None,
) -> list[dict[str, Any]]:
    """`tool_result_message` as a list to append (empty when there are no outcomes)."""
    if not outcomes:
        return []
    return [tool_result_message(outcomes, present=present, tools=tools, call_ids=call_ids)]
