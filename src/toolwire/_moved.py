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
    "toolwire.backends.archive.base": "toolwire.capabilities.kinds.archive._base",
    "toolwire.backends.archive.postgres": "toolwire.capabilities.kinds.archive._postgres",
    "toolwire.backends.archive.query": "toolwire.capabilities.kinds.archive._query",
    "toolwire.backends.archive.scoped": "toolwire.capabilities.kinds.archive._scoped",
    "toolwire.backends.archive.sqlite": "toolwire.capabilities.kinds.archive._sqlite",
    "toolwire.backends.archive.stop_words": "toolwire.capabilities.kinds.archive._stop_words",
    "toolwire.backends.archive.urls": "toolwire.capabilities.kinds.archive._urls",
    "toolwire.backends.atomic": "toolwire.capabilities.kinds.fs_reach._atomic",
    "toolwire.backends.attachments": "toolwire.capabilities.kinds.attachments._filtered",
    "toolwire.backends.background": "toolwire.capabilities.kinds.process.background",
    "toolwire.backends.background_process": (
        "toolwire.capabilities.kinds.process._background_process"
    ),
    "toolwire.backends.beneath": "toolwire.capabilities.kinds.fs_reach.beneath",
    "toolwire.backends.browser": "toolwire.capabilities.kinds.browser",
    "toolwire.backends.browser.backend": "toolwire.capabilities.kinds.browser.backend",
    "toolwire.backends.browser.runtime": "toolwire.capabilities.kinds.browser._runtime",
    "toolwire.backends.browser.schemes": "toolwire.capabilities.kinds.browser.seam",
    "toolwire.backends.browser.session": "toolwire.capabilities.kinds.browser._session",
    "toolwire.backends.browser.settings": "toolwire.capabilities.kinds.browser._settings",
    "toolwire.backends.browser.tabs": "toolwire.capabilities.kinds.browser._tabs",
    "toolwire.backends.capability_backends": "toolwire.capabilities._backends",
    "toolwire.backends.default_ttl": "toolwire.capabilities.kinds.storage._default_ttl",
    "toolwire.backends.defaults": "toolwire.capabilities.defaults",
    "toolwire.backends.file_operations": "toolwire.capabilities.kinds.fs_reach._file_operations",
    "toolwire.backends.files": "toolwire.capabilities.kinds.fs_reach._scoped",
    "toolwire.backends.kv": "toolwire.stores",
    "toolwire.backends.log_watch": "toolwire.capabilities.kinds.process._log_watch",
    "toolwire.backends.network": "toolwire.capabilities.kinds.network",
    "toolwire.backends.process_backends": "toolwire.capabilities.kinds.process._backends",
    "toolwire.backends.process_logs": "toolwire.capabilities.kinds.process._process_logs",
    "toolwire.backends.processes": "toolwire.capabilities.kinds.process._runner",
    "toolwire.backends.regular_files": "toolwire.capabilities.kinds.fs_reach.regular_files",
    "toolwire.backends.resolver": "toolwire.capabilities.resolver",
    "toolwire.backends.scoped_processes": "toolwire.capabilities.kinds.process._scoped",
    "toolwire.backends.secret_env": "toolwire.capabilities.kinds.secrets._env",
    "toolwire.backends.secrets": "toolwire.capabilities.kinds.secrets._resolvers",
    "toolwire.backends.shared_stores": "toolwire.capabilities.kinds.shared_storage._stores",
    "toolwire.capabilities.backends": "toolwire.capabilities._backends",
    "toolwire.capabilities.declarations": "toolwire.capabilities._declarations",
    "toolwire.capabilities.kinds.archive.base": "toolwire.capabilities.kinds.archive._base",
    "toolwire.capabilities.kinds.archive.postgres": "toolwire.capabilities.kinds.archive._postgres",
    "toolwire.capabilities.kinds.archive.query": "toolwire.capabilities.kinds.archive._query",
    "toolwire.capabilities.kinds.archive.scoped": "toolwire.capabilities.kinds.archive._scoped",
    "toolwire.capabilities.kinds.archive.sqlite": "toolwire.capabilities.kinds.archive._sqlite",
    "toolwire.capabilities.kinds.archive.stop_words": (
        "toolwire.capabilities.kinds.archive._stop_words"
    ),
    "toolwire.capabilities.kinds.archive.urls": "toolwire.capabilities.kinds.archive._urls",
    "toolwire.capabilities.kinds.attachments.filtered": (
        "toolwire.capabilities.kinds.attachments._filtered"
    ),
    "toolwire.capabilities.kinds.browser.runtime": "toolwire.capabilities.kinds.browser._runtime",
    "toolwire.capabilities.kinds.browser.session": "toolwire.capabilities.kinds.browser._session",
    "toolwire.capabilities.kinds.browser.settings": "toolwire.capabilities.kinds.browser._settings",
    "toolwire.capabilities.kinds.browser.tabs": "toolwire.capabilities.kinds.browser._tabs",
    "toolwire.capabilities.kinds.fs_reach.atomic": "toolwire.capabilities.kinds.fs_reach._atomic",
    "toolwire.capabilities.kinds.fs_reach.file_operations": (
        "toolwire.capabilities.kinds.fs_reach._file_operations"
    ),
    "toolwire.capabilities.kinds.fs_reach.scoped": "toolwire.capabilities.kinds.fs_reach._scoped",
    "toolwire.capabilities.kinds.network.addresses": (
        "toolwire.capabilities.kinds.network._addresses"
    ),
    "toolwire.capabilities.kinds.network.canonical_hosts": (
        "toolwire.capabilities.kinds.network._canonical_hosts"
    ),
    "toolwire.capabilities.kinds.network.embedded_ipv4": (
        "toolwire.capabilities.kinds.network._embedded_ipv4"
    ),
    "toolwire.capabilities.kinds.network.exchange": "toolwire.capabilities.kinds.network._exchange",
    "toolwire.capabilities.kinds.network.fetcher": "toolwire.capabilities.kinds.network._fetcher",
    "toolwire.capabilities.kinds.network.hosts": "toolwire.capabilities.kinds.network._hosts",
    "toolwire.capabilities.kinds.network.policy": "toolwire.capabilities.kinds.network._policy",
    "toolwire.capabilities.kinds.network.ports": "toolwire.capabilities.kinds.network._ports",
    "toolwire.capabilities.kinds.network.refusals": "toolwire.capabilities.kinds.network._refusals",
    "toolwire.capabilities.kinds.network.resolvers": (
        "toolwire.capabilities.kinds.network._resolvers"
    ),
    "toolwire.capabilities.kinds.network.scoped": "toolwire.capabilities.kinds.network._scoped",
    "toolwire.capabilities.kinds.network.transport": (
        "toolwire.capabilities.kinds.network._transport"
    ),
    "toolwire.capabilities.kinds.network.urls": "toolwire.capabilities.kinds.network._urls",
    "toolwire.capabilities.kinds.process.backends": "toolwire.capabilities.kinds.process._backends",
    "toolwire.capabilities.kinds.process.background_process": (
        "toolwire.capabilities.kinds.process._background_process"
    ),
    "toolwire.capabilities.kinds.process.log_watch": (
        "toolwire.capabilities.kinds.process._log_watch"
    ),
    "toolwire.capabilities.kinds.process.process_logs": (
        "toolwire.capabilities.kinds.process._process_logs"
    ),
    "toolwire.capabilities.kinds.process.runner": "toolwire.capabilities.kinds.process._runner",
    "toolwire.capabilities.kinds.process.sandbox.cgroups": (
        "toolwire.capabilities.kinds.process.sandbox._cgroups"
    ),
    "toolwire.capabilities.kinds.process.sandbox.confinement": (
        "toolwire.capabilities.kinds.process.sandbox._confinement"
    ),
    "toolwire.capabilities.kinds.process.sandbox.egress.answers": (
        "toolwire.capabilities.kinds.process.sandbox.egress._answers"
    ),
    "toolwire.capabilities.kinds.process.sandbox.egress.client": (
        "toolwire.capabilities.kinds.process.sandbox.egress._client"
    ),
    "toolwire.capabilities.kinds.process.sandbox.egress.connection": (
        "toolwire.capabilities.kinds.process.sandbox.egress._connection"
    ),
    "toolwire.capabilities.kinds.process.sandbox.egress.context": (
        "toolwire.capabilities.kinds.process.sandbox.egress._context"
    ),
    "toolwire.capabilities.kinds.process.sandbox.egress.forward": (
        "toolwire.capabilities.kinds.process.sandbox.egress._forward"
    ),
    "toolwire.capabilities.kinds.process.sandbox.egress.headers": (
        "toolwire.capabilities.kinds.process.sandbox.egress._headers"
    ),
    "toolwire.capabilities.kinds.process.sandbox.egress.limits": (
        "toolwire.capabilities.kinds.process.sandbox.egress._limits"
    ),
    "toolwire.capabilities.kinds.process.sandbox.egress.listeners": (
        "toolwire.capabilities.kinds.process.sandbox.egress._listeners"
    ),
    "toolwire.capabilities.kinds.process.sandbox.egress.proxy": (
        "toolwire.capabilities.kinds.process.sandbox.egress._proxy"
    ),
    "toolwire.capabilities.kinds.process.sandbox.egress.splice": (
        "toolwire.capabilities.kinds.process.sandbox.egress._splice"
    ),
    "toolwire.capabilities.kinds.process.sandbox.egress.tunnel": (
        "toolwire.capabilities.kinds.process.sandbox.egress._tunnel"
    ),
    "toolwire.capabilities.kinds.process.sandbox.egress_gateway": (
        "toolwire.capabilities.kinds.process.sandbox._egress_gateway"
    ),
    "toolwire.capabilities.kinds.process.sandbox.host_dir": (
        "toolwire.capabilities.kinds.process.sandbox._host_dir"
    ),
    "toolwire.capabilities.kinds.process.sandbox.launch": (
        "toolwire.capabilities.kinds.process.sandbox._launch"
    ),
    "toolwire.capabilities.kinds.process.sandbox.layout": (
        "toolwire.capabilities.kinds.process.sandbox._layout"
    ),
    "toolwire.capabilities.kinds.process.sandbox.lifelines": (
        "toolwire.capabilities.kinds.process.sandbox._lifelines"
    ),
    "toolwire.capabilities.kinds.process.sandbox.modes": (
        "toolwire.capabilities.kinds.process.sandbox._modes"
    ),
    "toolwire.capabilities.kinds.process.sandbox.probe": (
        "toolwire.capabilities.kinds.process.sandbox._probe"
    ),
    "toolwire.capabilities.kinds.process.sandbox.settings": (
        "toolwire.capabilities.kinds.process.sandbox._settings"
    ),
    "toolwire.capabilities.kinds.process.scoped": "toolwire.capabilities.kinds.process._scoped",
    "toolwire.capabilities.kinds.secrets.env": "toolwire.capabilities.kinds.secrets._env",
    "toolwire.capabilities.kinds.secrets.resolvers": (
        "toolwire.capabilities.kinds.secrets._resolvers"
    ),
    "toolwire.capabilities.kinds.shared_storage.stores": (
        "toolwire.capabilities.kinds.shared_storage._stores"
    ),
    "toolwire.capabilities.kinds.storage.default_ttl": (
        "toolwire.capabilities.kinds.storage._default_ttl"
    ),
    "toolwire.capabilities.kinds.subagent.chat_client": (
        "toolwire.capabilities.kinds.subagent._chat_client"
    ),
    "toolwire.capabilities.kinds.subagent.chat_runner": (
        "toolwire.capabilities.kinds.subagent._chat_runner"
    ),
    "toolwire.capabilities.kinds.subagent.child": "toolwire.capabilities.kinds.subagent._child",
    "toolwire.capabilities.kinds.subagent.delegation": (
        "toolwire.capabilities.kinds.subagent._delegation"
    ),
    "toolwire.capabilities.kinds.subagent.pricing": "toolwire.capabilities.kinds.subagent._pricing",
    "toolwire.capabilities.kinds.subagent.runner": "toolwire.capabilities.kinds.subagent._runner",
    "toolwire.capabilities.kinds.subagent.runs": "toolwire.capabilities.kinds.subagent._runs",
    "toolwire.capabilities.kinds.subagent.settings": (
        "toolwire.capabilities.kinds.subagent._settings"
    ),
    "toolwire.capabilities.kinds.subagent.tally": "toolwire.capabilities.kinds.subagent._tally",
    "toolwire.code_mode.description": "toolwire.code_mode._description",
    "toolwire.code_mode.flow": "toolwire.code_mode._flow",
    "toolwire.code_mode.programs": "toolwire.code_mode._programs",
    "toolwire.code_mode.python_runtime": "toolwire.code_mode._python_runtime",
    "toolwire.code_mode.run_code": "toolwire.code_mode._run_code",
    "toolwire.code_mode.settings": "toolwire.code_mode._settings",
    "toolwire.code_mode.states": "toolwire.code_mode._states",
    "toolwire.code_mode.stubs": "toolwire.code_mode._stubs",
    "toolwire.code_mode.turns": "toolwire.code_mode._turns",
    "toolwire.code_mode.workers": "toolwire.code_mode._workers",
    "toolwire.config.code": "toolwire.config._code",
    "toolwire.config.code_mode": "toolwire.config._code_mode",
    "toolwire.config.env": "toolwire.config._env",
    "toolwire.config.roots": "toolwire.config._roots",
    "toolwire.config.tables": "toolwire.config._tables",
    "toolwire.config_code": "toolwire.config._code",
    "toolwire.config_code_mode": "toolwire.config._code_mode",
    "toolwire.config_env": "toolwire.config._env",
    "toolwire.config_files": "toolwire.config.files",
    "toolwire.config_roots": "toolwire.config._roots",
    "toolwire.config_tables": "toolwire.config._tables",
    "toolwire.mcp.approval_requests": "toolwire.mcp.server._approval_requests",
    "toolwire.mcp.auth": "toolwire.mcp.server.auth",
    "toolwire.mcp.bridge": "toolwire.mcp.client._bridge",
    "toolwire.mcp.client.bridge": "toolwire.mcp.client._bridge",
    "toolwire.mcp.client.provider": "toolwire.mcp.client._provider",
    "toolwire.mcp.client.transports": "toolwire.mcp.client._transports",
    "toolwire.mcp.client_handlers": "toolwire.mcp.client.handlers",
    "toolwire.mcp.coalesce": "toolwire.mcp.server.fast_http.coalesce",
    "toolwire.mcp.coalesce_protocol": "toolwire.mcp.server.fast_http._coalesce_protocol",
    "toolwire.mcp.connection": "toolwire.mcp.client.connection",
    "toolwire.mcp.conversion": "toolwire.mcp._conversion",
    "toolwire.mcp.cors": "toolwire.mcp.server.cors",
    "toolwire.mcp.event_store": "toolwire.mcp.server.event_store",
    "toolwire.mcp.hangups": "toolwire.mcp.server.hangups",
    "toolwire.mcp.health": "toolwire.mcp.server.health",
    "toolwire.mcp.http_endpoint": "toolwire.mcp.server._http_endpoint",
    "toolwire.mcp.identity": "toolwire.mcp.server._identity",
    "toolwire.mcp.json_depth": "toolwire.mcp.server.json_depth",
    "toolwire.mcp.lean": "toolwire.mcp.server.fast_http",
    "toolwire.mcp.link": "toolwire.mcp.client.link",
    "toolwire.mcp.listing": "toolwire.mcp.server.listing",
    "toolwire.mcp.media": "toolwire.mcp.server.media",
    "toolwire.mcp.peer": "toolwire.mcp.server.peer",
    "toolwire.mcp.pinning": "toolwire.mcp.client.pinning",
    "toolwire.mcp.read_streams": "toolwire.mcp._read_streams",
    "toolwire.mcp.replica_records": "toolwire.replicas._session_read_records",
    "toolwire.mcp.replica_sessions": "toolwire.replicas.handshake_sessions",
    "toolwire.mcp.result_resources": "toolwire.mcp.server.result_resources",
    "toolwire.mcp.resumable": "toolwire.mcp.server.resumable",
    "toolwire.mcp.rich_results": "toolwire.mcp.server.rich_results",
    "toolwire.mcp.serve_options": "toolwire.mcp.server._options",
    "toolwire.mcp.server.approval_requests": "toolwire.mcp.server._approval_requests",
    "toolwire.mcp.server.auth.credentials": "toolwire.mcp.server.auth._credentials",
    "toolwire.mcp.server.auth.discovery": "toolwire.mcp.server.auth._discovery",
    "toolwire.mcp.server.auth.env": "toolwire.mcp.server.auth._env",
    "toolwire.mcp.server.auth.exposure": "toolwire.mcp.server.auth._exposure",
    "toolwire.mcp.server.auth.fetch": "toolwire.mcp.server.auth._fetch",
    "toolwire.mcp.server.auth.guard": "toolwire.mcp.server.auth._guard",
    "toolwire.mcp.server.auth.jwks": "toolwire.mcp.server.auth._jwks",
    "toolwire.mcp.server.auth.oauth": "toolwire.mcp.server.auth._oauth",
    "toolwire.mcp.server.auth.principals": "toolwire.mcp.server.auth._principals",
    "toolwire.mcp.server.auth.verifier": "toolwire.mcp.server.auth._verifier",
    "toolwire.mcp.server.fast_http.asgi_io": "toolwire.mcp.server.fast_http._asgi_io",
    "toolwire.mcp.server.fast_http.coalesce_protocol": (
        "toolwire.mcp.server.fast_http._coalesce_protocol"
    ),
    "toolwire.mcp.server.fast_http.envelope": "toolwire.mcp.server.fast_http._envelope",
    "toolwire.mcp.server.fast_http.front": "toolwire.mcp.server.fast_http._front",
    "toolwire.mcp.server.fast_http.path": "toolwire.mcp.server.fast_http._path",
    "toolwire.mcp.server.fast_stdio.answers": "toolwire.mcp.server.fast_stdio._answers",
    "toolwire.mcp.server.fast_stdio.handover": "toolwire.mcp.server.fast_stdio._handover",
    "toolwire.mcp.server.fast_stdio.loop": "toolwire.mcp.server.fast_stdio._loop",
    "toolwire.mcp.server.fast_stdio.messages": "toolwire.mcp.server.fast_stdio._messages",
    "toolwire.mcp.server.fast_stdio.peers": "toolwire.mcp.server.fast_stdio._peers",
    "toolwire.mcp.server.fast_stdio.wire": "toolwire.mcp.server.fast_stdio._wire",
    "toolwire.mcp.server.http_endpoint": "toolwire.mcp.server._http_endpoint",
    "toolwire.mcp.server.identity": "toolwire.mcp.server._identity",
    "toolwire.mcp.server.options": "toolwire.mcp.server._options",
    "toolwire.mcp.server.server": "toolwire.mcp.server._server",
    "toolwire.mcp.server.tasks": "toolwire.mcp.server._tasks",
    "toolwire.mcp.serving": "toolwire.mcp.server.serving",
    "toolwire.mcp.session_tools": "toolwire.mcp.server.session_tools",
    "toolwire.mcp.sessions": "toolwire.mcp.server.sessions",
    "toolwire.mcp.settings": "toolwire.mcp._settings",
    "toolwire.mcp.stdin_lines": "toolwire.mcp.server.stdin_lines",
    "toolwire.mcp.stdio_lean": "toolwire.mcp.server.fast_stdio",
    "toolwire.mcp.task_client": "toolwire.mcp.client.tasks",
    "toolwire.mcp.task_extension": "toolwire.mcp._task_extension",
    "toolwire.mcp.task_records": "toolwire.mcp.server.task_records",
    "toolwire.mcp.tasks": "toolwire.mcp.server._tasks",
    "toolwire.mcp.transports": "toolwire.mcp.client._transports",
    "toolwire.mcp.wire_json": "toolwire.mcp.server.wire_json",
    "toolwire.providers.base": "toolwire.providers._base",
    "toolwire.providers.cached": "toolwire.providers._cached",
    "toolwire.providers.combined": "toolwire.providers._combined",
    "toolwire.providers.gated": "toolwire.providers._gated",
    "toolwire.providers.skill_scoped": "toolwire.providers._skill_scoped",
    "toolwire.providers.snapshot": "toolwire.providers._snapshot",
    "toolwire.providers.static": "toolwire.providers._static",
    "toolwire.reducers.defaults": "toolwire.reducers._defaults",
    "toolwire.reducers.git_status": "toolwire.reducers._git_status",
    "toolwire.reducers.head_tail": "toolwire.reducers._head_tail",
    "toolwire.reducers.installs": "toolwire.reducers._installs",
    "toolwire.reducers.kanban": "toolwire.reducers._kanban",
    "toolwire.reducers.lines": "toolwire.reducers._lines",
    "toolwire.reducers.read_file": "toolwire.reducers._read_file",
    "toolwire.reducers.registry": "toolwire.reducers._registry",
    "toolwire.reducers.spill": "toolwire.reducers._spill",
    "toolwire.reducers.terminal": "toolwire.reducers._terminal",
    "toolwire.replicas.directory": "toolwire.replicas._directory",
    "toolwire.replicas.membership": "toolwire.replicas._membership",
    "toolwire.replicas.read_records": "toolwire.replicas._read_records",
    "toolwire.replicas.serving": "toolwire.replicas._membership",
    "toolwire.replicas.session_read_records": "toolwire.replicas._session_read_records",
    "toolwire.replicas.session_records": "toolwire.replicas._session_records",
    "toolwire.replicas.settings": "toolwire.replicas._settings",
    "toolwire.replicas.state": "toolwire.replicas._state",
    "toolwire.safety.bash.code_runs": "toolwire.safety.bash._code_runs",
    "toolwire.safety.bash.code_scan": "toolwire.safety.bash._code_scan",
    "toolwire.safety.bash.code_values": "toolwire.safety.bash._code_values",
    "toolwire.safety.bash.commands": "toolwire.safety.bash._commands",
    "toolwire.safety.bash.config_commands": "toolwire.safety.bash._config_commands",
    "toolwire.safety.bash.fallback": "toolwire.safety.bash._fallback",
    "toolwire.safety.bash.flows": "toolwire.safety.bash._flows",
    "toolwire.safety.bash.line_files": "toolwire.safety.bash._line_files",
    "toolwire.safety.bash.line_state": "toolwire.safety.bash._line_state",
    "toolwire.safety.bash.model": "toolwire.safety.bash._model",
    "toolwire.safety.bash.nested": "toolwire.safety.bash._nested",
    "toolwire.safety.bash.shapes": "toolwire.safety.bash._shapes",
    "toolwire.safety.bash.syntax": "toolwire.safety.bash._syntax",
    "toolwire.safety.bash.walk": "toolwire.safety.bash._walk",
    "toolwire.safety.bash.words": "toolwire.safety.bash._words",
    "toolwire.safety.command_device_rules": "toolwire.safety._command_device_rules",
    "toolwire.safety.command_globs": "toolwire.safety._command_globs",
    "toolwire.safety.command_paths": "toolwire.safety._command_paths",
    "toolwire.safety.command_rules": "toolwire.safety._command_rules",
    "toolwire.safety.command_segments": "toolwire.safety._command_segments",
    "toolwire.safety.linear_syntax": "toolwire.safety._linear_syntax",
    "toolwire.safety.redaction": "toolwire.safety._redaction",
    "toolwire.safety.untrusted": "toolwire.safety._untrusted",
    "toolwire.sandbox": "toolwire.capabilities.kinds.process.sandbox",
    "toolwire.sandbox.notices": "toolwire.toolbox._sandbox_notices",
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
    "toolwire.stores.base": "toolwire.stores._base",
    "toolwire.stores.loops": "toolwire.stores._loops",
    "toolwire.stores.memory": "toolwire.stores._memory",
    "toolwire.stores.namespace": "toolwire.stores._namespace",
    "toolwire.stores.postgres": "toolwire.stores._postgres",
    "toolwire.stores.redis": "toolwire.stores._redis",
    "toolwire.stores.scoped": "toolwire.stores._scoped",
    "toolwire.stores.sqlite": "toolwire.stores._sqlite",
    "toolwire.stores.sqlite_thread": "toolwire.stores._sqlite_thread",
    "toolwire.stores.ttls": "toolwire.stores._ttls",
    "toolwire.stores.url_settings": "toolwire.stores._url_settings",
    "toolwire.stores.urls": "toolwire.stores._urls",
    "toolwire.telemetry.content": "toolwire.telemetry._content",
    "toolwire.telemetry.instrumenting": "toolwire.telemetry._instrumenting",
    "toolwire.telemetry.instruments": "toolwire.telemetry._instruments",
    "toolwire.telemetry.names": "toolwire.telemetry._names",
    "toolwire.telemetry.tracer": "toolwire.telemetry._tracer",
    "toolwire.tool_search.bm25": "toolwire.tool_search._bm25",
    "toolwire.tool_search.builtin": "toolwire.tool_search._builtin",
    "toolwire.tool_search.deferral": "toolwire.tool_search._deferral",
    "toolwire.tool_search.found": "toolwire.tool_search._found",
    "toolwire.tool_search.fts5": "toolwire.tool_search._fts5",
    "toolwire.tool_search.index": "toolwire.tool_search._index",
    "toolwire.tool_search.regex": "toolwire.tool_search._regex",
    "toolwire.tool_search.searching": "toolwire.tool_search._searching",
    "toolwire.tool_search.tokens": "toolwire.tool_search._tokens",
    "toolwire.toolbox.browser.availability": "toolwire.toolbox.browser._availability",
    "toolwire.toolbox.browser.common": "toolwire.toolbox.browser._common",
    "toolwire.toolbox.browser.downloads": "toolwire.toolbox.browser._downloads",
    "toolwire.toolbox.browser.interaction": "toolwire.toolbox.browser._interaction",
    "toolwire.toolbox.browser.navigation": "toolwire.toolbox.browser._navigation",
    "toolwire.toolbox.browser.observation": "toolwire.toolbox.browser._observation",
    "toolwire.toolbox.browser.snapshots": "toolwire.toolbox.browser._snapshots",
    "toolwire.toolbox.browser.tabs": "toolwire.toolbox.browser._tabs",
    "toolwire.toolbox.code.cargo_messages": "toolwire.toolbox.code._cargo_messages",
    "toolwire.toolbox.code.checking": "toolwire.toolbox.code._checking",
    "toolwire.toolbox.code.definitions": "toolwire.toolbox.code._definitions",
    "toolwire.toolbox.code.diagnostics": "toolwire.toolbox.code._diagnostics",
    "toolwire.toolbox.code.ecosystems": "toolwire.toolbox.code._ecosystems",
    "toolwire.toolbox.code.failures": "toolwire.toolbox.code._failures",
    "toolwire.toolbox.code.go_checks": "toolwire.toolbox.code._go_checks",
    "toolwire.toolbox.code.javascript_checks": "toolwire.toolbox.code._javascript_checks",
    "toolwire.toolbox.code.javascript_tests": "toolwire.toolbox.code._javascript_tests",
    "toolwire.toolbox.code.junit": "toolwire.toolbox.code._junit",
    "toolwire.toolbox.code.parsing": "toolwire.toolbox.code._parsing",
    "toolwire.toolbox.code.projects": "toolwire.toolbox.code._projects",
    "toolwire.toolbox.code.pytest_checks": "toolwire.toolbox.code._pytest_checks",
    "toolwire.toolbox.code.python_checks": "toolwire.toolbox.code._python_checks",
    "toolwire.toolbox.code.rendering": "toolwire.toolbox.code._rendering",
    "toolwire.toolbox.code.report_lint": "toolwire.toolbox.code._report_lint",
    "toolwire.toolbox.code.reports": "toolwire.toolbox.code._reports",
    "toolwire.toolbox.code.running": "toolwire.toolbox.code._running",
    "toolwire.toolbox.code.rust_checks": "toolwire.toolbox.code._rust_checks",
    "toolwire.toolbox.code.safe_xml": "toolwire.toolbox.code._safe_xml",
    "toolwire.toolbox.code.toolchains": "toolwire.toolbox.code._toolchains",
    "toolwire.toolbox.common": "toolwire.toolbox._common",
    "toolwire.toolbox.delegation": "toolwire.toolbox._delegation",
    "toolwire.toolbox.diagnosis": "toolwire.toolbox._diagnosis",
    "toolwire.toolbox.file_stats": "toolwire.toolbox._file_stats",
    "toolwire.toolbox.files": "toolwire.toolbox._files",
    "toolwire.toolbox.filetypes": "toolwire.toolbox._filetypes",
    "toolwire.toolbox.kanban.board": "toolwire.toolbox.kanban._board",
    "toolwire.toolbox.kanban.cards": "toolwire.toolbox.kanban._cards",
    "toolwire.toolbox.kanban.tools": "toolwire.toolbox.kanban._tools",
    "toolwire.toolbox.kept_results": "toolwire.toolbox._kept_results",
    "toolwire.toolbox.locks": "toolwire.toolbox._locks",
    "toolwire.toolbox.memory.notes": "toolwire.toolbox.memory._notes",
    "toolwire.toolbox.memory.scopes": "toolwire.toolbox.memory._scopes",
    "toolwire.toolbox.memory.search": "toolwire.toolbox.memory._search",
    "toolwire.toolbox.memory.swaps": "toolwire.toolbox.memory._swaps",
    "toolwire.toolbox.memory.tools": "toolwire.toolbox.memory._tools",
    "toolwire.toolbox.patching": "toolwire.toolbox._patching",
    "toolwire.toolbox.processes": "toolwire.toolbox._processes",
    "toolwire.toolbox.protected": "toolwire.toolbox._protected",
    "toolwire.toolbox.results": "toolwire.toolbox._kept_results",
    "toolwire.toolbox.sandbox_notices": "toolwire.toolbox._sandbox_notices",
    "toolwire.toolbox.search": "toolwire.toolbox._search",
    "toolwire.toolbox.spill": "toolwire.toolbox._spill",
    "toolwire.toolbox.stale": "toolwire.toolbox._stale",
    "toolwire.toolbox.terminal": "toolwire.toolbox._terminal",
    "toolwire.toolbox.todo": "toolwire.toolbox._todo",
    "toolwire.toolbox.web.charsets": "toolwire.toolbox.web._charsets",
    "toolwire.toolbox.web.documents": "toolwire.toolbox.web._documents",
    "toolwire.toolbox.web.fetch": "toolwire.toolbox.web._fetch",
    "toolwire.toolbox.web.html": "toolwire.toolbox.web._html",
    "toolwire.toolbox.web.paging": "toolwire.toolbox.web._paging",
    "toolwire.toolbox.web.robots": "toolwire.toolbox.web._robots",
    "toolwire.toolbox.web.search.brave": "toolwire.toolbox.web.search._brave",
    "toolwire.toolbox.web.search.duckduckgo": "toolwire.toolbox.web.search._duckduckgo",
    "toolwire.toolbox.web.search.exa": "toolwire.toolbox.web.search._exa",
    "toolwire.toolbox.web.search.failures": "toolwire.toolbox.web.search._failures",
    "toolwire.toolbox.web.search.hits": "toolwire.toolbox.web.search._hits",
    "toolwire.toolbox.web.search.protocol": "toolwire.toolbox.web.search._protocol",
    "toolwire.toolbox.web.search.providers": "toolwire.toolbox.web.search._providers",
    "toolwire.toolbox.web.search.render": "toolwire.toolbox.web.search._render",
    "toolwire.toolbox.web.search.searxng": "toolwire.toolbox.web.search._searxng",
    "toolwire.toolbox.web.search.settings": "toolwire.toolbox.web.search._settings",
    "toolwire.toolbox.web.search.tavily": "toolwire.toolbox.web.search._tavily",
    "toolwire.toolbox.web.search.tool": "toolwire.toolbox.web.search._tool",
    "toolwire.toolbox.web.settings": "toolwire.toolbox.web._settings",
    "toolwire.toolbox.write_turns": "toolwire.toolbox._write_turns",
}
"""Each old module path and where it is now; a package's modules follow their package."""

GONE_PACKAGES = frozenset({"toolwire.backends"})
"""Old packages with no single new home: an empty package, so their old modules still import."""


def new_path(name: str) -> str | None:
    """Where the module once imported as ``name`` lives now, or ``None`` if it never moved.

    A module beneath a moved package follows it, and a path that moved twice (a package moved,
    then its module made private) is followed to its last home.
    """
    found = _one_step(name)
    for _ in range(len(MOVED)):
        further = None if found is None else _one_step(found)
        if further is None:
            return found
        found = further
    return found


def _one_step(name: str) -> str | None:
    if name in MOVED:
        return MOVED[name]
    head = name.rpartition(".")[0]
    while head:
        if head in MOVED:
            return MOVED[head] + name[len(head) :]
        head = head.rpartition(".")[0]
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
