"""The sandbox: what one command costs in a bubblewrap sandbox, beside the same command run
locally (the baseline, measured in the same run).

Each row runs ``true`` (nothing but the start-up and the ending) ``--repeats`` times through a
process backend's ``run`` and gives the median and 90th percentile in milliseconds:

- ``local``: `LocalProcessBackend`, no sandbox (the baseline);
- ``sandbox``: `SandboxedProcessBackend` with a read-write root (mounts, namespaces, the pids
  cgroup where there is one, the limits);
- ``sandbox + network``: the same with a network reach: an egress listener opened and closed,
  and the relay started inside the sandbox before the command.

Run: ``python benchmarks/bench_sandbox.py`` (``--repeats N``). Needs bubblewrap (Linux).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import anyio

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from toolwire.backends.process_backends import LocalProcessBackend, ProcessBackend  # noqa: E402
from toolwire.backends.processes import scrubbed_env  # noqa: E402
from toolwire.sandbox import Confinement, NetworkReach, probe_bubblewrap  # noqa: E402
from toolwire.seams import NetworkPolicy  # noqa: E402


async def _times(backend: ProcessBackend, confinement: Confinement, repeats: int) -> list[float]:
    samples = []
    env = scrubbed_env()
    for _ in range(repeats):
        start = time.perf_counter()
        result = await backend.run(
            ["true"], cwd=None, env=env, timeout=30, abort_signal=None, confinement=confinement
        )
        samples.append((time.perf_counter() - start) * 1000)
        if result.exit_code != 0:
            raise SystemExit(f"the command failed: {result}")
    return samples


def _row(label: str, samples: list[float]) -> str:
    ordered = sorted(samples)
    p90 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.9))]
    return f"| {label} | {statistics.median(samples):.1f} | {p90:.1f} |"


async def main(repeats: int) -> None:
    """Print the table (see the module docstring)."""
    probe = probe_bubblewrap()
    if not probe.usable:
        print(f"skipped: {probe.reason}")
        return
    from toolwire.sandbox.backend import SandboxedProcessBackend

    work = tempfile.mkdtemp(prefix="toolwire-bench-")
    plain = Confinement(read_roots=(work,), write_roots=(work,))
    reach = NetworkReach(allowed_hosts=("example.com",), policy=NetworkPolicy())
    networked = Confinement(read_roots=(work,), write_roots=(work,), network=reach)
    print(f"{probe.reason}; `true` run {repeats} times per row\n")
    print("| backend | median ms | p90 ms |")
    print("|---|---:|---:|")
    async with LocalProcessBackend() as local:
        print(_row("local (baseline)", await _times(local, plain, repeats)))
    async with SandboxedProcessBackend() as sandbox:
        print(_row("sandbox", await _times(sandbox, plain, repeats)))
        print(_row("sandbox + network", await _times(sandbox, networked, repeats)))
        print(f"\n{sandbox.description}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=50)
    anyio.run(main, parser.parse_args().repeats)
