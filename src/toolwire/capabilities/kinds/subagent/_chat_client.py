"""One Chat Completions request over httpx, with the endpoint's failures made into clear words.

`request_completion` POSTs to ``<base_url>/chat/completions`` and returns the parsed JSON
object, retrying what is worth retrying: HTTP 429 after the ``Retry-After`` the endpoint asks
for (when it is no longer than ``max_retry_wait_s``), 5xx and connection failures after a short
backoff, at most ``max_retries`` times. Anything else raises `ChatEndpointError` with a message
for the parent model: ``HTTP 401: the endpoint refused the API key``, ``HTTP 429: rate limited;
the endpoint asks to retry after 30 s``, ``HTTP 503: ...``, ``malformed JSON``. The API key is
sent as a bearer token and never appears in a message: anything the endpoint echoes is
redacted, the key itself first.
"""

from __future__ import annotations

import email.utils
import json
import math
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import anyio

from toolwire.safety._redaction import redact_secrets

if TYPE_CHECKING:
    import httpx

__all__ = ["ChatEndpointError", "RetryPolicy", "request_completion", "retry_after_seconds"]

_BODY_SHOWN = 300


class ChatEndpointError(Exception):
    """The endpoint failed in a way retrying did not (or could not) fix.

    Attributes:
        status: The HTTP status, or ``None`` when no response came.
        message: What to tell the parent model (secrets redacted).
    """

    def __init__(self, message: str, *, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


@dataclass(frozen=True, kw_only=True, slots=True)
class RetryPolicy:
    """When to try a request again.

    Attributes:
        max_retries: Retries after the first attempt (429, 5xx, no connection).
        max_retry_wait_s: The longest ``Retry-After`` honoured; a longer one fails at once.
        backoff_s: The wait before the first retry of a 5xx or a connection failure; it
            doubles each time.
    """

    max_retries: int = 2
    max_retry_wait_s: float = 30.0
    backoff_s: float = 0.5


def retry_after_seconds(value: str | None, *, now: float | None = None) -> float | None:
    """A ``Retry-After`` header in seconds (delta seconds or an HTTP date); ``None`` when
    absent or unreadable."""
    if value is None:
        return None
    text = value.strip()
    try:
        seconds = float(text)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(text).timestamp()
        except (TypeError, ValueError, IndexError, OverflowError, OSError):
            return None
        seconds = when - (time.time() if now is None else now)
    return max(0.0, seconds) if math.isfinite(seconds) else None


def _shown(text: str, key: str | None) -> str:
    secrets = (key,) if key else ()
    cleaned = redact_secrets(text, secret_values=secrets).text.strip()
    cleaned = " ".join(cleaned.split())
    return cleaned if len(cleaned) <= _BODY_SHOWN else cleaned[:_BODY_SHOWN] + "…"


def _error_detail(response: httpx.Response, key: str | None) -> str:
    """The endpoint's own error message (OpenAI's ``{"error": {"message"}}``) or its body."""
    try:
        data = response.json()
    except ValueError:
        return _shown(response.text, key)
    error = data.get("error") if isinstance(data, Mapping) else None
    if isinstance(error, Mapping) and isinstance(error.get("message"), str):
        return _shown(error["message"], key)
    if isinstance(error, str):
        return _shown(error, key)
    return _shown(response.text, key)


def _failure(response: httpx.Response, key: str | None, wait: float | None) -> ChatEndpointError:
    status = response.status_code
    detail = _error_detail(response, key)
    said = f" ({detail})" if detail else ""
    if status in (401, 403):
        what = "refused the API key" if key else "needs an API key and none is configured"
        return ChatEndpointError(f"HTTP {status}: the endpoint {what}{said}", status=status)
    if status == 429:
        after = f"; it asks to retry after {wait:g} s" if wait is not None else ""
        return ChatEndpointError(
            f"HTTP 429: rate limited by the endpoint{after}{said}", status=status
        )
    if status >= 500:
        return ChatEndpointError(f"HTTP {status}: the endpoint failed{said}", status=status)
    return ChatEndpointError(
        f"HTTP {status}: the endpoint refused the request{said}", status=status
    )


def _parsed(response: httpx.Response, key: str | None) -> dict[str, Any]:
    try:
        data = json.loads(response.content)
    except ValueError:
        size = len(response.content)
        raise ChatEndpointError(
            f"the endpoint answered HTTP {response.status_code} with malformed JSON ({size} bytes)",
            status=response.status_code,
        ) from None
    if not isinstance(data, dict):
        raise ChatEndpointError(
            f"the endpoint answered with JSON that is not an object ({type(data).__name__})",
            status=response.status_code,
        )
    if "error" in data and "choices" not in data:
        detail = _error_detail(response, key)
        raise ChatEndpointError(f"the endpoint answered with an error: {detail}", status=200)
    return data


async def request_completion(
    client: httpx.AsyncClient,
    url: str,
    body: Mapping[str, Any],
    *,
    key: str | None,
    retry: RetryPolicy,
) -> dict[str, Any]:
    """POST ``body`` to ``url`` and return the completion object.

    Raises:
        ChatEndpointError: the request failed for good (see the module docstring).
    """
    import httpx

    headers = {"Authorization": f"Bearer {key}"} if key else {}
    attempt = 0
    while True:
        try:
            response = await client.post(url, json=body, headers=headers)
        except httpx.HTTPError as exc:
            if attempt < retry.max_retries:
                await anyio.sleep(retry.backoff_s * 2**attempt)
                attempt += 1
                continue
            raise ChatEndpointError(
                f"could not reach the endpoint: {type(exc).__name__}"
                f"{': ' + _shown(str(exc), key) if str(exc) else ''}"
            ) from None
        status = response.status_code
        if status < 300:
            return _parsed(response, key)
        wait = retry_after_seconds(response.headers.get("retry-after"))
        retriable = status == 429 or status >= 500
        if retriable and attempt < retry.max_retries:
            delay = wait if wait is not None else retry.backoff_s * 2**attempt
            if delay <= retry.max_retry_wait_s:
                await anyio.sleep(delay)
                attempt += 1
                continue
        raise _failure(response, key, wait)
