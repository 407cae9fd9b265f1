"""`fetch_json`: one bounded GET of an issuer's JSON document (metadata, JWKS).

Bounded in size (the body is read in chunks and the read stops past ``max_bytes``, so a huge
answer is never held in memory) and in total time (``timeout_s`` for the whole exchange,
where the HTTP client's own timeouts apply per read and a server dripping bytes would never
hit them).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import anyio
import httpx

__all__ = ["FetchFailed", "Fetched", "fetch_json"]


class FetchFailed(Exception):
    """The document could not be read: unreachable, too slow, too large, or not JSON (the
    message says which, without the body)."""


@dataclass(frozen=True, slots=True)
class Fetched:
    """An answer: its status and, for a 200, its JSON (``None`` otherwise)."""

    status: int
    data: Any = None


async def fetch_json(
    client: httpx.AsyncClient, url: str, *, max_bytes: int, timeout_s: float
) -> Fetched:
    """GET ``url``; its status, and its JSON when the status is 200.

    Raises:
        FetchFailed: see the class.
    """
    try:
        with anyio.fail_after(timeout_s):
            async with client.stream("GET", url, headers={"accept": "application/json"}) as answer:
                if answer.status_code != 200:
                    return Fetched(answer.status_code)
                body = bytearray()
                async for chunk in answer.aiter_bytes():
                    body += chunk
                    if len(body) > max_bytes:
                        raise FetchFailed(f"larger than {max_bytes} bytes")
    except TimeoutError:
        raise FetchFailed(f"no whole answer within {timeout_s:g} s") from None
    except httpx.HTTPError as exc:
        raise FetchFailed(type(exc).__name__) from None
    try:
        return Fetched(200, json.loads(bytes(body)))
    except (ValueError, RecursionError):  # RecursionError: nested past the parser's depth
        raise FetchFailed("not JSON") from None
