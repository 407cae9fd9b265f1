"""The fast path for ``tools/call`` and ``tools/list`` on streamable HTTP (see `LeanPath`).

A plain request for one of the two methods (no progress token, no task, no approval round
trip) is parsed once, checked, run inline through the registry and answered with one JSON
body; everything else falls through, byte for byte, to the SDK's transport.

Rooms: ``_path.py`` (`LeanPath`), ``_front.py`` (`LeanFront`: ``POST /mcp`` past Starlette's
routing), ``_envelope.py`` (which requests it answers), ``_asgi_io.py`` (reading and replaying the
ASGI request), ``peer.py`` (the client of a call it runs), ``coalesce.py`` and
``_coalesce_protocol.py`` (one socket write per answer).
"""

from __future__ import annotations

from toolwire.mcp.server.fast_http._envelope import LeanRequest, parse_lean_request
from toolwire.mcp.server.fast_http._front import LeanFront
from toolwire.mcp.server.fast_http._path import LEAN_ENV, LeanPath, lean_enabled

__all__ = ["LEAN_ENV", "LeanFront", "LeanPath", "LeanRequest", "lean_enabled", "parse_lean_request"]
