"""The egress relay of a sandbox with network, and the launcher that starts it before the command.

Inside a sandbox the only way out is the egress proxy's Unix socket (`EGRESS_SOCKET`); programs
expect a TCP proxy, so a relay listens on `PROXY_LISTEN` and forwards every connection to the
socket. Two relays do the same job:

- **socat**, when the host has it (``/usr`` is already mounted read-only in every sandbox): a
  ``/bin/sh`` launcher starts it in the background, waits until its port listens (socat's
  first log line, then ``/proc/net/tcp``: no Python) and replaces itself with the command. It
  costs a few milliseconds. socat is a child of the sandbox's pid 1, not of the command (a
  command that waits for all its children is not held by it). It forks one process per open
  connection, at most half the sandbox's process bound (and `MAX_CONNECTIONS`; more wait to
  be accepted); when it cannot fork (the command used up the bound) it drops that connection
  and listens again 0.1 s later instead of exiting. It waits up to `HALF_CLOSE_S` for the
  other side once one side has ended its data (socat's own default, half a second, would cut
  an answer that comes after the request's end of data).
- **relay.py** (`toolwire.capabilities.kinds.process.sandbox.relay`, run by the system's ``python3``
  through ``inside.py``), the fallback: one process, but about a hundred milliseconds to start.

Either way the relay is a process of the sandbox: it counts against its process bound, the
command can kill it (and so loses its own network, nothing else: the socket leads only to the
proxy, under the call's policy), and it dies with the sandbox's pid namespace. The launcher
exits ``125`` when the relay did not come up, without running the command.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from toolwire.capabilities.kinds.process.sandbox._launch import (
    EGRESS_SOCKET,
    INSIDE_DIR,
    PROXY_LISTEN,
)

__all__ = [
    "HALF_CLOSE_S",
    "MAX_CONNECTIONS",
    "EgressRelay",
    "InsideRelay",
    "find_socat",
    "python_relay",
    "socat_arguments",
    "socat_relay",
    "system_python",
]

EgressRelay = Literal["auto", "socat", "python"]
"""Which relay a sandbox backend uses: socat when the host has it (``auto``), or always one."""

MAX_CONNECTIONS = 256
"""Connections one sandbox's relay carries at once (socat: one process each)."""
HALF_CLOSE_S = 86400
"""How long socat waits for the other side once one side ended its data."""

_HERE = Path(__file__).resolve().parent
_INSIDE_SCRIPT = str(_HERE / "inside.py")
_RELAY_SCRIPT = str(_HERE / "relay.py")
_PYTHONS = ("/usr/bin/python3", "/usr/local/bin/python3", "/bin/python3")
_SOCATS = ("/usr/bin/socat", "/usr/local/bin/socat", "/bin/socat")
_SOCAT_OPTIONS = ("-d", "-d", "-t", str(HALF_CLOSE_S), "-b", "65536")

# $1 RLIMIT_NPROC (0: none), $2 the port in /proc/net/tcp's hex, $3 socat, $4 and $5 its two
# addresses, then the command. socat is started in a command substitution, so it is re-parented
# to the sandbox's pid 1 rather than being a child the command could wait for; the substitution
# gives its pid and returns once socat wrote its first log line (-d -d: "listening on", right
# after listen(2); later lines go nowhere, SIGPIPE ignored). The port is then checked in
# /proc/net/tcp, again every 10 ms while socat lives, at most 1000 times.
_SOCAT_SCRIPT = """\
if [ "$1" != 0 ]; then { ulimit -u "$1" || ulimit -p "$1"; } 2>/dev/null || exit 125; fi
relay=$({ { trap '' PIPE; "$3" OPTIONS "$4" "$5" </dev/null 2>&1 >/dev/null 3>&- &
  echo "$!" >&3; } | { read -r _; }; } 3>&1)
tries=0
until
  up=
  while read -r _ address _ state _; do
    case "$address:$state" in *":$2:0A") up=1; break ;; esac
  done </proc/net/tcp
  [ -n "$up" ]
do
  tries=$((tries + 1))
  if [ "$tries" -gt 1000 ] || ! kill -0 "$relay" 2>/dev/null; then
    echo "toolwire sandbox: the egress relay did not start" >&2
    exit 125
  fi
  sleep 0.01
done
shift 5
exec "$@"
""".replace("OPTIONS", " ".join(_SOCAT_OPTIONS))


@dataclass(frozen=True, kw_only=True, slots=True)
class InsideRelay:
    """What one sandbox needs for its relay: bubblewrap arguments and the command's prefix."""

    kind: Literal["socat", "python"]
    bwrap: tuple[str, ...]
    launcher: tuple[str, ...]


def _under(path: str, prefix: str) -> bool:
    return path == prefix or path.startswith(prefix.rstrip("/") + "/")


def _visible_program(candidates: Sequence[str], visible: Sequence[str]) -> str | None:
    """The first executable of ``candidates`` whose real path a sandbox sees."""
    seen = [os.path.realpath(p) for p in visible if os.path.exists(p)]
    for candidate in candidates:
        real = os.path.realpath(candidate)
        if os.access(real, os.X_OK) and any(_under(real, v) for v in seen):
            return candidate
    return None


def find_socat(visible: Sequence[str]) -> str | None:
    """socat in ``/usr/bin``, ``/usr/local/bin`` or ``/bin``, if one of ``visible`` (the
    sandbox's system paths) holds it."""
    return _visible_program(_SOCATS, visible)


def system_python(visible: Sequence[str]) -> str:
    """The ``python3`` that runs relay.py inside a sandbox seeing ``visible``.

    Raises:
        FileNotFoundError: no python3 in ``/usr/bin``, ``/usr/local/bin`` or ``/bin`` is
            visible there.
    """
    python = _visible_program(_PYTHONS, visible)
    if python is None:
        raise FileNotFoundError(
            "a sandbox with network needs socat or python3 in /usr/bin or /usr/local/bin to "
            "run its egress relay; install socat (apt-get install socat)"
        )
    return python


def socat_arguments(*, host: str, port: int, connect: str, max_processes: int) -> tuple[str, ...]:
    """socat's arguments for a relay from ``host:port`` to the Unix socket ``connect``.

    Args:
        host: The address to listen on.
        port: The TCP port to listen on.
        connect: The Unix socket each connection is forwarded to.
        max_processes: The sandbox's process bound (0: none); socat keeps at most half of it
            for connections.
    """
    children = MAX_CONNECTIONS if max_processes <= 0 else max(1, max_processes // 2)
    listen = (
        f"TCP-LISTEN:{port},bind={host},reuseaddr,backlog={MAX_CONNECTIONS},fork,"
        f"max-children={min(children, MAX_CONNECTIONS)},forever,interval=0.1"
    )
    return (*_SOCAT_OPTIONS, listen, f"UNIX-CONNECT:{connect}")


def socat_relay(socat: str, *, nproc: int, max_processes: int) -> InsideRelay:
    """The ``/bin/sh`` launcher that starts ``socat`` (see the module docstring).

    Args:
        socat: Its path inside the sandbox.
        nproc: ``RLIMIT_NPROC`` to set first (0: none).
        max_processes: The sandbox's process bound (0: none); socat keeps at most half of it
            for connections.
    """
    host, _, port_text = PROXY_LISTEN.rpartition(":")
    port = int(port_text)
    arguments = socat_arguments(
        host=host, port=port, connect=EGRESS_SOCKET, max_processes=max_processes
    )
    launcher = (
        "/bin/sh", "-c", _SOCAT_SCRIPT, "toolwire-relay",
        str(nproc), f"{port:04X}", socat, *arguments[len(_SOCAT_OPTIONS) :],
    )  # fmt: skip
    return InsideRelay(kind="socat", bwrap=(), launcher=launcher)


def python_relay(python: str, *, nproc: int) -> InsideRelay:
    """``inside.py`` starting relay.py with ``python`` (isolated: no ``PYTHON*`` variables,
    no site-packages); it sets ``RLIMIT_NPROC`` to ``nproc`` first unless that is 0."""
    bwrap = (
        "--ro-bind", _INSIDE_SCRIPT, f"{INSIDE_DIR}/inside.py",
        "--ro-bind", _RELAY_SCRIPT, f"{INSIDE_DIR}/relay.py",
    )  # fmt: skip
    launcher = (
        python, "-I", "-S", f"{INSIDE_DIR}/inside.py",
        "--max-processes", str(nproc), "--relay", f"{INSIDE_DIR}/relay.py",
        "--listen", PROXY_LISTEN, "--connect", EGRESS_SOCKET, "--",
    )  # fmt: skip
    return InsideRelay(kind="python", bwrap=bwrap, launcher=launcher)
