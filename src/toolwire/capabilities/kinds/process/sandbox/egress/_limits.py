"""The egress proxy's limits: what one client may hold, and for how long."""

from __future__ import annotations

from dataclasses import dataclass

from toolwire.errors import ConfigurationError

__all__ = ["EgressLimits"]


@dataclass(frozen=True, kw_only=True, slots=True)
class EgressLimits:
    """Bounds on what a client of the egress proxy can hold.

    Attributes:
        max_header_bytes: A request head (request line and headers) larger than this is
            answered ``431``.
        idle_timeout_s: A client that sends no complete request head for this long, or a
            tunnel that carries no byte either way for this long, is closed (a partial head
            is answered ``408``).
        connect_timeout_s: Opening the upstream connection; past it the answer is ``504``.
        response_timeout_s: An upstream silent this long (no response head, or no body
            byte) ends the exchange: ``504`` before the head, a closed connection after.
        max_connections: Client connections served at once per listener (tunnels
            included); one more is answered ``503`` and closed.
        chunk_bytes: The most bytes read at once from either side (memory per connection
            stays within a few of these).

    Raises:
        ConfigurationError: a limit is not positive.
    """

    max_header_bytes: int = 64 * 1024
    idle_timeout_s: float = 60.0
    connect_timeout_s: float = 10.0
    response_timeout_s: float = 60.0
    max_connections: int = 64
    chunk_bytes: int = 64 * 1024

    def __post_init__(self) -> None:
        values = {
            "max_header_bytes": self.max_header_bytes,
            "idle_timeout_s": self.idle_timeout_s,
            "connect_timeout_s": self.connect_timeout_s,
            "response_timeout_s": self.response_timeout_s,
            "max_connections": self.max_connections,
            "chunk_bytes": self.chunk_bytes,
        }
        wrong = [f"{name}={value!r}" for name, value in values.items() if not value > 0]
        if wrong:
            raise ConfigurationError(
                f"EgressLimits: every limit must be > 0 (got {', '.join(wrong)})"
            )
