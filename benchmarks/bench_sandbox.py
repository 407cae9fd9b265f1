"""The sandbox: what one command costs in a bubblewrap sandbox, beside the same command run
locally (the baseline), all measured interleaved in the same run.

Each row runs ``true`` (nothing but the start-up and the ending) through a process backend's
``run``, one run of every row per round, ``--repeats`` rounds; it gives the median and 90th
percentile in milliseconds:

- ``local``: `LocalProcessBackend`, no sandbox (the baseline);
- ``sandbox``: `SandboxedProcessBackend` with a read-write root (mounts, namespaces, the pids
  cgroup where there is one, the limits);
- ``sandbox + network, socat``: the same with a network reach: an egress listener opened and closed,
  and socat started inside the sandbox before the command
  (`toolwire.capabilities.kinds.process.sandbox.relays`);
- ``sandbox + network, relay.py``: the same with the Python relay (the fallback without socat).

Target (issue 21): a sandboxed command with network reach costs at most 2x one without it.

Run: ``python benchmarks/bench_sandbox.py`` (``--repeats N``). Needs bubblewrap (Linux).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import anyio

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from toolwire.capabilities.kinds.process._backends import (  # noqa: E402
    LocalProcessBackend,
    ProcessBackend,
    ProcessRequest,
)
from toolwire.capabilities.kinds.process._runner import scrubbed_env  # noqa: E402
from toolwire.capabilities.kinds.process.sandbox import Confinement, NetworkReach, probe_bubblewrap  # noqa: E402
from toolwire.capabilities.seams import NetworkPolicy  # noqa: E402

TARGET = 2.0


@dataclass
class _Row:
    label: str
    backend: ProcessBackend
    confinement: Confinement
    samples: list[float] = field(default_factory=list)

    @property
    def median(self) -> float:
        return statistics.median(self.samples)

    def line(self, baseline: float) -> str:
        ordered = sorted(self.samples)
        p90 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.9))]
        return f"| {self.label} | {self.median:.1f} | {p90:.1f} | {self.median / baseline:.1f}x |"


async def _once(row: _Row, env: dict[str, str]) -> None:
    start = time.perf_counter()
    request = ProcessRequest(argv=["true"], env=env, timeout_s=30, confinement=row.confinement)
    result = await row.backend.run(request)
    row.samples.append((time.perf_counter() - start) * 1000)
    if result.exit_code != 0:
        raise SystemExit(f"{row.label}: the command failed: {result}")


async def main(repeats: int) -> None:
    """Print the table and the ratio to the target (see the module docstring)."""
    probe = probe_bubblewrap()
    if not probe.usable:
        print(f"skipped: {probe.reason}")
        return
    from toolwire.capabilities.kinds.process.sandbox.backend import SandboxedProcessBackend

    work = tempfile.mkdtemp(prefix="toolwire-bench-")
    plain = Confinement(read_roots=(work,), write_roots=(work,))
    reach = NetworkReach(allowed_hosts=("example.com",), policy=NetworkPolicy())
    networked = Confinement(read_roots=(work,), write_roots=(work,), network=reach)
    env = dict(scrubbed_env())
    local = LocalProcessBackend()
    sandbox = SandboxedProcessBackend()
    python_relay = SandboxedProcessBackend(egress_relay="python")
    async with local, sandbox, python_relay:
        rows = [
            _Row(label="local (baseline)", backend=local, confinement=plain),
            _Row(label="sandbox", backend=sandbox, confinement=plain),
        ]
        if sandbox.egress_relay == "socat":
            rows.append(
                _Row(label="sandbox + network, socat", backend=sandbox, confinement=networked)
            )
        rows.append(
            _Row(label="sandbox + network, relay.py", backend=python_relay, confinement=networked)
        )
        for row in rows:  # warm up: the egress proxy starts on the first command with network
            await _once(row, env)
            row.samples.clear()
        for round_ in range(repeats):
            for row in rows[round_ % len(rows) :] + rows[: round_ % len(rows)]:
                await _once(row, env)
        print(f"{probe.reason}; `true` run {repeats} times per row, interleaved\n")
        print("| backend | median ms | p90 ms | of local |")
        print("|---|---:|---:|---:|")
        for row in rows:
            print(row.line(rows[0].median))
        print()
        without = rows[1].median
        for row in rows[2:]:
            ratio = row.median / without
            verdict = "pass" if ratio <= TARGET else "FAIL"
            print(f"{row.label} / sandbox: {ratio:.2f}x (target <= {TARGET:.0f}x: {verdict})")
        if sandbox.egress_relay != "socat":
            print("socat: not installed here (scripts/system-deps.sh installs it)")
        print(f"\n{sandbox.description}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=40)
    anyio.run(main, parser.parse_args().repeats)
