"""`ToolSearch`: a registry's deferred tools, their index, and what each session found.

Attach one to a registry (``ToolSearch(registry)``; a registry that holds a deferred tool
attaches a default one by itself) and it:

- tells the registry what is deferred (`toolwire.tool_search._deferral.DeferralRules`), so
  ``registry.definitions()`` and ``registry.list()`` leave those tools out and a call to one
  without a snapshot answers ``not_offered``;
- registers the ``tool_search`` built-in (`toolwire.tool_search._builtin`), available whenever
  something is deferred;
- indexes the deferred tools (rebuilt lazily after the registry changes) with a `ToolIndex`;
- keeps each session's found tools (`toolwire.tool_search._found.FoundTools`), and takes the
  session's snapshot: the undeferred tools plus the found ones. That snapshot is the one gate
  (``registry.definitions(snapshot=...)``, ``registry.execute_parallel(..., snapshot=...)``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, Protocol

from toolwire.capabilities._backends import CapabilityBackends
from toolwire.principals import LOCAL, Principal
from toolwire.providers._base import ProviderContext
from toolwire.providers._snapshot import ToolSnapshot
from toolwire.tool_search._bm25 import BM25Index
from toolwire.tool_search._builtin import SearchMode, tool_search_tool
from toolwire.tool_search._deferral import TOOL_SEARCH_NAME, DeferralRules
from toolwire.tool_search._found import FoundTools
from toolwire.tool_search._index import SearchHit, ToolIndex, document_of
from toolwire.tool_search._regex import RegexIndex
from toolwire.tools import Tool

__all__ = ["SearchMode", "SearchableRegistry", "ToolSearch"]


class SearchableRegistry(Protocol):
    """What a `ToolSearch` needs of its ``toolwire.registry.ToolRegistry`` (a protocol, so
    this package does not import the registry, which attaches a default search by itself)."""

    @property
    def id(self) -> str:
        """The registry's provider id."""
        ...

    @property
    def backends(self) -> CapabilityBackends | None:
        """The capability backends."""
        ...

    @property
    def deferred_names(self) -> frozenset[str]:
        """The deferred tools."""
        ...

    def on_change(self, listener: Callable[[], None]) -> Callable[[], None]:
        """Call ``listener`` after every change."""
        ...

    def use_tool_search(
        self, search: object, deferral: Callable[[Sequence[Tool]], frozenset[str]]
    ) -> None:
        """Attach ``search`` with its deferral rule."""
        ...

    def register(self, tool: Tool, plugin_id: str | None = None, *, replace: bool = False) -> None:
        """Add ``tool``."""
        ...

    def get(self, name: str) -> Tool | None:
        """The tool called ``name``."""
        ...

    def available(self) -> list[Tool]:
        """Every available tool."""
        ...

    def list(self, ctx: ProviderContext) -> list[Tool]:
        """The available undeferred tools."""
        ...


class ToolSearch:
    """Deferred tools made findable, per session, through the snapshot gate.

    Args:
        registry: The registry whose tools are searched; the search attaches itself to it.
        rules: What is deferred besides ``defer_loading`` tools (default: only those).
        index: Builds the word-search engine (default `BM25Index`).
        found: Where sessions' found tools live (default: the registry's key-value store,
            else memory).
    """

    def __init__(
        self,
        registry: SearchableRegistry,
        *,
        rules: DeferralRules | None = None,
        index: Callable[[], ToolIndex] = BM25Index,
        found: FoundTools | None = None,
    ) -> None:
        self._registry = registry
        self._rules = rules if rules is not None else DeferralRules()
        self._new_index = index
        backends = registry.backends
        self.found = (
            found
            if found is not None
            else FoundTools(backends.kv_store_factory if backends is not None else None)
        )
        self._indexes: dict[SearchMode, ToolIndex] = {}
        self._stubs: Callable[[Sequence[str]], str] | None = None
        registry.on_change(self._indexes.clear)
        registry.use_tool_search(self, self._rules)
        registry.register(tool_search_tool(self), replace=True)

    @property
    def registry(self) -> SearchableRegistry:
        """The registry searched."""
        return self._registry

    @property
    def rules(self) -> DeferralRules:
        """What is deferred."""
        return self._rules

    def deferred(self) -> frozenset[str]:
        """The names of the deferred tools."""
        return self._registry.deferred_names

    def use_rules(self, rules: DeferralRules) -> None:
        """Decide what is deferred with ``rules`` from now on (the index is rebuilt)."""
        self._rules = rules
        self._indexes.clear()
        self._registry.use_tool_search(self, rules)

    def show_stubs(self, render: Callable[[Sequence[str]], str] | None) -> None:
        """Have ``tool_search`` results also give ``render(names)``: the typed Python stubs by which
        a ``run_code`` program calls the found tools (`toolwire.code_mode`)."""
        self._stubs = render

    def stubs(self, names: Sequence[str]) -> str | None:
        """The stubs of the tools ``names`` (``None`` without a renderer or names)."""
        if self._stubs is None or not names:
            return None
        return self._stubs(names)

    def native_tools(self) -> list[Tool]:
        """Every available tool but the ``tool_search`` built-in: what to send a provider whose
        own search finds the deferred ones (with ``deferred=registry.deferred_names``, see
        `toolwire.formats`)."""
        return [tool for tool in self._registry.available() if tool.name != TOOL_SEARCH_NAME]

    def _index(self, mode: SearchMode) -> ToolIndex:
        index = self._indexes.get(mode)
        if index is None:
            index = self._new_index() if mode == "words" else RegexIndex()
            deferred = self.deferred()
            index.build([document_of(t) for t in self._registry.available() if t.name in deferred])
            self._indexes[mode] = index
        return index

    def search(self, query: str, limit: int = 5, *, mode: SearchMode = "words") -> list[SearchHit]:
        """The deferred tools best matching ``query``, at most ``limit``.

        Raises:
            ValueError: ``mode="regex"`` and ``query`` is not an acceptable pattern.
        """
        return self._index(mode).search(query, limit)

    def describe(self, hits: Sequence[SearchHit]) -> list[dict[str, Any]]:
        """``{"name", "description", "score", "group", "parameters"}`` of each hit."""
        described: list[dict[str, Any]] = []
        for hit in hits:
            tool = self._registry.get(hit.name)
            if tool is None:
                continue
            document = document_of(tool)
            described.append(
                {
                    "name": tool.name,
                    "description": tool.description,
                    "score": hit.score,
                    "group": document.group,
                    "parameters": [name for name, _ in document.parameters],
                }
            )
        return described

    async def mark_found(
        self, session_id: str, names: Iterable[str], principal: Principal = LOCAL
    ) -> list[str]:
        """Make the deferred tools ``names`` callable in the session (also what a provider's
        own search loaded: `toolwire.formats`' tool-reference parsers). Names that are not
        deferred tools of the registry are ignored; returns the ones kept."""
        deferred = self.deferred()
        kept = [name for name in dict.fromkeys(names) if name in deferred]
        if kept:
            await self.found.add(session_id, kept, principal)
        return kept

    async def snapshot(
        self, ctx: ProviderContext, *, principal: Principal | None = None
    ) -> ToolSnapshot:
        """The session's tools for this iteration: the registry's undeferred tools and the
        deferred tools the session found (``ctx.session_id``; the principal from
        ``principal`` or ``ctx.extra["principal"]``, else `LOCAL`)."""
        tools = await self.list(ctx, principal=principal)
        return ToolSnapshot.of(tools, iteration=ctx.iteration, findable=self.deferred())

    async def list(self, ctx: ProviderContext, *, principal: Principal | None = None) -> list[Tool]:
        """What `snapshot` freezes; also makes a `ToolSearch` a `ToolProvider`."""
        tools = self._registry.list(ctx)
        if ctx.session_id is None:
            return tools
        who = principal if principal is not None else ctx.extra.get("principal", LOCAL)
        if not isinstance(who, Principal):
            who = LOCAL
        found = await self.found.get(ctx.session_id, who)
        deferred = self.deferred()
        for name in sorted(found & deferred):
            tool = self._registry.get(name)
            if tool is not None and tool.currently_available():
                tools.append(tool)
        return tools

    @property
    def id(self) -> str:
        """Its id as a `ToolProvider`: the registry's."""
        return self._registry.id
