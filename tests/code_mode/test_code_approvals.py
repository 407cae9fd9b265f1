"""A program pauses for a human and resumes where it stopped: once, in another registry too."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import anyio
import pytest
from code_helpers import ctx, error_of, registry_with, run, value_of

from toolwire.code_mode._states import PROGRAMS_SCOPE, PROGRAMS_TOOL, program_key
from toolwire.decorator import tool
from toolwire.execution.approvals import pending_approval
from toolwire.results import ErrorCode
from toolwire.stores._sqlite import SqliteKeyValueBackend
from toolwire.tool_options import ToolOptions

pytestmark = pytest.mark.anyio

RAN: list[str] = []


@tool
async def note(text: str) -> str:
    """Write a note."""
    RAN.append(f"note:{text}")
    return f"noted {text}"


@tool(options=ToolOptions(requires_approval=True))
async def send(to: str, body: str) -> str:
    """Send a message."""
    RAN.append(f"send:{to}")
    return f"sent to {to}"


PROGRAM = """
a = await note(text="before")
r = await send(to="bob", body="hi")
b = await note(text="after")
[a, r, b]
"""


@pytest.fixture(autouse=True)
def _clear() -> None:
    RAN.clear()


async def test_an_approval_pauses_survives_a_restart_and_resumes_once(tmp_path: Path) -> None:
    db = tmp_path / "kv.db"
    first = registry_with([note, send], db)
    paused = await run(first, PROGRAM)
    err = error_of(paused)
    assert err.code is ErrorCode.NOT_AVAILABLE
    assert err.reason == "approval_required"
    assert 'send({"to": "bob", "body": "hi"})' in err.error  # the call and its arguments
    pending = pending_approval(paused)
    assert pending is not None
    assert RAN == ["note:before"]
    await first.aclose()

    second = registry_with([note, send], db)  # a fresh registry (a new process) on the store
    resumed = await run(second, PROGRAM, approvals=[pending.token])
    assert value_of(resumed) == ["noted before", "sent to bob", "noted after"]
    assert RAN == ["note:before", "send:bob", "note:after"]  # nothing ran twice

    again = await run(second, PROGRAM, approvals=[pending.token])  # the same resume, again
    assert error_of(again).reason == "approval_used"
    assert RAN == ["note:before", "send:bob", "note:after"]
    await second.aclose()


async def test_a_paused_program_sent_again_without_the_token_waits_and_reruns_nothing(
    tmp_path: Path,
) -> None:
    registry = registry_with([note, send], tmp_path / "kv.db")
    first = pending_approval(await run(registry, PROGRAM))
    second = pending_approval(await run(registry, PROGRAM))
    assert first is not None
    assert second is not None
    assert second.token == first.token
    assert RAN == ["note:before"]
    await registry.aclose()


async def test_a_batch_mate_of_the_paused_call_is_not_run_again(tmp_path: Path) -> None:
    registry = registry_with([note, send], tmp_path / "kv.db")
    code = """
import asyncio
await asyncio.gather(note(text="mate"), send(to="eve", body="x"))
"""
    pending = pending_approval(await run(registry, code))
    assert pending is not None
    assert RAN == ["note:mate"]
    resumed = await run(registry, code, approvals=[pending.token])
    assert value_of(resumed) == ["noted mate", "sent to eve"]
    assert RAN == ["note:mate", "send:eve"]
    await registry.aclose()


async def test_two_resumes_at_once_run_the_approved_call_once(tmp_path: Path) -> None:
    registry = registry_with([note, send], tmp_path / "kv.db")
    pending = pending_approval(await run(registry, PROGRAM))
    assert pending is not None
    outcomes = []

    async def resume() -> None:
        outcomes.append(await run(registry, PROGRAM, approvals=[pending.token]))

    async with anyio.create_task_group() as group:
        group.start_soon(resume)
        group.start_soon(resume)
    assert RAN.count("send:bob") == 1
    assert RAN.count("note:before") == 1
    reasons = sorted(str(getattr(o.result, "reason", "ok")) for o in outcomes)
    assert len([r for r in reasons if r == "ok"]) == 1
    await registry.aclose()


async def test_a_retried_run_code_call_does_not_repeat_a_side_effect(tmp_path: Path) -> None:
    @tool(options=ToolOptions(side_effects=True))
    async def charge(amount: int) -> str:
        """Charge the card."""
        RAN.append(f"charge:{amount}")
        return f"charged {amount}"

    registry = registry_with([charge], tmp_path / "kv.db")
    code = "await charge(amount=5)"
    first = await run(registry, code)  # the same call id both times: a retry
    second = await run(registry, code)
    assert value_of(first) == value_of(second) == "charged 5"
    assert RAN == ["charge:5"]
    await registry.aclose()


async def test_a_damaged_snapshot_fails_the_resume_and_is_not_retried(tmp_path: Path) -> None:
    db = tmp_path / "kv.db"
    registry = registry_with([note, send], db)
    pending = pending_approval(await run(registry, PROGRAM))
    assert pending is not None
    store = SqliteKeyValueBackend(db).scoped(PROGRAMS_TOOL, PROGRAMS_SCOPE)
    key = program_key(ctx(), PROGRAM)
    record = json.loads(await store.get(key) or "{}")
    record["snapshot"] = base64.b64encode(b"not a snapshot").decode()
    await store.set(key, json.dumps(record))
    failed = await run(registry, PROGRAM, approvals=[pending.token])
    assert error_of(failed).code is ErrorCode.EXECUTION_FAILED
    assert "send:bob" not in RAN
    again = await run(registry, PROGRAM, approvals=[pending.token])
    assert error_of(again).reason == "approval_used"
    await registry.aclose()
