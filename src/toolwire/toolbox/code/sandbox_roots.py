"""What a sandboxed checker must see to run: the read-only roots the code tools declare.

A sandbox shows a command the system (`SYSTEM_DIRS`: ``/usr``, ``/bin``, ``/lib*``, ``/etc``,
``/opt``) and the call's file reach, so a checker installed elsewhere (ruff in toolwire's own
virtualenv, ``/work/x/.venv/bin``) would not be found inside it. Each code tool declares
``process(binaries, read=checker_roots(...))``: its children may read, never write,

- the Python toolwire runs on (``sys.prefix``, ``sys.base_prefix``);
- for each of its checkers found on the search path (`toolwire.toolbox.code._toolchains`): its
  directory and, through a link, the real one; the virtualenv around it (``pyvenv.cfg``) and
  that environment's base interpreter (``home``); the interpreter a script's ``#!`` line names;
- for ``cargo``, ``$RUSTUP_HOME`` (the toolchains rustup's ``cargo`` runs) and the crate caches
  ``$CARGO_HOME/registry`` and ``$CARGO_HOME/git`` (not ``$CARGO_HOME`` itself, where
  ``credentials.toml`` lives); for ``go``, ``$GOROOT`` and the module cache.

The roots are found when the tools are built (``toolwire serve`` start-up). Paths under the
system directories are left out (already visible), and so are paths on the sensitive floor
(`toolwire.safety.sensitive_paths`: ``/root``, ``~/.ssh``...), which every sandbox hides
whatever is declared: a toolchain there cannot run sandboxed, and `hidden_needs` names it for
the error message.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable

from toolwire.safety.sensitive_paths import is_sensitive
from toolwire.toolbox.code._toolchains import SYSTEM_DIRS, default_search_dirs

__all__ = ["checker_roots", "hidden_needs", "needs_of"]

_SHEBANG_BYTES = 256


def needs_of(name: str, dirs: Iterable[str]) -> tuple[str, ...]:
    """What the checker ``name``, looked up in ``dirs``, reads to run (see the module
    docstring); empty when it is not found. Touches the disk."""
    found = _which(name, dirs)
    if found is None:
        return ()
    needs: list[str] = []
    for binary in dict.fromkeys((found, os.path.realpath(found))):
        bin_dir = os.path.dirname(binary)
        needs.append(bin_dir)
        needs.extend(_virtualenv(os.path.dirname(bin_dir)))
    interpreter = _shebang(found)
    if interpreter is not None:
        real = os.path.realpath(interpreter)
        needs.append(os.path.dirname(os.path.dirname(real)))
        needs.extend(_virtualenv(os.path.dirname(os.path.dirname(interpreter))))
    env = os.environ
    home = env.get("HOME") or os.path.expanduser("~")
    if name == "cargo":
        cargo_home = env.get("CARGO_HOME") or os.path.join(home, ".cargo")
        needs.append(env.get("RUSTUP_HOME") or os.path.join(home, ".rustup"))
        needs += [os.path.join(cargo_home, "registry"), os.path.join(cargo_home, "git")]
    if name == "go":
        needs.append(env.get("GOROOT") or os.path.dirname(os.path.dirname(os.path.realpath(found))))
        gopath = env.get("GOPATH") or os.path.join(home, "go")
        needs.append(env.get("GOMODCACHE") or os.path.join(gopath, "pkg", "mod"))
    return tuple(dict.fromkeys(needs))


def checker_roots(names: Iterable[str], dirs: Iterable[str] | None = None) -> tuple[str, ...]:
    """The read-only roots a sandbox must add for the checkers ``names`` found in ``dirs``
    (default: `default_search_dirs`), with toolwire's own Python: existing directories outside
    the system and the sensitive floor, none inside another. Touches the disk."""
    search = tuple(default_search_dirs() if dirs is None else dirs)
    candidates = [sys.prefix, sys.base_prefix]
    for name in dict.fromkeys(names):
        candidates.extend(needs_of(name, search))
    roots: list[str] = []
    for candidate in sorted(dict.fromkeys(os.path.normpath(c) for c in candidates if c), key=len):
        if not os.path.isabs(candidate) or not os.path.isdir(candidate):
            continue
        if _under_any(candidate, SYSTEM_DIRS) or is_sensitive(candidate):
            continue
        if not _under_any(candidate, roots):
            roots.append(candidate)
    return tuple(roots)


def hidden_needs(name: str, dirs: Iterable[str]) -> tuple[str, ...]:
    """What the checker ``name`` needs that every sandbox hides (the sensitive floor)."""
    return tuple(path for path in needs_of(name, dirs) if is_sensitive(path))


def _which(name: str, dirs: Iterable[str]) -> str | None:
    for directory in dirs:
        candidate = os.path.join(directory, name)
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    return None


def _virtualenv(prefix: str) -> list[str]:
    """``prefix`` and its base interpreter's prefix when it is a virtualenv."""
    try:
        with open(os.path.join(prefix, "pyvenv.cfg"), encoding="utf-8") as config:
            lines = config.read(64 * 1024).splitlines()
    except (OSError, UnicodeDecodeError):
        return []
    found = [prefix]
    for line in lines:
        key, _, value = line.partition("=")
        if key.strip() == "home" and os.path.isabs(value.strip()):
            found.append(os.path.dirname(os.path.normpath(value.strip())))
    return found


def _shebang(path: str) -> str | None:
    """The interpreter a script's ``#!`` line names (``None`` for a binary or ``env``)."""
    try:
        with open(path, "rb") as script:
            head = script.read(_SHEBANG_BYTES)
    except OSError:
        return None
    if not head.startswith(b"#!"):
        return None
    words = head[2:].split(b"\n", 1)[0].decode("utf-8", "replace").split()
    if not words or not os.path.isabs(words[0]) or os.path.basename(words[0]) == "env":
        return None
    return words[0]


def _under_any(path: str, prefixes: Iterable[str]) -> bool:
    return any(path == p or path.startswith(p.rstrip("/") + "/") for p in prefixes)
