"""Collecting a tool module's tools (its ``tools`` attribute, or every top-level `Tool`) and
registering them beside the built-in ones."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

from toolwire.errors import ConfigurationError, ProviderError
from toolwire.tool_modules.importing import TOOLWIRE_DIR, import_tool_module, ran_files
from toolwire.tool_modules.specs import ToolModule, shown
from toolwire.tools import Tool, direct_call_of

if TYPE_CHECKING:
    from toolwire.registry import ToolRegistry

__all__ = ["defined_at", "host_files", "load_tools", "register_user_tools"]


def load_tools(modules: Sequence[ToolModule]) -> list[Tool]:
    """Import ``modules`` and collect their tools, in order (see the module doc).

    Raises:
        ConfigurationError: a module cannot be imported, its ``tools`` attribute is not tools,
            it has no tools, or two tools share a name; the message names the file and line.
    """
    found: dict[str, Tool] = {}
    for module in modules:
        for tool in _tools_of(import_tool_module(module), module):
            if tool.name in found and found[tool.name] is not tool:
                raise ConfigurationError(
                    f"two tools are named {tool.name!r}: {defined_at(found[tool.name])} and "
                    f"{defined_at(tool)}; rename one with @tool(name=...)"
                )
            found[tool.name] = tool
    return list(found.values())


def register_user_tools(registry: ToolRegistry, modules: Sequence[ToolModule]) -> None:
    """Register the tools of ``modules`` on ``registry``, beside the tools it has.

    Raises:
        ConfigurationError: what `load_tools` raises, or a tool named like one ``registry``
            already has (a built-in tool); nothing is registered then.
    """
    if not modules:
        return
    tools = load_tools(modules)
    for tool in tools:
        taken = registry.get(tool.name)
        if taken is not None:
            toolset = f" ({taken.toolset} toolset)" if taken.toolset else ""
            raise ConfigurationError(
                f"your tool {tool.name!r} ({defined_at(tool)}) has the name of the built-in tool "
                f"{tool.name!r}{toolset}: rename yours with @tool(name=...), or leave the "
                "built-in tools out ([tools] builtin = false, or [tools] toolsets)"
            )
    registry.register_all(tools)


def host_files(modules: Sequence[ToolModule]) -> tuple[str, ...]:
    """The files the host runs to load ``modules`` (importing them): each file or module and
    the modules of yours it imports when it loads, not installed packages. They belong among
    the protected paths, so no tool rewrites what the host runs next.

    Raises:
        ConfigurationError: as `load_tools`.
    """
    files: list[str] = []
    for module in modules:
        import_tool_module(module)
        files.extend(ran_files(module))
        if module.is_file:
            files.append(module.target)
    return tuple(dict.fromkeys(files))


def defined_at(tool: Tool) -> str:
    """``file:line`` of the function behind ``tool`` (outside toolwire), or its name."""
    for function in _functions(tool.execute):
        code = getattr(function, "__code__", None)
        if code is not None and not code.co_filename.startswith(TOOLWIRE_DIR):
            return f"{shown(code.co_filename)}:{code.co_firstlineno}"
    return f"tool {tool.name!r}"


def _tools_of(loaded: ModuleType, module: ToolModule) -> list[Tool]:
    namespace = vars(loaded)
    if "tools" not in namespace:
        tools = list({id(v): v for v in namespace.values() if isinstance(v, Tool)}.values())
        if not tools:
            raise ConfigurationError(
                f"{module.shown} defines no tools (named by {module.origin}): decorate a "
                "function with @tool (from toolwire import tool), or set tools = [...]"
            )
        return tools
    declared = namespace["tools"]
    try:
        return _declared_tools(declared)
    except (TypeError, ProviderError) as exc:
        where = _assignment_line(loaded, module)
        raise ConfigurationError(f"{where}: {exc} (named by {module.origin})") from None


def _declared_tools(declared: object) -> list[Tool]:
    """The tools of a ``tools`` attribute; `TypeError` saying what it should be."""
    from toolwire.providers._base import ProviderContext, ToolProvider, list_tools_sync
    from toolwire.registry import ToolRegistry

    if isinstance(declared, list | tuple):
        for index, item in enumerate(declared):
            if not isinstance(item, Tool):
                hint = " (decorate it with @tool)" if callable(item) else ""
                raise TypeError(f"tools[{index}] is {type(item).__name__}, not a Tool{hint}")
        return list(declared)
    if isinstance(declared, ToolRegistry):
        return list(declared)
    if isinstance(declared, ToolProvider) and not isinstance(declared, type):
        return list_tools_sync(declared, ProviderContext())
    raise TypeError(
        f"tools is {type(declared).__name__}; expected a list of Tool, a ToolRegistry or a "
        "ToolProvider"
    )


def _assignment_line(loaded: ModuleType, module: ToolModule) -> str:
    """``file:line`` of the last top-level ``tools = ...`` (or the file alone)."""
    file = getattr(loaded, "__file__", None) or module.target
    try:
        lines = Path(file).read_text(encoding="utf-8").splitlines()
    except OSError:
        return shown(file)
    assigned = [n for n, line in enumerate(lines, 1) if re.match(r"tools\s*(:[^=]*)?=[^=]", line)]
    return f"{shown(file)}:{assigned[-1]}" if assigned else shown(file)


def _functions(execute: object) -> Iterator[object]:
    """``execute`` and the functions it wraps (``@tool`` keeps the user's in its closure)."""
    yield execute
    direct = direct_call_of(execute)  # type: ignore[arg-type]
    if direct is not None:
        yield direct.function
    for cell in getattr(execute, "__closure__", None) or ():
        contents = cell.cell_contents
        if callable(contents):
            yield contents
