"""The protected paths: what the host later runs or reads as configuration, never written by tools.

A write root is where a model's commands and file tools may write. Some of what sits inside one is
not data but instructions the *host* follows later, outside every sandbox: toolwire's own
``toolwire.toml`` (an ``[mcp.servers.x]`` entry is a command ``toolwire serve`` starts), the
virtualenv and interpreter toolwire runs from, git's hooks and config (run by the user's next
``git`` command), shell start-up files, editors' and coding agents' project settings.
`ProtectedPaths` lists them; inside a write root they stay read-only in every sandbox
(`toolwire.capabilities.kinds.process.sandbox._layout`) and the write tools refuse them
(`toolwire.toolbox._protected`).

Three kinds of entry:

- **names** (`ROOT_NAMES`): relative paths protected inside every write root. A command sees
  them read-only at the top of each root; the file tools refuse them at any depth
  (``a/b/.git/config`` too), in any letter case.
- **home names** (`HOME_NAMES`): shell start-up files and the like, protected in the home
  directory when a write root holds it.
- **paths**: absolute paths computed at start-up (`runtime_paths`: the interpreter, the
  virtualenv, toolwire's own package directory) and from the configuration (the config file in
  use, ``[sandbox] protected``).

```python
from toolwire.safety.protected_paths import protected_paths

protected = protected_paths(config_files=["/srv/project/toolwire.toml"])
protected.reason("/srv/project/.git/hooks/pre-commit")  # "... git runs its hooks ..."
protected.reason("/srv/project/src/app.py")  # None
```

``docs/sandbox.md`` ("Protected paths") says why each default is there, and how the list
compares with those of Anthropic's sandbox runtime and OpenAI's Codex.
"""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType

from toolwire.errors import ConfigurationError

__all__ = [
    "HOME_NAMES",
    "ROOT_NAMES",
    "WHY",
    "ProtectedPaths",
    "default_protected_paths",
    "is_protected",
    "protected_paths",
    "runtime_paths",
    "stand_in",
]

_GIT = "git runs it, or the commands it names, on the host at the user's next git command"
_EDITOR = "an editor or coding agent opening the project reads it as settings, tasks or hooks"

WHY: Mapping[str, str] = MappingProxyType(
    {
        ".git": "git's metadata (a sandboxed command may commit, but never write the hooks, "
        "config and paths git follows from them; where there is no repository, none can be "
        "made): " + _GIT,
        ".git/hooks": "git hooks: " + _GIT,
        ".git/config": "git config (core.hooksPath, core.fsmonitor, core.pager, filters): " + _GIT,
        ".git/commondir": "points git at another config and hooks: " + _GIT,
        ".git/modules": "submodules' git directories, with their own hooks and config: " + _GIT,
        ".git/worktrees": "linked worktrees' git directories: " + _GIT,
        ".gitmodules": "submodule URLs and update settings git acts on",
        ".husky": "git hooks kept in the work tree (core.hooksPath): " + _GIT,
        ".githooks": "git hooks kept in the work tree (core.hooksPath): " + _GIT,
        ".pre-commit-config.yaml": "the hooks pre-commit runs at the user's next git commit",
        "toolwire.toml": "toolwire's configuration: [mcp.servers] entries are commands it starts",
        ".envrc": "direnv runs it when a shell enters the directory",
        ".mcp.json": "MCP clients start the servers it lists",
        ".vscode": "VS Code and its forks: " + _EDITOR,
        ".idea": "JetBrains IDEs: " + _EDITOR,
        ".cursor": "Cursor: " + _EDITOR,
        ".claude": "Claude Code: " + _EDITOR,
        ".codex": "OpenAI Codex: " + _EDITOR,
        ".bashrc": "a shell start-up file: the next shell runs it",
        ".bash_profile": "a shell start-up file: the next login shell runs it",
        ".bash_login": "a shell start-up file: the next login shell runs it",
        ".bash_logout": "a shell start-up file: a login shell runs it on exit",
        ".profile": "a shell start-up file: the next login shell runs it",
        ".zshrc": "a shell start-up file: the next shell runs it",
        ".zshenv": "a shell start-up file: every zsh runs it",
        ".zprofile": "a shell start-up file: the next login shell runs it",
        ".zlogin": "a shell start-up file: the next login shell runs it",
        ".zlogout": "a shell start-up file: a login shell runs it on exit",
        ".inputrc": "readline's start-up file: it binds keys to commands",
        ".gitconfig": "the user's git config: " + _GIT,
        ".config/git": "the user's git config and attributes: " + _GIT,
        ".config/fish": "fish's start-up files: the next shell runs them",
        ".config/autostart": "the desktop session starts what it lists",
        ".config/systemd": "user services systemd starts",
        ".local/bin": "on PATH: a program planted here shadows the real one",
    }
)
"""Why each default name is protected (shown by ``toolwire doctor`` and in refusals)."""

ROOT_NAMES: tuple[str, ...] = (
    ".git",
    ".git/hooks",
    ".git/config",
    ".git/commondir",
    ".git/modules",
    ".git/worktrees",
    ".gitmodules",
    ".husky",
    ".githooks",
    ".pre-commit-config.yaml",
    "toolwire.toml",
    ".envrc",
    ".mcp.json",
    ".vscode",
    ".idea",
    ".cursor",
    ".claude",
    ".codex",
)
"""Protected inside every write root. The file tools refuse all of ``.git``; a sandboxed
command sees an existing repository's ``.git`` writable but for the finer ``.git/...`` entries
(so ``git commit`` and ``git checkout`` work), and no ``.git`` at all where there is none (so
no repository with hooks of the model's can be made there)."""

HOME_NAMES: tuple[str, ...] = (
    ".bashrc",
    ".bash_profile",
    ".bash_login",
    ".bash_logout",
    ".profile",
    ".zshrc",
    ".zshenv",
    ".zprofile",
    ".zlogin",
    ".zlogout",
    ".inputrc",
    ".gitconfig",
    ".config/git",
    ".config/fish",
    ".config/autostart",
    ".config/systemd",
    ".local/bin",
)
"""Protected in the home directory when a write root holds it."""


_DIRECTORIES = frozenset(
    {
        ".git",
        ".git/hooks",
        ".git/modules",
        ".git/worktrees",
        ".vscode",
        ".idea",
        ".cursor",
        ".claude",
        ".codex",
        ".config/git",
        ".config/fish",
        ".config/autostart",
        ".config/systemd",
        ".local/bin",
    }
)
_EMPTY_AS_ABSENT = frozenset(
    {
        "toolwire.toml",
        ".git/config",
        ".bashrc",
        ".bash_logout",
        ".zshrc",
        ".zshenv",
        ".zprofile",
        ".zlogin",
        ".zlogout",
        ".inputrc",
        ".gitconfig",
    }
)
LOGIN_CHAIN: tuple[str, ...] = (".bash_profile", ".bash_login", ".profile")
"""bash's login files, in the order it tries them: it reads only the first that exists."""


def stand_in(name: str | None) -> str | None:
    """What stands in for the protected ``name`` while it does not exist, so a command cannot
    create it: ``"dir"`` (an empty read-only directory), ``"file"`` (an empty read-only file,
    only where an empty file means what no file means), ``"login"`` (one of `LOGIN_CHAIN`: an
    empty file unless that would hide a later one that exists) or ``None`` (nothing: its
    creation is not blocked in a sandbox; ``docs/sandbox.md`` says why for each)."""
    if name in _DIRECTORIES:
        return "dir"
    if name in _EMPTY_AS_ABSENT:
        return "file"
    if name in LOGIN_CHAIN:
        return "login"
    return None


def _normal(path: str) -> str:
    normal = os.path.normpath(path)
    return "/" + normal.lstrip("/") if normal.startswith("//") else normal


def _under(path: str, prefix: str) -> bool:
    return prefix == "/" or path == prefix or path.startswith(prefix.rstrip("/") + "/")


def _parts(name: str) -> tuple[str, ...]:
    return tuple(p for p in name.casefold().split("/") if p and p != ".")


def _contains(parts: tuple[str, ...], name: tuple[str, ...]) -> bool:
    """Whether ``name``'s segments appear in a row in ``parts`` (the path is at or below it)."""
    width = len(name)
    return any(parts[i : i + width] == name for i in range(len(parts) - width + 1))


@functools.cache
def runtime_paths() -> tuple[str, ...]:
    """What this toolwire process runs from: the virtualenv (``sys.prefix``), the interpreter
    (``sys.executable``, as spelled and resolved) and toolwire's package directory (in an
    editable install, the checkout's ``src/toolwire``)."""
    found = [sys.prefix, os.path.realpath(sys.prefix)]
    if sys.executable:
        found += [sys.executable, os.path.realpath(sys.executable)]
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # toolwire/
    found += [package, os.path.realpath(package)]
    return tuple(dict.fromkeys(_normal(p) for p in found if p and os.path.isabs(p)))


@dataclass(frozen=True, kw_only=True, slots=True)
class ProtectedPaths:
    """What no tool writes inside a write root (see the module docstring).

    Attributes:
        names: Relative paths protected inside every write root (and, for the file tools, at
            any depth).
        home_names: Relative paths protected in the home directory when a root holds it.
        paths: Absolute paths protected wherever they are.
        removed: Default names ``[sandbox] unprotect`` removed (the ``serve`` banner says so).
    """

    names: tuple[str, ...] = ROOT_NAMES
    home_names: tuple[str, ...] = HOME_NAMES
    paths: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        for field_name in ("names", "home_names"):
            values = getattr(self, field_name)
            if isinstance(values, str):
                raise ConfigurationError(f"ProtectedPaths({field_name}=...) takes a tuple")
            for name in values:
                if not name or os.path.isabs(name) or ".." in name.split("/") or "\0" in name:
                    raise ConfigurationError(
                        f"ProtectedPaths({field_name}=...): {name!r} must be a relative path "
                        "inside a root, without '..'"
                    )
            object.__setattr__(self, field_name, tuple(dict.fromkeys(values)))
        if isinstance(self.paths, str):
            raise ConfigurationError("ProtectedPaths(paths=...) takes a tuple of absolute paths")
        for path in self.paths:
            if not os.path.isabs(path) or "\0" in path:
                raise ConfigurationError(f"ProtectedPaths(paths=...): {path!r} is not absolute")
        object.__setattr__(self, "paths", tuple(dict.fromkeys(_normal(p) for p in self.paths)))
        object.__setattr__(self, "removed", tuple(self.removed))

    def reason(self, path: str, *, home: str | None = None) -> str | None:
        """Why ``path`` (absolute) is protected, or ``None``; lexical, in any letter case.

        Args:
            path: The path as spelled or as it resolves (ask about both).
            home: The home directory (default: ``$HOME``).
        """
        if not os.path.isabs(path):
            return None
        normal = _normal(path)
        folded = normal.casefold()
        for entry in self.paths:
            if _under(folded, entry.casefold()):
                return f"{entry} is what toolwire runs from or is configured by"
        parts = _parts(normal)
        for name in self.names:
            if _contains(parts, _parts(name)):
                return f"{name}: {WHY.get(name, 'protected by [sandbox] protected')}"
        home_dir = home if home is not None else os.environ.get("HOME")
        if home_dir and os.path.isabs(home_dir) and _normal(home_dir) != "/":
            for base in dict.fromkeys((_normal(home_dir), os.path.realpath(home_dir))):
                for name in self.home_names:
                    if _under(folded, f"{base}/{name}".casefold()):
                        return f"~/{name}: {WHY.get(name, 'protected by [sandbox] protected')}"
        return None

    def inside(self, root: str, *, home: str | None = None) -> dict[str, str | None]:
        """The absolute paths to keep read-only inside the write root ``root`` (whether they
        exist or not), each with its name (``None`` for an absolute entry): the names at its
        top, the home names when the home directory is in it, the absolute paths under it."""
        real_root = os.path.realpath(root)
        found: dict[str, str | None] = {}
        if self.reason(real_root, home=home) is not None:
            found[_normal(real_root)] = None  # the root itself is protected: all of it
        for name in self.names:
            found.setdefault(_normal(os.path.join(real_root, name)), name)
        if home and os.path.isabs(home):
            real_home = os.path.realpath(home)
            if real_home != "/" and _under(real_home, real_root):
                for name in self.home_names:
                    found.setdefault(_normal(os.path.join(real_home, name)), name)
        for path in self.paths:  # both spellings are listed where they differ
            if _under(path, real_root):
                found.setdefault(path, None)
        return found

    def describe(self) -> tuple[str, ...]:
        """The entries in three groups (every write root, the home directory, absolute paths),
        for ``toolwire doctor``."""
        homes = ", ".join(f"~/{name}" for name in self.home_names)
        return (
            "in every write root: " + ", ".join(self.names),
            "in the home directory when a write root holds it: " + homes,
            "wherever they are: " + ", ".join(self.paths),
        )


def protected_paths(
    *,
    config_files: Iterable[str] = (),
    add: Iterable[str] = (),
    remove: Iterable[str] = (),
) -> ProtectedPaths:
    """The protected paths of a toolwire process: the defaults, `runtime_paths`, the config files
    it read, and ``[sandbox] protected`` / ``unprotect``.

    Args:
        config_files: The configuration files toolwire read at start-up.
        add: More entries: an absolute path (``~`` expanded) is protected where it is; a
            relative one is a name protected inside every write root.
        remove: Default names to stop protecting (`ROOT_NAMES`, `HOME_NAMES`); said loudly.

    Raises:
        ConfigurationError: ``remove`` names something that is not a default name (what
            toolwire runs from and the config files in use cannot be unprotected).
    """
    names = list(ROOT_NAMES)
    home_names = list(HOME_NAMES)
    paths = [*runtime_paths()]
    for file in config_files:
        absolute = _normal(os.path.abspath(file))
        paths += [absolute, _normal(os.path.realpath(absolute))]
    for entry in add:
        if not isinstance(entry, str) or not entry.strip() or "\0" in entry:
            raise ConfigurationError(f"sandbox.protected: {entry!r} is not a path")
        expanded = os.path.expanduser(entry)
        if os.path.isabs(expanded):
            paths += [_normal(expanded), _normal(os.path.realpath(expanded))]
        else:
            names.append(_normal(entry).removeprefix("./"))
    removed: list[str] = []
    for entry in remove:
        name = _normal(entry).removeprefix("./").removeprefix("~/") if entry else ""
        if name in ROOT_NAMES and name in names:
            names.remove(name)
        elif name in HOME_NAMES and name in home_names:
            home_names.remove(name)
        else:
            raise ConfigurationError(
                f"sandbox.unprotect: {entry!r} is not a default protected name; it can remove "
                f"{sorted({*ROOT_NAMES, *HOME_NAMES})} (what toolwire runs from and its config "
                "files stay protected)"
            )
        removed.append(name)
    return ProtectedPaths(
        names=tuple(names), home_names=tuple(home_names), paths=tuple(paths), removed=tuple(removed)
    )


@functools.cache
def default_protected_paths() -> ProtectedPaths:
    """The defaults and `runtime_paths`: what applies when no configuration says more."""
    return protected_paths()


def is_protected(
    path: str, protected: ProtectedPaths | None = None, *, home: str | None = None
) -> str | None:
    """Why writing ``path`` (absolute) is refused as protected, or ``None``.

    The hook for any seam that writes files: ask about the path as spelled and as it resolves.

    Args:
        path: The absolute path.
        protected: The process's list (`protected_paths`); the defaults when ``None``.
        home: The home directory (default: ``$HOME``).
    """
    return (protected or default_protected_paths()).reason(path, home=home)
