"""`Principal`: a stable id per credential, `LOCAL` for everything nobody authenticated, and
owner keys that stay unchanged for `LOCAL` (so library users see nothing change)."""

from __future__ import annotations

import dataclasses

import pytest

from toolwire import Principal, ToolContext
from toolwire.principals import LOCAL


def _alice(**changes: str | None) -> Principal:
    fields: dict[str, str | None] = {"issuer": "toolwire", "subject": "3f9c0a1b2d4e"}
    fields.update(changes)
    return Principal.of_credential(client="alice", **fields)


def test_a_credentials_id_is_stable_and_names_no_component() -> None:
    alice = _alice()
    assert alice.id == _alice().id
    assert alice.id.startswith("p-")
    assert len(alice.id) == 34
    assert "alice" not in alice.id
    assert "3f9c0a1b2d4e" not in alice.id


def test_each_component_of_the_triple_makes_another_principal() -> None:
    ids = {
        _alice().id,
        _alice(issuer="https://issuer.test").id,
        _alice(subject="000000000000").id,
        Principal.of_credential(issuer="toolwire", client="bob", subject="3f9c0a1b2d4e").id,
        Principal.of_credential(issuer=None, client="alice", subject=None).id,
    }
    assert len(ids) == 5


def test_no_credential_is_local_whatever_its_names() -> None:
    forged = Principal.of_credential(issuer=None, client="local", subject=None)
    assert forged != LOCAL
    assert not forged.is_local
    assert forged.id != LOCAL.id
    assert forged.scoped("session:s1") != "session:s1"


def test_local_leaves_owner_keys_as_they_were() -> None:
    assert LOCAL.is_local
    assert LOCAL.id == "local"
    assert LOCAL.scoped("personality:p1") == "personality:p1"
    assert _alice().scoped("personality:p1") == f"personality:p1~{_alice().id}"


def test_a_principal_is_a_frozen_value() -> None:
    alice = _alice()
    with pytest.raises(dataclasses.FrozenInstanceError):
        alice.client = "bob"  # type: ignore[misc]
    assert {alice, _alice()} == {alice}


def test_a_context_is_local_unless_told_otherwise() -> None:
    assert ToolContext(session_id="s1").principal is LOCAL
    alice = _alice()
    derived = ToolContext(session_id="s1").derive(principal=alice)
    assert derived.principal is alice
    with pytest.raises(ValueError, match="principal must be a"):
        ToolContext(session_id="s1", principal="alice")  # type: ignore[arg-type]


def test_two_credentials_never_share_an_idempotency_key() -> None:
    alice = ToolContext(session_id="s1", tool_call_id="7", principal=_alice())
    bob = alice.derive(
        principal=Principal.of_credential(issuer="toolwire", client="bob", subject="b")
    )
    local = alice.derive(principal=LOCAL)
    assert len({alice.idempotency_key, bob.idempotency_key, local.idempotency_key}) == 3
    assert local.idempotency_key == ToolContext(session_id="s1", tool_call_id="7").idempotency_key
