"""What names a tool module: a file or a dotted module name, from ``[tools] modules`` (files
relative to the config file) or ``--tools`` (relative to the current directory)."""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from toolwire.errors import ConfigurationError

__all__ = [
    "ToolModule",
    "command_line_modules",
    "shown",
    "tool_module",
    "tools_table",
    "watched_files",
]

_DOTTED = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")


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
        return shown(self.target) if self.is_file else self.target


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


def shown(file: str) -> str:
    """``file`` relative to the current directory when it is under it, else as it is."""
    path = Path(file)
    try:
        return str(path.relative_to(Path.cwd()))
    except (ValueError, OSError):  # outside it, or the current directory is gone
        return str(path)
