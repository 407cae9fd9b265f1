"""The default assembly: a `ToolwireConfig` → a registry with backends, tools, guard and MCP.

```python
from toolwire.config import load_config
from toolwire.wiring import open_registry

async with open_registry(load_config()) as wired:
    outcome = await wired.registry.execute("read_file", {"path": "README.md"}, ctx)
```

`create_registry` is the synchronous part (backends, with the background processes' backend,
the built-in tools of the enabled toolsets, the command guard); `open_registry` adds the bridged
MCP servers and closes everything on exit.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import anyio

from toolwire.config import ToolwireConfig
from toolwire.errors import ConfigurationError, ProviderError
from toolwire.execution.approvals import Approvals
from toolwire.execution.hooks import HookRegistry
from toolwire.registry import ToolRegistry
from toolwire.registry_settings import RegistrySettings
from toolwire.tool_modules import host_files, register_user_tools
from toolwire.tools import Tool

if TYPE_CHECKING:
    from toolwire.capabilities.resolver import CapabilityBackends
    from toolwire.mcp.client._provider import McpProvider

__all__ = ["BUILTIN_TOOLSETS", "Wired", "builtin_tools", "create_registry", "open_registry"]

logger = logging.getLogger("toolwire.wiring")

BUILTIN_TOOLSETS = ("file", "terminal", "process")
"""The toolsets of the built-in tools (``mcp`` names the bridged MCP servers' tools)."""


@dataclass(kw_only=True)
class Wired:
    """What `open_registry` assembled.

    Attributes:
        config: The configuration it was built from.
        registry: The registry to execute calls on or serve.
        backends: The capability backends the registry uses.
        mcp_providers: One provider per configured MCP server (connected or retrying).
    """

    config: ToolwireConfig
    registry: ToolRegistry
    backends: CapabilityBackends
    mcp_providers: list[McpProvider] = field(default_factory=list)


def create_backends_for(
    config: ToolwireConfig, *, hooks: HookRegistry | None = None
) -> CapabilityBackends:
    """Capability backends for ``config``: its sandbox (roots, mode and limits, protected
    paths, with the config file it was read from and the code of its tool modules among them:
    `toolwire.tool_modules.host_files` imports them), network policy and store,
    background processes with logs in ``<base_dir>/.toolwire/processes``, the browser when
    Playwright is installed, and sub-agents when ``config`` has ``[agents]`` (their calls go
    through ``hooks``: pass the registry's).

    Raises:
        ConfigurationError: a bad ``[agents]`` table, or a tool module that cannot be imported.
    """
    from toolwire.capabilities.defaults import create_backends
    from toolwire.capabilities.kinds.secrets._env import DEFAULT_ENV_SECRETS

    kind_backends = _browser_backend()
    if config.agents is not None:
        from toolwire.capabilities.kinds.subagent import delegation_from_config

        kind_backends["subagent"] = delegation_from_config(config.agents, hooks=hooks)

    return create_backends(
        working_dir=config.base_dir,
        kv_url=config.store_url,
        fs_read=(*config.sandbox_write, *config.sandbox_read),
        fs_write=config.sandbox_write,
        network={
            "allow": list(config.network_allow),
            "deny": list(config.network_deny),
            "allow_private_urls": config.allow_private_urls,
        },
        sandbox=config.sandbox,
        secrets_env={**DEFAULT_ENV_SECRETS, **config.secrets_env},  # [secrets.env] extends
        config_files=(
            *((config.source,) if config.source else ()),
            *host_files(config.tool_modules),  # what the host runs: your tools' code
        ),
        kind_backends=kind_backends,
    )


def _browser_backend() -> dict[str, object]:
    """The browser tools' backend when Playwright is installed (Chromium starts on first use)."""
    import importlib.util

    if importlib.util.find_spec("playwright") is None:
        return {}
    from toolwire.capabilities.kinds.browser import BrowserBackend

    return {"browser": BrowserBackend()}


def builtin_tools(config: ToolwireConfig) -> list[Tool]:
    """The built-in tools of the toolsets ``config`` enables (every one by default).

    Raises:
        ConfigurationError: a toolset name that is neither built in nor ``mcp``, or a bad
            ``[web_search]`` table.
    """
    from toolwire.toolbox import default_tools

    tools = default_tools()
    if config.web_search is not None:
        tools = _with_web_search(tools, config.web_search)
    if config.code is not None:  # [code]: the checkers' timeouts
        from toolwire.toolbox.code import code_tools

        configured = {t.name: t for t in code_tools(settings=config.code)}
        tools = [configured.get(t.name, t) for t in tools]
    if config.agents is None:  # ``task`` could only answer not_available
        if config.toolsets is not None and "delegation" in config.toolsets:
            raise ConfigurationError(
                "tools.toolsets names delegation, but there is no [agents] table: add one "
                "(see docs/agents.md) or remove delegation from tools.toolsets"
            )
        tools = [t for t in tools if t.toolset != "delegation"]
    if config.toolsets is None:
        return tools
    known = {t.toolset for t in tools if t.toolset} | set(BUILTIN_TOOLSETS) | {"mcp"}
    unknown = sorted(set(config.toolsets) - known)
    if unknown:
        raise ConfigurationError(
            f"tools.toolsets: unknown toolset(s) {unknown}; choose from {sorted(known)}"
        )
    return [t for t in tools if t.toolset in config.toolsets]


def _with_web_search(tools: list[Tool], table: Mapping[str, Any]) -> list[Tool]:
    """``tools`` with ``web_search`` built from the ``[web_search]`` table (and the
    ``TOOLWIRE_WEB_SEARCH_*`` variables, which win)."""
    from toolwire.toolbox.web.search import WebSearchSettings, web_search_tool

    search = web_search_tool(WebSearchSettings.from_config(table))
    return [search if t.name == search.name else t for t in tools]


def _require_mcp_sdk() -> None:
    """Bridging ``[mcp.servers]`` needs the MCP SDK: say which extra, not a traceback."""
    import importlib.util

    if importlib.util.find_spec("mcp") is None or importlib.util.find_spec("mcp_types") is None:
        raise ConfigurationError(
            "[mcp.servers] needs the MCP SDK, which is not installed: pip install 'toolwire[mcp]'"
        )


def create_registry(
    config: ToolwireConfig, *, backends: CapabilityBackends | None = None
) -> ToolRegistry:
    """A registry with ``config``'s backends, its enabled built-in tools, the tools of its tool
    modules (`toolwire.tool_modules`) and the command guard.

    MCP servers are not connected here (that needs an event loop): use `open_registry`.
    Closing the registry stops the background processes of its backends' process backend.

    Raises:
        ConfigurationError: a bad toolset (see `builtin_tools`), a tool module that cannot be
            imported, or one of its tools named like another tool.
    """
    from toolwire.toolbox import command_guard_hook

    hooks = HookRegistry()  # made first: sub-agents' calls go through the same hooks
    settings = RegistrySettings(
        hooks=hooks,
        result_handles=config.result_handles,  # [result_handles]: trimmed results kept whole
        quotas=config.quotas,  # [[quotas]]: limits checked before each call runs
        approvals=Approvals(after_untrusted=config.after_untrusted),  # [flow]: sink calls
    )
    registry = ToolRegistry(backends or create_backends_for(config, hooks=hooks), settings=settings)
    kinds = registry.backends.kind_backends if registry.backends else {}
    for name in ("browser", "archive"):  # closing the registry closes Chromium, the archive
        closer = getattr(kinds.get(name), "aclose", None)
        if closer is not None:
            registry.add_cleanup(closer)
    if config.builtin_tools:  # [tools] builtin = false: only your tools (and MCP servers')
        registry.register_all(builtin_tools(config))
    register_user_tools(registry, config.tool_modules)  # [tools] modules, --tools
    if config.deferred_tools:  # [tools] defer
        from toolwire.tool_search import DeferralRules, ToolSearch

        ToolSearch(registry, rules=DeferralRules(names=config.deferred_tools))
    command_guard_hook(registry.hooks)
    return registry


@asynccontextmanager
async def open_registry(
    config: ToolwireConfig, *, connect_timeout_s: float | None = None
) -> AsyncIterator[Wired]:
    """`create_registry` plus the MCP servers; the registry, the servers and the backends
    (background processes included) are closed on exit.

    Each MCP server gets up to its ``connect_timeout_s`` (or ``connect_timeout_s`` here) to
    connect; one that does not is logged and keeps retrying in the background, and its tools
    appear in the registry once it connects.
    """
    from toolwire.mcp.client._bridge import bridge_into
    from toolwire.mcp.client.pinning import DefinitionPins

    async with AsyncExitStack() as stack:
        backends = create_backends_for(config)
        stack.push_async_callback(backends.aclose)
        registry = create_registry(config, backends=backends)
        stack.push_async_callback(registry.aclose)
        wired = Wired(config=config, registry=registry, backends=backends)
        kv = backends.kv_backend
        pins = DefinitionPins.in_backend(kv) if kv is not None else None
        if config.mcp_servers:
            _require_mcp_sdk()
        for server in config.mcp_servers:
            from toolwire.mcp.client._provider import (
                McpProvider,  # the SDK: only with servers to bridge
            )

            provider = McpProvider(server, pins=pins)
            provider = await stack.enter_async_context(provider.running())
            bridge_into(registry, provider)
            wired.mcp_providers.append(provider)
        await _wait_all(wired.mcp_providers, connect_timeout_s)
        if config.code_mode is not None:  # [code_mode]: last, so its stubs list every tool
            from toolwire.code_mode import run_code_tool

            registry.register(run_code_tool(registry, config.code_mode))
        yield wired


async def _wait_all(providers: Sequence[McpProvider], timeout_s: float | None) -> None:
    async def wait(provider: McpProvider) -> None:
        try:
            await provider.wait_connected(timeout_s)
        except ProviderError as exc:
            logger.warning("%s; retrying in the background", exc)

    async with anyio.create_task_group() as group:
        for provider in providers:
            group.start_soon(wait, provider)
