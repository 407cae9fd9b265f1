"""`ToolRegistry`: register tools, build the model's definitions, run a batch of calls."""

from __future__ import annotations

import builtins
from collections import Counter
from collections.abc import Callable, Coroutine, Iterable, Iterator, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Self, Unpack

from toolwire.calls import CallOutcome, ToolCall
from toolwire.capabilities.seams import Attachment
from toolwire.cleanups import Cleanup, Cleanups
from toolwire.context import ToolContext
from toolwire.deferred_tools import Deferral, DeferredTools
from toolwire.definitions_cache import DefinitionsCache, ToolDefinition
from toolwire.errors import RegistrationError
from toolwire.execution.admit import OPEN, Admission
from toolwire.execution.approvals import PendingApproval, normalise_approvals
from toolwire.execution.gates import FilterOptions, RegisteredTool, coerce_filter_options
from toolwire.execution.handles import check_handles
from toolwire.execution.settings import DEFAULT_TIMEOUT_S
from toolwire.providers._base import ProviderContext
from toolwire.providers._snapshot import ToolSnapshot
from toolwire.registry_settings import SettingsView
from toolwire.tools import Tool

if TYPE_CHECKING:
    from toolwire.capabilities.resolver import CapabilityBackends
from toolwire.registry_settings import (
    RegistryOptions,
    RegistrySettings,
    resolve_settings,
)

if TYPE_CHECKING:
    from toolwire.capabilities.resolver import CapabilityBackends

__all__ = ["DEFAULT_TIMEOUT_S", "RegistrySettings", "ToolDefinition", "ToolRegistry"]


class ToolRegistry(SettingsView):
    """Holds tools and runs a model's batch of calls through the pipeline.

    The registry keeps registration, lookup, definitions and its lifecycle; running a batch is
    the job of a `toolwire.execution.pipeline.Pipeline` built from frozen settings. A registry
    is also a `ToolProvider` (``id``, ``list(ctx)``): its available tools.

    Build one with its backends and, optionally, its settings as one value
    (``ToolRegistry(backends, settings=RegistrySettings(max_concurrency=8))``) or as keywords
    (``ToolRegistry(backends, max_concurrency=8)``); a keyword overrides that field of
    ``settings``. ``registry.settings`` reads them back.

    Args:
        backends: Capability backends; tools that declare capabilities are refused
            (``not_available``) when there are none. Closing the registry stops the background
            processes of their process backend.
        settings: Timeouts, concurrency, definition order and the collaborators every batch
            uses (`toolwire.registry_settings.RegistrySettings`; its defaults when ``None``).
        **options: Any field of `RegistrySettings` (``reducers=None``, ``hooks=...``,
            ``telemetry=...``), overriding ``settings``.

    Raises:
        RegistrationError: a setting out of range, or result handles without a key-value
            backend.
        TypeError: a keyword that is not a field of `RegistrySettings`.
    """

    def __init__(
        self,
        backends: CapabilityBackends | None = None,
        *,
        settings: RegistrySettings | None = None,
        **options: Unpack[RegistryOptions],
    ) -> None:
        given = settings if settings is not None else RegistrySettings()
        if options:
            given = replace(given, **options)
        check_handles(given.result_handles, backends.kv_store_factory if backends else None)
        self._settings, pipeline_settings = resolve_settings(given, backends)
        self._backends = backends
        self._entries: dict[str, RegisteredTool] = {}
        self._build_pipeline(pipeline_settings)
        self._cleanups = Cleanups()
        self._definitions = DefinitionsCache()
        self._change_listeners: dict[object, Callable[[], None]] = {}
        self._deferred = DeferredTools()
        if backends is not None and backends.processes is not None:
            self.add_cleanup(backends.processes.aclose)  # no background process outlives it
        self.tasks.bind(backends.kv_store_factory if backends is not None else None)
        self.add_cleanup(self.tasks.aclose)  # closing cancels the tasks this process runs

    # -- lifecycle ----------------------------------------------------------------------------

    def add_cleanup(self, cleanup: Cleanup) -> None:
        """Run ``cleanup`` (sync or async) when the registry closes; the last added runs first.

        For what the registered tools hold beyond the backends (whose background processes the
        registry stops by itself), e.g. ``registry.add_cleanup(client.aclose)``.
        """
        self._cleanups.add(cleanup)

    async def aclose(self) -> None:
        """Run the cleanups, last added first. Each runs once; one that fails is logged and
        the others still run."""
        await self._cleanups.run()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    # -- registration -------------------------------------------------------------------------

    def register(self, tool: Tool, plugin_id: str | None = None, *, replace: bool = False) -> None:
        """Add ``tool``; ``plugin_id`` tags it for plugin gating.

        Raises:
            RegistrationError: not a `Tool`, or the name is taken and ``replace`` is false.
        """
        if not isinstance(tool, Tool):
            hint = " (decorate the function with @tool)" if callable(tool) else ""
            raise RegistrationError(f"register() takes a Tool, got {type(tool).__name__}{hint}")
        if plugin_id is not None and (not isinstance(plugin_id, str) or not plugin_id):
            raise RegistrationError(f"plugin_id must be a non-empty string, got {plugin_id!r}")
        if not replace and tool.name in self._entries:
            raise RegistrationError(
                f"a tool named {tool.name!r} is already registered; pass replace=True to "
                "replace it, or unregister it first"
            )
        self._entries[tool.name] = RegisteredTool(tool, plugin_id)
        self._changed(tool.name)

    def register_all(
        self, tools: Iterable[Tool], plugin_id: str | None = None, *, replace: bool = False
    ) -> None:
        """Register several tools; nothing is registered when any of them is refused."""
        batch = list(tools)
        names = [t.name for t in batch if isinstance(t, Tool)]
        duplicates = {n for n, count in Counter(names).items() if count > 1}
        if duplicates:
            raise RegistrationError(f"register_all() got the same name twice: {sorted(duplicates)}")
        if not replace:
            taken = sorted(n for n in names if n in self._entries)
            if taken:
                raise RegistrationError(
                    f"tools already registered: {taken}; pass replace=True to replace them"
                )
        for tool in batch:
            if not isinstance(tool, Tool):
                raise RegistrationError(f"register_all() takes Tools, got {type(tool).__name__}")
        for tool in batch:
            self._entries[tool.name] = RegisteredTool(tool, plugin_id)
        self._changed(None)

    def unregister(self, name: str) -> bool:
        """Remove the tool called ``name``; returns whether there was one."""
        removed = self._entries.pop(name, None) is not None
        if removed:
            self._changed(name)
        return removed

    def _changed(self, name: str | None) -> None:
        self._definitions.clear()
        self._deferred.forget()
        cache = self._pipeline.settings.result_cache
        if name is None:
            cache.clear()
        else:
            cache.clear(name)
        for listener in list(self._change_listeners.values()):
            listener()

    def on_change(self, listener: Callable[[], None]) -> Callable[[], None]:
        """Call ``listener`` (synchronously, on the caller's thread) after every register,
        replace or unregister; returns a function that stops it (the MCP server's
        ``notifications/tools/list_changed``). A listener must be quick and must not raise."""
        token = object()
        self._change_listeners[token] = listener

        def remove() -> None:
            self._change_listeners.pop(token, None)

        return remove

    # -- deferred tools (toolwire.tool_search) -----------------------------------------------

    @property
    def deferred_names(self) -> frozenset[str]:
        """The deferred tools: left out of `definitions` and `list`, and refused
        ``not_offered`` without a snapshot, until a session finds them (`toolwire.tool_search`).
        A registry holding one attaches a default ``ToolSearch`` (and its ``tool_search``
        tool) unless one is attached."""
        return self._deferred.names(self._all_tools, self._attach_default_search)

    def _all_tools(self) -> builtins.list[Tool]:
        return [entry.tool for entry in self._entries.values()]

    def _attach_default_search(self) -> object:
        from toolwire.tool_search._searching import ToolSearch

        return ToolSearch(self)

    @property
    def tool_search(self) -> Any:
        """The attached `toolwire.tool_search.ToolSearch` (attached by now if anything is
        deferred), or ``None``."""
        if self._deferred.search is None:
            _ = self.deferred_names  # attaches the default one when something is deferred
        return self._deferred.search

    def use_tool_search(self, search: object, deferral: Deferral) -> None:
        """Attach ``search`` and decide what is deferred with ``deferral`` (names of the
        deferred tools among all registered ones). Called by ``ToolSearch`` itself."""
        self._deferred.use(search, deferral)
        self._changed(None)

    # -- lookup -------------------------------------------------------------------------------

    def get(self, name: str) -> Tool | None:
        """The tool called ``name``, or ``None``."""
        entry = self._entries.get(name)
        return entry.tool if entry is not None else None

    def entry(self, name: str) -> RegisteredTool | None:
        """The tool called ``name`` with its plugin id, or ``None``."""
        return self._entries.get(name)

    def plugin_id(self, name: str) -> str | None:
        """The plugin that registered ``name``, if any."""
        entry = self._entries.get(name)
        return entry.plugin_id if entry is not None else None

    def available(self) -> builtins.list[Tool]:
        """Every tool available right now (`Tool.currently_available`), in registration order."""
        return [e.tool for e in self._entries.values() if e.tool.currently_available()]

    def for_toolset(self, toolset: str) -> builtins.list[Tool]:
        """The available tools of one toolset."""
        return [t for t in self.available() if t.toolset == toolset]

    # -- as a ToolProvider --------------------------------------------------------------------

    @property
    def id(self) -> str:
        """The registry's id as a `ToolProvider` (``provider_id``, ``"registry"`` by default)."""
        return self._settings.provider_id

    def list(self, ctx: ProviderContext) -> builtins.list[Tool]:
        """The available tools, as a provider answers: a new list, in registration order.

        So ``take_snapshot(registry, ctx)`` freezes what the model may see this iteration, and
        ``execute_parallel(..., snapshot=...)`` runs only that. Deferred tools are left out
        (a ``ToolSearch`` snapshot adds those the session found).
        """
        deferred = self.deferred_names
        if not deferred:
            return self.available()
        return [tool for tool in self.available() if tool.name not in deferred]

    @property
    def names(self) -> builtins.list[str]:
        """Registered names, in registration order."""
        return list(self._entries)

    def __contains__(self, name: object) -> bool:
        return name in self._entries

    def __len__(self) -> int:
        return len(self._entries)

    def __iter__(self) -> Iterator[Tool]:
        return (entry.tool for entry in list(self._entries.values()))

    # -- definitions --------------------------------------------------------------------------

    def definitions(
        self,
        allowed_tools: Sequence[str] | None = None,
        filter_opts: FilterOptions | Mapping[str, Any] | None = None,
        *,
        snapshot: ToolSnapshot | None = None,
    ) -> builtins.list[ToolDefinition]:
        """The tool definitions to send the model, after the same gates calls go through.

        Gates: the snapshot (only its tools, when given), the toolset allowlist for built-ins
        (``None`` unrestricted, ``[]`` none; ``always_include`` bypasses it), the filters, and
        availability (checked on every call, by `Tool.currently_available`). The gated list is
        cached until the registry changes. A deferred tool is shown only when ``snapshot``
        holds it (`toolwire.tool_search`).

        Raises:
            ConfigurationError: ``filter_opts`` has unknown keys, ``allowed_tools`` is a single
                string instead of a list, or ``snapshot`` is not a `ToolSnapshot`.
        """
        admission = Admission.of(allowed_tools, coerce_filter_options(filter_opts), snapshot)
        allowed, opts = admission.allowed, admission.filters
        deferred = self.deferred_names
        return self._definitions.definitions(
            self._entries.values(),
            self._settings.definition_order,
            allowed,
            opts,
            snapshot,
            deferred,
        )

    # -- execution ----------------------------------------------------------------------------

    def execute_parallel(
        self,
        calls: Sequence[ToolCall | Mapping[str, Any]],
        ctx: ToolContext,
        allowed_tools: Sequence[str] | None = None,
        filter_opts: FilterOptions | Mapping[str, Any] | None = None,
        turn_attachments: Sequence[Attachment] | None = None,
        *,
        snapshot: ToolSnapshot | None = None,
        approvals: Iterable[str | PendingApproval] | None = None,
    ) -> Coroutine[Any, Any, builtins.list[CallOutcome]]:
        """Run a model's batch of calls: await it for one `CallOutcome` per call, in input order.

        Never raises for anything a call, a tool, a hook or a reducer does: every failure is a
        result with a stable error code. With ``snapshot``, a call to a tool the model was not
        shown this iteration is answered ``not_available`` (``not_offered``) and never runs.
        ``approvals`` are the tokens (or `PendingApproval` values) that let calls needing
        approval run, once each (`toolwire.execution.approvals`). See
        `toolwire.execution` for the stages. It hands back the pipeline's own coroutine, so a
        programming error below raises at the call, before anything is awaited.

        Raises:
            ConfigurationError: ``filter_opts`` is a mapping with unknown keys, ``allowed_tools``
                is a single string, or ``snapshot`` is not a `ToolSnapshot`, or ``approvals``
                is a single string (programming errors, not model errors).
        """
        if allowed_tools is None and filter_opts is None and snapshot is None:
            admission = OPEN
        else:
            admission = Admission.of(allowed_tools, coerce_filter_options(filter_opts), snapshot)
        if approvals is not None:
            admission = replace(admission, approvals=normalise_approvals(approvals))
        if snapshot is None:
            deferred = self.deferred_names
            if deferred:
                admission = replace(admission, deferred=deferred)
        return self._run_batch(calls, ctx, admission, turn_attachments)

    async def execute(
        self,
        name: str,
        args: str | Mapping[str, Any],
        ctx: ToolContext,
        *,
        call_id: str = "call_0",
        approvals: Iterable[str | PendingApproval] | None = None,
    ) -> CallOutcome:
        """Run one call; a shortcut for a one-element `execute_parallel`."""
        call = ToolCall(id=call_id, name=name, args=args)
        outcomes = await self.execute_parallel([call], ctx, approvals=approvals)
        return outcomes[0]
