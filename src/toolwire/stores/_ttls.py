"""The TTL rules every key-value store shares: whole milliseconds, from 1 ms to 100 years.

Redis counts expiry in whole milliseconds (``SET ... PX``). So that the four stores expire a key
at the same moment, the scoped store rounds every TTL up to whole milliseconds before any
backend sees it, and refuses one under a millisecond rather than stretch it tenfold on one
store and honour it on the others.
"""

from __future__ import annotations

import math

from toolwire.errors import StoreError

__all__ = ["MAX_TTL_SECONDS", "MIN_TTL_SECONDS", "check_ttl", "milliseconds"]

MIN_TTL_SECONDS = 0.001
"""The shortest TTL accepted (1 ms, Redis's resolution); every TTL is a whole number of ms."""
MAX_TTL_SECONDS = 100 * 365 * 24 * 3600.0
"""The longest TTL accepted (100 years); omit the TTL for keys that never expire."""


def milliseconds(ttl_seconds: float) -> int:
    """``ttl_seconds`` as whole milliseconds, rounded up (``1.1`` → ``1100``, not ``1101``).

    A product such as ``1.1 * 1000`` carries float noise (``1100.0000000000002``); it is
    dropped below a nanosecond before rounding up, so a checked TTL converts exactly.
    """
    return math.ceil(round(ttl_seconds * 1000, 6))


def check_ttl(what: str, ttl: object) -> float | None:
    """``ttl`` in seconds, rounded up to whole milliseconds; ``None`` stays ``None``.

    Args:
        what: The argument's name, for the message (``"ttl_seconds"``).
        ttl: The TTL as given.

    Raises:
        StoreError: ``ttl`` is not a number (a bool is not), is NaN or infinite, or lies
            outside `MIN_TTL_SECONDS` to `MAX_TTL_SECONDS`.
    """
    if ttl is None:
        return None
    if isinstance(ttl, bool) or not isinstance(ttl, int | float):
        raise StoreError(f"{what} must be a number of seconds or None, got {type(ttl).__name__}")
    seconds = float(ttl)
    if math.isnan(seconds) or not MIN_TTL_SECONDS <= seconds <= MAX_TTL_SECONDS:
        raise StoreError(
            f"{what}={ttl!r} must be a positive number of seconds from {MIN_TTL_SECONDS:g} s "
            f"(1 ms) up to {MAX_TTL_SECONDS:.0f} s (100 years); pass None for a key that never "
            "expires"
        )
    return milliseconds(seconds) / 1000
