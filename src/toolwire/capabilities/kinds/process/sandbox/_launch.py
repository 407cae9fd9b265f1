"""The command line that starts one sandbox: a tiny ``/bin/sh`` launcher, then bubblewrap.

Outside the sandbox, ``/bin/sh`` starts the watcher of the sandbox's lifeline
(`toolwire.capabilities.kinds.process.sandbox._lifelines`: it ends the sandbox when toolwire closes
the lifeline or dies), moves itself into the sandbox's pids cgroup (when there is one), sets the
per-process limits (``ulimit -t``, ``-f``, ``-d``: CPU seconds, file size, data memory; inherited by
everything the sandbox starts), runs ``bwrap`` and exits with its status, once it has ended the
watcher. Inside, the command runs directly, or behind a launcher when one is needed: the egress
relay's (network: `toolwire.capabilities.kinds.process.sandbox.relays` starts socat or relay.py
first) or a ``/bin/sh`` that sets ``RLIMIT_NPROC`` (a non-root toolwire without a cgroup: the count
is per user namespace, so per sandbox).
"""

from __future__ import annotations

import os
import resource
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from toolwire.capabilities.kinds.process.sandbox._lifelines import WATCHER
from toolwire.capabilities.kinds.process.sandbox._settings import SandboxLimits

__all__ = [
    "EGRESS_SOCKET",
    "INSIDE_DIR",
    "PROXY_LISTEN",
    "needs_nproc_inside",
    "nproc_launcher",
    "outer_command",
    "proxy_env",
]

INSIDE_DIR = "/run/toolwire"
"""Where toolwire's own files appear inside a sandbox."""
EGRESS_SOCKET = f"{INSIDE_DIR}/egress.sock"
PROXY_LISTEN = "127.0.0.1:3128"
"""Where the relay listens inside a sandbox with network."""

_BLOCK = 512  # POSIX ulimit -f counts 512-byte blocks
_KIB = 1024  # ulimit -d counts KiB

_NPROC_SCRIPT = '{ ulimit -u "$1" || ulimit -p "$1"; } 2>/dev/null || exit 125; shift; exec "$@"'


@dataclass(frozen=True, kw_only=True, slots=True)
class _Limit:
    flag: str
    resource: int
    value: int
    unit: int


def _limits(limits: SandboxLimits) -> list[_Limit]:
    return [
        _Limit(flag="-t", resource=resource.RLIMIT_CPU, value=limits.max_cpu_s, unit=1),
        _Limit(
            flag="-f",
            resource=resource.RLIMIT_FSIZE,
            value=limits.max_file_size_bytes,
            unit=_BLOCK,
        ),
        _Limit(flag="-d", resource=resource.RLIMIT_DATA, value=limits.max_memory_bytes, unit=_KIB),
    ]


def _ulimits(limits: SandboxLimits) -> str:
    """``ulimit`` lines for the limits that are set, never above the current hard limit."""
    lines = []
    for limit in _limits(limits):
        if limit.value <= 0:
            continue
        _, hard = resource.getrlimit(limit.resource)
        value = limit.value if hard == resource.RLIM_INFINITY else min(limit.value, hard)
        lines.append(f"ulimit {limit.flag} {max(value // limit.unit, 1)} || end 125; ")
    return "".join(lines)


def outer_command(
    bwrap: Sequence[str],
    inner: Sequence[str],
    *,
    limits: SandboxLimits,
    cgroup_procs: str | None,
) -> list[str]:
    """``/bin/sh -c <launcher> ... bwrap ... -- <inner launcher> <command>``.

    Args:
        bwrap: ``bwrap`` and its arguments, without the command.
        inner: The command inside (with its launcher, if any).
        limits: The per-process limits the launcher sets.
        cgroup_procs: The sandbox's ``cgroup.procs`` file, if it has a cgroup.

    The launcher's standard input is the sandbox's lifeline (its watcher reads it); bubblewrap
    gets ``/dev/null``.
    """
    script = (
        f"exec 3<&0; {WATCHER} w=$!; exec </dev/null 3<&-; "
        'end() { kill -KILL $w 2>/dev/null; exit "$1"; }; '
        'if [ "$1" != - ]; then echo $$ > "$1" || end 125; fi; shift; '
        + _ulimits(limits)
        + '"$@"; end $?'
    )
    return ["/bin/sh", "-c", script, "toolwire-sandbox", cgroup_procs or "-", *bwrap, "--", *inner]


def nproc_launcher(max_processes: int) -> list[str]:
    """``/bin/sh`` inside the sandbox setting ``RLIMIT_NPROC`` before the command."""
    return ["/bin/sh", "-c", _NPROC_SCRIPT, "toolwire-nproc", str(max_processes)]


def proxy_env(env: Mapping[str, str]) -> dict[str, str]:
    """``env`` with every proxy variable pointing at the relay (and nothing bypassing it)."""
    url = f"http://{PROXY_LISTEN}"
    out = dict(env)
    for name in (
        "HTTP_PROXY",
        "HTTPS_PROXY",
        "ALL_PROXY",
        "http_proxy",
        "https_proxy",
        "all_proxy",
    ):
        out[name] = url
    out["NO_PROXY"] = out["no_proxy"] = "localhost,127.0.0.1,::1"
    return out


def needs_nproc_inside() -> bool:
    """Whether ``RLIMIT_NPROC`` must be set inside: toolwire is not root (for root it is not
    enforced; a cgroup bounds it instead)."""
    return os.geteuid() != 0
