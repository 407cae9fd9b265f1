"""What the adapter tests share: user tools, a registry that records its batches, helpers."""

from __future__ import annotations

import json
from collections.abc import Callable, Coroutine, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from agents.items import ModelResponse
from agents.models.interface import Model
from agents.usage import Usage
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langchain_core.utils.function_calling import convert_to_openai_tool
from openai.types.responses import (
    ResponseFunctionToolCall,
    ResponseOutputMessage,
    ResponseOutputText,
)
from pydantic import Field

from toolwire import CallOutcome, ToolCall, ToolContext, ToolRegistry, tool

GITHUB_PAT = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
"""A token in a known secret format: the presenter must redact it."""


@dataclass(frozen=True)
class Batch:
    """One ``execute_parallel`` the registry ran."""

    names: tuple[str, ...]
    ids: tuple[str, ...]
    ctx: ToolContext


class RecordingRegistry(ToolRegistry):
    """A real registry that also records each batch it is asked to run."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.batches: list[Batch] = []

    def execute_parallel(  # type: ignore[override]
        self,
        calls: Sequence[ToolCall | Mapping[str, Any]],
        ctx: ToolContext,
        *args: Any,
        **kwargs: Any,
    ) -> Coroutine[Any, Any, list[CallOutcome]]:
        plain = [c for c in calls if isinstance(c, ToolCall)]
        self.batches.append(Batch(tuple(c.name for c in plain), tuple(c.id for c in plain), ctx))
        return super().execute_parallel(calls, ctx, *args, **kwargs)


@tool
async def emit_chars(n: int) -> str:
    """Return `n` characters.

    Args:
        n: How many characters.
    """
    return "x" * n


@tool
def shout(text: str) -> str:
    """Upper-case a text.

    Args:
        text: The text.
    """
    return text.upper()


@tool
def leak() -> str:
    """Return a configuration line that holds a token."""
    return f"token={GITHUB_PAT}"


@tool
def describe_context(ctx: ToolContext) -> str:
    """Say what the call's context holds."""
    return (
        f"session={ctx.session_id} turn={ctx.current_turn} messages={ctx.message_count} "
        f"platform={ctx.platform} budget={ctx.result_budget_chars} dir={ctx.working_dir}"
    )


@tool
def pick(label: str, count: int = 1) -> str:
    """Repeat a label (``count`` is optional, so the schema cannot be strict).

    Args:
        label: The label.
        count: How many times.
    """
    return label * count


USER_TOOLS = (emit_chars, shout, leak, describe_context, pick)


def share(total: int, calls: int) -> int:
    """The registry's per-call share of ``total`` across ``calls``."""
    return max(total // calls, 1)


def body_of(text: str) -> str:
    """The result inside the presenter's frame."""
    start = text.index("===\n") + 4
    return text[start : text.rindex("\n===TOOL_RESULT_END===")]


# -- OpenAI Agents SDK: a scripted Model ---------------------------------------------------


class ScriptedModel(Model):
    """Answers each request with the next scripted output; records what it was sent."""

    def __init__(self, *steps: list[Any] | Callable[[], list[Any]]) -> None:
        self.steps = list(steps)
        self.inputs: list[Any] = []
        self.tools: list[Any] = []

    async def get_response(  # type: ignore[override]
        self,
        system_instructions: str | None,
        input: Any,
        model_settings: Any,
        tools: list[Any],
        output_schema: Any,
        handoffs: Any,
        tracing: Any,
        *,
        previous_response_id: str | None,
        conversation_id: str | None,
        prompt: Any,
    ) -> ModelResponse:
        self.inputs.append(input)
        self.tools = list(tools)
        step = self.steps.pop(0)
        output = step() if callable(step) else step
        return ModelResponse(output=output, usage=Usage(requests=1), response_id=None)

    def stream_response(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError("these tests run Runner.run")


def function_call(name: str, args: dict[str, Any], call_id: str) -> ResponseFunctionToolCall:
    return ResponseFunctionToolCall(
        type="function_call",
        call_id=call_id,
        name=name,
        arguments=json.dumps(args),
        id=f"fc_{call_id}",
        status="completed",
    )


def say(text: str) -> ResponseOutputMessage:
    return ResponseOutputMessage(
        id="msg",
        type="message",
        role="assistant",
        status="completed",
        content=[ResponseOutputText(type="output_text", text=text, annotations=[])],
    )


# -- LangChain: a fake chat model that binds tools --------------------------------------------


class ToolCallingFakeModel(GenericFakeChatModel):
    """The fake chat model of langchain-core, able to bind tools (it records them)."""

    bound: list[dict[str, Any]] = Field(default_factory=list)

    def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
        self.bound = [convert_to_openai_tool(t) for t in tools]
        return self.bind(tools=self.bound)


def asks(*calls: tuple[str, dict[str, Any], str]) -> AIMessage:
    return AIMessage(
        "", tool_calls=[{"name": n, "args": a, "id": i, "type": "tool_call"} for n, a, i in calls]
    )
