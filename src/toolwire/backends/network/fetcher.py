"""SafeFetcher: HTTP(S) that is validated, pinned, redirect-checked, size-capped and timed.

```python
async with SafeFetcher() as fetcher:
    policy = NetworkPolicy(deny=("*.ads.example",))
    response = await fetcher.fetch("https://example.com/", policy=policy)
```

Every hop, redirects included, goes through `check_url` and connects only to the addresses
that check validated. Policy refusals raise `HostNotAllowedError`; transport failures raise
``OSError`` and a fetch running past its deadline raises ``TimeoutError``. Note that
`HostNotAllowedError` is itself an ``OSError`` (a ``PermissionError``): catch it first.
"""

from __future__ import annotations

import ssl
from collections.abc import Mapping
from types import TracebackType

import anyio
import httpcore
import httpx

from toolwire.backends.network.policy import CheckedUrl, check_url
from toolwire.backends.network.refusals import PolicyRefusal, refusal_code
from toolwire.backends.network.resolvers import Resolver, SystemResolver
from toolwire.backends.network.transport import PinnedTransport, pinned_request
from toolwire.backends.network.urls import resolve_location
from toolwire.errors import ConfigurationError, HostNotAllowedError
from toolwire.seams import FetchResponse, NetworkPolicy

__all__ = ["SafeFetcher"]

_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
_REDIRECTS = frozenset({301, 302, 303, 307, 308})
_CALLER_MAY_NOT_SET = ("host", "content-length", "transfer-encoding", "connection")
_CREDENTIAL_HEADERS = ("authorization", "cookie", "proxy-authorization")
_BODY_HEADERS = ("content-type", "content-encoding", "content-language", "content-location")
_DEFAULT_HEADERS = {"user-agent": "toolwire", "accept": "*/*", "accept-encoding": "gzip, deflate"}
_TRANSPORT_ERRORS = (
    httpcore.NetworkError,
    httpcore.ProtocolError,
    httpcore.UnsupportedProtocol,
    httpx.HTTPError,
)


class SafeFetcher:
    """Fetches URLs under a `NetworkPolicy`, one validated and pinned hop at a time.

    Args:
        max_redirects: Redirects followed before refusing (``5`` allows 6 requests).
        max_response_bytes: Decoded body bytes kept; the rest is not read and the response
            is marked ``truncated``.
        timeout_s: Deadline for a whole fetch (DNS, connect, every hop, the body).
        resolver: Name resolution; the system resolver by default.
        ssl_context: Server verification; the default trusts certifi's CAs (and honours
            ``SSL_CERT_FILE``).

    Raises:
        ConfigurationError: a limit is negative or zero where it must be positive.
    """

    def __init__(
        self,
        *,
        max_redirects: int = 5,
        max_response_bytes: int = 10 * 1024 * 1024,
        timeout_s: float = 30.0,
        resolver: Resolver | None = None,
        ssl_context: ssl.SSLContext | None = None,
    ) -> None:
        if max_redirects < 0 or max_response_bytes < 0 or not timeout_s > 0:
            raise ConfigurationError(
                "SafeFetcher: max_redirects and max_response_bytes must be >= 0 and "
                f"timeout_s > 0 (got {max_redirects}, {max_response_bytes}, {timeout_s})"
            )
        self._max_redirects = max_redirects
        self._max_bytes = max_response_bytes
        self._timeout_s = timeout_s
        self._resolver = resolver or SystemResolver()
        self._transport = PinnedTransport(ssl_context=ssl_context or httpx.create_ssl_context())

    async def __aenter__(self) -> SafeFetcher:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close pooled connections; the fetcher stays usable and reconnects on demand."""
        await self._transport.aclose()

    async def fetch(
        self,
        url: str,
        *,
        policy: NetworkPolicy | None = None,
        method: str = "GET",
        headers: Mapping[str, str] | None = None,
        body: bytes | str | None = None,
        timeout_s: float | None = None,
        allowed_hosts: tuple[str, ...] | None = None,
    ) -> FetchResponse:
        """Fetch ``url``, following and re-validating up to ``max_redirects`` redirects.

        Args:
            url: An http or https URL.
            policy: The personality's policy; ``None`` means any public host.
            method: ``GET``, ``HEAD``, ``POST``, ``PUT``, ``PATCH``, ``DELETE`` or ``OPTIONS``.
            headers: Request headers; ``Host``, ``Content-Length``, ``Transfer-Encoding`` and
                ``Connection`` are set by the fetcher and ignored here.
            body: The request body (``str`` is sent as UTF-8).
            timeout_s: This fetch's deadline, overriding the fetcher's.
            allowed_hosts: Host patterns every hop must match (a tool's declaration).

        Returns:
            The final response; 3xx without ``Location`` and 300/304/305 are returned as is.

        Raises:
            HostNotAllowedError: a hop was refused, or redirects exceeded ``max_redirects``.
            TimeoutError: the deadline passed.
            OSError: the connection or the HTTP exchange failed.
            ValueError: ``method`` or ``timeout_s`` is invalid.
        """
        method = method.upper()
        if method not in _METHODS:
            raise ValueError(f"method must be one of {', '.join(sorted(_METHODS))}; got {method!r}")
        deadline = self._timeout_s if timeout_s is None else timeout_s
        if not deadline > 0:
            raise ValueError(f"timeout_s must be > 0, got {timeout_s}")
        content = body.encode("utf-8") if isinstance(body, str) else body
        try:
            with anyio.fail_after(deadline):
                return await self._follow(url, policy, method, headers, content, allowed_hosts)
        except TimeoutError as exc:
            raise TimeoutError(f"fetch timed out after {deadline:g}s") from exc

    async def _follow(
        self,
        url: str,
        policy: NetworkPolicy | None,
        method: str,
        headers: Mapping[str, str] | None,
        content: bytes | None,
        allowed_hosts: tuple[str, ...] | None,
    ) -> FetchResponse:
        request_headers = httpx.Headers(_DEFAULT_HEADERS)
        for name, value in (headers or {}).items():
            if name.lower() not in _CALLER_MAY_NOT_SET:
                request_headers[name] = value
        first_origin: tuple[str, str, int] | None = None
        current = url
        for hop in range(self._max_redirects + 1):
            checked = await self._check(current, policy, allowed_hosts, hop)
            first_origin = first_origin or checked.parsed.origin
            if checked.parsed.origin != first_origin:
                for name in _CREDENTIAL_HEADERS:  # stays stripped for every later hop
                    request_headers.pop(name, None)
            response = await self._send(checked, method, request_headers, content)
            try:
                location = response.headers.get("location")
                if response.status_code not in _REDIRECTS or location is None:
                    body, truncated = await self._read_capped(response, checked)
                    return FetchResponse(
                        status=response.status_code,
                        headers=dict(response.headers.items()),
                        body=body,
                        url=checked.parsed.url,
                        hops=hop,
                        truncated=truncated,
                    )
            finally:
                await response.aclose()
            try:
                current = resolve_location(checked.parsed.url, location)
            except HostNotAllowedError as exc:
                raise PolicyRefusal(
                    f"{exc} (at redirect hop {hop + 1})", refusal_code(exc)
                ) from exc
            status = response.status_code
            if (status == 303 and method != "HEAD") or (status in (301, 302) and method == "POST"):
                method, content = "GET", None
                for name in _BODY_HEADERS:
                    request_headers.pop(name, None)
        raise PolicyRefusal(
            f"too many redirect hops (max {self._max_redirects}); possible redirect loop",
            "too-many-redirects",
        )

    async def _check(
        self,
        url: str,
        policy: NetworkPolicy | None,
        allowed_hosts: tuple[str, ...] | None,
        hop: int,
    ) -> CheckedUrl:
        try:
            return await check_url(url, policy, self._resolver, allowed_hosts=allowed_hosts)
        except HostNotAllowedError as exc:
            if hop == 0:
                raise
            raise PolicyRefusal(f"{exc} (at redirect hop {hop})", refusal_code(exc)) from exc

    async def _send(
        self, checked: CheckedUrl, method: str, headers: httpx.Headers, content: bytes | None
    ) -> httpx.Response:
        parsed = checked.parsed
        request = pinned_request(checked, method, headers, content)
        try:
            return await self._transport.handle_async_request(request)
        except httpcore.TimeoutException as exc:
            raise TimeoutError(f"fetch from '{parsed.host}' timed out: {exc}") from exc
        except _TRANSPORT_ERRORS as exc:
            raise OSError(f"fetch from '{parsed.host}' failed: {_describe(exc)}") from exc

    async def _read_capped(
        self, response: httpx.Response, checked: CheckedUrl
    ) -> tuple[bytes, bool]:
        chunks: list[bytes] = []
        room = self._max_bytes
        try:
            async for chunk in response.aiter_bytes():
                if len(chunk) > room:
                    chunks.append(chunk[:room])
                    return b"".join(chunks), True
                chunks.append(chunk)
                room -= len(chunk)
        except httpcore.TimeoutException as exc:
            raise TimeoutError(f"reading from '{checked.parsed.host}' timed out") from exc
        except _TRANSPORT_ERRORS as exc:
            raise OSError(f"reading from '{checked.parsed.host}' failed: {_describe(exc)}") from exc
        return b"".join(chunks), False


def _describe(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
