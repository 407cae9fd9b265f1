"""`create_backends`: a default set of capability backends for one machine."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import fields
from typing import TYPE_CHECKING, Any

from toolwire.capabilities.kinds.process._backends import ProcessBackend
from toolwire.capabilities.kinds.process.background import ProcessManager
from toolwire.capabilities.kinds.process.sandbox._modes import create_process_backend
from toolwire.capabilities.kinds.process.sandbox._settings import SandboxSettings, sandbox_settings
from toolwire.capabilities.kinds.secrets._resolvers import (
    DEFAULT_VAULT_DIR,
    ChainSecretsResolver,
    EnvSecretsResolver,
    VaultSecretsResolver,
)
from toolwire.capabilities.resolver import CapabilityBackends
from toolwire.capabilities.seams import NetworkPolicy
from toolwire.errors import ConfigurationError
from toolwire.safety.protected_paths import protected_paths

if TYPE_CHECKING:
    from toolwire.capabilities.kinds.network._fetcher import SafeFetcher

__all__ = ["create_backends"]

_CONFIG_KEYS = frozenset(
    {
        "working_dir",
        "kv_url",
        "kv_isolate_tools",
        "archive_url",
        "secrets_env",
        "secrets_vault_dir",
        "network",
        "config_files",
    }
)


def create_backends(
    config: Mapping[str, Any] | None = None, **overrides: Any
) -> CapabilityBackends:
    """A default set of backends for one machine.

    - file reach for ``"from-personality"``: read and write the working directory;
    - storage: SQLite at ``<working_dir>/.toolwire/state.db`` (``kv_url`` picks another
      store: ``memory://``, ``redis://...``, ``postgresql://...``; ``None`` disables it).
      ``session`` and ``personality`` scopes are shared by the tools of that session or
      personality, as spec 04 says; ``kv_isolate_tools=True`` splits them per tool as well;
    - session archive (the ``archive`` kind, ``session_search``): in the same SQLite file or
      PostgreSQL database as the store (``archive_url`` picks another ``sqlite:///`` or
      ``postgresql://`` URL; none for a memory or Redis store unless given; ``None`` disables
      it). Record messages into ``backends.kind_backends["archive"]``;
    - secrets: the vault at ``~/.toolwire/secrets`` (``secrets_vault_dir``; ``None`` skips
      it; ``toolwire secret set`` writes it), then environment variables (``secrets_env``: a
      ref → variable table, `DEFAULT_ENV_SECRETS` by default; then each ref's own
      ``TOOLWIRE_SECRET_<REF>``);
    - network: a `SafeFetcher` when httpx is installed, under ``network``
      (``{"allow": [...], "deny": [...], "allow_private_urls": False}``);
    - processes: with background processes, their logs in ``<working_dir>/.toolwire/processes``;
      under ``sandbox`` (a mode, ``"auto"`` by default, or ``{"mode": ..., "max_processes": ...,
      ...}``, see `toolwire.capabilities.kinds.process.sandbox._settings`): each command in a
      bubblewrap sandbox when it can run here, else unsandboxed and said loudly (``auto``), or
      refused (``required``); ``off`` runs them unsandboxed. ``<working_dir>/.toolwire`` is hidden
      in every sandbox;
    - protected paths (`toolwire.safety.protected_paths`): the defaults, what toolwire runs
      from, the ``config_files`` it read, and the sandbox settings' ``protected`` and
      ``unprotect``; read-only in every sandbox and refused by the write tools.

    The backends own what they open (store, fetcher, background processes): close them with
    ``await backends.aclose()`` or ``async with``.

    Args:
        config: Those settings, as read from a config file.
        **overrides: The same settings, or any `CapabilityBackends` field, winning over
            ``config``.

    Raises:
        ConfigurationError: an unknown setting, or one of the wrong shape.
    """
    settings = {**(config or {}), **overrides}
    field_names = {f.name for f in fields(CapabilityBackends)}
    unknown = sorted(set(settings) - field_names - _CONFIG_KEYS)
    if unknown:
        raise ConfigurationError(
            f"create_backends: unknown settings {unknown}; use {sorted(_CONFIG_KEYS | field_names)}"
        )
    working_dir = os.path.abspath(settings.pop("working_dir", None) or os.getcwd())
    values: dict[str, Any] = {"fs_read": (working_dir,), "fs_write": (working_dir,)}
    kv_url = settings.pop("kv_url", f"sqlite:///{working_dir}/.toolwire/state.db")
    if kv_url is not None and "kv_store_factory" not in settings:
        from toolwire.stores import create_kv_backend

        backend = create_kv_backend(kv_url, isolate_tools=settings.pop("kv_isolate_tools", False))
        values.update(kv_backend=backend, kv_store_factory=backend.scoped)
    from toolwire.capabilities.kinds.archive._urls import archive_url_for, create_session_archive

    archive_url = settings.pop("archive_url", archive_url_for(kv_url))
    if archive_url is not None:
        kinds = dict(settings.pop("kind_backends", {}))
        kinds.setdefault("archive", create_session_archive(archive_url))
        values["kind_backends"] = kinds
    env = EnvSecretsResolver(settings.pop("secrets_env", None))
    vault_dir = settings.pop("secrets_vault_dir", DEFAULT_VAULT_DIR)
    values["secrets_resolver"] = (
        ChainSecretsResolver(VaultSecretsResolver(vault_dir), env) if vault_dir else env
    )
    values["network_policy"] = _network_policy(settings.pop("network", None))
    if "fetcher" not in settings:
        values["fetcher"] = _default_fetcher()
    values["sandbox"] = sandbox_settings(settings.pop("sandbox", None))
    config_files = tuple(settings.pop("config_files", ()))
    if "protected_paths" not in settings:
        values["protected_paths"] = protected_paths(
            config_files=config_files,
            add=values["sandbox"].protected,
            remove=values["sandbox"].unprotect,
        )
    if "processes" not in settings:
        values["processes"] = _processes(values["sandbox"], working_dir)
    settings.pop("kv_isolate_tools", None)  # only meaningful for the store built here
    values.update(settings)
    return CapabilityBackends(**values)


def _processes(sandbox: SandboxSettings, working_dir: str) -> ProcessBackend:
    """The mode's backend, with background processes logging under the state directory (which
    every sandbox hides)."""
    state = os.path.join(working_dir, ".toolwire")
    manager = ProcessManager(os.path.join(state, "processes"))
    return create_process_backend(sandbox, manager, state_paths=(state,))


def _network_policy(value: Any) -> NetworkPolicy | None:
    if value is None or isinstance(value, NetworkPolicy):
        return value
    if not isinstance(value, Mapping) or set(value) - {"allow", "deny", "allow_private_urls"}:
        raise ConfigurationError(
            "network must be {'allow': [...], 'deny': [...], 'allow_private_urls': bool}"
        )
    return NetworkPolicy(
        allow=tuple(value.get("allow", ())),
        deny=tuple(value.get("deny", ())),
        allow_private_urls=bool(value.get("allow_private_urls", False)),
    )


def _default_fetcher() -> SafeFetcher | None:
    from toolwire.capabilities.kinds.network._fetcher import SafeFetcher, http_stack_missing

    if http_stack_missing() is not None:  # httpx (toolwire[web]) is not installed
        return None
    return SafeFetcher()
