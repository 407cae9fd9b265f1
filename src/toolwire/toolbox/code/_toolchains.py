"""Where the code tools find linters, type checkers and test runners, and the child's PATH.

A checker is spawned by its bare name (``ruff``, ``eslint``, ``cargo``) through the process
seam, which runs only declared binaries; the name is looked up in the ``PATH`` the tool hands
the child, so the checker that runs is the first one found in this order:

1. the project's own: ``<root>/.venv/bin``, ``<root>/venv/bin``, ``<root>/node_modules/.bin``;
2. the environment toolwire runs in (the directory of ``sys.executable``: a virtualenv's
   ``bin`` holds the ruff, mypy and pytest installed beside toolwire);
3. the toolchain homes: ``$CARGO_HOME/bin`` (default ``~/.cargo/bin``), ``$GOROOT/bin``,
   ``/usr/local/go/bin``, ``$GOPATH/bin`` (default ``~/go/bin``);
4. the host's ``PATH``.

The child's environment is the process seam's scrubbed one (``PATH``, ``HOME``, ``LANG``,
``LC_*``, ``TERM``, ``TMPDIR``) with that ``PATH``, plus the toolchain variables the host
sets (`TOOLCHAIN_ENV_VARS`: ``CARGO_HOME``, ``RUSTUP_HOME``, ``GOPATH``...; none of them holds
a secret), so rustup's ``cargo`` finds its toolchain and ``go`` its caches. ``NO_COLOR=1``
keeps colour codes out of the output. Pass a `Toolchains` to `code_tools` to search other
directories. What a sandbox must show a checker found here: `toolwire.toolbox.code.sandbox_roots`.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

__all__ = [
    "PROJECT_BIN_DIRS",
    "SYSTEM_DIRS",
    "TOOLCHAIN_ENV_VARS",
    "Toolchains",
    "default_search_dirs",
]

PROJECT_BIN_DIRS: tuple[str, ...] = (".venv/bin", "venv/bin", "node_modules/.bin")
"""Directories below a project root searched first."""

TOOLCHAIN_ENV_VARS: tuple[str, ...] = (
    "CARGO_HOME",
    "RUSTUP_HOME",
    "RUSTUP_TOOLCHAIN",
    "GOPATH",
    "GOROOT",
    "GOCACHE",
    "GOMODCACHE",
    "GOFLAGS",
)
"""Host variables a checker inherits when they are set."""

AVAILABILITY_TTL_S = 30.0
"""How long an availability answer is reused (``is_available`` runs on every listing)."""


def default_search_dirs(
    environ: Mapping[str, str] | None = None, executable: str | None = None
) -> tuple[str, ...]:
    """Steps 2-4 of the module docstring's order, without duplicates."""
    env = os.environ if environ is None else environ
    home = env.get("HOME") or os.path.expanduser("~")
    dirs = [os.path.dirname(executable or sys.executable)]
    dirs.append(os.path.join(env.get("CARGO_HOME") or os.path.join(home, ".cargo"), "bin"))
    if env.get("GOROOT"):
        dirs.append(os.path.join(env["GOROOT"], "bin"))
    dirs.append("/usr/local/go/bin")
    dirs.append(os.path.join(env.get("GOPATH") or os.path.join(home, "go"), "bin"))
    dirs.extend(env.get("PATH", os.defpath).split(os.pathsep))
    return _unique(dirs)


def _home() -> str:
    return os.environ.get("HOME") or os.path.expanduser("~")


def _rust_homes() -> dict[str, str]:
    return {
        "CARGO_HOME": os.environ.get("CARGO_HOME") or os.path.join(_home(), ".cargo"),
        "RUSTUP_HOME": os.environ.get("RUSTUP_HOME") or os.path.join(_home(), ".rustup"),
    }


SYSTEM_DIRS: tuple[str, ...] = ("/usr", "/bin", "/sbin", "/lib", "/lib64", "/etc", "/opt")
"""Where a sandbox shows the system anyway (`toolwire.toolbox.code.sandbox_roots` leaves them
out)."""


def _unique(dirs: Iterable[str]) -> tuple[str, ...]:
    seen: dict[str, None] = {}
    for entry in dirs:
        if entry and os.path.isabs(entry):
            seen.setdefault(os.path.normpath(entry), None)
    return tuple(seen)


def _executable(path: str) -> bool:
    return os.path.isfile(path) and os.access(path, os.X_OK)


@dataclass(frozen=True, kw_only=True, slots=True)
class Toolchains:
    """Where checkers are looked for (see the module docstring).

    Attributes:
        search_dirs: Absolute directories searched after the project's own; ``None`` =
            `default_search_dirs` (read when needed, so a changed ``PATH`` counts).
        project_dirs: Directories below the project root searched first.
        env_vars: Host variables passed to checkers when set.
    """

    search_dirs: tuple[str, ...] | None = None
    project_dirs: tuple[str, ...] = PROJECT_BIN_DIRS
    env_vars: tuple[str, ...] = TOOLCHAIN_ENV_VARS
    _cache: dict[tuple[str, ...], tuple[float, bool]] = field(
        default_factory=dict, init=False, compare=False, repr=False
    )
    _lock: threading.Lock = field(
        default_factory=threading.Lock, init=False, compare=False, repr=False
    )

    def dirs(self, project_root: str | None = None) -> tuple[str, ...]:
        """The search order for a project (its own directories first)."""
        base = self.search_dirs if self.search_dirs is not None else default_search_dirs()
        local = [os.path.join(project_root, d) for d in self.project_dirs] if project_root else []
        return _unique([*local, *base])

    def which(self, name: str, dirs: Iterable[str]) -> str | None:
        """The first executable called ``name`` in ``dirs``, or ``None``. Touches the disk:
        call it from a worker thread."""
        for directory in dirs:
            candidate = os.path.join(directory, name)
            if _executable(candidate):
                return candidate
        return None

    def env(self, dirs: Iterable[str], extra: Mapping[str, str] | None = None) -> dict[str, str]:
        """What a checker's environment adds to the scrubbed one: ``PATH`` = ``dirs``, the
        host's toolchain variables (``CARGO_HOME`` and ``RUSTUP_HOME`` always: a sandbox
        gives its commands an empty home, where rustup would not find its toolchains),
        ``NO_COLOR=1``, then ``extra``."""
        env = {name: os.environ[name] for name in self.env_vars if os.environ.get(name)}
        env.update({name: path for name, path in _rust_homes().items() if name not in env})
        env["PATH"] = os.pathsep.join(dirs)
        env["NO_COLOR"] = "1"
        if extra:
            env.update(extra)
        return env

    def any_installed(self, names: Iterable[str]) -> bool:
        """Whether any of ``names`` is in the search directories (project directories aside:
        the answer is the same for every project). Cached for `AVAILABILITY_TTL_S`."""
        key = tuple(names)
        now = time.monotonic()
        with self._lock:
            cached = self._cache.get(key)
        if cached is not None and now - cached[0] < AVAILABILITY_TTL_S:
            return cached[1]
        dirs = self.dirs()
        found = any(self.which(name, dirs) is not None for name in key)
        with self._lock:
            self._cache[key] = (now, found)
        return found
