"""A pids cgroup per sandbox: what bounds a fork loop, even for root.

``RLIMIT_NPROC`` is not enforced for root (nor for a user namespace owned by root), so where
toolwire may create cgroups it gives every sandbox its own, with ``pids.max`` set to the
process limit: ``<cgroup of toolwire>/toolwire/sb-<id>``, in the v1 ``pids`` hierarchy or in
cgroup v2 (where ``+pids`` is enabled in the ``toolwire`` group's ``cgroup.subtree_control``).
The sandbox's launcher moves itself in before it starts bubblewrap, so every process of the
sandbox is counted. `PidsCgroups.detect` finds out once whether this works here; ``None`` means
it does not (no writable cgroup file system), and the backend falls back to ``RLIMIT_NPROC``
inside the sandbox's user namespace, which bounds a non-root toolwire.
"""

from __future__ import annotations

import contextlib
import functools
import os
import signal
import uuid
from dataclasses import dataclass

__all__ = ["PidsCgroup", "PidsCgroups"]

_PARENT = "toolwire"


@dataclass(frozen=True, slots=True)
class PidsCgroup:
    """One sandbox's cgroup (see the module docstring)."""

    path: str

    @property
    def procs_file(self) -> str:
        """``cgroup.procs``: a process that writes its pid here joins the group."""
        return os.path.join(self.path, "cgroup.procs")

    def pids(self) -> list[int]:
        """The processes in the group now."""
        try:
            with open(self.procs_file, encoding="ascii") as handle:
                return [int(line) for line in handle.read().split()]
        except FileNotFoundError:
            return []

    def kill(self) -> int:
        """``SIGKILL`` every process in the group; how many there were."""
        found = self.pids()
        for pid in found:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        return len(found)

    def remove(self) -> bool:
        """Remove the group once it is empty; ``False`` while processes are still in it."""
        try:
            os.rmdir(self.path)
        except FileNotFoundError:
            return True
        except OSError:
            return False
        return True


@dataclass(frozen=True, slots=True)
class PidsCgroups:
    """Where this process may create pids cgroups: the ``toolwire`` group under its own.

    Attributes:
        parent: The ``toolwire`` group the sandboxes' groups are made in.
        version: ``1`` (the v1 ``pids`` hierarchy) or ``2``.
    """

    parent: str
    version: int

    def create(self, max_processes: int) -> PidsCgroup:
        """A new group with ``pids.max`` = ``max_processes`` (``0``: no limit).

        Raises:
            OSError: the group could not be made or limited.
        """
        group = PidsCgroup(os.path.join(self.parent, f"sb-{uuid.uuid4().hex[:16]}"))
        os.mkdir(group.path)
        try:
            with open(os.path.join(group.path, "pids.max"), "w", encoding="ascii") as handle:
                handle.write(str(max_processes) if max_processes > 0 else "max")
        except OSError:
            group.remove()
            raise
        return group

    @property
    def description(self) -> str:
        """Where the groups are, for ``toolwire doctor`` and the banner."""
        return f"cgroup v{self.version} pids.max under {self.parent}"

    @staticmethod
    @functools.cache
    def detect() -> PidsCgroups | None:
        """Whether pids cgroups can be made here (tried once, then cached)."""
        for candidate in _candidates():
            found = _usable(*candidate)
            if found is not None:
                return found
        return None


def _mounts() -> list[tuple[str, str, str, str]]:
    """``(root, mount point, fs type, super options)`` of every cgroup mount."""
    found = []
    try:
        with open("/proc/self/mountinfo", encoding="utf-8") as handle:
            lines = handle.read().splitlines()
    except OSError:
        return []
    for line in lines:
        head, sep, tail = line.partition(" - ")
        fields, rest = head.split(), tail.split()
        if sep and len(fields) >= 5 and len(rest) >= 3 and rest[0] in ("cgroup", "cgroup2"):
            found.append((fields[3], fields[4], rest[0], rest[2]))
    return found


def _own_paths() -> dict[str, str]:
    """Controller (``"pids"``, or ``""`` for v2) → this process's cgroup path."""
    paths: dict[str, str] = {}
    try:
        with open("/proc/self/cgroup", encoding="utf-8") as handle:
            lines = handle.read().splitlines()
    except OSError:
        return paths
    for line in lines:
        parts = line.split(":", 2)
        if len(parts) == 3:
            for controller in parts[1].split(",") if parts[1] else [""]:
                paths[controller] = parts[2]
    return paths


def _candidates() -> list[tuple[str, int]]:
    """``(directory of this process's cgroup, version)``: v1 ``pids`` first, then v2."""
    own = _own_paths()
    out: list[tuple[str, int]] = []
    for root, point, fstype, options in _mounts():
        if fstype == "cgroup" and "pids" in options.split(","):
            key, version = "pids", 1
        elif fstype == "cgroup2":
            key, version = "", 2
        else:
            continue
        path = own.get(key)
        if path is None or not (path == root or path.startswith(root.rstrip("/") + "/")):
            continue
        relative = path[len(root.rstrip("/")) :].lstrip("/")
        out.append((os.path.join(point, relative), version))
    return sorted(out, key=lambda c: c[1])


def _usable(directory: str, version: int) -> PidsCgroups | None:
    parent = os.path.join(directory, _PARENT)
    try:
        os.makedirs(parent, exist_ok=True)
        if version == 2:
            with open(os.path.join(parent, "cgroup.subtree_control"), "w", encoding="ascii") as f:
                f.write("+pids")
        groups = PidsCgroups(parent=parent, version=version)
        trial = groups.create(1)
    except OSError:
        return None
    if not os.path.exists(os.path.join(trial.path, "pids.max")):
        trial.remove()
        return None
    trial.remove()
    return groups
