"""A process owning a `SandboxedProcessBackend`, for the tests of what outlives its owner.

``python sandbox_owner.py MODE TAG LOGS``, where every sandboxed command is ``sleep TAG``:

- ``start``: prints ``go``, starts one background process, prints ``started``, then waits to
  be killed;
- ``run``: prints ``go``, then runs one command to completion (it never completes: the test
  kills this process first);
- ``race``: 30 times, starts a background process and stops it 0 to 29 ms later (while its
  sandbox is still being built), prints ``ready``, then waits for ``SIGTERM``, which closes
  the backend and exits.
"""

from __future__ import annotations

import signal
import sys

import anyio

from toolwire.capabilities.kinds.process._backends import BackgroundRequest, ProcessRequest
from toolwire.capabilities.kinds.process._runner import scrubbed_env
from toolwire.capabilities.kinds.process.background import ProcessManager
from toolwire.capabilities.kinds.process.sandbox.backend import SandboxedProcessBackend

RACES = 30


def say(word: str) -> None:
    sys.stdout.write(word + "\n")
    sys.stdout.flush()


async def main(mode: str, tag: str, logs: str) -> None:
    backend = SandboxedProcessBackend(
        ProcessManager(logs, max_per_owner=RACES + 1, stop_grace_s=0.5)
    )
    env = scrubbed_env()
    if mode == "start":
        say("go")
        await backend.start(BackgroundRequest(command=f"sleep {tag}", owner="o", cwd="/", env=env))
        say("started")
        await anyio.sleep_forever()
    elif mode == "run":
        say("go")
        await backend.run(ProcessRequest(argv=["sleep", tag], cwd="/", env=env))
    else:
        with anyio.open_signal_receiver(signal.SIGTERM) as signals:
            for attempt in range(RACES):
                started = await backend.start(
                    BackgroundRequest(command=f"sleep {tag}", owner="o", cwd="/", env=env)
                )
                await anyio.sleep(attempt / 1000)  # 0 to 29 ms: every step of its start
                await backend.stop(started.id, owner="o")
            say("ready")
            async for _ in signals:
                break
        await backend.aclose()


if __name__ == "__main__":
    anyio.run(main, *sys.argv[1:4])
