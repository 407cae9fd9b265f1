"""Every request has a principal, and state belongs to it: with bearer tokens on, bob can
neither see, read nor stop alice's background process, nor read her result handles, todo list
or memory notes, nor close her sessions, nor use up her process cap — on the fast path and
through the SDK, on the 2026-07-28 revision (where clients used to share one session)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from principal_serving import BIG_TEXT, text_of, two_principals

from toolwire.mcp.server.fast_http import LEAN_ENV
from toolwire.mcp.server.result_resources import RESOURCE_NOT_FOUND, RESULT_URI_PREFIX

pytestmark = pytest.mark.anyio


@pytest.fixture(params=["fast", "sdk"])
def path(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """The HTTP fast path on, and off (every request through the SDK)."""
    monkeypatch.setenv(LEAN_ENV, "1" if request.param == "fast" else "0")
    return str(request.param)


async def test_bob_cannot_list_read_or_stop_alices_process(path: str, tmp_path: Path) -> None:
    async with two_principals(tmp_path) as two:
        started = await two.alice.call("process_start", command="echo alice-secret; sleep 300")
        assert not started["isError"], started
        process_id = started["structuredContent"]["process_id"]

        listed = await two.bob.call("process_list")
        assert "No background processes." in text_of(listed)
        logs = await two.bob.call("process_logs", process_id=process_id)
        assert logs["isError"]
        assert "alice-secret" not in text_of(logs)
        stopped = await two.bob.call("process_stop", process_id=process_id)
        assert stopped["isError"], stopped

        still = await two.alice.call("process_list")
        assert process_id in text_of(still)
        assert "running" in text_of(still)
        await two.alice.call("process_stop", process_id=process_id)


async def test_one_principal_at_the_process_cap_does_not_block_another(
    path: str, tmp_path: Path
) -> None:
    async with two_principals(tmp_path, max_per_owner=2) as two:
        for _ in range(2):
            started = await two.alice.call("process_start", command="sleep 300")
            assert not started["isError"], started
        refused = await two.alice.call("process_start", command="sleep 300")
        assert refused["isError"]
        assert "PROCESS_CAP_EXCEEDED" in text_of(refused)

        bobs = await two.bob.call("process_start", command="sleep 300")
        assert not bobs["isError"], bobs


async def test_bob_cannot_read_alices_result_handle(path: str, tmp_path: Path) -> None:
    async with two_principals(tmp_path) as two:
        kept = await two.alice.call("big")
        found = re.search(r'read_result\(handle="(h-[0-9a-f]{16})"', text_of(kept))
        assert found is not None, kept
        handle = found.group(1)
        uri = RESULT_URI_PREFIX + handle

        read = await two.bob.call("read_result", handle=handle)
        assert read["isError"]
        assert "alice's line" not in text_of(read)
        resource = await two.bob.modern("resources/read", {"uri": uri})
        assert resource.get("error", {}).get("code") == RESOURCE_NOT_FOUND, resource
        listing = await two.bob.modern("resources/list")
        assert uri not in str(listing)

        own = await two.alice.modern("resources/read", {"uri": uri})
        assert BIG_TEXT[:100] in own["result"]["contents"][0]["text"]
        assert uri in str(await two.alice.modern("resources/list"))


async def test_bob_cannot_read_alices_todo_list(path: str, tmp_path: Path) -> None:
    async with two_principals(tmp_path) as two:
        plan = [{"content": "alice's secret plan", "status": "pending"}]
        written = await two.alice.call("todo_write", items=plan)
        assert not written["isError"], written

        bobs = await two.bob.call("todo_read")
        assert "alice's secret plan" not in text_of(bobs)
        assert "alice's secret plan" in text_of(await two.alice.call("todo_read"))


async def test_bob_cannot_read_alices_memory_notes(path: str, tmp_path: Path) -> None:
    async with two_principals(tmp_path) as two:
        written = await two.alice.call("memory_write", key="notes", content="alice's secret")
        assert not written["isError"], written

        bobs = await two.bob.call("memory_read", key="notes")
        assert "alice's secret" not in text_of(bobs)
        assert "alice's secret" not in text_of(await two.bob.call("memory_read"))
        assert "alice's secret" in text_of(await two.alice.call("memory_read", key="notes"))


async def test_bob_opening_sessions_up_to_the_cap_never_closes_alices(tmp_path: Path) -> None:
    async with two_principals(tmp_path, max_sessions=3) as two:
        alices = await two.alice.open_session()
        for _ in range(6):  # past the server's cap: only bob's own sessions make room
            await two.bob.open_session()
        assert await two.alice.session_status(alices) == 200


async def test_a_principal_at_its_own_session_cap_closes_only_its_own(tmp_path: Path) -> None:
    async with two_principals(tmp_path, max_sessions=10, max_sessions_per_principal=2) as two:
        alices = await two.alice.open_session()
        first = await two.bob.open_session()
        sessions = [await two.bob.open_session() for _ in range(3)]
        assert await two.bob.session_status(first) == 404  # his oldest made room
        assert await two.bob.session_status(sessions[-1]) == 200
        assert await two.alice.session_status(alices) == 200


async def test_shared_stateless_sessions_share_the_todo_list_when_configured(
    tmp_path: Path,
) -> None:
    async with two_principals(tmp_path, stateless_sessions="shared") as two:
        plan = [{"content": "the team's plan", "status": "pending"}]
        await two.alice.call("todo_write", items=plan)
        assert "the team's plan" in text_of(await two.bob.call("todo_read"))
        started = await two.alice.call("process_start", command="sleep 300")
        assert "No background processes." in text_of(await two.bob.call("process_list"))
        await two.alice.call("process_stop", process_id=started["structuredContent"]["process_id"])


async def test_a_2026_request_naming_alices_session_id_does_not_get_her_session(
    path: str, tmp_path: Path
) -> None:
    """A 2026-07-28 request has no session: an ``Mcp-Session-Id`` it carries (alice's, read
    from a log) is not honoured, so bob still gets his own stateless session."""
    async with two_principals(tmp_path) as two:
        alices = await two.alice.open_session()
        plan = [{"content": "alice's secret plan", "status": "pending"}]
        written = await two.alice.call_in_session(alices, "todo_write", items=plan)
        assert not written["isError"], written

        params = {"name": "todo_read", "arguments": {}}
        answer = await two.bob.modern("tools/call", params, **{"mcp-session-id": alices})
        assert "alice's secret plan" not in str(answer)
