"""Stdin's end on a stdio server: what was asked before it is answered, within a grace.

An MCP stdio client closes stdin to ask its server to stop (and a script pipes a fixed set of
requests, then closes it). Every request read before that end is still answered: the server
waits for the calls in flight up to `eof_grace_s` (``TOOLWIRE_STDIO_EOF_GRACE_S``, 30 s by
default), then aborts those still running (their abort signal fires) and answers each with
the SDK's `CONNECTION_CLOSED` error, and only then exits. `StdinEnd` is that one deadline,
shared by the lean loop's calls (`toolwire.mcp.stdio_lean.loop`) and the SDK server's
(`toolwire.mcp.stdio_lean.sdk_streams`) after a handover.
"""

from __future__ import annotations

import math
import os

import anyio

from toolwire.errors import ConfigurationError

__all__ = ["CONNECTION_CLOSED", "DEFAULT_GRACE_S", "GRACE_ENV", "StdinEnd", "eof_grace_s"]

GRACE_ENV = "TOOLWIRE_STDIO_EOF_GRACE_S"
"""Seconds the calls in flight when stdin ends may take before they are aborted."""
DEFAULT_GRACE_S = 30.0
"""The grace when `GRACE_ENV` is not set."""
CONNECTION_CLOSED = {"code": -32000, "message": "Connection closed"}
"""The answer of a call aborted at the end of the grace (the SDK server's, for the same case)."""


def eof_grace_s() -> float:
    """The grace `GRACE_ENV` sets (`DEFAULT_GRACE_S` when unset or blank).

    Raises:
        ConfigurationError: The value is not a finite number of seconds >= 0.
    """
    raw = os.environ.get(GRACE_ENV, "").strip()
    if not raw:
        return DEFAULT_GRACE_S
    try:
        grace = float(raw)
    except ValueError:
        grace = math.nan
    if not math.isfinite(grace) or grace < 0:
        raise ConfigurationError(
            f"{GRACE_ENV}={raw!r} is not a number of seconds: set it to 0 or more "
            f"(e.g. {GRACE_ENV}=5), or unset it for the default {DEFAULT_GRACE_S:g} s"
        )
    return grace


class StdinEnd:
    """When stdin ended, and so until when the calls it left running may run.

    Args:
        grace_s: How long they may run after it.
    """

    __slots__ = ("_deadline", "grace_s")

    def __init__(self, grace_s: float) -> None:
        self.grace_s = grace_s
        self._deadline: float | None = None

    def reached(self) -> None:
        """Stdin has ended (the first call counts; later ones change nothing)."""
        if self._deadline is None:
            self._deadline = anyio.current_time() + self.grace_s

    def left_s(self) -> float:
        """Seconds left of the grace (all of it while stdin has not ended)."""
        if self._deadline is None:
            return self.grace_s
        return max(0.0, self._deadline - anyio.current_time())
