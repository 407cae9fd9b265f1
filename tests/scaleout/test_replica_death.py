"""A replica SIGKILLed mid-run loses only its in-flight calls: their clients get errors, every
write a client saw acknowledged is still there, HAProxy's health checks take the replica out
and the proxy routes around it, and what the dead replica wrote (result handles, STALE_WRITE
read records, legacy sessions) is served by the others; a task it was running is reported
``failed`` by the others once its heartbeat stops; quotas still hold exactly."""

from __future__ import annotations

import uuid
from pathlib import Path

import anyio
import pytest
from replica_cluster import QUOTA_TOOLS, Cluster, Replica, wait_for_server_state
from scaleout_clients import (
    change_file,
    connected,
    create_task,
    quota_attempts,
    quota_refusals,
    task_status,
    text_of,
)

pytestmark = pytest.mark.anyio

WRITERS = 6
WRITES_EACH = 8
KILL_AFTER_ACKS = 12
"""The victim is killed once this many writes were acknowledged, so the kill lands mid-run."""
IN_FLIGHT_WAIT_S = 20.0
TASK_LOST_WAIT_S = 40.0
"""A task whose replica died is reported ``failed`` once its heartbeat is 10 s old."""


async def _writer(
    cluster: Cluster, run: str, index: int, acked: list[str], failed: list[str]
) -> None:
    """Appends `WRITES_EACH` lines to its own note through the proxy, one call at a time;
    each acknowledged line goes to ``acked``, each call that errors to ``failed`` (and the
    writer goes on with a new client, as an agent would)."""
    lines = [f"{run}-w{index} line {line}" for line in range(WRITES_EACH)]
    for _ in range(WRITES_EACH):  # at most one new client per failed call
        if not lines:
            return
        try:
            async with connected(cluster, "auto") as conn:
                while lines:
                    result = await conn.call(
                        "memory_write", {"key": f"d-{run}-w{index}", "content": lines[0] + "\n"}
                    )
                    (failed if result.is_error else acked).append(lines.pop(0))
        except Exception as exc:  # the proxy answered 502: the call's replica died mid-call
            failed.append(f"{lines.pop(0)}: {type(exc).__name__}: {exc}")


async def _in_flight(cluster: Cluster, command: str, outcome: list[str]) -> None:
    """A call through the proxy that is still running when its replica dies; how it ended."""
    try:
        async with connected(cluster, "auto") as conn:
            result = await conn.call("terminal", {"command": command, "cwd": str(cluster.shared)})
    except Exception as exc:  # the proxy answered 502: the replica died mid-call
        outcome.append(f"error: {type(exc).__name__}: {exc}")
        return
    outcome.append(("error: " if result.is_error else "answered: ") + text_of(result)[:300])


def _replica_running(cluster: Cluster, needle: str) -> Replica:
    """The replica whose process tree runs the command whose command line holds ``needle``
    (found in /proc, climbing parent ids up to a replica's pid)."""
    pids = {r.process.pid: r for r in cluster.replicas if r.process is not None and r.alive}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if needle not in (entry / "cmdline").read_bytes().decode(errors="replace"):
                continue
        except OSError:
            continue
        pid = int(entry.name)
        for _ in range(64):  # bounded climb: sleep, bash, bwrap, ..., the replica
            if pid in pids:
                return pids[pid]
            try:
                stat = (Path("/proc") / str(pid) / "stat").read_text()
            except OSError:
                break
            pid = int(stat.rsplit(")", 1)[1].split()[1])
            if pid <= 1:
                break
    raise AssertionError(f"no replica runs a process with {needle!r}")


async def test_a_killed_replica_loses_only_its_in_flight_calls(cluster: Cluster) -> None:
    run = uuid.uuid4().hex[:8]
    started = cluster.shared / f"in-flight-{run}"
    needle = f"19.{int(run, 16) % 10**6:06d}"  # sleep's unique argument, to find the replica
    target = cluster.shared / f"kept-record-{run}.txt"
    target.write_text("before\n")
    big = cluster.shared / f"kept-handle-{run}.txt"
    big.write_text("".join(f"row {n:05d} {run} {uuid.uuid4().hex}\n" for n in range(600)))
    acked: list[str] = []
    failed: list[str] = []
    in_flight: list[str] = []
    victim: Replica | None = None
    try:
        async with connected(cluster, "legacy") as legacy:
            # what every replica (so the victim too) writes before one dies: handles, a read
            # record, the session itself
            handles = {}
            for replica in cluster.replicas:
                answer = await legacy.via(replica.name).ok("read_file", {"path": str(big)})
                handles[replica.name] = answer.split('read_result(handle="', 1)[1].split('"')[0]
                await legacy.ok("read_file", {"path": str(target)})
            async with anyio.create_task_group() as group:
                group.start_soon(_in_flight, cluster, f"touch {started}; sleep {needle}", in_flight)
                with anyio.fail_after(IN_FLIGHT_WAIT_S):
                    while not started.exists():
                        await anyio.sleep(0.05)
                victim = _replica_running(cluster, f"sleep {needle}")
                orphan = await create_task(  # a task the victim runs when it dies
                    legacy.via(victim.name),
                    "terminal",
                    {"command": "sleep 25", "cwd": str(cluster.shared)},
                )
                for index in range(WRITERS):
                    group.start_soon(_writer, cluster, run, index, acked, failed)
                with anyio.fail_after(IN_FLIGHT_WAIT_S):
                    while len(acked) < KILL_AFTER_ACKS:
                        await anyio.sleep(0.01)
                victim.kill()
            # the legacy session lives on: the survivors serve the victim's handle and record
            legacy.via(None)
            for name, handle in handles.items():
                page = await legacy.ok("read_result", {"handle": handle, "length": 300})
                assert f"row 00000 {run}" in page, name
            with anyio.fail_after(TASK_LOST_WAIT_S):  # its heartbeat stops: failed, not working
                while (status := await task_status(legacy, orphan)) == "working":
                    await anyio.sleep(0.5)
            assert status == "failed"
            change_file(target, "changed\n")
            refused = await legacy.call("write_file", {"path": str(target), "content": "x"})
            assert "STALE_WRITE" in text_of(refused), text_of(refused)
        assert len(in_flight) == 1
        assert in_flight[0].startswith("error"), in_flight
        assert len(failed) <= WRITERS, failed  # at most the call each writer had in flight
        assert len(acked) + len(failed) == WRITERS * WRITES_EACH
        await _check_acknowledged_writes(cluster, run, acked)
        await _check_routed_around(cluster, victim.name)
        answers = await quota_attempts(cluster, QUOTA_TOOLS["after_kill"], _patch_args(cluster))
        assert len(answers) - quota_refusals(answers) == cluster.quota_calls, answers
    finally:
        if victim is not None and not victim.alive:
            cluster.restart(victim)


async def _check_acknowledged_writes(cluster: Cluster, run: str, acked: list[str]) -> None:
    async with connected(cluster, "auto") as reader:
        notes = {}
        for index in range(WRITERS):
            result = await reader.call("memory_read", {"key": f"d-{run}-w{index}"})
            notes[index] = text_of(result)
    for line in acked:
        index = int(line.split("-w", 1)[1].split(" ", 1)[0])
        assert line in notes[index], (line, notes[index][:500])


async def _check_routed_around(cluster: Cluster, dead: str) -> None:
    wait_for_server_state(cluster.proxy, dead, "DOWN")
    async with connected(cluster, "auto") as conn:
        for _ in range(12):
            await conn.ok("todo_read", {})
    assert dead not in conn.served_by
    assert set(conn.served_by) == {r.name for r in cluster.replicas if r.name != dead}


def _patch_args(cluster: Cluster) -> dict[str, str]:
    return {"path": str(cluster.shared / "no-such-file.txt"), "old_text": "a", "new_text": "b"}
