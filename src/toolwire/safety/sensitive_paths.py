"""The sensitive-path manifest: the deny floor no capability declaration can lift.

One list, used by every consumer that guards paths: `ReachScopedFs` (reads and writes), the file
tools' write blocklist and the terminal/process argument guard. It is recomputed from ``$HOME``
on every call, so a test (or a service that switches users) that changes ``HOME`` is honoured.

```python
from toolwire.safety.sensitive_paths import is_sensitive

is_sensitive("/home/ann/.ssh/id_rsa", home="/home/ann")  # True
is_sensitive("/home/ann/project/notes.md", home="/home/ann")  # False
```

A path matches an entry when it equals it or sits below it (``entry + "/"``); the comparison is
lexical, on normalised absolute paths, and ignores letter case (`str.casefold`) on every
platform: on a case-insensitive file system (the macOS default) ``~/.SSH/id_rsa`` opens
``~/.ssh/id_rsa``, and refusing another spelling of a protected entry is the safe side of a deny
floor. Where the home directory or a system path is itself a symbolic link (``/etc`` →
``/private/etc`` on macOS), both spellings are listed, so a path that a seam resolved through the
link is still caught. ``/proc/<pid>/environ``, ``cmdline`` and ``mem``
are refused for every pid, not only through ``/proc/self``.
"""

from __future__ import annotations

import os

from toolwire.safety.linear_regex import linear

__all__ = ["HOME_SENSITIVE", "SYSTEM_SENSITIVE", "is_sensitive", "sensitive_paths"]

HOME_SENSITIVE: tuple[str, ...] = (
    ".ssh",
    ".aws/credentials",
    ".aws/config",
    ".gnupg",
    ".netrc",
    ".git-credentials",
    ".pypirc",
    ".docker/config.json",
    ".kube/config",
    ".config/gh/hosts.yml",
    ".bash_history",
    ".zsh_history",
    ".psql_history",
    ".mysql_history",
    ".python_history",
    ".npmrc",
    ".toolwire/keys.json",
    ".toolwire/secrets",
    "Library/Keychains",
)
"""Entries relative to the home directory: credentials, keys and shell histories."""

SYSTEM_SENSITIVE: tuple[str, ...] = (
    "/etc/passwd",
    "/etc/shadow",
    "/etc/gshadow",
    "/etc/sudoers",
    "/etc/sudoers.d",
    "/root",
    "/boot",
    "/sys",
    "/proc/sys",
    "/proc/self/environ",
    "/proc/self/cmdline",
    "/proc/self/mem",
    "/proc/thread-self/environ",
)
"""Absolute system entries."""

# "\n?\Z": what "$" matched in Python's re (RE2's "$" refuses a final newline)
_PROC_PID = linear(r"^/proc/(?:\d+|self|thread-self)(?:/task/\d+)?/(?:environ|cmdline|mem)\n?\Z")


def _normalise(path: str) -> str:
    # os.path.normpath keeps a leading "//" (POSIX allows it); collapse it like every other slash.
    normal = os.path.normpath(path)
    return "/" + normal.lstrip("/") if normal.startswith("//") else normal


def _home(home: str | None) -> str | None:
    value = home if home is not None else os.environ.get("HOME") or os.path.expanduser("~")
    if not value or not os.path.isabs(value) or _normalise(value) == "/":
        # No usable home: "~/.ssh" would become "/.ssh" and protect nothing real.
        return None
    return _normalise(value)


def sensitive_paths(home: str | None = None) -> tuple[str, ...]:
    """The deny-floor entries for ``home`` (default: ``$HOME`` read now), normalised and unique.

    Args:
        home: The home directory to expand the home-relative entries against.

    Returns:
        Absolute normalised paths, home entries first; symbolic-link spellings included.
    """
    entries: list[str] = []
    home_dir = _home(home)
    if home_dir is not None:
        homes = [home_dir]
        real_home = _normalise(os.path.realpath(home_dir))
        if real_home != home_dir:
            homes.append(real_home)
        entries.extend(f"{h}/{rel}" for h in homes for rel in HOME_SENSITIVE)
    for path in SYSTEM_SENSITIVE:
        entries.append(path)
        parent, name = os.path.split(path)
        real_parent = _normalise(os.path.realpath(parent))
        if real_parent != parent and not path.startswith("/proc/"):
            entries.append(f"{real_parent}/{name}")
    return tuple(dict.fromkeys(entries))


def is_sensitive(path: str, home: str | None = None) -> bool:
    """Whether ``path`` equals or sits below a manifest entry, in any letter case.

    Relative paths are judged as if resolved against the current directory. The check is lexical
    and touches no file.

    Args:
        path: The path to judge.
        home: The home directory (default: ``$HOME`` read now).
    """
    absolute = os.path.join(os.getcwd(), path) if not os.path.isabs(path) else path
    candidate = _normalise(absolute).casefold()
    if _PROC_PID.match(candidate):
        return True
    return any(
        candidate == folded or candidate.startswith(folded + "/")
        for folded in (entry.casefold() for entry in sensitive_paths(home))
    )
