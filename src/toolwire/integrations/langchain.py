"""toolwire tools in LangChain and LangGraph: `langchain_tools`.

```python
from langchain.agents import create_agent
from toolwire.integrations.langchain import langchain_tools

agent = create_agent(model, langchain_tools(registry))   # or ToolNode(tools), create_react_agent
```

Each registry tool becomes a LangChain `BaseTool`, asynchronous at heart (``ainvoke``, a graph's
``ainvoke``/``astream``); the synchronous ``invoke``/``stream`` work too, running the calls on
toolwire's background event loop (`toolwire.integrations._sync`):

- its JSON Schema as the tool's ``args_schema``, strict where that keeps its meaning (what
  ``bind_tools`` sends);
- the calls of one ToolNode step run as **one batch**: ToolNode (and the prebuilt agent's
  ``Send`` fan-out) run the calls of a response concurrently, one tool invocation each; the
  calls of one graph step of one thread are gathered into one ``execute_parallel``, so the
  output budget is split across them;
- every result **presented** (redaction, untrusted wrapping, result frame); a failure is a
  `ToolMessage` with ``status="error"`` carrying the presented error;
- a `ToolContext` from the run: session = the ``thread_id`` (the invocations of one thread
  share read records and todos), else a session of the graph invocation's own
  (``langgraph:<uuid>``; a direct call outside a graph is a run of its own); your base context
  from ``context=`` (a `ToolContext`, or a function of the `RunnableConfig`);
- tool search: a model bound once sees the undeferred tools and ``tool_search``; with
  ``deferred=True`` and `toolwire.integrations.langchain_search.ToolSearchMiddleware`, each
  model call is bound to what its session has found too.

Needs the ``langgraph`` extra (``pip install 'toolwire[langgraph]'``).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Hashable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, TypeAlias

from toolwire.calls import ToolCall
from toolwire.context import DEFAULT_RESULT_BUDGET_CHARS, ToolContext
from toolwire.integrations._binding import BoundTool, ToolBinding
from toolwire.integrations._extras import missing_extra
from toolwire.integrations._gathering import DEFAULT_SETTLE_TICKS
from toolwire.integrations._run_sessions import RunSessions
from toolwire.integrations._sync import run_sync
from toolwire.presenting import Presenter
from toolwire.registry import ToolRegistry

try:
    from langchain_core.runnables import RunnableConfig
    from langchain_core.tools import BaseTool, ToolException
    from pydantic import ConfigDict, Field
except ImportError as exc:  # pragma: no cover - exercised in a subprocess
    raise missing_extra("toolwire.integrations.langchain", "langgraph", exc) from exc

__all__ = ["ContextSource", "ToolwireTool", "langchain_tools", "run_session", "tool_context"]

ContextSource: TypeAlias = ToolContext | Callable[[RunnableConfig], ToolContext] | None
"""A base context: fixed, or made from the run's `RunnableConfig`."""


@dataclass(frozen=True, slots=True)
class _Invocation:
    tool_input: Any
    tool_call_id: str | None
    config: RunnableConfig | None


_INVOCATION: ContextVar[_Invocation | None] = ContextVar("toolwire_langchain_call", default=None)
"""The call being run: `BaseTool.arun` knows it, ``_arun`` does not get it with a JSON schema."""

_RUN_SESSIONS = RunSessions("langgraph")
"""A session per graph invocation, kept as long as its ``RunControl`` (one per invocation,
shared with its subgraphs)."""
SYNC_LINGER_SECONDS = 0.01
"""How long a batch of synchronous calls waits for more after the last one joined: ``ToolNode``
starts them in worker threads, which reach toolwire's loop a thread start apart."""
_RUNTIME_KEY = "__pregel_runtime"
"""Where LangGraph puts the invocation's `Runtime` in ``configurable``."""


@contextmanager
def _remembered(tool_input: Any, kwargs: dict[str, Any]) -> Iterator[None]:
    """`_INVOCATION` set for the duration of a ``run``/``arun`` (``tool_call_id`` and
    ``config`` are keyword-only in `BaseTool`, so they arrive in ``kwargs``)."""
    invocation = _Invocation(tool_input, kwargs.get("tool_call_id"), kwargs.get("config"))
    token = _INVOCATION.set(invocation)
    try:
        yield
    finally:
        _INVOCATION.reset(token)


class ToolwireTool(BaseTool):
    """One toolwire tool as a LangChain tool (see the module docstring).

    Failures raise `ToolException` inside the tool, which LangChain turns into a
    ``ToolMessage(status="error")`` (``handle_tool_error`` is on).
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    binding: ToolBinding = Field(exclude=True)
    context_source: Any = Field(default=None, exclude=True)
    handle_tool_error: Any = True

    async def arun(self, tool_input: str | dict[str, Any], *args: Any, **kwargs: Any) -> Any:
        """`BaseTool.arun`, remembering the call's id and config for `_arun`."""
        with _remembered(tool_input, kwargs):
            return await super().arun(tool_input, *args, **kwargs)

    def run(self, tool_input: str | dict[str, Any], *args: Any, **kwargs: Any) -> Any:
        """`BaseTool.run`, remembering the call's id and config for `_run`."""
        with _remembered(tool_input, kwargs):
            return super().run(tool_input, *args, **kwargs)

    def _run(self, *args: Any, **kwargs: Any) -> str:
        invocation = _INVOCATION.get()
        return run_sync(lambda: self._call(invocation, kwargs, linger=SYNC_LINGER_SECONDS))

    async def _arun(self, *args: Any, **kwargs: Any) -> str:
        return await self._call(_INVOCATION.get(), kwargs)

    async def _call(
        self, invocation: _Invocation | None, kwargs: dict[str, Any], *, linger: float = 0.0
    ) -> str:
        arguments = invocation.tool_input if invocation is not None else kwargs
        call_id = invocation.tool_call_id if invocation is not None else None
        config = invocation.config if invocation is not None else None
        call = ToolCall(
            id=call_id or f"call_{uuid.uuid4().hex[:12]}",
            name=self.name,
            args=dict(arguments) if isinstance(arguments, Mapping) else str(arguments),
        )
        session = run_session(config)
        ctx = tool_context(self.binding, config, self.context_source, session=session)
        bound = await self.binding.call(_step_key(config, session), call, ctx, linger=linger)
        if bound.ok:
            return bound.text
        raise ToolException(bound.text)


def langchain_tools(
    registry: ToolRegistry,
    *,
    context: ContextSource = None,
    presenter: Presenter | None = None,
    result_budget_chars: int = DEFAULT_RESULT_BUDGET_CHARS,
    working_dir: str | None = None,
    strict: bool | None = None,
    settle_ticks: int = DEFAULT_SETTLE_TICKS,
    deferred: bool = False,
) -> list[ToolwireTool]:
    """The registry's tools (its definitions: gates and order) as LangChain tools.

    Args:
        registry: The tools and the pipeline that runs them.
        context: The base `ToolContext` (see the module docstring).
        presenter: Presents outcomes (default: ingestion cap = ``result_budget_chars``).
        result_budget_chars: The per-step budget of the contexts the adapter makes.
        working_dir: The working directory of the contexts the adapter makes.
        strict: Strict schemas: ``None`` where the meaning is kept, ``False`` never, ``True``
            always (raises `ConfigurationError` for a tool that cannot be strict).
        settle_ticks: See `toolwire.integrations._gathering`.
        deferred: Also the deferred tools (`toolwire.tool_search`), after the others: give
            them all to the agent, so its tool node can run what a session finds, and let
            `toolwire.integrations.langchain_search` choose what each model call is shown.
    """
    binding = ToolBinding(
        registry,
        presenter=presenter,
        result_budget_chars=result_budget_chars,
        working_dir=working_dir,
        strict=strict,
        settle_ticks=settle_ticks,
    )
    offered = binding.tools()
    extra = binding.deferred_tools() if deferred else []
    return [_tool(binding, bound, context) for bound in [*offered, *extra]]


def tool_context(
    binding: ToolBinding,
    config: RunnableConfig | None,
    source: ContextSource = None,
    *,
    session: str | None = None,
) -> ToolContext:
    """The `ToolContext` of one call, derived from the run's config (``session``: the
    call's `run_session`, when already known)."""
    base = source(config or {}) if callable(source) else source
    return binding.context(base, session_id=session or run_session(config), platform="langgraph")


def run_session(config: RunnableConfig | None) -> str:
    """The session of a call: the ``thread_id``, else the graph invocation's own.

    An invocation is known by the ``run_id`` you gave it, else by LangGraph's per-invocation
    ``RunControl``; a call outside a graph gets a session of its own.
    """
    configurable = (config or {}).get("configurable") or {}
    thread = configurable.get("thread_id")
    if thread is not None:
        return str(thread)
    runtime = configurable.get(_RUNTIME_KEY)
    run_id = getattr(getattr(runtime, "execution_info", None), "run_id", None)
    if run_id:
        return f"langgraph:{run_id}"
    control = getattr(runtime, "control", None)
    if control is not None:
        return _RUN_SESSIONS.session(control)
    return _RUN_SESSIONS.fresh()


def _tool(binding: ToolBinding, bound: BoundTool, source: ContextSource) -> ToolwireTool:
    return ToolwireTool(
        name=bound.name,
        description=bound.description,
        args_schema=bound.parameters,
        binding=binding,
        context_source=source,
    )


def _step_key(config: RunnableConfig | None, session: str) -> Hashable:
    """One graph step of one session (``None`` outside a graph: the call runs alone).

    The key leaves out the task's own id, so the prebuilt agent's ``Send`` fan-out (one task per
    call) still lands in one batch.
    """
    if not config:
        return None
    metadata = config.get("metadata") or {}
    step = metadata.get("langgraph_step")
    if step is None:
        return None
    namespace = str(metadata.get("langgraph_checkpoint_ns") or "")
    parent = namespace.rpartition("|")[0]
    return (
        "langgraph",
        session,
        parent,
        metadata.get("langgraph_node"),
        step,
    )
