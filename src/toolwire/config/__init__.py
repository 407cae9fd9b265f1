"""`toolwire.toml` and ``TOOLWIRE_*`` environment overrides → a frozen `ToolwireConfig`.

```toml
[sandbox]
roots = ["."]                 # read + write (default: the current directory)
read_only = ["/usr/share/dict"]
mode = "auto"                 # "required": refuse commands without bubblewrap; "off"
max_processes = 512           # per sandbox; also max_file_size_mb, max_cpu_s, max_memory_mb
protected = ["deploy/"]       # more paths no tool writes (docs/sandbox.md); unprotect = [...]

[network]
allow = ["api.github.com", "*.githubusercontent.com"]   # empty: every public host
deny = []

[store]
url = "sqlite:///.toolwire/state.db"   # or redis://..., postgresql://..., memory://

[tools]
toolsets = ["file", "terminal", "process"]   # absent: every built-in toolset
result_budget_chars = 80000
modules = ["tools.py", "pkg.tools"]          # your own tools (toolwire.tool_modules)
builtin = true                               # false: serve only your tools (and MCP servers')
defer = ["mcp__jira__*"]                     # found by tool_search first (docs/tool-search.md)

[result_handles]               # keep trimmed results whole, for read_result and resources/read
ttl_s = 3600
max_chars_per_session = 20000000

[[quotas]]                     # limits checked before a call runs (docs/quotas.md)
name = "searches"
toolsets = ["web"]
calls = 100
window_s = 3600

[serve]
host = "127.0.0.1"
port = 8765
session_idle_timeout_s = 300   # streamable HTTP: an idle session is closed after this
max_sessions = 1000            # at the cap, the session idle the longest makes room
max_sessions_per_principal = 100  # with [auth]: sessions one credential may hold
stateless_sessions = "per_principal"  # 2026-07-28: each credential its own session ("shared")
title = "ACME tools"           # serverInfo: also description, website_url, icons = [{ src = ... }]
tools_list_ttl_s = 60          # 2026-07-28 cache hint on tools/list (clients hear of changes)
cors_origins = ["https://app.example.com"]  # web pages that may call the server from a browser

[auth]                         # required to serve HTTP beyond 127.0.0.1 (docs/mcp.md)
tokens = true                  # bearer tokens from `toolwire token create`

[web_search]
provider = "brave"             # or tavily, exa, searxng, duckduckgo; key: $BRAVE_API_KEY

[code]                         # the code tools' checker timeouts (toolwire.config._code)
tests_timeout_s = 1800         # also lint_timeout_s (240), typecheck_timeout_s (300)

[secrets.env]                  # a ref's variable (every ref also has TOOLWIRE_SECRET_<REF>)
github_token = "GH_PAT"

[mcp.servers.files]
command = "npx"
args = ["-y", "@modelcontextprotocol/server-filesystem", "."]
```

Relative paths (sandbox roots, a relative SQLite path) are resolved against the directory of the
config file, or the current directory when there is none. Environment variables win over the file:
``TOOLWIRE_CONFIG`` (the file), ``TOOLWIRE_SANDBOX_ROOTS`` (``os.pathsep``-separated),
``TOOLWIRE_NETWORK_ALLOW`` / ``TOOLWIRE_NETWORK_DENY`` (comma-separated), ``TOOLWIRE_STORE_URL``,
``TOOLWIRE_TOOLSETS`` (comma-separated), ``TOOLWIRE_RESULT_BUDGET_CHARS``, ``TOOLWIRE_HOST``,
``TOOLWIRE_PORT``, ``TOOLWIRE_SANDBOX_MODE``, and ``TOOLWIRE_AUTH_*`` for each ``[auth]`` key
(`toolwire.mcp.server.auth._env`). A bad file or variable raises `ConfigurationError` naming the key
and the line (``toolwire.toml:7: store.url: expected a string``), never a traceback from deep
inside.

Rooms: ``files.py`` (a TOML file, errors by line), ``_tables.py`` (``[sandbox]``,
``[mcp.servers.*]``, ... read into values), ``_env.py`` (the ``TOOLWIRE_*`` overrides),
``_roots.py`` (sandbox roots checked: never ``/``, never missing), ``_code.py`` (``[code]``) and
``_code_mode.py`` (``[flow]`` and ``[code_mode]``).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from toolwire.capabilities.kinds.process.sandbox._settings import TABLE_KEYS, SandboxSettings
from toolwire.capabilities.kinds.secrets._resolvers import secrets_env_table
from toolwire.config._code import CodeSettings, code_table
from toolwire.config._env import env_overrides
from toolwire.config._roots import check_sandbox
from toolwire.config._tables import (
    SECTION_KEYS,
    absolute_sqlite,
    cors_origins_value,
    mcp_server_table,
    resolved_paths,
    result_handles_table,
    sandbox_table,
)
from toolwire.config.files import Located, check_keys, read_toml_file
from toolwire.context import DEFAULT_RESULT_BUDGET_CHARS
from toolwire.errors import ConfigurationError
from toolwire.execution.handles import ResultHandles
from toolwire.execution.quota_tables import quotas_from_tables
from toolwire.execution.quotas import Quotas
from toolwire.mcp._settings import McpServerConfig
from toolwire.mcp.server._identity import ServerIdentity, identity_from_table
from toolwire.mcp.server.auth._env import auth_settings_from_config
from toolwire.mcp.server.auth.settings import AuthSettings
from toolwire.tool_modules import ToolModule, tools_table

if TYPE_CHECKING:
    from toolwire.code_mode._settings import CodeModeSettings
    from toolwire.execution.approvals import AfterUntrusted

__all__ = [
    "CONFIG_FILE_NAME",
    "DEFAULT_STORE_URL",
    "ToolwireConfig",
    "check_sandbox",
    "load_config",
]

CONFIG_FILE_NAME = "toolwire.toml"
DEFAULT_STORE_URL = "sqlite:///.toolwire/state.db"


@dataclass(frozen=True, kw_only=True, slots=True)
class ToolwireConfig:
    """Everything `toolwire serve`, `toolwire call` and `create_registry` need.

    Attributes:
        base_dir: Where relative paths were resolved (the config file's directory).
        source: The config file read, if any.
        sandbox_read: Absolute paths tools may read.
        sandbox_write: Absolute paths tools may write (also readable).
        sandbox: The sandbox's mode and limits (``[sandbox] mode``, ``max_processes``, ...).
        network_allow: Host patterns fetches may reach (empty: every public host).
        network_deny: Host patterns they may never reach (checked first).
        allow_private_urls: Let fetches reach private and loopback addresses.
        store_url: The key-value store.
        toolsets: Built-in toolsets to enable (``None``: all).
        tool_modules: Your own tools' files and modules (``[tools] modules``, ``--tools``;
            `toolwire.tool_modules`).
        builtin_tools: Whether the built-in tools are served (``[tools] builtin``).
        deferred_tools: Tools left out of the definitions until ``tool_search`` finds them
            (``[tools] defer``: names or patterns such as ``mcp__jira__*``;
            `toolwire.tool_search`).
        result_budget_chars: The per-request output budget.
        http_host: Default ``toolwire serve --http`` interface.
        http_port: Default ``toolwire serve --http`` port.
        session_idle_timeout_s: Streamable HTTP sessions idle this long are closed
            (``None``: the server's default, 300 s).
        max_sessions: Streamable HTTP sessions open at once (``None``: the server's default,
            1,000).
        max_sessions_per_principal: Of those, how many one authenticated credential may hold
            (``None``: the server's default, 100).
        stateless_sessions: Whose 2026-07-28 requests share a session: ``per_principal``
            (each credential its own, the default) or ``shared`` (every client one).
        serve_identity: The server's title, description, website and icons (``[serve]``).
        tools_list_ttl_s: How long clients may cache ``tools/list`` (``None``: the server's
            default, 60 s).
        cors_origins: Origins of web pages that may call ``toolwire serve --http`` from a
            browser (``[serve] cors_origins``; `toolwire.mcp.server.cors`).
        mcp_servers: MCP servers whose tools are bridged in.
        auth: Who may use ``toolwire serve --http`` (``[auth]``: bearer tokens, OAuth);
            off by default, which only a loopback address allows.
        agents: The ``[agents]`` table (sub-agents for ``task``, see ``docs/agents.md``);
            ``None`` leaves the ``delegation`` toolset out.
        web_search: The ``[web_search]`` table (``web_search``'s provider, see
            ``docs/toolbox.md``); ``None``: the environment's or DuckDuckGo.
        code: The ``[code]`` table: the code tools' checker timeouts
            (`toolwire.config._code`); ``None``: the defaults.
        after_untrusted: ``[flow] after_untrusted``: a ``sink`` call once untrusted output
            reached its session (`toolwire.config._code_mode`).
        code_mode: ``[code_mode]``: ``run_code``'s limits when it is served (``enabled =
            true``); ``None``: not served.
        result_handles: Keep trimmed results whole behind handles (``[result_handles]``
            ``ttl_s``, ``max_chars_per_session``; see ``docs/result-handles.md``); ``None``:
            plain trims.
        quotas: The ``[[quotas]]`` tables: limits checked and reserved before each call runs
            (see ``docs/quotas.md``); ``None``: no quotas.
        replicas: The ``[replicas]`` table (``toolwire serve`` as one of several replicas on
            the shared store; keys checked by `toolwire.replicas.ReplicaSettings`, see
            ``docs/scaling.md``); ``None``: one server.
        secrets_env: ``[secrets.env]``: ref → environment variable, beside
            `DEFAULT_ENV_SECRETS` and each ref's own ``TOOLWIRE_SECRET_<REF>``
            (`toolwire.capabilities.kinds.secrets._env`).
        warnings: What `load_config` found worth saying but not refusing (a sandbox that is
            the home directory only because toolwire was started there).
    """

    base_dir: str = field(default_factory=os.getcwd)
    source: str | None = None
    sandbox_read: tuple[str, ...] = ()
    sandbox_write: tuple[str, ...] = ()
    sandbox: SandboxSettings = field(default_factory=SandboxSettings)
    network_allow: tuple[str, ...] = ()
    network_deny: tuple[str, ...] = ()
    allow_private_urls: bool = False
    store_url: str = DEFAULT_STORE_URL
    toolsets: tuple[str, ...] | None = None
    tool_modules: tuple[ToolModule, ...] = ()
    builtin_tools: bool = True
    deferred_tools: tuple[str, ...] = ()
    result_budget_chars: int = DEFAULT_RESULT_BUDGET_CHARS
    http_host: str = "127.0.0.1"
    http_port: int = 8765
    session_idle_timeout_s: float | None = None
    max_sessions: int | None = None
    max_sessions_per_principal: int | None = None
    stateless_sessions: Literal["per_principal", "shared"] = "per_principal"
    serve_identity: ServerIdentity = field(default_factory=ServerIdentity)
    tools_list_ttl_s: float | None = None
    cors_origins: tuple[str, ...] = ()
    mcp_servers: tuple[McpServerConfig, ...] = ()
    auth: AuthSettings = field(default_factory=AuthSettings)
    agents: Mapping[str, Any] | None = None
    web_search: Mapping[str, Any] | None = None
    code: CodeSettings | None = None
    after_untrusted: AfterUntrusted = "approve"
    code_mode: CodeModeSettings | None = None
    result_handles: ResultHandles | None = None
    quotas: Quotas | None = None
    replicas: Mapping[str, Any] | None = None
    secrets_env: Mapping[str, str] = field(default_factory=dict)
    warnings: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not self.sandbox_read and not self.sandbox_write:
            object.__setattr__(self, "sandbox_write", (os.path.abspath(self.base_dir),))
        object.__setattr__(self, "store_url", absolute_sqlite(self.store_url, self.base_dir))

    @property
    def sandbox_roots(self) -> tuple[tuple[str, str], ...]:
        """``(path, "read+write" | "read")`` pairs, for display."""
        return tuple((p, "read+write") for p in self.sandbox_write) + tuple(
            (p, "read") for p in self.sandbox_read if p not in self.sandbox_write
        )


def load_config(
    path: str | os.PathLike[str] | None = None, env: Mapping[str, str] | None = None
) -> ToolwireConfig:
    """Read the config file (``path``, else ``$TOOLWIRE_CONFIG``, else ``./toolwire.toml`` when
    it exists) and apply the ``TOOLWIRE_*`` overrides from ``env`` (``os.environ`` by default).

    Raises:
        ConfigurationError: the file is missing (when named), is not valid TOML, or has an
            unknown key or a value of the wrong shape; the message names the key and the line.
    """
    env = os.environ if env is None else env
    named = path if path is not None else env.get("TOOLWIRE_CONFIG") or None
    if named is not None:
        file: Path | None = Path(named).expanduser()
        if not file.is_file():  # type: ignore[union-attr]
            raise ConfigurationError(f"config file {named} does not exist")
    else:
        candidate = Path.cwd() / CONFIG_FILE_NAME
        file = candidate if candidate.is_file() else None
    if file is None:
        data: dict[str, Any] = {}
        located = Located(text="", name="<defaults>")
        base = Path.cwd()
    else:
        data, located = read_toml_file(file)
        base = file.resolve().parent
    values = _from_file(data, located, base)
    values.update(env_overrides(env, base))
    values["auth"] = auth_settings_from_config(data.get("auth"), env, located.error)
    if (mode := values.pop("sandbox_mode", None)) is not None:
        values["sandbox"] = replace(values.get("sandbox", SandboxSettings()), mode=mode)
    roots_named = "sandbox_write" in values or "sandbox_read" in values
    config = ToolwireConfig(base_dir=str(base), source=str(file) if file else None, **values)
    return replace(config, warnings=check_sandbox(config, named=roots_named))


def _from_file(data: dict[str, Any], at: Located, base: Path) -> dict[str, Any]:
    tables = {*SECTION_KEYS, "agents", "web_search", "code", "quotas", "replicas", "secrets"}
    tables |= {"flow", "code_mode"}
    check_keys(data, tables, (), at)
    values: dict[str, Any] = {}
    agents = data.get("agents")
    if agents is not None:  # its keys are checked where the sub-agents are built (wiring)
        if not isinstance(agents, dict):
            raise at.error(("agents",), "expected a table ([agents], see docs/agents.md)")
        values["agents"] = agents
    web_search = data.get("web_search")
    if web_search is not None:  # its keys are checked where the tool is built (wiring)
        if not isinstance(web_search, dict):
            raise at.error(("web_search",), "expected a table ([web_search])")
        values["web_search"] = web_search
    if "code" in data:  # [code]: the code tools' checker timeouts
        values["code"] = code_table(data["code"], at)
    if "flow" in data or "code_mode" in data:  # [flow], [code_mode]: run_code and sinks
        from toolwire.config._code_mode import code_mode_tables

        values.update(code_mode_tables(data, at))
    replicas = data.get("replicas")
    if replicas is not None:  # its keys are checked where serving starts (toolwire.replicas)
        if not isinstance(replicas, dict):
            raise at.error(("replicas",), "expected a table ([replicas], see docs/scaling.md)")
        values["replicas"] = replicas
    if "secrets" in data:  # [secrets.env]: ref → environment variable
        values["secrets_env"] = secrets_env_table(data["secrets"], at.error)
    for section, keys in SECTION_KEYS.items():
        table = data.get(section, {})
        if not isinstance(table, dict):
            raise at.error((section,), "expected a table")
        check_keys(table, keys, (section,), at)
    sandbox = data.get("sandbox", {})
    if "roots" in sandbox:
        values["sandbox_write"] = resolved_paths(
            at.strings(sandbox["roots"], ("sandbox", "roots")), base
        )
    if "read_only" in sandbox:
        read_only = at.strings(sandbox["read_only"], ("sandbox", "read_only"))
        values["sandbox_read"] = resolved_paths(read_only, base)
        values.setdefault("sandbox_write", ())
    if TABLE_KEYS & set(sandbox):
        values["sandbox"] = sandbox_table(sandbox, at)
    network = data.get("network", {})
    for key, name in (("allow", "network_allow"), ("deny", "network_deny")):
        if key in network:
            values[name] = at.strings(network[key], ("network", key))
    if "allow_private_urls" in network:
        values["allow_private_urls"] = at.boolean(
            network["allow_private_urls"], ("network", "allow_private_urls")
        )
    store = data.get("store", {})
    if "url" in store:
        values["store_url"] = at.string(store["url"], ("store", "url"))
    tools = data.get("tools", {})
    if "toolsets" in tools:
        values["toolsets"] = at.strings(tools["toolsets"], ("tools", "toolsets"))
    values.update(tools_table(tools, at.error, base_dir=str(base), source=at.name))
    if "defer" in tools:
        values["deferred_tools"] = at.strings(tools["defer"], ("tools", "defer"))
    if "result_budget_chars" in tools:
        budget_key = ("tools", "result_budget_chars")
        values["result_budget_chars"] = at.integer(
            tools["result_budget_chars"], budget_key, minimum=1
        )
    if "result_handles" in data:
        values["result_handles"] = result_handles_table(data["result_handles"], at)
    if "quotas" in data:
        values["quotas"] = quotas_from_tables(data["quotas"], at.error)
    serve = data.get("serve", {})
    if "host" in serve:
        values["http_host"] = at.string(serve["host"], ("serve", "host"))
    if "port" in serve:
        values["http_port"] = at.integer(serve["port"], ("serve", "port"), minimum=0, maximum=65535)
    if "session_idle_timeout_s" in serve:
        idle_key = ("serve", "session_idle_timeout_s")
        values["session_idle_timeout_s"] = at.number(serve["session_idle_timeout_s"], idle_key)
    if "max_sessions" in serve:
        cap_key = ("serve", "max_sessions")
        values["max_sessions"] = at.integer(serve["max_sessions"], cap_key, minimum=1)
    if "max_sessions_per_principal" in serve:
        own_key = ("serve", "max_sessions_per_principal")
        own = serve["max_sessions_per_principal"]
        values["max_sessions_per_principal"] = at.integer(own, own_key, minimum=1)
    if "stateless_sessions" in serve:  # who shares a 2026-07-28 session (docs/mcp.md)
        mode = serve["stateless_sessions"]
        if mode not in ("per_principal", "shared"):
            raise at.error(
                ("serve", "stateless_sessions"),
                f'expected "per_principal" or "shared", got {mode!r}',
            )
        values["stateless_sessions"] = mode
    if "tools_list_ttl_s" in serve:  # 0 is allowed: clients must not cache the listing
        ttl = serve["tools_list_ttl_s"]
        if isinstance(ttl, bool) or not isinstance(ttl, int | float) or not 0 <= ttl < 1e12:
            raise at.error(("serve", "tools_list_ttl_s"), f"expected seconds >= 0, got {ttl!r}")
        values["tools_list_ttl_s"] = float(ttl)
    if "cors_origins" in serve:
        values["cors_origins"] = cors_origins_value(serve["cors_origins"], at)
    values["serve_identity"] = identity_from_table(serve, at.error)
    servers = data.get("mcp", {}).get("servers", {})
    if not isinstance(servers, dict):
        raise at.error(("mcp", "servers"), "expected a table of servers ([mcp.servers.<name>])")
    values["mcp_servers"] = tuple(
        mcp_server_table(name, spec, at, base) for name, spec in servers.items()
    )
    return values
