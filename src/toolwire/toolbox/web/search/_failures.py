"""How ``web_search`` answers a provider that failed: one stable code per kind of failure.

| HTTP / condition | `ToolResult` | stable code |
|---|---|---|
| 401, 403 (the key was refused) | ``not_available`` | ``reason="provider_unauthorized"`` |
| 402, 432, 433 (plan or credits used up) | ``execution_failed`` | ``cause="quota_exceeded"`` |
| 429 (and DuckDuckGo's 202 anomaly page) | ``execution_failed`` | ``cause="rate_limited"`` |
| 5xx | ``execution_failed`` | ``cause="provider_unavailable"`` |
| another 3xx or 4xx | ``execution_failed`` | ``cause="provider_rejected"`` |
| not the documented JSON or HTML | ``execution_failed`` | ``cause="malformed_response"`` |

The message names the provider, the status, the provider's own explanation (read from the
usual JSON error fields, cut short) and ``Retry-After`` when given. It never holds the key:
`ProviderFailure.to_err` masks it wherever it appears.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from toolwire.capabilities.seams import FetchResponse
from toolwire.results import Err, ErrorCode

__all__ = [
    "MALFORMED",
    "QUOTA_EXCEEDED",
    "RATE_LIMITED",
    "REJECTED",
    "UNAUTHORIZED",
    "UNAVAILABLE",
    "ProviderFailure",
    "header",
    "load_json",
    "status_failure",
]

UNAUTHORIZED = "provider_unauthorized"
QUOTA_EXCEEDED = "quota_exceeded"
RATE_LIMITED = "rate_limited"
UNAVAILABLE = "provider_unavailable"
REJECTED = "provider_rejected"
MALFORMED = "malformed_response"

_DETAIL_CHARS = 300
_QUOTA_STATUSES = frozenset({402, 432, 433})


class ProviderFailure(Exception):
    """A provider answered, but not with results.

    Args:
        code: One of the stable codes of this module.
        message: What happened, for the model.
    """

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message

    def to_err(self, secret: str | None = None) -> Err:
        """The failure as a `ToolResult`, with ``secret`` masked wherever it appears."""
        message = self.message
        if secret:
            message = message.replace(secret, "[redacted]")
        if self.code == UNAUTHORIZED:
            return Err(message, ErrorCode.NOT_AVAILABLE, reason=self.code)
        return Err(message, ErrorCode.EXECUTION_FAILED, cause=self.code)


def status_failure(
    label: str,
    response: FetchResponse,
    meanings: Mapping[int, tuple[str, str]] | None = None,
) -> ProviderFailure | None:
    """The failure a status of 300 or more means; ``None`` for a 2xx answer.

    Args:
        label: The provider's display name.
        response: Its answer.
        meanings: The provider's own reading of a status, as ``(code, what it means)``
            (SearXNG's 403 means its JSON format is off, not a refused key).
    """
    status = response.status
    if status < 300:
        return None
    if meanings and status in meanings:
        code, what = meanings[status]
    elif status in (401, 403):
        code, what = UNAUTHORIZED, "refused the API key"
    elif status in _QUOTA_STATUSES:
        code, what = QUOTA_EXCEEDED, "says the plan's quota or credits are used up"
    elif status == 429:
        code, what = RATE_LIMITED, "is rate limiting these requests"
    elif status >= 500:
        code, what = UNAVAILABLE, "failed on its side"
    else:
        code, what = REJECTED, "rejected the request"
    parts = [f"{label} {what} (HTTP {status})"]
    detail = _detail(response)
    if detail:
        parts.append(f": {detail}")
    retry = header(response, "retry-after")
    if code == RATE_LIMITED and retry:
        parts.append(f"; retry after {retry[:40]} s")
    return ProviderFailure(code, "".join(parts))


def load_json(label: str, response: FetchResponse) -> Any:
    """The response body as JSON.

    Raises:
        ProviderFailure: ``malformed_response`` when the body is not JSON.
    """
    try:
        return json.loads(response.body)
    except (ValueError, UnicodeDecodeError):
        excerpt = _squeeze(response.text)[:120]
        raise ProviderFailure(
            MALFORMED,
            f"{label} answered HTTP {response.status} with a body that is not JSON: {excerpt!r}",
        ) from None


def header(response: FetchResponse, name: str) -> str:
    """A response header by name, any case (empty when absent)."""
    for key, value in response.headers.items():
        if key.lower() == name:
            return value
    return ""


def _detail(response: FetchResponse) -> str:
    """The provider's explanation, from the JSON error fields APIs use, else the text."""
    try:
        data = json.loads(response.body)
    except (ValueError, UnicodeDecodeError):
        data = None
    found = _find_message(data, depth=0) if data is not None else None
    text = found if found is not None else _squeeze(_TAGS.sub(" ", response.text))
    return text[:_DETAIL_CHARS]


_MESSAGE_KEYS = ("detail", "error", "message", "msg", "description")
_TAGS = re.compile(r"<[^>]*>")


def _find_message(data: Any, depth: int) -> str | None:
    if isinstance(data, str):
        return _squeeze(data) or None
    if depth > 3:
        return None
    if isinstance(data, Mapping):
        for key in _MESSAGE_KEYS:
            if key in data:
                found = _find_message(data[key], depth + 1)
                if found:
                    return found
    if isinstance(data, list) and data:
        return _find_message(data[0], depth + 1)
    return None


def _squeeze(text: str) -> str:
    return " ".join(text.split())
