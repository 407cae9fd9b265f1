"""Adapters that put toolwire tools inside agent frameworks, one module per framework.

| framework | module | what you get | extra |
| --- | --- | --- | --- |
| pydantic-ai | `toolwire.integrations.pydantic_ai` | `ToolwireToolset` | ``pydantic-ai`` |
| OpenAI Agents SDK | `toolwire.integrations.openai_agents` | `function_tools` | ``openai-agents`` |
| LangChain / LangGraph | `toolwire.integrations.langchain` | `langchain_tools` | ``langgraph`` |
| amplifier | `toolwire.integrations.amplifier` | ``mount(coordinator, config)`` | ``amplifier`` |

Every adapter keeps what hand-written glue loses: the calls of one model response run as one
batch (the output budget is split across them), every result is presented (redaction,
untrusted wrapping), and each call gets a `ToolContext` derived from the run. The shared part
is `ToolBinding`.

Nothing here imports a framework until you use its adapter: ``import toolwire.integrations``
is free, and a name from a framework that is not installed raises `ConfigurationError` naming
the extra to install.

Rooms beside the four adapters: ``langchain_search.py`` (tool search in LangChain and LangGraph),
``amplifier_results.py`` (an amplifier-style view of results); private: ``_binding.py``
(`ToolBinding`), ``_gathering.py`` (one response's calls as one batch), ``_run_sessions.py`` (a
session per run), ``_sync.py`` (`run_sync`), ``_extras.py`` (the missing-extra error),
``_amplifier_tool.py`` (`AmplifierTool`) and ``_amplifier_pre.py`` (a ``tool:pre`` answer).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from toolwire.lazy import lazy_exports as _lazy_exports

if TYPE_CHECKING:
    from toolwire.integrations._binding import BoundOutcome, BoundTool, ToolBinding
    from toolwire.integrations.amplifier import AmplifierTool, mount
    from toolwire.integrations.langchain import ToolwireTool, langchain_tools
    from toolwire.integrations.openai_agents import function_tools
    from toolwire.integrations.pydantic_ai import ToolwireToolset

_LAZY: dict[str, str] = {
    "AmplifierTool": "toolwire.integrations.amplifier",
    "BoundOutcome": "toolwire.integrations._binding",
    "BoundTool": "toolwire.integrations._binding",
    "ToolBinding": "toolwire.integrations._binding",
    "ToolwireTool": "toolwire.integrations.langchain",
    "ToolwireToolset": "toolwire.integrations.pydantic_ai",
    "function_tools": "toolwire.integrations.openai_agents",
    "langchain_tools": "toolwire.integrations.langchain",
    "mount": "toolwire.integrations.amplifier",
}


__getattr__, __dir__ = _lazy_exports("toolwire.integrations", _LAZY, globals())


__all__ = [
    "AmplifierTool",
    "BoundOutcome",
    "BoundTool",
    "ToolBinding",
    "ToolwireTool",
    "ToolwireToolset",
    "function_tools",
    "langchain_tools",
    "mount",
]
