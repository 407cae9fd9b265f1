"""Tool search in LangChain and LangGraph agents: each model call bound to its session's tools.

LangChain binds tools to the model, and LangGraph's tool node runs the calls; with deferred
tools (`toolwire.tool_search`), the tool node holds every tool and each model call is shown
only what its session is offered — the undeferred tools, ``tool_search`` and the deferred
tools the session found. In ``create_agent`` that is a middleware, the framework's own way to
choose a call's tools:

```python
from langchain.agents import create_agent
from toolwire.integrations.langchain import langchain_tools
from toolwire.integrations.langchain_search import ToolSearchMiddleware

tools = langchain_tools(registry, deferred=True)
agent = create_agent(model, tools, middleware=[ToolSearchMiddleware()])
```

In a graph of your own, bind ``await offered_tools(tools, config)`` in the model node instead.
Whatever the model is shown, a deferred tool its session never found answers ``not_offered``:
the calls run against the session's snapshot (`toolwire.integrations._binding`).

Needs the ``langgraph`` extra (``pip install 'toolwire[langgraph]'``).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TypeVar

from toolwire.integrations._extras import missing_extra
from toolwire.integrations._sync import run_sync
from toolwire.integrations.langchain import ToolwireTool, tool_context

try:
    from langchain.agents.middleware.types import AgentMiddleware, ModelRequest
    from langchain_core.runnables import RunnableConfig
    from langgraph.config import get_config
except ImportError as exc:  # pragma: no cover - exercised in a subprocess
    raise missing_extra("toolwire.integrations.langchain_search", "langgraph", exc) from exc

__all__ = ["ToolSearchMiddleware", "offered_tools"]

T = TypeVar("T")


async def offered_tools(tools: Sequence[T], config: RunnableConfig | None = None) -> list[T]:
    """``tools`` without the deferred toolwire tools the run's session has not found (other
    tools, and toolwire tools of registries that defer nothing, are kept).

    Args:
        tools: What the agent holds (``langchain_tools(registry, deferred=True)`` and others).
        config: The run's config (its ``thread_id``, else the invocation, is the session).
    """
    found: dict[int, frozenset[str]] = {}
    kept: list[T] = []
    for tool in tools:
        if not isinstance(tool, ToolwireTool) or not tool.binding.searching:
            kept.append(tool)
            continue
        if tool.name not in tool.binding.registry.deferred_names:
            kept.append(tool)
            continue
        key = id(tool.binding)
        if key not in found:
            ctx = tool_context(tool.binding, config, tool.context_source)
            found[key] = await tool.binding.found(ctx.session_id, ctx.principal)
        if tool.name in found[key]:
            kept.append(tool)
    return kept


class ToolSearchMiddleware(AgentMiddleware):
    """A ``create_agent`` middleware: each model call is shown `offered_tools` of the
    agent's tools (see the module docstring)."""

    async def awrap_model_call(
        self, request: ModelRequest[Any], handler: Callable[[ModelRequest[Any]], Awaitable[Any]]
    ) -> Any:
        """The call, with its session's tools."""
        tools = await offered_tools(request.tools, _config())
        return await handler(request.override(tools=tools))

    def wrap_model_call(
        self, request: ModelRequest[Any], handler: Callable[[ModelRequest[Any]], Any]
    ) -> Any:
        """The synchronous call, with its session's tools."""
        config = _config()
        tools = run_sync(lambda: offered_tools(request.tools, config))
        return handler(request.override(tools=tools))


def _config() -> RunnableConfig | None:
    try:
        return get_config()
    except RuntimeError:  # outside a runnable: a session of its own
        return None
