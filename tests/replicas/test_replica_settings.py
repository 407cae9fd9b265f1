"""`ReplicaSettings`: the ``[replicas]`` table and the ``TOOLWIRE_REPLICA*`` variables."""

from __future__ import annotations

import re

import pytest

from toolwire.errors import ConfigurationError
from toolwire.replicas import ReplicaSettings, default_replica_id


def test_off_by_default_with_a_random_readable_id() -> None:
    first, second = ReplicaSettings.from_config(None, {}), ReplicaSettings.from_config(None, {})
    assert not first.enabled
    assert re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*-[0-9a-f]{6}", first.replica_id)
    assert first.replica_id != second.replica_id
    assert default_replica_id() != default_replica_id()


def test_the_table_sets_every_key() -> None:
    table = {"enabled": True, "id": "api-1", "address": "http://10.0.0.1:8765",
             "heartbeat_s": 2, "cluster": "tools"}  # fmt: skip
    settings = ReplicaSettings.from_config(table, {})
    assert (settings.enabled, settings.replica_id, settings.address) == (
        True,
        "api-1",
        "http://10.0.0.1:8765",
    )
    assert (settings.heartbeat_s, settings.cluster) == (2, "tools")


def test_variables_win_over_the_table() -> None:
    env = {
        "TOOLWIRE_REPLICAS": "1",
        "TOOLWIRE_REPLICA_ID": "api-2",
        "TOOLWIRE_REPLICA_ADDRESS": "http://b:1",
        "TOOLWIRE_REPLICA_HEARTBEAT_S": "0.5",
    }
    settings = ReplicaSettings.from_config({"enabled": False, "id": "api-1"}, env)
    assert settings.enabled
    assert (settings.replica_id, settings.address, settings.heartbeat_s) == (
        "api-2",
        "http://b:1",
        0.5,
    )
    assert not ReplicaSettings.from_config({"enabled": True}, {"TOOLWIRE_REPLICAS": "0"}).enabled


@pytest.mark.parametrize(
    ("table", "env", "says"),
    [
        ({"enable": True}, {}, "unknown key"),
        ({"id": "api 1"}, {}, "replica id 'api 1'"),
        ({"id": "a@b"}, {}, "replica id 'a@b'"),
        ({"enabled": "yes"}, {}, "replicas.enabled must be true or false"),
        ({"heartbeat_s": 0}, {}, "heartbeat_s must be a positive"),
        ({}, {"TOOLWIRE_REPLICAS": "maybe"}, "TOOLWIRE_REPLICAS must be 1 or 0"),
        ({}, {"TOOLWIRE_REPLICA_HEARTBEAT_S": "soon"}, "a number of seconds"),
    ],
)
def test_a_bad_value_is_refused_with_the_fix(
    table: dict[str, object], env: dict[str, str], says: str
) -> None:
    with pytest.raises(ConfigurationError, match=re.escape(says)):
        ReplicaSettings.from_config(table, env)
