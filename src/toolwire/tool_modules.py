"""Tool modules: your own tools, served and called like the built-in ones.

A tool module is a Python file (``tools.py``, ``src/more_tools.py``) or an importable module
(``pkg.tools``), named in ``toolwire.toml``'s ``[tools] modules`` (files relative to the config
file) or with ``--tools`` on ``toolwire serve``, ``call`` and ``tools`` (relative to the current
directory). An entry that ends in ``.py`` or holds a ``/`` is a file; anything else is a dotted
module name.

- **A file** is imported under a name of its own (``toolwire_tools_<stem>_<hash>``, so two
  ``tools.py`` never collide) with its directory first on ``sys.path``, as ``python tools.py``
  would have it: ``import helpers`` finds the ``helpers.py`` beside it.
- **A module name** is imported with the config file's directory (or, for ``--tools``, the
  current one) first on ``sys.path``, as ``python -m`` would have it.

What a module contributes: exactly its ``tools`` attribute when it has one — a list (or tuple)
of `Tool`, a `ToolRegistry` (its registered tools) or a `ToolProvider` (listed once, at start,
with an empty `ProviderContext`) — otherwise every `Tool` bound at its top level, in the order
they were bound (a `Tool` imported from elsewhere and bound at top level counts too; list
``tools`` explicitly to leave it out). The tools are registered as they are: their
capabilities, annotations and ``output_is_untrusted`` go through the same pipeline, sandbox,
presenter and authentication as the built-in tools.

Whatever goes wrong is a `ConfigurationError` naming the file and the line: a syntax error, a
failed import, an exception raised while importing, a malformed ``tools`` attribute, a module
with no tools, two tools of one name.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import os
import re
import sys
import traceback
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from toolwire.errors import ConfigurationError, ProviderError
from toolwire.tools import Tool, direct_call_of

__all__ = [
    "ToolModule",
    "command_line_modules",
    "defined_at",
    "load_tools",
    "register_user_tools",
    "tool_module",
    "tools_table",
    "watched_files",
]

if TYPE_CHECKING:
    from toolwire.registry import ToolRegistry

_DOTTED = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")
_TOOLWIRE_DIR = str(Path(__file__).resolve().parent)
_IMPORTLIB_DIR = str(Path(importlib.__file__ or "importlib").parent)


@dataclass(frozen=True, kw_only=True, slots=True)
class ToolModule:
    """Where some of the served tools come from.

    Attributes:
        target: The file's absolute path, or the dotted module name.
        is_file: Whether ``target`` is a file.
        search_dir: The directory put first on ``sys.path`` to import it.
        origin: Where it was named, for error messages (``--tools``, ``[tools] modules in
            /proj/toolwire.toml``).
    """

    target: str
    is_file: bool
    search_dir: str
    origin: str

    @property
    def shown(self) -> str:
        """The target as messages show it (a file relative to the current directory)."""
        return _shown(self.target) if self.is_file else self.target


def tool_module(spec: str, *, base_dir: str, origin: str) -> ToolModule:
    """The `ToolModule` that ``spec`` names (a file relative to ``base_dir``, or a module).

    Raises:
        ConfigurationError: ``spec`` is neither a ``.py`` file that exists nor a dotted name.
    """
    if spec.endswith(".py") or "/" in spec or "\\" in spec:
        path = (Path(base_dir) / Path(spec).expanduser()).resolve()
        if not path.is_file():
            raise ConfigurationError(
                f"{origin}: tools file {spec} does not exist (looked for {path})"
            )
        return ToolModule(
            target=str(path), is_file=True, search_dir=str(path.parent), origin=origin
        )
    if not _DOTTED.fullmatch(spec):
        raise ConfigurationError(
            f"{origin}: {spec!r} is neither a .py file nor a module name (like pkg.tools)"
        )
    return ToolModule(target=spec, is_file=False, search_dir=base_dir, origin=origin)


def command_line_modules(specs: Sequence[str]) -> tuple[ToolModule, ...]:
    """The modules ``--tools`` names (files relative to the current directory).

    Raises:
        ConfigurationError: as `tool_module`.
    """
    cwd = os.getcwd()
    return tuple(tool_module(spec, base_dir=cwd, origin="--tools") for spec in specs)


def tools_table(
    table: dict[str, Any],
    error: Callable[[tuple[str, ...], str], ConfigurationError],
    *,
    base_dir: str,
    source: str,
) -> dict[str, Any]:
    """The `ToolwireConfig` values of ``[tools] modules`` and ``[tools] builtin``.

    Args:
        table: The ``[tools]`` table.
        error: Builds the error for a key (``toolwire.toml:7: tools.modules: ...``).
        base_dir: The config file's directory (relative files resolve against it).
        source: The config file, for later messages.
    """
    values: dict[str, Any] = {}
    if "builtin" in table:
        if not isinstance(table["builtin"], bool):
            raise error(("tools", "builtin"), "expected true or false")
        values["builtin_tools"] = table["builtin"]
    if "modules" in table:
        specs = table["modules"]
        if not isinstance(specs, list) or not all(isinstance(s, str) and s for s in specs):
            raise error(("tools", "modules"), 'expected a list of files or modules: ["tools.py"]')
        origin = f"[tools] modules in {source}"
        try:
            modules = tuple(tool_module(s, base_dir=base_dir, origin=origin) for s in specs)
        except ConfigurationError as exc:
            raise error(("tools", "modules"), str(exc).removeprefix(f"{origin}: ")) from None
        values["tool_modules"] = modules
    return values


def load_tools(modules: Sequence[ToolModule]) -> list[Tool]:
    """Import ``modules`` and collect their tools, in order (see the module doc).

    Raises:
        ConfigurationError: a module cannot be imported, its ``tools`` attribute is not tools,
            it has no tools, or two tools share a name; the message names the file and line.
    """
    found: dict[str, Tool] = {}
    for module in modules:
        for tool in _tools_of(_imported(module), module):
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


def defined_at(tool: Tool) -> str:
    """``file:line`` of the function behind ``tool`` (outside toolwire), or its name."""
    for function in _functions(tool.execute):
        code = getattr(function, "__code__", None)
        if code is not None and not code.co_filename.startswith(_TOOLWIRE_DIR):
            return f"{_shown(code.co_filename)}:{code.co_firstlineno}"
    return f"tool {tool.name!r}"


def watched_files(modules: Sequence[ToolModule]) -> list[Path]:
    """The files whose change should reload ``modules``: each file and the ``.py`` files
    beside it (its sibling imports); for a module name, its package's (or file's) sources."""
    files: list[Path] = []
    for module in modules:
        if module.is_file:
            files.extend(sorted(Path(module.target).parent.glob("*.py")))
            continue
        top = Path(module.search_dir) / module.target.split(".")[0]
        files.extend(sorted(top.rglob("*.py")) if top.is_dir() else [top.with_suffix(".py")])
    return list(dict.fromkeys(files))


def _imported(module: ToolModule) -> ModuleType:
    if module.search_dir not in sys.path:
        sys.path.insert(0, module.search_dir)
    try:
        if not module.is_file:
            return importlib.import_module(module.target)
        return _import_file(Path(module.target))
    except (Exception, SystemExit) as exc:
        raise ConfigurationError(_import_problem(module, exc)) from None


def _import_file(path: Path) -> ModuleType:
    digest = hashlib.sha256(str(path).encode()).hexdigest()[:8]
    stem = re.sub(r"\W", "_", path.stem)
    name = f"toolwire_tools_{stem}_{digest}"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot import {path}: not a Python source file")
    loaded = importlib.util.module_from_spec(spec)
    sys.modules[name] = loaded  # before running it: pydantic and dataclasses look it up
    try:
        spec.loader.exec_module(loaded)
    except BaseException:
        del sys.modules[name]
        raise
    return loaded


def _import_problem(module: ToolModule, exc: BaseException) -> str:
    """``file:line: Type: message (importing X, named by Y)``, from the traceback."""
    what = f"{type(exc).__name__}: {exc}"
    missing = exc.name if isinstance(exc, ModuleNotFoundError) and not module.is_file else None
    if missing is not None and f"{module.target}.".startswith(f"{missing}."):
        return (
            f"{module.origin}: no module named {module.target!r} (looked in "
            f"{module.search_dir} and the installed packages)"
        )
    if isinstance(exc, SystemExit):
        what = f"SystemExit: the module called exit({exc.code!r}) while being imported"
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if _is_users(f.filename)]
    deepest = f"{_shown(frames[-1].filename)}:{frames[-1].lineno}" if frames else None
    own = [f for f in frames if _is_own(f.filename, module)]
    where = f"{_shown(own[-1].filename)}:{own[-1].lineno}" if own else deepest
    if isinstance(exc, SyntaxError) and exc.filename:
        where = f"{_shown(exc.filename)}:{exc.lineno}"
        what = f"SyntaxError: {exc.msg}"
    raised_at = f"; raised at {deepest}" if deepest and where and deepest != where else ""
    prefix = f"{where}: " if where else ""
    return f"{prefix}{what} (importing {module.shown}, named by {module.origin}{raised_at})"


def _is_users(filename: str) -> bool:
    """Whether a traceback frame is the user's code (not toolwire's or the import system's)."""
    return not filename.startswith(("<", _TOOLWIRE_DIR, _IMPORTLIB_DIR))


def _is_own(filename: str, module: ToolModule) -> bool:
    if module.is_file:
        return filename == module.target
    return Path(filename).stem == module.target.rsplit(".", 1)[-1] or (
        Path(filename).name == "__init__.py"
        and Path(filename).parent.name == module.target.rsplit(".", 1)[-1]
    )


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
    from toolwire.providers.base import ProviderContext, ToolProvider, list_tools_sync
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
        return _shown(file)
    assigned = [n for n, line in enumerate(lines, 1) if re.match(r"tools\s*(:[^=]*)?=[^=]", line)]
    return f"{_shown(file)}:{assigned[-1]}" if assigned else _shown(file)


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


def _shown(file: str) -> str:
    path = Path(file)
    try:
        return str(path.relative_to(Path.cwd()))
    except (ValueError, OSError):  # outside it, or the current directory is gone
        return str(path)
