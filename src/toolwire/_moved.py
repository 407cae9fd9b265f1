"""Module paths that moved in 0.2, still importable from where they were, with a warning.

0.2 put each concept in one room (see ``CHANGELOG.md``: every move is listed there): the capability
kinds under `toolwire.capabilities`, the key-value stores in `toolwire.stores`, the MCP client and
server in `toolwire.mcp.client` and `toolwire.mcp.server`, the configuration in `toolwire.config`.
An import of an old path — ``from toolwire.backends.kv import SqliteKeyValueBackend`` — still works:
it gets the module at its new path (the same object, so ``isinstance`` and monkeypatching agree) and
a `DeprecationWarning` naming the new path. The old paths go in 0.3.

`install` puts the finder first on `sys.meta_path` (the package root calls it): it answers only for
the names of `MOVED` and what lies beneath them, and leaves every other import alone.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
import types
import warnings
from collections.abc import Sequence

__all__ = ["MOVED", "install"]

MOVED: dict[str, str] = {
    "toolwire.agents": "toolwire.capabilities.kinds.subagent",
    "toolwire.amplifier": "toolwire.integrations.amplifier_results",
    "toolwire.backends.archive": "toolwire.capabilities.kinds.archive",
    "toolwire.backends.archive.base": "toolwire.capabilities.kinds.archive.base",
    "toolwire.backends.archive.postgres": "toolwire.capabilities.kinds.archive.postgres",
    "toolwire.backends.archive.query": "toolwire.capabilities.kinds.archive.query",
    "toolwire.backends.archive.scoped": "toolwire.capabilities.kinds.archive.scoped",
    "toolwire.backends.archive.sqlite": "toolwire.capabilities.kinds.archive.sqlite",
    "toolwire.backends.archive.stop_words": "toolwire.capabilities.kinds.archive.stop_words",
    "toolwire.backends.archive.urls": "toolwire.capabilities.kinds.archive.urls",
    "toolwire.backends.atomic": "toolwire.capabilities.kinds.fs_reach.atomic",
    "toolwire.backends.attachments": "toolwire.capabilities.kinds.attachments.filtered",
    "toolwire.backends.background": "toolwire.capabilities.kinds.process.background",
    "toolwire.backends.background_process": (
        "toolwire.capabilities.kinds.process.background_process"
    ),
    "toolwire.backends.beneath": "toolwire.capabilities.kinds.fs_reach.beneath",
    "toolwire.backends.browser": "toolwire.capabilities.kinds.browser",
    "toolwire.backends.browser.backend": "toolwire.capabilities.kinds.browser.backend",
    "toolwire.backends.browser.runtime": "toolwire.capabilities.kinds.browser.runtime",
    "toolwire.backends.browser.schemes": "toolwire.capabilities.kinds.browser.seam",
    "toolwire.backends.browser.session": "toolwire.capabilities.kinds.browser.session",
    "toolwire.backends.browser.settings": "toolwire.capabilities.kinds.browser.settings",
    "toolwire.backends.browser.tabs": "toolwire.capabilities.kinds.browser.tabs",
    "toolwire.backends.capability_backends": "toolwire.capabilities.backends",
    "toolwire.backends.default_ttl": "toolwire.capabilities.kinds.storage.default_ttl",
    "toolwire.backends.defaults": "toolwire.capabilities.defaults",
    "toolwire.backends.file_operations": "toolwire.capabilities.kinds.fs_reach.file_operations",
    "toolwire.backends.files": "toolwire.capabilities.kinds.fs_reach.scoped",
    "toolwire.backends.kv": "toolwire.stores",
    "toolwire.backends.log_watch": "toolwire.capabilities.kinds.process.log_watch",
    "toolwire.backends.network": "toolwire.capabilities.kinds.network",
    "toolwire.backends.process_backends": "toolwire.capabilities.kinds.process.backends",
    "toolwire.backends.process_logs": "toolwire.capabilities.kinds.process.process_logs",
    "toolwire.backends.processes": "toolwire.capabilities.kinds.process.runner",
    "toolwire.backends.regular_files": "toolwire.capabilities.kinds.fs_reach.regular_files",
    "toolwire.backends.resolver": "toolwire.capabilities.resolver",
    "toolwire.backends.scoped_processes": "toolwire.capabilities.kinds.process.scoped",
    "toolwire.backends.secret_env": "toolwire.capabilities.kinds.secrets.env",
    "toolwire.backends.secrets": "toolwire.capabilities.kinds.secrets.resolvers",
    "toolwire.backends.shared_stores": "toolwire.capabilities.kinds.shared_storage.stores",
    "toolwire.config_code": "toolwire.config.code",
    "toolwire.config_code_mode": "toolwire.config.code_mode",
    "toolwire.config_env": "toolwire.config.env",
    "toolwire.config_files": "toolwire.config.files",
    "toolwire.config_roots": "toolwire.config.roots",
    "toolwire.config_tables": "toolwire.config.tables",
    "toolwire.mcp.approval_requests": "toolwire.mcp.server.approval_requests",
    "toolwire.mcp.auth": "toolwire.mcp.server.auth",
    "toolwire.mcp.bridge": "toolwire.mcp.client.bridge",
    "toolwire.mcp.client_handlers": "toolwire.mcp.client.handlers",
    "toolwire.mcp.coalesce": "toolwire.mcp.server.fast_http.coalesce",
    "toolwire.mcp.coalesce_protocol": "toolwire.mcp.server.fast_http.coalesce_protocol",
    "toolwire.mcp.connection": "toolwire.mcp.client.connection",
    "toolwire.mcp.cors": "toolwire.mcp.server.cors",
    "toolwire.mcp.event_store": "toolwire.mcp.server.event_store",
    "toolwire.mcp.hangups": "toolwire.mcp.server.hangups",
    "toolwire.mcp.health": "toolwire.mcp.server.health",
    "toolwire.mcp.http_endpoint": "toolwire.mcp.server.http_endpoint",
    "toolwire.mcp.identity": "toolwire.mcp.server.identity",
    "toolwire.mcp.json_depth": "toolwire.mcp.server.json_depth",
    "toolwire.mcp.lean": "toolwire.mcp.server.fast_http",
    "toolwire.mcp.link": "toolwire.mcp.client.link",
    "toolwire.mcp.listing": "toolwire.mcp.server.listing",
    "toolwire.mcp.media": "toolwire.mcp.server.media",
    "toolwire.mcp.peer": "toolwire.mcp.server.peer",
    "toolwire.mcp.pinning": "toolwire.mcp.client.pinning",
    "toolwire.mcp.replica_records": "toolwire.replicas.session_read_records",
    "toolwire.mcp.replica_sessions": "toolwire.replicas.handshake_sessions",
    "toolwire.mcp.result_resources": "toolwire.mcp.server.result_resources",
    "toolwire.mcp.resumable": "toolwire.mcp.server.resumable",
    "toolwire.mcp.rich_results": "toolwire.mcp.server.rich_results",
    "toolwire.mcp.serve_options": "toolwire.mcp.server.options",
    "toolwire.mcp.serving": "toolwire.mcp.server.serving",
    "toolwire.mcp.session_tools": "toolwire.mcp.server.session_tools",
    "toolwire.mcp.sessions": "toolwire.mcp.server.sessions",
    "toolwire.mcp.stdin_lines": "toolwire.mcp.server.stdin_lines",
    "toolwire.mcp.stdio_lean": "toolwire.mcp.server.fast_stdio",
    "toolwire.mcp.task_client": "toolwire.mcp.client.tasks",
    "toolwire.mcp.task_records": "toolwire.mcp.server.task_records",
    "toolwire.mcp.tasks": "toolwire.mcp.server.tasks",
    "toolwire.mcp.transports": "toolwire.mcp.client.transports",
    "toolwire.mcp.wire_json": "toolwire.mcp.server.wire_json",
    "toolwire.sandbox": "toolwire.capabilities.kinds.process.sandbox",
    "toolwire.replicas.serving": "toolwire.replicas.membership",
    "toolwire.sandbox.notices": "toolwire.toolbox.sandbox_notices",
    "toolwire.seams": "toolwire.capabilities.seams",
    "toolwire.seams.archive": "toolwire.capabilities.kinds.archive.seam",
    "toolwire.seams.attachments": "toolwire.capabilities.kinds.attachments.seam",
    "toolwire.seams.fs_reach": "toolwire.capabilities.kinds.fs_reach.seam",
    "toolwire.seams.network": "toolwire.capabilities.kinds.network.seam",
    "toolwire.seams.process": "toolwire.capabilities.kinds.process.seam",
    "toolwire.seams.secrets": "toolwire.capabilities.kinds.secrets.seam",
    "toolwire.seams.shared_storage": "toolwire.capabilities.kinds.shared_storage.seam",
    "toolwire.seams.storage": "toolwire.capabilities.kinds.storage.seam",
    "toolwire.seams.subagent": "toolwire.capabilities.kinds.subagent.seam",
    "toolwire.toolbox.results": "toolwire.toolbox.kept_results",
}
"""Each old module path and where it is now; a package's modules follow their package."""

GONE_PACKAGES = frozenset({"toolwire.backends"})
"""Old packages with no single new home: an empty package, so their old modules still import."""


def new_path(name: str) -> str | None:
    """Where the module once imported as ``name`` lives now, or ``None`` if it never moved."""
    if name in MOVED:
        return MOVED[name]
    head = name.rpartition(".")[0]
    while head:
        if head in MOVED:
            return MOVED[head] + name[len(head) :]
        head, _, _ = head.rpartition(".")
    return None


class _MovedFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds old paths and loads them as the module at the new path."""

    def find_spec(
        self,
        fullname: str,
        path: Sequence[str] | None,
        target: types.ModuleType | None = None,
    ) -> importlib.machinery.ModuleSpec | None:
        if not fullname.startswith("toolwire."):
            return None
        if fullname in GONE_PACKAGES or new_path(fullname) is not None:
            return importlib.machinery.ModuleSpec(
                fullname, self, is_package=fullname in GONE_PACKAGES
            )
        return None

    def exec_module(self, module: types.ModuleType) -> None:
        name = module.__name__
        if name in GONE_PACKAGES:
            module.__path__ = []
            return
        target = new_path(name)
        assert target is not None  # find_spec answered only for moved names
        warnings.warn(
            f"{name} moved to {target} in toolwire 0.2; import it from there "
            "(the old path goes in 0.3)",
            DeprecationWarning,
            stacklevel=2,
        )
        # The import system returns what sys.modules holds once this returns: the real module.
        sys.modules[name] = importlib.import_module(target)


_FINDER = _MovedFinder()


def install() -> None:
    """Put the finder of moved modules first on `sys.meta_path` (once)."""
    if _FINDER not in sys.meta_path:
        sys.meta_path.insert(0, _FINDER)
