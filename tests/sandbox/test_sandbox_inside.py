"""The in-sandbox launcher (``inside.py``), run directly: it fails closed when the relay does
not come up, and says so when the command cannot run."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import toolwire.capabilities.kinds.process.sandbox

INSIDE = str(
    Path(toolwire.capabilities.kinds.process.sandbox.__file__).resolve().parent / "inside.py"
)
RELAY = str(
    Path(toolwire.capabilities.kinds.process.sandbox.__file__).resolve().parent / "relay.py"
)


def _inside(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, INSIDE, *args], capture_output=True, text=True, timeout=60, check=False
    )


def test_a_relay_that_does_not_start_stops_the_command(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    done = _inside(
        "--relay", str(tmp_path / "no-relay.py"), "--connect", str(tmp_path / "s.sock"),
        "--", "touch", str(marker),
    )  # fmt: skip
    assert done.returncode == 125
    assert "the egress relay did not start" in done.stderr
    assert not marker.exists()


def test_the_command_runs_once_the_relay_is_ready(tmp_path: Path) -> None:
    done = _inside(
        "--relay", RELAY, "--listen", "127.0.0.1:0", "--connect", str(tmp_path / "s.sock"),
        "--", "echo", "after the relay",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout == "after the relay\n"


def test_a_command_that_cannot_run_says_so() -> None:
    done = _inside("--", "/no/such/program")
    assert done.returncode == 127
    assert "cannot run /no/such/program" in done.stderr
