"""toolwire tools in a pydantic-ai ``Agent``: `ToolwireToolset`.

```python
from pydantic_ai import Agent
from toolwire.integrations.pydantic_ai import ToolwireToolset

agent = Agent("openai:gpt-5", toolsets=[ToolwireToolset(registry)])
```

What the agent gets, beyond plain function tools:

- each tool's schema, in strict form where that keeps its meaning;
- the calls of one model response run as **one batch** (pydantic-ai starts one task per call; the
  toolset counts the response's calls and runs them together), so the registry splits the output
  budget across them, and its hooks, timeouts and reducers apply;
- every result **presented** (secrets redacted, untrusted output wrapped, the result frame);
- with ``structured_returns=True``, a result that carries a ``structured`` payload returns it
  as the tool's return value (a `ToolReturn`; pydantic-ai sends it as JSON, and your code and
  the message history get the object), secrets redacted in every string, the presented text
  beside it in ``metadata["text"]``; the framed text otherwise, and always for a tool whose
  output is untrusted or a payload longer than the ingestion cap;
- with ``deferred_approvals=True``, a call that needs a human's approval (``requires_approval``, the
  flow rule, or a ``run_code`` program paused on such a call) raises pydantic-ai's
  `ApprovalRequired`: the run ends with `DeferredToolRequests`, whose ``metadata[call_id]`` names
  the waiting call (``tool_name``, ``args``, ``via``) and its ``token``; approve it with
  ``DeferredToolResults(approvals={call_id: True})`` and the call runs again with the token (a
  paused program resumes where it stopped). The token is found in the approval's
  ``metadata[call_id]["token"]`` when you pass it back, else in the toolset's memory;
- ``input_invalid`` raised as `ModelRetry` (pydantic-ai's retry, counted against
  ``max_retries``); other failures as `ToolFailed`, a failed result the model adapts to;
- a `ToolContext` **from the run**: session = the conversation id, turn = the model responses so
  far, message count; your own base context from ``context=`` (a `ToolContext`, or a function of
  the `RunContext`, e.g. of your deps), or the run's deps when they are a `ToolContext`.

Needs the ``pydantic-ai`` extra (``pip install 'toolwire[pydantic-ai]'``).
"""

from __future__ import annotations

import json
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any, TypeAlias

from toolwire.calls import ToolCall
from toolwire.context import DEFAULT_RESULT_BUDGET_CHARS, ToolContext
from toolwire.execution.approvals import pending_approval
from toolwire.integrations._binding import BoundOutcome, ToolBinding
from toolwire.integrations._extras import missing_extra
from toolwire.integrations._gathering import DEFAULT_SETTLE_TICKS
from toolwire.presenting import Presenter
from toolwire.providers._base import ToolProvider
from toolwire.registry import ToolRegistry
from toolwire.results import ErrorCode, Ok
from toolwire.safety._redaction import redact_secrets

try:
    from pydantic_ai.exceptions import ApprovalRequired, ModelRetry, ToolFailed
    from pydantic_ai.messages import ModelResponse, ToolCallPart, ToolReturn
    from pydantic_ai.tools import AgentDepsT, RunContext, ToolDefinition
    from pydantic_ai.toolsets import AbstractToolset, ToolsetTool
    from pydantic_core import SchemaValidator, core_schema
except ImportError as exc:  # pragma: no cover - exercised in a subprocess
    raise missing_extra("toolwire.integrations.pydantic_ai", "pydantic-ai", exc) from exc

__all__ = ["ContextSource", "ToolwireToolset"]

ContextSource: TypeAlias = ToolContext | Callable[[RunContext[Any]], ToolContext] | None
"""A base context: fixed, or made from the run (its deps, its metadata)."""

_ANY_OBJECT = SchemaValidator(
    core_schema.dict_schema(core_schema.str_schema(), core_schema.any_schema())
)
"""pydantic-ai parses the arguments into a dict; toolwire's pipeline validates them."""
_STEPS_KEPT = 64


class ToolwireToolset(AbstractToolset[AgentDepsT]):
    """A pydantic-ai toolset whose tools are a toolwire registry's (see the module docstring).

    Args:
        registry: The tools and the pipeline that runs them.
        provider: Chooses the tools shown at each step (its tools must be in ``registry``).
        context: The base `ToolContext`: fixed, or a function of the `RunContext`. Without one,
            the run's deps when they are a `ToolContext`, else a context for the conversation.
        presenter: Presents outcomes (default: ingestion cap = ``result_budget_chars``).
        result_budget_chars: The per-response budget of the contexts the toolset makes.
        working_dir: The working directory of the contexts the toolset makes.
        strict: Strict schemas: ``None`` where the meaning is kept, ``False`` never, ``True``
            always (a tool that cannot be strict raises `ConfigurationError` when listed).
        max_retries: How many ``input_invalid`` retries a tool gets (pydantic-ai's count).
        id: The toolset's id (pydantic-ai needs one for durable execution).
        settle_ticks: See `toolwire.integrations._gathering`.
        structured_returns: Return a result's ``structured`` payload as the tool's return
            value (see the module docstring) instead of the framed text.
        deferred_approvals: Raise `ApprovalRequired` for a call that waits for a human (the
            agent's ``output_type`` must then include `DeferredToolRequests`); ``False``: the
            model reads the ``approval_required`` error.
    """

    def __init__(
        self,
        registry: ToolRegistry,
        *,
        provider: ToolProvider | None = None,
        context: ContextSource = None,
        presenter: Presenter | None = None,
        result_budget_chars: int = DEFAULT_RESULT_BUDGET_CHARS,
        working_dir: str | None = None,
        strict: bool | None = None,
        max_retries: int = 1,
        id: str | None = None,
        settle_ticks: int = DEFAULT_SETTLE_TICKS,
        structured_returns: bool = False,
        deferred_approvals: bool = False,
    ) -> None:
        self.binding = ToolBinding(
            registry,
            provider=provider,
            presenter=presenter,
            result_budget_chars=result_budget_chars,
            working_dir=working_dir,
            strict=strict,
            settle_ticks=settle_ticks,
        )
        self._context = context
        self._max_retries = max_retries
        self._structured_returns = structured_returns
        self._deferred_approvals = deferred_approvals
        self._tokens: OrderedDict[str, str] = OrderedDict()
        self._id = id
        self._listed: OrderedDict[Hashable, frozenset[str]] = OrderedDict()

    @property
    def id(self) -> str | None:
        """The id given to the constructor."""
        return self._id

    async def get_tools(self, ctx: RunContext[AgentDepsT]) -> dict[str, ToolsetTool[AgentDepsT]]:
        """This step's tools: the provider's snapshot (or the registry's), as definitions."""
        tool_ctx = self.tool_context(ctx)
        snapshot = await self.binding.snapshot(  # with tool search: what the session found
            iteration=tool_ctx.current_turn,
            session_id=tool_ctx.session_id,
            principal=tool_ctx.principal,
        )
        tools: dict[str, ToolsetTool[AgentDepsT]] = {}
        for bound in self.binding.tools(snapshot):
            definition = ToolDefinition(
                name=bound.name,
                description=bound.description,
                parameters_json_schema=bound.parameters,
                strict=bound.strict,
            )
            tools[bound.name] = ToolsetTool(
                toolset=self,
                tool_def=definition,
                max_retries=self._max_retries,
                args_validator=_ANY_OBJECT,
            )
        self._remember(_step_key(ctx), frozenset(tools))
        return tools

    async def call_tool(
        self,
        name: str,
        tool_args: dict[str, Any],
        ctx: RunContext[AgentDepsT],
        tool: ToolsetTool[AgentDepsT],
    ) -> Any:
        """Run the call in its response's batch and return the presented text (or, with
        ``structured_returns``, the structured payload).

        Raises:
            ModelRetry: the arguments were ``input_invalid`` (the model is asked to fix them).
            ApprovalRequired: with ``deferred_approvals``, the call waits for a human.
            ToolFailed: any other failure; the model reads the presented error.
        """
        call = ToolCall(id=ctx.tool_call_id or f"call_{name}", name=name, args=tool_args)
        token = self._approved_token(ctx, call.id)
        if token is not None:
            bound = await self.binding.call_approved(call, self.tool_context(ctx), [token])
        else:
            key = _step_key(ctx)
            expected = self._expected_calls(ctx, key)
            bound = await self.binding.call(key, call, self.tool_context(ctx), expected=expected)
        if self._deferred_approvals:
            self._ask_approval(bound, call.id)
        if bound.ok:
            structured = self._structured(bound) if self._structured_returns else None
            return structured if structured is not None else bound.text
        if bound.code is ErrorCode.INPUT_INVALID:
            raise ModelRetry(bound.text)
        raise ToolFailed(bound.text)

    def _approved_token(self, ctx: RunContext[Any], call_id: str) -> str | None:
        """The approval token of a call a human approved (pydantic-ai calls it again)."""
        if not (self._deferred_approvals and ctx.tool_call_approved):
            return None
        metadata = ctx.tool_call_metadata
        if isinstance(metadata, dict) and isinstance(metadata.get("token"), str):
            return str(metadata["token"])
        return self._tokens.pop(call_id, None)

    def _ask_approval(self, bound: BoundOutcome, call_id: str) -> None:
        """Raise `ApprovalRequired` when the outcome waits for a human."""
        pending = pending_approval(bound.outcome)
        if pending is None:
            return
        self._tokens[call_id] = pending.token
        while len(self._tokens) > _STEPS_KEPT:
            self._tokens.popitem(last=False)
        raise ApprovalRequired(
            metadata={
                "token": pending.token,
                "tool_name": pending.tool_name,
                "args": dict(pending.args),
                "via": pending.via,
                "text": bound.text,
            }
        )

    def tool_context(self, ctx: RunContext[Any]) -> ToolContext:
        """The `ToolContext` of a run step (see the class docstring)."""
        source = self._context
        base = source(ctx) if callable(source) else source
        if base is None and isinstance(ctx.deps, ToolContext):
            base = ctx.deps
        turns = sum(1 for message in ctx.messages if isinstance(message, ModelResponse))
        return self.binding.context(
            base,
            session_id=ctx.conversation_id or ctx.run_id or "pydantic-ai",
            platform="pydantic-ai",
            current_turn=turns or 1,
            message_count=len(ctx.messages),
        )

    def _structured(self, bound: BoundOutcome) -> ToolReturn | None:
        """The structured return of a successful call, when it may be one (module docstring)."""
        result = bound.outcome.result
        tool = self.binding.registry.get(bound.outcome.name)
        if not isinstance(result, Ok) or result.structured is None:
            return None
        if tool is None or tool.output_is_untrusted:
            return None  # only the framed text carries the untrusted wrapping
        options = self.binding.presenter.options
        payload: Any = result.structured
        if options.redact_secrets:
            payload = _redacted(payload, options.secret_values)
        size = len(json.dumps(payload, ensure_ascii=False, default=str))
        if options.cap_ingestion and size > options.ingestion_cap_chars:
            return None
        return ToolReturn(return_value=payload, metadata={"text": bound.text})

    def _remember(self, key: Hashable, names: frozenset[str]) -> None:
        self._listed[key] = names
        self._listed.move_to_end(key)
        while len(self._listed) > _STEPS_KEPT:
            self._listed.popitem(last=False)

    def _expected_calls(self, ctx: RunContext[Any], key: Hashable) -> int | None:
        """How many calls of the latest response are this toolset's (``None``: unknown)."""
        names = self._listed.get(key)
        response = next((m for m in reversed(ctx.messages) if isinstance(m, ModelResponse)), None)
        if names is None or response is None:
            return None
        ours = [
            part
            for part in response.parts
            if isinstance(part, ToolCallPart) and part.tool_name in names and _parses(part)
        ]
        if not any(part.tool_call_id == ctx.tool_call_id for part in ours):
            return None
        return len(ours)


def _step_key(ctx: RunContext[Any]) -> Hashable:
    """One model response of one run."""
    return ("pydantic-ai", ctx.run_id or id(ctx.messages), ctx.run_step)


def _redacted(value: Any, secrets: tuple[str, ...]) -> Any:
    """``value`` with secrets redacted in every string of it, keys included."""
    if isinstance(value, str):
        return redact_secrets(value, secret_values=secrets).text
    if isinstance(value, dict):
        return {_redacted(k, secrets): _redacted(v, secrets) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_redacted(item, secrets) for item in value]
    return value


def _parses(part: ToolCallPart) -> bool:
    """Whether pydantic-ai will hand this call to the toolset (its arguments parse)."""
    try:
        part.args_as_dict()
    except Exception:
        return False
    return True
