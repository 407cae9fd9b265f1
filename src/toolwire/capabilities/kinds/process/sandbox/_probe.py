"""`probe_bubblewrap`: can bubblewrap run a sandbox on this machine? Tried once, then cached.

```python
from toolwire.capabilities.kinds.process.sandbox import probe_bubblewrap

probe = probe_bubblewrap()
probe.usable, probe.reason, probe.version  # True, "bubblewrap 0.8.0 runs sandboxes here", "0.8.0"
```

The probe runs ``bwrap`` for real, with the namespaces a sandbox uses (pid, network, ipc, uts,
and a user namespace when toolwire is not root), ``/proc`` and ``/dev`` mounted, and
``true`` as the command: a kernel that forbids user namespaces, a container without the
privileges to make them, or a missing binary all show up as ``usable=False`` with the reason.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass

__all__ = ["BubblewrapProbe", "bwrap_namespace_flags", "probe_bubblewrap"]

_PROBE_TIMEOUT_S = 10.0


@dataclass(frozen=True, kw_only=True, slots=True)
class BubblewrapProbe:
    """What `probe_bubblewrap` found.

    Attributes:
        usable: Whether a sandbox runs here.
        reason: One sentence: why not, or that it runs.
        version: ``bwrap --version``'s number, when the binary is there.
        path: The ``bwrap`` binary, when found.
    """

    usable: bool
    reason: str
    version: str | None = None
    path: str | None = None


def bwrap_namespace_flags() -> tuple[str, ...]:
    """The isolation flags of every sandbox (and of the probe).

    A user namespace is added when toolwire is not root: unprivileged bubblewrap needs one. As
    root, bubblewrap runs privileged and ``--cap-drop ALL`` leaves the command no capability.
    """
    flags = [
        "--unshare-pid",
        "--unshare-net",
        "--unshare-ipc",
        "--unshare-uts",
        "--die-with-parent",
        "--new-session",
    ]
    if os.geteuid() != 0:
        flags.append("--unshare-user")
    flags += ["--cap-drop", "ALL"]
    return tuple(flags)


@functools.cache
def probe_bubblewrap() -> BubblewrapProbe:
    """Try ``bwrap`` once (the answer is cached for the process).

    Blocks for the few milliseconds bubblewrap takes; call it from a worker thread in async
    code that cannot wait that long.
    """
    if not sys.platform.startswith("linux"):
        return BubblewrapProbe(
            usable=False,
            reason=f"bubblewrap is Linux-only; on {sys.platform} commands run unsandboxed",
        )
    path = shutil.which("bwrap")
    if path is None:
        return BubblewrapProbe(
            usable=False,
            reason="bwrap is not installed (Debian/Ubuntu: apt-get install bubblewrap)",
        )
    version = _version(path)
    argv = [path, "--ro-bind", "/", "/", "--proc", "/proc", "--dev", "/dev"]
    argv += [*bwrap_namespace_flags(), "--", "true"]
    try:
        done = subprocess.run(
            argv,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=_PROBE_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return BubblewrapProbe(
            usable=False, reason=f"bwrap could not run: {exc}", version=version, path=path
        )
    if done.returncode != 0:
        said = done.stderr.decode("utf-8", errors="replace").strip() or f"exit {done.returncode}"
        return BubblewrapProbe(
            usable=False,
            reason=f"bwrap cannot create a sandbox here ({said}); user namespaces may be "
            "disabled (sysctl kernel.unprivileged_userns_clone or user.max_user_namespaces), "
            "or a container may forbid them",
            version=version,
            path=path,
        )
    shown = f"bubblewrap {version}" if version else "bubblewrap"
    return BubblewrapProbe(
        usable=True, reason=f"{shown} runs sandboxes here", version=version, path=path
    )


def _version(path: str) -> str | None:
    try:
        done = subprocess.run(
            [path, "--version"], capture_output=True, timeout=_PROBE_TIMEOUT_S, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    words = done.stdout.decode("utf-8", errors="replace").split()
    return words[-1] if done.returncode == 0 and words else None
