"""The launcher that runs first inside a sandbox with network when socat is not there: a stdlib-only
script (`toolwire.capabilities.kinds.process.sandbox.relays` chooses).

``python3 inside.py [--max-processes N] --relay RELAY --listen 127.0.0.1:PORT --connect SOCKET --
COMMAND...``: limits the processes of the sandbox's user (``RLIMIT_NPROC``, when asked), starts the
egress relay (`toolwire.capabilities.kinds.process.sandbox.relay`: TCP on the sandbox's loopback →
the proxy's Unix socket), waits for its ``ready`` line, then replaces itself with the command. The
relay dies with the sandbox's pid namespace when the command ends. toolwire never imports this
module: the sandbox backend binds the file into the sandbox and runs it there. Exit status ``125``:
the relay did not come up; ``127``: the command could not be run.
"""

from __future__ import annotations

import argparse
import os
import resource
import select
import subprocess
import sys
import time

READY_TIMEOUT_S = 10.0


def _arguments(argv: list[str]) -> tuple[argparse.Namespace, list[str]]:
    if "--" not in argv:
        raise SystemExit("inside.py: the command follows '--'")
    split = argv.index("--")
    parser = argparse.ArgumentParser(prog="inside.py")
    parser.add_argument("--max-processes", type=int, default=0)
    parser.add_argument("--relay")
    parser.add_argument("--listen", default="127.0.0.1:3128")
    parser.add_argument("--connect")
    options = parser.parse_args(argv[:split])
    command = argv[split + 1 :]
    if not command:
        raise SystemExit("inside.py: no command after '--'")
    return options, command


def _wait_ready(relay: subprocess.Popen[bytes]) -> bool:
    """Whether the relay said ``ready`` (its one line once it listens) in time."""
    assert relay.stdout is not None
    deadline = time.monotonic() + READY_TIMEOUT_S
    seen = b""
    while b"\n" not in seen:
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([relay.stdout], [], [], left)[0]:
            return False
        chunk = os.read(relay.stdout.fileno(), 64)
        if not chunk:
            return False
        seen += chunk
    return seen.split(b"\n", 1)[0].strip() == b"ready"


def main(argv: list[str]) -> int:
    """Limit, start the relay, wait for it, run the command (see the module docstring)."""
    options, command = _arguments(argv)
    if options.max_processes > 0:
        limit = options.max_processes
        resource.setrlimit(resource.RLIMIT_NPROC, (limit, limit))
    if options.relay:
        relay = subprocess.Popen(
            [
                sys.executable,
                options.relay,
                "--listen",
                options.listen,
                "--connect",
                options.connect,
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        if not _wait_ready(relay):
            print("toolwire sandbox: the egress relay did not start", file=sys.stderr)
            return 125
    try:
        os.execvp(command[0], command)
    except OSError as exc:
        print(f"toolwire sandbox: cannot run {command[0]}: {exc.strerror}", file=sys.stderr)
    return 127


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
