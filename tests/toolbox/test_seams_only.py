"""The built-in tools reach the world only through the seams of the kinds they declare.

A module of `toolwire.toolbox` may import a capability kind's declaration and seam
(``toolwire.capabilities.kinds.<kind>.kind`` / ``.seam``, the kind's package for the names
those two define, `toolwire.capabilities` and `toolwire.capabilities.seams`), never a kind's
backends, the stores, the replicas, the MCP machinery, or a library that reaches the world
itself (HTTP clients, sockets, subprocesses, databases, a browser driver). `EXCEPTIONS` lists
what is left, each with the reason; the test fails on anything new, and on an exception that is
no longer needed.
"""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

TOOLBOX = Path(__file__).resolve().parents[2] / "src" / "toolwire" / "toolbox"
KIND_PACKAGE = "toolwire.capabilities.kinds."
SEAM_MODULES = {"kind", "seam"}
FORBIDDEN = ("toolwire.stores", "toolwire.replicas", "toolwire.mcp")
WORLD = (
    "aiohttp",
    "asyncpg",
    "httpx",
    "playwright",
    "redis",
    "requests",
    "socket",
    "sqlite3",
    "subprocess",
    "urllib.request",
)

EXCEPTIONS: dict[tuple[str, str], str] = {
    # The browser kind's seam hands a tool a Playwright page of its session's context (every
    # request through the egress proxy under the call's policy); the tools drive that page, so
    # they name Playwright's types and errors. They never start a browser or a context.
    ("browser/_common.py", "playwright.async_api"): "the browser seam's page type and errors",
    ("browser/_downloads.py", "playwright.async_api"): "the browser seam's download type",
    ("browser/_interaction.py", "playwright.async_api"): "the browser seam's errors",
    ("browser/_navigation.py", "playwright.async_api"): "the browser seam's response type",
    # Whether Chromium and Playwright are installed decides if the browser tools are offered,
    # before any call exists; it starts nothing.
    ("browser/_availability.py", "toolwire.capabilities.kinds.browser"): "offer check",
    # Whether a search provider's key is set decides if the search tool is offered at all,
    # before any call (and so before any seam) exists: it reads the places the secrets
    # backend reads, and never the value.
    ("web/search/keys.py", "toolwire.capabilities.kinds.secrets._resolvers"): "offer check",
    ("web/search/_tool.py", "toolwire.capabilities.kinds.secrets._resolvers"): "offer check",
}


def _imports(path: Path) -> list[tuple[str, tuple[str, ...]]]:
    """Every module ``path`` imports (under ``TYPE_CHECKING`` and inside functions too), with the
    names taken from it."""
    found: list[tuple[str, tuple[str, ...]]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.module, tuple(alias.name for alias in node.names)))
        elif isinstance(node, ast.Import):
            found.extend((alias.name, ()) for alias in node.names)
    return found


def _defining_modules(module: str, names: tuple[str, ...]) -> list[str]:
    """Where the names a kind's package re-exports are defined (its lazy table says)."""
    package = importlib.import_module(module)
    table: dict[str, str] = getattr(package, "_LAZY", {})
    return [table.get(name, module) for name in names]


def _reaches_past_a_seam(module: str, names: tuple[str, ...]) -> bool:
    if module.startswith(KIND_PACKAGE):
        parts = module[len(KIND_PACKAGE) :].split(".")
        if len(parts) == 1:  # the kind's package: judged by where each name comes from
            return any(
                _reaches_past_a_seam(defined, ())
                for defined in _defining_modules(module, names)
                if defined != module
            )
        return parts[1] not in SEAM_MODULES
    if module.startswith(FORBIDDEN):
        return True
    return any(module == lib or module.startswith(lib + ".") for lib in WORLD)


def _violations() -> set[tuple[str, str]]:
    found = set()
    for path in sorted(TOOLBOX.rglob("*.py")):
        for module, names in _imports(path):
            if _reaches_past_a_seam(module, names):
                found.add((path.relative_to(TOOLBOX).as_posix(), module))
    return found


def test_the_built_in_tools_import_no_backend_store_or_world_library() -> None:
    unexpected = sorted(_violations() - set(EXCEPTIONS))
    assert unexpected == [], "import the kind's seam (or add a seam for what is needed)"


def test_every_listed_exception_is_still_needed() -> None:
    assert sorted(set(EXCEPTIONS) - _violations()) == []


@pytest.mark.parametrize(
    ("module", "names", "reaches"),
    [
        ("toolwire.capabilities.kinds.fs_reach.seam", ("ScopedFs",), False),
        ("toolwire.capabilities.kinds.fs_reach._scoped", ("ReachScopedFs",), True),
        ("toolwire.capabilities.kinds.process", ("ScopedProcess",), False),
        ("toolwire.capabilities.kinds.browser", ("BrowserBackend",), True),
        ("toolwire.capabilities.kinds.network", ("SafeFetcher",), True),
        ("toolwire.stores", ("SqliteKeyValueBackend",), True),
        ("httpx", (), True),
        ("toolwire.capabilities.seams", ("ScopedFs",), False),
    ],
)
def test_the_judge_tells_a_seam_from_a_backend(
    module: str, names: tuple[str, ...], reaches: bool
) -> None:
    assert _reaches_past_a_seam(module, names) is reaches
