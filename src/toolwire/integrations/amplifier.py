"""toolwire as an amplifier tool module: ``mount(coordinator, config)`` (spec 05).

Installed with the ``amplifier`` extra, toolwire registers the entry point
``toolwire = "toolwire.integrations.amplifier:mount"`` in the ``amplifier.modules`` group, so a
bundle mounts it as the module ``toolwire``. Each tool of the registry is mounted at the
``tools`` mount point as an amplifier tool: ``name``, ``description``, ``input_schema`` and
``async execute(input)`` returning amplifier's ``ToolResult``.

Around every call the tool emits to ``coordinator.hooks``:

- ``tool:pre`` ``{tool_name, tool_call_id, tool_input}`` before it runs; its answer is honoured
  as an orchestrator would (`toolwire.integrations._amplifier_pre`), failing closed: ``deny``
  (or a hook registry that raises) refuses the call (``not_available``), ``ask_user`` asks the
  coordinator's approval system (no approval system: refused), a changed ``tool_input``
  (``modify``) is what the call runs with;
- ``tool:post`` ``{tool_name, tool_call_id, tool_input, result}`` after every call that ran (the
  input it ran with), the result as amplifier's ``ToolResult`` dump, failures included;
- ``tool:error`` ``{tool_name, tool_call_id, error: {type, message}}`` in addition when the call
  failed; ``type`` is the toolwire error code.

An input key ``_tool_call_id`` (as amplifier-core's behaviour tests pass it) is the call's
``tool_call_id``, not an argument. The tools' session is the coordinator's ``session_id`` (a
coordinator without one: a session of the mount's own).

Calls the orchestrator starts together (one model response) run as one batch, so the output
budget is split across them. Results are presented (redaction, untrusted wrapping, result
frames): ``output`` is the text the model reads; on failure ``error`` carries the code as
``type``.

Config (all optional): ``registry`` (a `ToolRegistry`, when mounting from code), else
``config_file`` (a ``toolwire.toml``) or ``working_dir`` (default: the coordinator's
``session.working_dir`` capability, else the current directory) with ``store_url`` and
``toolsets``; ``tools`` (the names to mount; all by default); ``result_budget_chars``;
``emit_events`` (default true). `mount` returns the cleanup: it unmounts the tools and closes
what the mount opened.
"""

from __future__ import annotations

import logging
import os
import uuid
from collections.abc import Awaitable, Callable, Mapping
from contextlib import AsyncExitStack
from typing import Any

from toolwire.context import DEFAULT_RESULT_BUDGET_CHARS, ToolContext
from toolwire.errors import ConfigurationError
from toolwire.integrations._amplifier_tool import AmplifierTool, MountState
from toolwire.integrations._binding import ToolBinding
from toolwire.registry import ToolRegistry

__all__ = ["AmplifierTool", "mount"]

__amplifier_module_type__ = "tool"

logger = logging.getLogger("toolwire.integrations.amplifier")

_CONFIG_KEYS = frozenset(
    {
        "registry",
        "config_file",
        "working_dir",
        "store_url",
        "toolsets",
        "tools",
        "result_budget_chars",
        "emit_events",
    }
)


async def mount(
    coordinator: Any, config: Mapping[str, Any] | None = None
) -> Callable[[], Awaitable[None]]:
    """Mount the registry's tools on ``coordinator`` (see the module docstring).

    Returns:
        The cleanup: unmounts the tools and closes the registry and backends the mount made.

    Raises:
        ConfigurationError: an unknown config key, a value of the wrong shape, a name in
            ``tools`` the registry does not hold.
    """
    settings = dict(config or {})
    unknown = sorted(set(settings) - _CONFIG_KEYS)
    if unknown:
        raise ConfigurationError(
            f"toolwire amplifier module: unknown config keys {unknown}; use {sorted(_CONFIG_KEYS)}"
        )
    stack = AsyncExitStack()
    try:
        registry = settings.get("registry")
        if registry is None:
            registry = _own_registry(settings, coordinator, stack)
        binding = _binding(registry, settings)
        session_id = str(getattr(coordinator, "session_id", "") or f"amplifier:{uuid.uuid4().hex}")
        base = ToolContext(
            session_id=session_id,
            platform="amplifier",
            working_dir=binding.working_dir or os.getcwd(),
            result_budget_chars=binding.result_budget_chars,
        )
        state = MountState(
            coordinator=coordinator,
            binding=binding,
            base=binding.context(base, session_id=session_id, platform="amplifier"),
            emit_events=bool(settings.get("emit_events", True)),
        )
        names = await _mount_tools(coordinator, state, settings.get("tools"))
    except BaseException:
        await stack.aclose()
        raise

    async def cleanup() -> None:
        for name in names:
            try:
                await coordinator.unmount("tools", name)
            except Exception:
                logger.exception("toolwire: unmounting %s failed", name)
        await stack.aclose()

    return cleanup


async def _mount_tools(coordinator: Any, state: MountState, wanted: Any) -> list[str]:
    bound = state.binding.tools()
    if wanted is not None:
        if isinstance(wanted, str) or not all(isinstance(n, str) for n in wanted):
            raise ConfigurationError("toolwire amplifier module: 'tools' must be a list of names")
        known = {b.name for b in bound}
        missing = sorted(set(wanted) - known)
        if missing:
            raise ConfigurationError(
                f"toolwire amplifier module: no tools named {missing}; available: {sorted(known)}"
            )
        bound = [b for b in bound if b.name in set(wanted)]
    names: list[str] = []
    for item in bound:
        await coordinator.mount("tools", AmplifierTool(state, item), name=item.name)
        names.append(item.name)
    return names


def _binding(registry: Any, settings: Mapping[str, Any]) -> ToolBinding:
    if not isinstance(registry, ToolRegistry):
        raise ConfigurationError(
            f"toolwire amplifier module: 'registry' must be a ToolRegistry, got "
            f"{type(registry).__name__}"
        )
    budget = settings.get("result_budget_chars", DEFAULT_RESULT_BUDGET_CHARS)
    if not isinstance(budget, int) or isinstance(budget, bool) or budget < 1:
        raise ConfigurationError(
            f"toolwire amplifier module: 'result_budget_chars' must be a positive integer, "
            f"got {budget!r}"
        )
    working_dir = settings.get("working_dir")
    return ToolBinding(
        registry,
        result_budget_chars=budget,
        working_dir=str(working_dir) if working_dir else None,
        strict=False,
    )


def _own_registry(settings: dict[str, Any], coordinator: Any, stack: AsyncExitStack) -> Any:
    """A registry from ``config_file`` or ``working_dir``, closed by the cleanup."""
    from toolwire.config import ToolwireConfig, check_sandbox, load_config
    from toolwire.wiring import create_backends_for, create_registry

    config_file = settings.get("config_file")
    if config_file is not None:
        config = load_config(str(config_file))
        settings.setdefault("working_dir", config.base_dir)
    else:
        working_dir = settings.get("working_dir") or _session_working_dir(coordinator)
        settings["working_dir"] = os.path.abspath(working_dir or os.getcwd())
        options: dict[str, Any] = {"base_dir": settings["working_dir"]}
        if settings.get("store_url"):
            options["store_url"] = str(settings["store_url"])
        if settings.get("toolsets") is not None:
            options["toolsets"] = tuple(settings["toolsets"])
        config = ToolwireConfig(**options)
        check_sandbox(config, named=True)
    if config.mcp_servers:
        raise ConfigurationError(
            "toolwire amplifier module: MCP servers in the config are not bridged by mount(); "
            "build the registry with toolwire.open_registry and pass it as 'registry'"
        )
    backends = create_backends_for(config)
    stack.push_async_callback(backends.aclose)
    registry = create_registry(config, backends=backends)
    stack.push_async_callback(registry.aclose)
    return registry


def _session_working_dir(coordinator: Any) -> str | None:
    get = getattr(coordinator, "get_capability", None)
    if get is None:
        return None
    try:
        value = get("session.working_dir")
    except Exception:
        return None
    return str(value) if value else None
