"""Fixtures for the sub-agent tests: a scripted model server, probe tools, a parent registry."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
from model_server import ModelServer, running_model_server

from toolwire.agents import ChatCompletionsRunner, Delegation, ModelPrice, RetryPolicy
from toolwire.backends.resolver import CapabilityBackends
from toolwire.backends.secrets import EnvSecretsResolver
from toolwire.context import ProgressEvent, ToolContext
from toolwire.decorator import tool
from toolwire.registry import ToolRegistry
from toolwire.toolbox import default_tools
from toolwire.tools import Tool

API_KEY = "sk-test-0123456789abcdefghijklmnopqrstuv"
KEY_REF = "providers/testmodel/apiKey"
KEY_VARIABLE = "TOOLWIRE_TEST_MODEL_KEY"
PRICES = {"test-model": ModelPrice(input_per_mtok=2.0, output_per_mtok=8.0)}


@tool(toolset="probe")
async def whoami(ctx: ToolContext) -> str:
    """Say which agent and session this call runs in."""
    return f"agent={ctx.agent_id} session={ctx.session_id} budget={ctx.result_budget_chars}"


@tool(toolset="probe")
async def shout(ctx: ToolContext, size: int) -> str:
    """Return ``size`` characters of output.

    Args:
        size: How many characters.
    """
    return "x" * size


class Blocker:
    """A tool that waits until cancelled, recording that it started and that it was stopped."""

    def __init__(self) -> None:
        self.started = anyio.Event()
        self.cancelled = False

    def tool(self) -> Tool:
        @tool(name="wait_forever", toolset="probe")
        async def wait_forever(ctx: ToolContext) -> str:
            """Wait until stopped."""
            self.started.set()
            try:
                await anyio.sleep_forever()
            finally:
                self.cancelled = True
            return "unreachable"

        return wait_forever


@pytest.fixture
def work(tmp_path: Path) -> Path:
    """The working directory the file tools reach."""
    path = tmp_path / "work"
    path.mkdir()
    return path


@pytest.fixture
def api_key(monkeypatch: pytest.MonkeyPatch) -> str:
    """The API key, in the environment variable the secrets resolver reads."""
    monkeypatch.setenv(KEY_VARIABLE, API_KEY)
    return API_KEY


@pytest.fixture
async def server() -> AsyncIterator[ModelServer]:
    """A scripted Chat Completions server on 127.0.0.1."""
    async with running_model_server() as running:
        yield running


@pytest.fixture
def events() -> list[ProgressEvent]:
    """Progress events the parent context receives."""
    return []


@pytest.fixture
def ctx(work: Path, events: list[ProgressEvent]) -> ToolContext:
    """The parent's context."""
    return ToolContext(session_id="parent", working_dir=str(work), emit=events.append)


def runner_for(server: ModelServer, **options: Any) -> ChatCompletionsRunner:
    """The shipped runner pointed at ``server``, with the test key and no retry waits."""
    options.setdefault("api_key_ref", KEY_REF)
    options.setdefault("retry", RetryPolicy(max_retries=0))
    return ChatCompletionsRunner(base_url=server.base_url, model="test-model", **options)


RegistryFactory = Callable[..., ToolRegistry]


@pytest.fixture
def make_registry(work: Path, api_key: str, server: ModelServer) -> RegistryFactory:
    """``make_registry(extra_tools=(), runner=None, **delegation options)``: a parent registry
    whose ``task`` runs sub-agents against ``server``; sub-agents get the same tools."""

    def build(
        extra_tools: tuple[Tool, ...] = (),
        runner: Any = None,
        **options: Any,
    ) -> ToolRegistry:
        tools = [*default_tools(), whoami, shout, *extra_tools]
        options.setdefault("toolsets", ("file", "probe", "delegation"))
        options.setdefault("prices", PRICES)
        delegation = Delegation(runner=runner or runner_for(server), tools=lambda: tools, **options)
        backends = CapabilityBackends(
            fs_read=(str(work),),
            fs_write=(str(work),),
            secrets_resolver=EnvSecretsResolver({KEY_REF: KEY_VARIABLE}),
            kind_backends={"subagent": delegation},
        )
        registry = ToolRegistry(backends=backends, hooks=delegation.hooks)
        registry.register_all(tools)
        return registry

    return build
