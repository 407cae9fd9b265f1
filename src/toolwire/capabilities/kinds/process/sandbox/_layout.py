"""The file system a sandboxed command sees: bubblewrap's mount arguments for one call.

- the **system** read-only (``/usr``, ``/bin``, ``/sbin``, ``/lib*``, ``/etc``, ``/opt``, ``/nix``
  where they exist; symbolic links such as ``/bin -> usr/bin`` kept as links);
- a fresh ``/proc`` (of the sandbox's own pid namespace), a minimal ``/dev`` (``null``,
  ``zero``, ``random``, ``urandom``, ``tty``, ``pts``, ``shm``), a private ``/tmp`` and an empty
  private home directory (``$HOME``, unless a root holds it), all gone when the call ends;
- the **read roots** read-only and the **write roots** read-write, at their real paths (a root
  spelled through a symbolic link gets the link too);
- **hidden** even inside a root: the sensitive-path floor
  (`toolwire.safety.sensitive_paths`), the backends' deny prefixes, and toolwire's own state
  (``.toolwire`` in every root and in the home directory, plus the state directories the
  backend names): a directory becomes an empty read-only directory, a file an empty file, and
  ``/etc/passwd`` a two-line stand-in. A root at or under a hidden path is not mounted at all;
- **protected** inside every write root (`toolwire.safety.protected_paths`: toolwire's config,
  the virtualenv and code it runs from, ``.git``, shell start-up files in a home root, ...):
  each that exists is bound read-only over itself, and the directories between it and its root
  are bound over themselves (still writable) so that renaming one cannot move the protected
  path aside. One that does not exist gets an empty read-only stand-in where its kind allows
  (`toolwire.safety.protected_paths.stand_in`), so a command cannot create it either; bubblewrap
  leaves that stand-in, empty, on the host. The git entries of repositories one level down
  (``root/<repo>/.git``) are protected too, when they exist.

Mounts are emitted parents first, so a deeper root is laid over a shallower one and the hidden
paths over both. Nothing here runs a process: `mount_arguments` only reads the file system to
see what exists.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Sequence
from dataclasses import dataclass

from toolwire.capabilities.kinds.process.sandbox._confinement import Confinement
from toolwire.safety.protected_paths import (
    LOGIN_CHAIN,
    ProtectedPaths,
    default_protected_paths,
    stand_in,
)
from toolwire.safety.sensitive_paths import sensitive_paths

__all__ = ["SYSTEM_PATHS", "HostFiles", "Layout", "mount_arguments"]

SYSTEM_PATHS: tuple[str, ...] = (
    "/usr",
    "/bin",
    "/sbin",
    "/lib",
    "/lib32",
    "/lib64",
    "/libx32",
    "/etc",
    "/opt",
    "/nix/store",
)
"""What every sandbox sees read-only (those that exist)."""

STATE_DIR_NAME = ".toolwire"


@dataclass(frozen=True, kw_only=True, slots=True)
class HostFiles:
    """Files on the host that stand in for hidden ones: an empty file and a ``passwd``."""

    empty_file: str
    passwd: str


@dataclass(frozen=True, kw_only=True, slots=True)
class Layout:
    """The mount arguments of one sandbox and what they decided.

    Attributes:
        arguments: bubblewrap's arguments (mounts and ``--chdir``), in order.
        visible: The real paths of the roots that were mounted.
        writable: Those of them mounted read-write.
        cwd: The working directory inside the sandbox.
    """

    arguments: tuple[str, ...]
    visible: tuple[str, ...]
    writable: tuple[str, ...]
    cwd: str


def _under(path: str, prefix: str) -> bool:
    return prefix == "/" or path == prefix or path.startswith(prefix.rstrip("/") + "/")


def _depth(path: str) -> int:
    return 0 if path == "/" else path.rstrip("/").count("/")


def _hidden_candidates(
    confinement: Confinement, roots: Sequence[str], home: str | None, state: Sequence[str]
) -> list[str]:
    found = list(sensitive_paths(home))
    found += confinement.deny
    found += state
    found += [os.path.join(root, STATE_DIR_NAME) for root in roots]
    if home:
        found.append(os.path.join(home, STATE_DIR_NAME))
    return list(dict.fromkeys(os.path.normpath(p) for p in found))


def _is_hidden(path: str, hidden: Sequence[str]) -> bool:
    lowered = path.casefold()
    return any(_under(lowered, entry.casefold()) for entry in hidden) or (
        STATE_DIR_NAME in path.split("/")
    )


@dataclass(slots=True)
class _Plan:
    mounts: list[tuple[int, int, str, tuple[str, ...]]]
    hides: list[tuple[int, str, tuple[str, ...]]]

    def mount(self, dest: str, rank: int, *args: str) -> None:
        self.mounts.append((_depth(dest), rank, dest, args))

    def arguments(self) -> list[str]:
        out: list[str] = []
        for _, _, _, args in sorted(self.mounts, key=lambda m: (m[0], m[1], m[2])):
            out += args
        for _, _, args in sorted(self.hides, key=lambda h: (h[0], h[1])):
            out += args
        return out


def _system(plan: _Plan, system_paths: Sequence[str]) -> list[str]:
    seen: list[str] = []
    for path in system_paths:
        if os.path.islink(path):
            plan.mount(path, 0, "--symlink", os.readlink(path), path)
        elif os.path.isdir(path):
            plan.mount(path, 0, "--ro-bind", path, path)
        else:
            continue
        seen.append(os.path.realpath(path))
    return seen


def _roots(
    plan: _Plan, confinement: Confinement, hidden: Sequence[str], system: Sequence[str]
) -> tuple[list[str], list[str]]:
    writes = [os.path.realpath(p) for p in confinement.write_roots]
    visible: list[str] = []
    writable: list[str] = []
    for spelled in confinement.roots:
        real = os.path.realpath(spelled)
        if real in visible or not os.path.exists(real) or _is_hidden(real, hidden):
            continue
        if _is_hidden(spelled, hidden):
            continue
        rw = any(_under(real, w) for w in writes)
        plan.mount(real, 2, "--bind" if rw else "--ro-bind", real, real)
        visible.append(real)
        if rw:
            writable.append(real)
    for spelled in confinement.roots:
        real = os.path.realpath(spelled)
        mounted = (*visible, *system)
        if spelled != real and real in visible and not any(_under(spelled, m) for m in mounted):
            plan.mount(spelled, 3, "--symlink", real, spelled)  # the spelling the tool uses
    return visible, writable


def _hide(plan: _Plan, hidden: Sequence[str], mounted: Sequence[str], files: HostFiles) -> None:
    found: dict[str, bool] = {}  # real path → is a directory
    for entry in hidden:
        if (entry.startswith("/proc/") and entry != "/proc/sys") or not os.path.lexists(entry):
            continue  # a /proc/<pid> entry is the host's; the sandbox has its own /proc
        real = os.path.realpath(entry)
        if any(_under(real, m) for m in mounted):
            found[real] = os.path.isdir(real)
    covered: list[str] = []
    for real in sorted(found, key=lambda p: (_depth(p), p)):
        if any(_under(real, d) for d in covered):
            continue  # inside a directory already hidden
        if found[real]:
            args: tuple[str, ...] = ("--tmpfs", real, "--remount-ro", real)
            covered.append(real)
        elif real == "/etc/passwd":
            args = ("--ro-bind", files.passwd, real)
        else:
            args = ("--ro-bind", files.empty_file, real)
        plan.hides.append((_depth(real), real, args))


def _stand_in(path: str, name: str | None) -> str | None:
    kind = stand_in(name)
    if kind != "login":
        return kind
    parent, here = os.path.split(path)
    at = LOGIN_CHAIN.index(here)
    earlier = any(os.path.lexists(os.path.join(parent, n)) for n in LOGIN_CHAIN[:at])
    later = any(os.path.lexists(os.path.join(parent, n)) for n in LOGIN_CHAIN[at + 1 :])
    return "file" if earlier or not later else None  # never hide a later one that is read


_NESTED_SCAN_LIMIT = 1000
"""Entries of a write root looked at for repositories one level down (a bound on the cost)."""


def _in_any(path: str, directories: set[str]) -> bool:
    """Whether ``path`` is one of ``directories`` or below one (a walk up its parents)."""
    while True:
        if path in directories:
            return True
        parent = os.path.dirname(path)
        if parent == path:
            return False
        path = parent


def _nested_git(root: str, protected: ProtectedPaths) -> list[tuple[str, list[str]]]:
    """The repositories directly inside ``root``, each with its protected git entries
    (``root/<repo>/.git``)."""
    names = [n for n in protected.names if n.startswith(".git/")]  # an existing .git: its parts
    found: list[tuple[str, list[str]]] = []
    try:
        with os.scandir(root) as entries:
            for count, entry in enumerate(entries):
                if count >= _NESTED_SCAN_LIMIT:
                    break
                repo = entry.is_dir(follow_symlinks=False) and entry.name != ".git"
                if repo and os.path.lexists(os.path.join(entry.path, ".git")):
                    found.append((entry.path, [os.path.join(entry.path, n) for n in names]))
    except OSError:
        pass
    return found


def _real_directory(path: str) -> bool:
    return os.path.isdir(path) and not os.path.islink(path)


def _protect(
    plan: _Plan,
    protected: ProtectedPaths,
    writable: Sequence[str],
    hidden: Sequence[str],
    home: str | None,
    files: HostFiles,
) -> None:
    wanted: dict[str, str | None] = {}
    real_dirs = set(writable)  # directories known to be real paths (no link to resolve)
    for root in writable:
        for path, name in protected.inside(root, home=home).items():
            wanted.setdefault(path, name)
        for repo, paths in _nested_git(root, protected):
            real_dirs.add(repo)  # a directory (not a link) found in the real root
            for path in paths:
                wanted.setdefault(path, None)  # protected only when it exists: no stand-in
    covered: set[str] = set()
    pinned: set[str] = set()
    for path in sorted(wanted, key=lambda p: (_depth(p), p)):
        if _in_any(path, covered):
            continue  # inside a protected directory (found before it: parents sort first)
        if wanted[path] == ".git" and _real_directory(path):
            continue  # a repository: its hooks, config, ... are protected, not its objects
        if os.path.lexists(path):
            direct = os.path.dirname(path) in real_dirs and not os.path.islink(path)
            real = path if direct else os.path.realpath(path)
            kind: str | None = "dir" if os.path.isdir(real) else "file"
            args: tuple[str, ...] = ("--ro-bind", real, real)
        else:
            real = path
            kind = _stand_in(path, wanted[path])
            if kind is None or not os.path.isdir(os.path.dirname(path)):
                continue
            args = (
                ("--tmpfs", real, "--remount-ro", real)
                if kind == "dir"
                else ("--ro-bind", files.empty_file, real)
            )
        roots = [w for w in writable if _under(real, w)]
        if not roots or _in_any(real, covered) or _is_hidden(real, hidden):
            continue  # read-only already, inside a protected directory, or hidden
        root = max(roots, key=_depth)
        ancestor = os.path.dirname(real)
        while ancestor != root and _under(ancestor, root):
            if ancestor not in pinned:  # a mount point cannot be renamed away
                pinned.add(ancestor)
                plan.hides.append((_depth(ancestor), ancestor, ("--bind", ancestor, ancestor)))
            ancestor = os.path.dirname(ancestor)
        plan.hides.append((_depth(real), real, args))
        if kind == "dir":
            covered.add(real)


def mount_arguments(
    confinement: Confinement,
    *,
    cwd: str,
    files: HostFiles,
    home: str | None,
    state: Sequence[str] = (),
    system_paths: Sequence[str] = SYSTEM_PATHS,
) -> Layout:
    """bubblewrap's mount arguments for ``confinement`` (see the module docstring).

    Args:
        confinement: The call's roots, deny prefixes and network.
        cwd: The working directory (absolute, on the host); out of every root, the command
            starts in an empty directory of that name.
        files: The stand-ins for hidden files.
        home: The host's home directory (the floor's home entries; an empty private home is
            mounted there unless a root holds it).
        state: More paths of toolwire's own state to hide (the backends' state directories).
        system_paths: What every sandbox sees read-only.

    Raises:
        PermissionError: ``cwd`` is hidden in the sandbox.
    """
    hidden = _hidden_candidates(confinement, confinement.roots, home, state)
    plan = _Plan(mounts=[], hides=[])
    system = _system(plan, system_paths)
    plan.mount("/proc", 1, "--proc", "/proc")
    plan.mount("/dev", 1, "--dev", "/dev")
    plan.mount("/tmp", 1, "--tmpfs", "/tmp")
    plan.mount("/run", 1, "--tmpfs", "/run")
    visible, writable = _roots(plan, confinement, hidden, system)
    real_home = os.path.realpath(home) if home and os.path.isabs(home) else None
    if (
        real_home is not None
        and real_home != "/"
        and not any(_under(real_home, v) for v in (*visible, *system))
    ):
        plan.mount(real_home, 1, "--tmpfs", real_home)
    _hide(plan, [*hidden, "/proc/sys"], [*visible, *system, "/proc"], files)
    protected = confinement.protected or default_protected_paths()
    _protect(plan, protected, writable, hidden, home, files)
    real_cwd = os.path.realpath(cwd)
    if _is_hidden(real_cwd, hidden):
        raise PermissionError(
            errno.EACCES,
            f"working directory {cwd} is hidden in the sandbox (toolwire's state, the "
            "sensitive-path floor or a denied path)",
            cwd,
        )
    arguments = plan.arguments()
    if not any(_under(real_cwd, m) for m in (*visible, *system, "/proc", "/dev")):
        arguments += ["--dir", real_cwd]  # out of every root: an empty directory to start in
    arguments += ["--chdir", real_cwd]
    return Layout(
        arguments=tuple(arguments),
        visible=tuple(visible),
        writable=tuple(writable),
        cwd=real_cwd,
    )
