"""`ReplicaSettings`: whether this server is one of several replicas, and its name.

Read from the ``[replicas]`` table of ``toolwire.toml`` and the ``TOOLWIRE_REPLICA*``
variables (which win):

| key | variable | default | meaning |
| --- | --- | --- | --- |
| ``enabled`` | ``TOOLWIRE_REPLICAS`` | ``false`` | keep sessions and read records on the store |
| ``id`` | ``TOOLWIRE_REPLICA_ID`` | ``<hostname>-<6 hex>`` | the name local resources carry |
| ``address`` | ``TOOLWIRE_REPLICA_ADDRESS`` | none | where operators reach it (shown in errors) |
| ``heartbeat_s`` | ``TOOLWIRE_REPLICA_HEARTBEAT_S`` | ``5`` | how often it says it is alive |
| ``cluster`` | ``TOOLWIRE_REPLICA_CLUSTER`` | ``toolwire`` | the stateless session's name, shared |
"""

from __future__ import annotations

import math
import os
import re
import secrets
import socket
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from toolwire.errors import ConfigurationError

__all__ = ["DEFAULT_HEARTBEAT_S", "ReplicaSettings", "default_replica_id"]

DEFAULT_HEARTBEAT_S = 5.0
"""How often a replica refreshes its heartbeat record (it expires after three of these)."""
_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def default_replica_id() -> str:
    """``<hostname>-<6 random hex>``: unique per start, readable in an error message."""
    host = re.sub(r"[^A-Za-z0-9._-]", "-", socket.gethostname())[:40].strip("-.") or "replica"
    return f"{host}-{secrets.token_hex(3)}"


def _check_id(value: object) -> str:
    if not isinstance(value, str) or not _ID.fullmatch(value):
        raise ConfigurationError(
            f"replica id {value!r} must be 1-64 letters, digits, '.', '_' or '-' (starting "
            "with a letter or digit), e.g. 'api-1'"
        )
    return value


@dataclass(frozen=True, kw_only=True, slots=True)
class ReplicaSettings:
    """How this server takes part in a group of replicas (see the module docstring).

    Attributes:
        enabled: Keep legacy sessions and read records on the shared store.
        replica_id: This replica's name; local resources (background processes) carry it.
        address: Where this replica can be reached, shown to operators in errors.
        heartbeat_s: Seconds between heartbeats; a replica silent for three is dead.
        cluster: The name of the group: every replica gives a stateless (2026-07-28) client
            the same session, ``mcp-<cluster>``.
    """

    enabled: bool = False
    replica_id: str = field(default_factory=default_replica_id)
    address: str | None = None
    heartbeat_s: float = DEFAULT_HEARTBEAT_S
    cluster: str = "toolwire"

    def __post_init__(self) -> None:
        _check_id(self.replica_id)
        _check_id(self.cluster)
        if not isinstance(self.enabled, bool):
            raise ConfigurationError(
                f"replicas.enabled must be true or false, got {self.enabled!r}"
            )
        if not (isinstance(self.heartbeat_s, int | float) and 0 < self.heartbeat_s < math.inf):
            raise ConfigurationError(
                f"replicas.heartbeat_s must be a positive number of seconds, got "
                f"{self.heartbeat_s!r}"
            )

    @classmethod
    def from_config(
        cls, table: Mapping[str, Any] | None = None, environ: Mapping[str, str] | None = None
    ) -> ReplicaSettings:
        """Settings from a ``[replicas]`` table and the environment (variables win).

        Raises:
            ConfigurationError: an unknown key, or a value of the wrong kind.
        """
        values = dict(table or {})
        unknown = sorted(set(values) - {"enabled", "id", "address", "heartbeat_s", "cluster"})
        if unknown:
            raise ConfigurationError(
                f"[replicas]: unknown key(s) {unknown}; use enabled, id, address, heartbeat_s, "
                "cluster"
            )
        env = os.environ if environ is None else environ
        if "TOOLWIRE_REPLICAS" in env:
            values["enabled"] = _flag(env["TOOLWIRE_REPLICAS"])
        for key, name in (
            ("id", "TOOLWIRE_REPLICA_ID"),
            ("address", "TOOLWIRE_REPLICA_ADDRESS"),
            ("cluster", "TOOLWIRE_REPLICA_CLUSTER"),
        ):
            if env.get(name):
                values[key] = env[name]
        if env.get("TOOLWIRE_REPLICA_HEARTBEAT_S"):
            values["heartbeat_s"] = _seconds(env["TOOLWIRE_REPLICA_HEARTBEAT_S"])
        kwargs: dict[str, Any] = {k: v for k, v in values.items() if k != "id"}
        if "id" in values:
            kwargs["replica_id"] = values["id"]
        return cls(**kwargs)


def _flag(text: str) -> bool:
    lowered = text.strip().lower()
    if lowered in _TRUE:
        return True
    if lowered in _FALSE:
        return False
    raise ConfigurationError(f"TOOLWIRE_REPLICAS must be 1 or 0 (true/false), got {text!r}")


def _seconds(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise ConfigurationError(
            f"TOOLWIRE_REPLICA_HEARTBEAT_S must be a number of seconds, got {text!r}"
        ) from None
