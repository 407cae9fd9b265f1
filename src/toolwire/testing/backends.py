"""Backends and contexts for tests: in-memory storage, a temporary file root, no vault."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from toolwire.capabilities.resolver import CapabilityBackends
from toolwire.context import ToolContext
from toolwire.registry import ToolRegistry
from toolwire.registry_settings import RegistrySettings
from toolwire.tools import Tool

__all__ = ["create_test_backends", "create_test_registry", "make_context"]

TEST_SESSION_ID = "test-session"


def create_test_backends(
    root: str | os.PathLike[str],
    *,
    kv_url: str = "memory://",
    secrets: Mapping[str, str] | None = None,
    network_allow: Sequence[str] = (),
    allow_private_urls: bool = False,
    **overrides: Any,
) -> CapabilityBackends:
    """Capability backends for a test: the real seams, on nothing that outlives the test.

    Args:
        root: The file reach (read and write) and working directory; use a temporary
            directory (pytest's ``tmp_path``).
        kv_url: The key-value store (``memory://`` by default; any store URL works).
        secrets: Secret values by ref (``{"providers/exa/apiKey": "test-key"}``); the
            machine's vault and environment are never read.
        network_allow: Host patterns fetches may reach (empty: every public host).
        allow_private_urls: Let fetches reach loopback and private addresses (a local test
            server).
        **overrides: Any `CapabilityBackends` field (``processes=None``, ...).

    Close them with ``await backends.aclose()`` (`create_test_registry` does it for you).
    """
    from toolwire.capabilities.defaults import create_backends
    from toolwire.capabilities.kinds.secrets._resolvers import EnvSecretsResolver

    values = dict(secrets or {})
    resolver = EnvSecretsResolver({ref: ref for ref in values}, environ=values)
    return create_backends(
        working_dir=os.fspath(root),
        kv_url=kv_url,
        secrets_vault_dir=None,
        secrets_resolver=resolver,
        network={"allow": list(network_allow), "allow_private_urls": allow_private_urls},
        **overrides,
    )


def create_test_registry(
    *tools: Tool | Iterable[Tool],
    root: str | os.PathLike[str],
    builtins: bool = False,
    backends: CapabilityBackends | None = None,
    settings: RegistrySettings | None = None,
    **options: Any,
) -> ToolRegistry:
    """A registry with ``tools`` on `create_test_backends` (closed with the registry).

    Args:
        *tools: Your tools (or lists of them).
        root: The file root, as for `create_test_backends`.
        builtins: Also register toolwire's built-in tools, with the command guard.
        backends: Backends to use instead (the registry does not close these).
        settings: The registry's settings (`toolwire.RegistrySettings`; its defaults when
            ``None``).
        **options: `create_test_backends` options (``kv_url``, ``secrets``, ...).
    """
    owned = backends is None
    chosen = backends if backends is not None else create_test_backends(root, **options)
    registry = ToolRegistry(chosen, settings=settings)
    if owned:
        registry.add_cleanup(chosen.aclose)
    if builtins:
        from toolwire.toolbox import command_guard_hook, default_tools

        registry.register_all(default_tools())
        command_guard_hook(registry.hooks)
    for item in tools:
        registry.register_all([item] if isinstance(item, Tool) else list(item))
    return registry


def make_context(root: str | os.PathLike[str] | None = None, **fields: Any) -> ToolContext:
    """A `ToolContext` for a test: session ``test-session``, platform ``test``, working in
    ``root`` (the current directory when ``None``); any field can be given (``current_turn``,
    ``result_budget_chars``, ``dry_run``, ...)."""
    values: dict[str, Any] = {"session_id": TEST_SESSION_ID, "platform": "test"}
    if root is not None:
        values["working_dir"] = os.fspath(root)
    values.update(fields)
    return ToolContext(**values)
