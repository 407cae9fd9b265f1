"""Fixtures for the sub-agent tests: a scripted model server and a parent registry."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from agent_helpers import (
    API_KEY,
    KEY_REF,
    KEY_VARIABLE,
    PRICES,
    RegistryFactory,
    chatty,
    runner_for,
    shout,
    whoami,
)
from model_server import ModelServer, running_model_server

from toolwire.capabilities.kinds.secrets._resolvers import EnvSecretsResolver
from toolwire.capabilities.kinds.subagent import Delegation
from toolwire.capabilities.resolver import CapabilityBackends
from toolwire.context import ProgressEvent, ToolContext
from toolwire.registry import ToolRegistry
from toolwire.toolbox import default_tools
from toolwire.tools import Tool


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


@pytest.fixture
def make_registry(work: Path, api_key: str, server: ModelServer) -> RegistryFactory:
    """``make_registry(extra_tools=(), runner=None, **delegation options)``: a parent registry
    whose ``task`` runs sub-agents against ``server``; sub-agents get the same tools."""

    def build(
        extra_tools: tuple[Tool, ...] = (),
        runner: Any = None,
        **options: Any,
    ) -> ToolRegistry:
        tools = [*default_tools(), whoami, shout, chatty, *extra_tools]
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
