"""`toolwire.mcp.server.task_records`: a task's owner and arguments on the task store (a real SQLite
store in a temporary directory), and the principal a request is served for."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolwire.execution.tasks import TASKS_SCOPE, TASKS_TOOL, Tasks
from toolwire.mcp.server.task_records import (
    ARGUMENTS_KEPT_CHARS,
    TaskRecord,
    TaskRecords,
    kept_arguments,
    request_owner,
)
from toolwire.principals import Principal
from toolwire.safety._untrusted import source_label
from toolwire.stores import SqliteKeyValueBackend

pytestmark = pytest.mark.anyio


@pytest.fixture
async def tasks(tmp_path: Path) -> AsyncIterator[Tasks]:
    async with SqliteKeyValueBackend(str(tmp_path / "kv.db")) as backend:
        store = backend.scoped(TASKS_TOOL, TASKS_SCOPE)
        yield Tasks(store, ttl_s=60)


async def test_a_record_is_read_back_from_the_store(tasks: Tasks) -> None:
    records = TaskRecords(tasks)
    await records.keep("task-1", '["toolwire","alice","id-1"]', {"url": "https://a.test/"})
    await records.keep("task-2", None, {})
    assert await TaskRecords(tasks).read("task-1") == TaskRecord(
        owner='["toolwire","alice","id-1"]', arguments={"url": "https://a.test/"}
    )
    assert await records.read("task-2") == TaskRecord(owner=None, arguments={})
    assert await records.read("task-3") is None
    assert await tasks.list() == []  # not mistaken for task records


async def test_an_unreadable_record_is_none(tasks: Tasks) -> None:
    for raw in ("{", "[]", json.dumps({"owner": 3, "arguments": {}})):
        await tasks.store.set("mcp-task-x", raw)
        assert await TaskRecords(tasks).read("task-x") is None


async def test_large_arguments_keep_only_what_the_label_reads(tasks: Tasks) -> None:
    arguments = {"path": "notes/a.md", "content": "x" * (ARGUMENTS_KEPT_CHARS + 1), "n": 3}
    await TaskRecords(tasks).keep("task-big", None, arguments)
    record = await TaskRecords(tasks).read("task-big")
    assert record is not None
    assert record.arguments == {"path": "notes/a.md"}
    assert source_label("write_file", record.arguments) == "notes/a.md"


_VALUES = st.one_of(st.text(max_size=40), st.integers(), st.none(), st.booleans())


@given(
    st.dictionaries(st.sampled_from(["path", "url", "command", "query", "other"]), _VALUES),
    st.integers(min_value=0, max_value=2 * ARGUMENTS_KEPT_CHARS),
)
def test_kept_arguments_give_the_same_source_label(arguments: dict[str, Any], pad: int) -> None:
    padded = {**arguments, "padding": "p" * pad}
    kept = kept_arguments(padded)
    for tool in ("read_file", "web_fetch", "mcp__docs__search"):
        assert source_label(tool, kept) == source_label(tool, padded)
    assert len(json.dumps(kept)) <= ARGUMENTS_KEPT_CHARS + 4 * 64


def _request(user: Any) -> Any:
    return SimpleNamespace(scope={"type": "http", "user": user})


def test_the_owner_is_the_principal_of_the_credentials_issuer_client_and_subject() -> None:
    token = SimpleNamespace(claims={"iss": "toolwire"}, client_id="alice", subject="tok-1")
    owner = request_owner(_request(SimpleNamespace(access_token=token)))
    alice = Principal.of_credential(issuer="toolwire", client="alice", subject="tok-1")
    assert owner == alice.id
    other = SimpleNamespace(claims={"iss": "toolwire"}, client_id="alice", subject="tok-2")
    assert request_owner(_request(SimpleNamespace(access_token=other))) != owner


def test_an_unauthenticated_request_has_no_owner() -> None:
    assert request_owner(None) is None  # stdio, in-memory
    assert request_owner(SimpleNamespace(scope={"type": "http"})) is None
    assert request_owner(_request(SimpleNamespace(is_authenticated=False))) is None
