"""Importing a tool module: a file under a name of its own with its directory first on
``sys.path``, a module name with its search directory first; whatever goes wrong becomes a
`ConfigurationError` naming the file and line (from the traceback, or the syntax error).

The first import of each module also records the files the host ran doing it — the module's
own and those of the modules it imported that are not installed packages or the standard
library (``helpers.py`` beside ``tools.py``) — for `host_files`: a tool must not be able to
rewrite the code the host runs at its next start.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import re
import site
import sys
import sysconfig
import traceback
from pathlib import Path
from types import ModuleType

from toolwire.errors import ConfigurationError
from toolwire.tool_modules.specs import ToolModule, shown

__all__ = ["TOOLWIRE_DIR", "import_tool_module", "ran_files"]

TOOLWIRE_DIR = str(Path(__file__).resolve().parents[1])
"""toolwire's own package directory (its frames are not the user's)."""
_IMPORTLIB_DIR = str(Path(importlib.__file__ or "importlib").parent)
_RAN: dict[str, tuple[str, ...]] = {}


def ran_files(module: ToolModule) -> tuple[str, ...]:
    """The files importing ``module`` ran (see the module doc); empty before it is imported."""
    return _RAN.get(module.target, ())


def import_tool_module(module: ToolModule) -> ModuleType:
    """``module``, imported (once: later calls answer from ``sys.modules``).

    Raises:
        ConfigurationError: it cannot be found, or importing it raised; the message names the
            file and line.
    """
    if module.search_dir not in sys.path:
        sys.path.insert(0, module.search_dir)
    before = set(sys.modules)
    try:
        if not module.is_file:
            loaded = importlib.import_module(module.target)
        else:
            loaded = _import_file(Path(module.target))
    except (Exception, SystemExit) as exc:
        raise ConfigurationError(_import_problem(module, exc)) from None
    if module.target not in _RAN:
        _RAN[module.target] = _users_files(
            [loaded, *(sys.modules[n] for n in set(sys.modules) - before)]
        )
    return loaded


def _users_files(modules: list[ModuleType]) -> tuple[str, ...]:
    """The source files of ``modules`` that are neither installed nor toolwire's own."""
    installed = {*site.getsitepackages(), TOOLWIRE_DIR}
    installed |= {
        sysconfig.get_path(name) for name in ("stdlib", "platstdlib", "purelib", "platlib")
    }
    if site.ENABLE_USER_SITE and site.USER_SITE:
        installed.add(site.USER_SITE)
    files = []
    for loaded in modules:
        file = getattr(loaded, "__file__", None)
        if isinstance(file, str) and file.endswith(".py"):
            path = str(Path(file).resolve())
            if not any(path.startswith(f"{prefix}/") for prefix in installed if prefix):
                files.append(path)
    return tuple(sorted(set(files)))


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
    deepest = f"{shown(frames[-1].filename)}:{frames[-1].lineno}" if frames else None
    own = [f for f in frames if _is_own(f.filename, module)]
    where = f"{shown(own[-1].filename)}:{own[-1].lineno}" if own else deepest
    if isinstance(exc, SyntaxError) and exc.filename:
        where = f"{shown(exc.filename)}:{exc.lineno}"
        what = f"SyntaxError: {exc.msg}"
    raised_at = f"; raised at {deepest}" if deepest and where and deepest != where else ""
    prefix = f"{where}: " if where else ""
    return f"{prefix}{what} (importing {module.shown}, named by {module.origin}{raised_at})"


def _is_users(filename: str) -> bool:
    """Whether a traceback frame is the user's code (not toolwire's or the import system's)."""
    return not filename.startswith(("<", TOOLWIRE_DIR, _IMPORTLIB_DIR))


def _is_own(filename: str, module: ToolModule) -> bool:
    if module.is_file:
        return filename == module.target
    return Path(filename).stem == module.target.rsplit(".", 1)[-1] or (
        Path(filename).name == "__init__.py"
        and Path(filename).parent.name == module.target.rsplit(".", 1)[-1]
    )
