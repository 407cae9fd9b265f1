"""Session records on the store: who may use a session, its expiry, its log level."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import anyio
import pytest
from mcp.server.auth.middleware.bearer_auth import AuthorizationContext
from stores import STORES, store_backend, unique

from toolwire.replicas import SessionRecord, SessionRecords

pytestmark = pytest.mark.anyio

ALICE = AuthorizationContext(client_id="tw_alice", issuer=None, subject="alice")
BOB = AuthorizationContext(client_id="tw_bob", issuer=None, subject="bob")


def _record(
    session_id: str, *, owner: AuthorizationContext | None = None, idle_s: float = 300
) -> SessionRecord:
    return SessionRecord(
        session_id=session_id,
        protocol_version="2025-06-18",
        client_params={
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "c", "version": "1"},
        },
        owner=dict(owner) if owner is not None else None,
        created_at=1.0,
        last_seen=1.0,
        idle_timeout_s=idle_s,
        replica_id="api-1",
    )


def test_only_the_credential_that_opened_a_session_owns_it() -> None:
    owned = _record("s", owner=ALICE)
    assert owned.owned_by(AuthorizationContext(client_id="tw_alice", issuer=None, subject="alice"))
    assert not owned.owned_by(BOB)
    assert not owned.owned_by(None)
    assert _record("s").owned_by(None)
    assert not _record("s").owned_by(ALICE)
    assert SessionRecord.from_json("not json") is None
    assert SessionRecord.from_json(owned.to_json()) == owned


@pytest.mark.parametrize("kind", STORES)
async def test_records_round_trip_update_and_end(kind: str, tmp_path: Path) -> None:
    async with store_backend(kind, tmp_path) as backend:
        records = SessionRecords(backend)
        session = unique("sess")
        await records.save(_record(session, owner=ALICE))
        loaded = await records.load(session)
        assert loaded == _record(session, owner=ALICE)
        updated = await records.update(session, _with_level)
        assert updated is not None
        seen = await SessionRecords(backend).load(session)  # another replica's view
        assert seen is not None
        assert seen.log_level == "error"
        await records.delete(session)
        assert await records.load(session) is None
        assert await records.update(session, _with_level) is None


@pytest.mark.parametrize("kind", STORES)
async def test_a_record_expires_after_its_idle_timeout(kind: str, tmp_path: Path) -> None:
    async with store_backend(kind, tmp_path) as backend:
        records = SessionRecords(backend)
        session = unique("sess")
        await records.save(_record(session, idle_s=1))
        assert await records.load(session) is not None
        with anyio.fail_after(10):
            while await records.load(session) is not None:
                await anyio.sleep(0.1)


def _with_level(record: SessionRecord) -> SessionRecord:
    return replace(record, log_level="error")
