"""toolwire tools in the OpenAI Agents SDK: `function_tools`.

```python
from agents import Agent
from toolwire.integrations.openai_agents import function_tools

agent = Agent(name="coder", tools=function_tools(registry))
```

Each registry tool becomes a `FunctionTool` with the same guarantees as the other adapters:

- the schema in strict form where that keeps its meaning (``strict_json_schema``);
- the calls of one model response run as **one batch**: the SDK starts one task per call, and
  the calls of a response (same run, same model request) are gathered into one
  ``execute_parallel``, so the output budget is split across them;
- every result **presented** (redaction, untrusted wrapping, result frame); a failure is returned
  as the presented error text, which the SDK sends to the model as the call's output, unless you
  give ``failure_error_function=`` (the SDK's own parameter): it then gets a `ToolCallFailed`
  and its answer is the output, and ``None`` raises it (the run fails);
- a `ToolContext` from the run: session = the run config's ``group_id`` (runs that share one
  share their read records and todo list), else a session of the run's own
  (``openai-agents:<uuid>``, one per ``Runner.run``); turn = the model requests so far, message
  count = the turn's input items; your base context from ``context=`` (a `ToolContext`, or a
  function of the SDK's tool context), or the run's context object when it is a `ToolContext`;
- tool search: the deferred tools (`toolwire.tool_search`) are in the list too, each enabled
  (the SDK's ``is_enabled``, asked every turn) once the run's session has found it with
  ``tool_search``; a call the session may not make answers ``not_offered`` all the same.

Needs the ``openai-agents`` extra (``pip install 'toolwire[openai-agents]'``).
"""

from __future__ import annotations

import inspect
import weakref
from collections.abc import Awaitable, Callable, Hashable
from typing import Any, TypeAlias

from toolwire.calls import ToolCall
from toolwire.context import DEFAULT_RESULT_BUDGET_CHARS, ToolContext
from toolwire.errors import ToolwireError
from toolwire.integrations._binding import BoundOutcome, BoundTool, ToolBinding
from toolwire.integrations._extras import missing_extra
from toolwire.integrations._gathering import DEFAULT_SETTLE_TICKS
from toolwire.integrations._run_sessions import RunSessions
from toolwire.presenting import Presenter
from toolwire.principals import Principal
from toolwire.registry import ToolRegistry
from toolwire.results import ErrorCode

try:
    import agents.tool
    from agents.tool import ToolErrorFunction

    import agents
    from agents import FunctionTool
except ImportError as exc:  # pragma: no cover - exercised in a subprocess
    raise missing_extra("toolwire.integrations.openai_agents", "openai-agents", exc) from exc

__all__ = ["ContextSource", "ToolCallFailed", "function_tools", "tool_context"]

ContextSource: TypeAlias = ToolContext | Callable[["agents.ToolContext[Any]"], ToolContext] | None
"""A base context: fixed, or made from the SDK's tool context (its ``context`` object)."""


class _Unset:
    """``failure_error_function`` not given: failures are the presented error text."""


_UNSET = _Unset()


class ToolCallFailed(ToolwireError):
    """A toolwire call failed; what a ``failure_error_function`` is given.

    ``str(error)`` is the presented error text (what the model reads by default).

    Attributes:
        code: The toolwire error code.
        outcome: The call's outcome and what the model reads of it.
    """

    def __init__(self, outcome: BoundOutcome) -> None:
        super().__init__(outcome.text)
        self.outcome = outcome
        self.code: ErrorCode | None = outcome.code


def function_tools(
    registry: ToolRegistry,
    *,
    context: ContextSource = None,
    presenter: Presenter | None = None,
    result_budget_chars: int = DEFAULT_RESULT_BUDGET_CHARS,
    working_dir: str | None = None,
    strict: bool | None = None,
    settle_ticks: int = DEFAULT_SETTLE_TICKS,
    failure_error_function: ToolErrorFunction | _Unset | None = _UNSET,
) -> list[FunctionTool]:
    """The registry's tools (its definitions: gates and order) as SDK `FunctionTool`s.

    Args:
        registry: The tools and the pipeline that runs them.
        context: The base `ToolContext` (see the module docstring).
        presenter: Presents outcomes (default: ingestion cap = ``result_budget_chars``).
        result_budget_chars: The per-response budget of the contexts the adapter makes.
        working_dir: The working directory of the contexts the adapter makes.
        strict: Strict schemas: ``None`` where the meaning is kept, ``False`` never, ``True``
            always (raises `ConfigurationError` for a tool that cannot be strict).
        settle_ticks: See `toolwire.integrations._gathering`.
        failure_error_function: The SDK's failure formatter: called with the SDK's tool
            context and a `ToolCallFailed` when a call fails, its answer (a string, or an
            awaitable of one) sent to the model; ``None`` raises the `ToolCallFailed` (the
            run fails). Not given: the model reads the presented error.
    """
    binding = ToolBinding(
        registry,
        presenter=presenter,
        result_budget_chars=result_budget_chars,
        working_dir=working_dir,
        strict=strict,
        settle_ticks=settle_ticks,
    )
    tools = [
        _function_tool(binding, bound, context, failure_error_function) for bound in binding.tools()
    ]
    if binding.searching:  # each turn offers the deferred tools its run's session found
        for bound in binding.deferred_tools():
            tool = _function_tool(binding, bound, context, failure_error_function)
            tool.is_enabled = _found_in_run(binding, bound.name)
            tools.append(tool)
    return tools


def tool_context(
    binding: ToolBinding, run: agents.ToolContext[Any], source: ContextSource = None
) -> ToolContext:
    """The `ToolContext` of one call, derived from the SDK's tool context."""
    base = source(run) if callable(source) else source
    if base is None and isinstance(run.context, ToolContext):
        base = run.context
    run_config = run.run_config
    session = run_config.group_id if run_config is not None and run_config.group_id else None
    turn_input = run.turn_input
    ctx = binding.context(
        base,
        session_id=session or _RUN_SESSIONS.session(run.usage),
        platform="openai-agents",
        current_turn=run.usage.requests or 1,
        message_count=len(turn_input) if isinstance(turn_input, list) else None,
    )
    _remember_session(run.usage, ctx)
    return ctx


_CALLED_AS: dict[int, tuple[weakref.ref[Any], str, Principal]] = {}
"""The session and principal of each live run's calls, by its ``Usage`` (one per run): what
its deferred tools' ``is_enabled`` reads (the SDK hands that no run config)."""


def _remember_session(usage: Any, ctx: ToolContext) -> None:
    key = id(usage)
    try:
        ref = weakref.ref(usage, lambda _: _CALLED_AS.pop(key, None))
    except TypeError:  # pragma: no cover - the SDK's Usage takes weak references
        return
    _CALLED_AS[key] = (ref, ctx.session_id, ctx.principal)


def _found_in_run(
    binding: ToolBinding, name: str
) -> Callable[[agents.RunContextWrapper[Any], Any], Awaitable[bool]]:
    """A deferred tool's ``is_enabled``: whether the run's session has found it (a run
    whose tools have not run yet has found nothing)."""

    async def enabled(run: agents.RunContextWrapper[Any], agent: Any) -> bool:
        known = _CALLED_AS.get(id(run.usage))
        if known is None or known[0]() is not run.usage:
            return False
        return name in await binding.found(known[1], known[2])

    return enabled


_RUN_SESSIONS = RunSessions("openai-agents")
"""A session per run, kept as long as the run's ``Usage`` object (one per ``Runner.run``)."""


def _function_tool(
    binding: ToolBinding,
    bound: BoundTool,
    source: ContextSource,
    failure: ToolErrorFunction | _Unset | None,
) -> FunctionTool:
    name = bound.name

    async def invoke(run: agents.ToolContext[Any], arguments: str) -> Any:
        call = ToolCall(id=run.tool_call_id or f"call_{name}", name=name, args=arguments or "{}")
        result = await binding.call(_response_key(run), call, tool_context(binding, run, source))
        if result.ok or isinstance(failure, _Unset):
            return result.text
        error = ToolCallFailed(result)
        if failure is None:
            raise error
        answer = failure(run, error)
        return await answer if inspect.isawaitable(answer) else answer

    tool = FunctionTool(
        name=name,
        description=bound.description,
        params_json_schema=bound.parameters,
        on_invoke_tool=invoke,
        strict_json_schema=bound.strict,
    )
    keep = getattr(agents.tool, "set_function_tool_failure_error_function", None)
    if keep is not None and not isinstance(failure, _Unset):
        keep(tool, failure)  # what the SDK itself reports for this tool (e.g. a cancelled call)
    return tool


def _response_key(run: agents.ToolContext[Any]) -> Hashable:
    """One model response of one run: the run's usage object and its request count."""
    usage = run.usage
    return ("openai-agents", id(usage), usage.requests)
