"""Provider wire formats: tool definitions out, tool calls in, tool results out.

One module per API, each with the same three verbs:

- ``tool_definitions(tools, *, strict=None) -> list[dict]``
- ``parse_tool_calls(response) -> list[ToolCall]`` (raw JSON or the SDK's objects)
- ``tool_result_messages(outcomes, *, present=None, tools=None) -> list[dict]`` (what to append
  to the conversation; built with the presenter)

Modules: `openai_chat`, `openai_responses`, `anthropic`, `gemini`. See ``docs/formats.md``.
`openai_responses` and `anthropic` also carry the providers' own tool search (``deferred=``,
``loaded_tools``, ``tool_callers``; ``docs/tool-search.md``).

Private rooms: ``_common.py`` (tool specs, response plumbing, presenting), ``_openai.py`` (the
function body both OpenAI APIs share), ``_strict.py`` (when a schema can be sent ``strict``) and
``_deferred.py`` (tool search on the wire: groups, passed-through keys, loaded names).
"""

from __future__ import annotations

from toolwire.formats import anthropic, gemini, openai_chat, openai_responses
from toolwire.formats._common import FormatError, Present, ToolLookup, ToolSpec, tool_specs
from toolwire.formats._strict import strict_schema
from toolwire.formats.gemini import GeminiCallIds, GeminiCallRef

__all__ = [
    "FormatError",
    "GeminiCallIds",
    "GeminiCallRef",
    "Present",
    "ToolLookup",
    "ToolSpec",
    "anthropic",
    "gemini",
    "openai_chat",
    "openai_responses",
    "strict_schema",
    "tool_specs",
]
