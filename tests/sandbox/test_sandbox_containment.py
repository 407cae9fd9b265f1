"""Containment, proven from inside real bubblewrap sandboxes with harmless canaries, through
the terminal tool: what a command cannot read, write, reach or signal."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from sandbox_helpers import (
    err,
    host_has,
    loopback_canary,
    ok,
    sandboxed_registry,
    terminal,
)

from toolwire.results import ErrorCode

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("bwrap")]

SECRET = "canary-secret-7f3a"


@pytest.fixture
def work(tmp_path: Path) -> Path:
    path = tmp_path / "work"
    path.mkdir()
    return path


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A directory next to the work directory, out of every root, holding a planted secret."""
    path = tmp_path / "outside"
    path.mkdir()
    (path / "secret.txt").write_text(SECRET)
    return path


@pytest.fixture
def host_sleeper() -> Iterator[subprocess.Popen[bytes]]:
    """A process outside every sandbox, to try to signal."""
    process = subprocess.Popen(["sleep", "300"])
    yield process
    process.kill()
    process.wait()


async def test_a_secret_outside_the_roots_cannot_be_read(work: Path, outside: Path) -> None:
    async with sandboxed_registry(work) as registry:
        refused = err(await terminal(registry, work, f"cat {outside}/secret.txt"))
        listed = err(await terminal(registry, work, f"ls {outside}"))
        (work / "mine.txt").write_text("inside")
        allowed = ok(await terminal(registry, work, "cat mine.txt"))
    assert SECRET not in refused.error
    assert "No such file or directory" in refused.error
    assert "No such file or directory" in listed.error
    assert allowed == "inside"  # the control: the root itself is readable


async def test_the_host_home_and_root_are_not_visible(
    work: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    (home / "notes").mkdir(parents=True)
    (home / "notes" / "private.txt").write_text(SECRET)
    monkeypatch.setenv("HOME", str(home))
    async with sandboxed_registry(work) as registry:
        listing = ok(await terminal(registry, work, 'ls -A "$HOME"; echo "[$(ls -A /)]"'))
        written = ok(await terminal(registry, work, 'touch "$HOME/x" && echo wrote'))
    assert "notes" not in listing  # the home directory is an empty private one
    assert written == "wrote"
    assert not (home / "x").exists()  # and it was private: nothing reached the host
    root_entries = listing.split("[")[1]
    assert "root" not in root_entries
    assert "home" not in root_entries


async def test_nothing_can_be_written_outside_the_write_roots(
    work: Path, outside: Path, tmp_path: Path
) -> None:
    shelf = tmp_path / "shelf"
    shelf.mkdir()
    (shelf / "book.txt").write_text("read me")
    async with sandboxed_registry(work, read=[shelf]) as registry:
        read = ok(await terminal(registry, work, f"cat {shelf}/book.txt"))
        into_read_root = err(await terminal(registry, work, f"echo x > {shelf}/new.txt"))
        over_read_root = err(await terminal(registry, work, f"rm {shelf}/book.txt"))
        into_outside = err(await terminal(registry, work, f"echo x > {outside}/new.txt"))
        into_system = err(await terminal(registry, work, "touch /usr/toolwire-canary"))
        into_etc = err(await terminal(registry, work, "echo x >> /etc/hosts"))
        into_work = ok(await terminal(registry, work, "echo x > made.txt && echo done"))
    assert read == "read me"
    assert "Read-only file system" in into_read_root.error
    assert "Read-only file system" in over_read_root.error
    for refusal in (into_outside, into_system, into_etc):
        assert refusal.code is ErrorCode.EXECUTION_FAILED
    assert not (shelf / "new.txt").exists()
    assert (shelf / "book.txt").read_text() == "read me"
    assert not (outside / "new.txt").exists()
    assert not host_has("/usr/toolwire-canary")
    assert into_work == "done"
    assert (work / "made.txt").read_text() == "x\n"


async def test_tmp_is_private_to_each_command(work: Path) -> None:
    planted = Path("/tmp") / f"toolwire-canary-{os.getpid()}"
    planted.write_text(SECRET)
    try:
        async with sandboxed_registry(work) as registry:
            seen = err(await terminal(registry, work, f"cat {planted}"))
            ok(await terminal(registry, work, "echo left > /tmp/left-behind"))
            later = err(await terminal(registry, work, "cat /tmp/left-behind"))
    finally:
        planted.unlink()
    assert SECRET not in seen.error
    assert "No such file" in later.error
    assert not host_has("/tmp/left-behind")


async def test_a_loopback_server_on_the_host_cannot_be_reached(work: Path) -> None:
    with loopback_canary() as canary:
        async with sandboxed_registry(work) as registry:
            tcp = err(await terminal(registry, work, f"echo hi > /dev/tcp/127.0.0.1/{canary.port}"))
            script = (
                "import socket\n"
                "try:\n"
                f"    socket.create_connection(('127.0.0.1', {canary.port}), timeout=3)\n"
                "    print('connected')\n"
                "except OSError as exc:\n"
                "    print('refused', exc.errno)\n"
            )
            python = ok(await terminal(registry, work, f'python3 -c "{script}"'))
            outward = ok(
                await terminal(
                    registry,
                    work,
                    "python3 -c \"import socket\ntry:\n socket.create_connection(('1.1.1.1', 80),"
                    " timeout=3); print('out')\nexcept OSError as e: print('no route', e.errno)\"",
                )
            )
    assert "Connection refused" in tcp.error
    assert python.startswith("refused")
    assert outward.startswith("no route")
    assert canary.accepted == []  # the canary never saw a connection


async def test_a_process_outside_cannot_be_signalled(
    work: Path, host_sleeper: subprocess.Popen[bytes]
) -> None:
    async with sandboxed_registry(work) as registry:
        direct = err(await terminal(registry, work, f"kill -9 {host_sleeper.pid}"))
        everyone = await terminal(registry, work, "kill -9 -1; echo after")
        seen = ok(await terminal(registry, work, "ps -e -o pid= | wc -l"))
    assert "No such process" in direct.error
    assert everyone is not None  # whatever kill -1 did inside, it stayed inside
    assert host_sleeper.poll() is None  # still running
    assert int(seen) <= 4  # the sandbox sees its own few processes only


async def test_the_command_runs_without_capabilities_or_new_privileges(work: Path) -> None:
    async with sandboxed_registry(work) as registry:
        status = ok(
            await terminal(registry, work, "grep -E '^(CapEff|NoNewPrivs)' /proc/self/status")
        )
        mount = err(await terminal(registry, work, "mount -t tmpfs none /tmp"))
    fields = dict(line.split(":\t") for line in status.splitlines())
    assert int(fields["CapEff"], 16) == 0
    assert fields["NoNewPrivs"] == "1"
    assert mount.code is ErrorCode.EXECUTION_FAILED
