"""Several ``toolwire serve`` replicas on one shared store, behaving as one server.

- `ReplicaSettings`: whether this server is a replica, its id and address (``[replicas]``);
- `ReplicaState`: the shared store, the heartbeats and the session records of one replica;
- `ReplicaDirectory`: which replicas are alive (heartbeat records with a time to live);
- `SessionRecords`: handshake-era MCP sessions on the store, so any replica answers them;
- `StoredReadRecords`: the read records behind ``STALE_WRITE``, per session, on the store;
- `ResourceOwner` and `ElsewhereError`: local resources name their replica, and a call that
  lands elsewhere is answered ``not_available`` naming it.

See docs/scaling.md.

Rooms: ``_settings.py`` (`ReplicaSettings`), ``_membership.py`` (`replicas_for`: joining and leaving
the group), ``_state.py`` (`ReplicaState` and its heartbeat), ``_directory.py`` (`ReplicaDirectory`:
who is alive), ``_session_records.py`` and ``handshake_sessions.py`` (handshake-era sessions any
replica answers), ``_read_records.py`` and ``_session_read_records.py`` (``STALE_WRITE`` records per
session), ``owners.py`` (ids that name their replica) and ``claims.py`` (who holds a browser).
"""

from __future__ import annotations

from toolwire.capabilities.seams import ElsewhereError
from toolwire.replicas._directory import ReplicaDirectory, ReplicaInfo
from toolwire.replicas._read_records import LocalReadRecords, StoredReadRecords
from toolwire.replicas._session_records import SessionRecord, SessionRecords
from toolwire.replicas._settings import ReplicaSettings, default_replica_id
from toolwire.replicas._state import ReplicaState
from toolwire.replicas.owners import ResourceOwner, owner_of

__all__ = [
    "ElsewhereError",
    "LocalReadRecords",
    "ReplicaDirectory",
    "ReplicaInfo",
    "ReplicaSettings",
    "ReplicaState",
    "ResourceOwner",
    "SessionRecord",
    "SessionRecords",
    "StoredReadRecords",
    "default_replica_id",
    "owner_of",
]
