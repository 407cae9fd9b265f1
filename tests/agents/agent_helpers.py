"""Shared pieces of the sub-agent tests: the test key, prices, probe tools, the runner."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import anyio
from model_server import ModelServer

from toolwire.capabilities.kinds.subagent import ChatCompletionsRunner, ModelPrice, RetryPolicy
from toolwire.context import ProgressEvent, ToolContext
from toolwire.decorator import tool
from toolwire.registry import ToolRegistry
from toolwire.tool_options import ToolOptions
from toolwire.tools import Tool

API_KEY = "sk-test-0123456789abcdefghijklmnopqrstuv"
KEY_REF = "providers/testmodel/apiKey"
KEY_VARIABLE = "TOOLWIRE_TEST_MODEL_KEY"
PRICES = {"test-model": ModelPrice(input_per_mtok=2.0, output_per_mtok=8.0)}


@tool(options=ToolOptions(toolset="probe"))
async def whoami(ctx: ToolContext) -> str:
    """Say which agent and session this call runs in."""
    return (
        f"agent={ctx.agent_id} session={ctx.session_id} budget={ctx.result_budget_chars} "
        f"personality={ctx.personality_id} team={ctx.team_id} turn={ctx.current_turn}"
    )


@tool(options=ToolOptions(toolset="probe"))
async def shout(ctx: ToolContext, size: int) -> str:
    """Return ``size`` characters of output.

    Args:
        size: How many characters.
    """
    return "x" * size


@tool(options=ToolOptions(toolset="probe"))
async def chatty(ctx: ToolContext) -> str:
    """Report progress, then finish."""
    ctx.emit(ProgressEvent(tool_name="chatty", message="halfway", audience="dashboard"))
    return "said it"


class Blocker:
    """A tool that waits until cancelled, recording that it started and that it was stopped."""

    def __init__(self) -> None:
        self.started = anyio.Event()
        self.cancelled = False

    def tool(self) -> Tool:
        @tool(name="wait_forever", options=ToolOptions(toolset="probe"))
        async def wait_forever(ctx: ToolContext) -> str:
            """Wait until stopped."""
            self.started.set()
            try:
                await anyio.sleep_forever()
            finally:
                self.cancelled = True
            return "unreachable"

        return wait_forever


def runner_for(server: ModelServer, **options: Any) -> ChatCompletionsRunner:
    """The shipped runner pointed at ``server``, with the test key and no retry waits."""
    options.setdefault("api_key_ref", KEY_REF)
    options.setdefault("retry", RetryPolicy(max_retries=0))
    return ChatCompletionsRunner(base_url=server.base_url, model="test-model", **options)


RegistryFactory = Callable[..., ToolRegistry]
