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

httpx is loaded on the first fetch (`toolwire.capabilities.kinds.network._exchange`), not when the
fetcher is made: every ``toolwire serve`` makes one, and most stdio sessions never fetch. It is
loaded in a worker thread, so the event loop keeps serving meanwhile (about 0.3 s).
"""

from __future__ import annotations

import importlib.util
import ssl
from collections.abc import Mapping
from typing import TYPE_CHECKING

import anyio
from anyio.abc import AsyncResource

from toolwire.capabilities.kinds.network._policy import CheckedUrl, check_url
from toolwire.capabilities.kinds.network._refusals import PolicyRefusal, refusal_code
from toolwire.capabilities.kinds.network._resolvers import Resolver, SystemResolver
from toolwire.capabilities.kinds.network._urls import resolve_location
from toolwire.capabilities.seams import FetchResponse, NetworkPolicy
from toolwire.errors import ConfigurationError, HostNotAllowedError

if TYPE_CHECKING:
    from toolwire.capabilities.kinds.network._exchange import HttpExchange

__all__ = ["SafeFetcher", "http_stack_missing"]

_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
_REDIRECTS = frozenset({301, 302, 303, 307, 308})
_CALLER_MAY_NOT_SET = ("host", "content-length", "transfer-encoding", "connection")
_CREDENTIAL_HEADERS = ("authorization", "cookie", "proxy-authorization")
_BODY_HEADERS = ("content-type", "content-encoding", "content-language", "content-location")
_DEFAULT_HEADERS = {"user-agent": "toolwire", "accept": "*/*", "accept-encoding": "gzip, deflate"}


def http_stack_missing() -> str | None:
    """The package a fetch needs and this environment lacks (``httpx`` or ``httpcore``), or
    ``None``; looked up without importing them."""
    for package in ("httpx", "httpcore"):
        if importlib.util.find_spec(package) is None:
            return package
    return None


class SafeFetcher(AsyncResource):
    """Fetches URLs under a `NetworkPolicy`, one validated and pinned hop at a time.

    Args:
        max_redirects: Redirects followed before refusing (``5`` allows 6 requests).
        max_response_bytes: Decoded body bytes kept; the rest is not read and the response
            is marked ``truncated``.
        timeout_s: Deadline for a whole fetch (DNS, connect, every hop, the body).
        resolver: Name resolution; the system resolver by default.
        ssl_context: Server verification; the default trusts certifi's CAs (and honours
            ``SSL_CERT_FILE``), loaded with httpx on the first fetch.

    Raises:
        ConfigurationError: a limit is negative or zero where it must be positive, or httpx
            is not installed (``pip install 'toolwire[web]'``).
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
        missing = http_stack_missing()
        if missing is not None:
            raise ConfigurationError(f"SafeFetcher needs {missing}: pip install 'toolwire[web]'")
        if max_redirects < 0 or max_response_bytes < 0 or not timeout_s > 0:
            raise ConfigurationError(
                "SafeFetcher: max_redirects and max_response_bytes must be >= 0 and "
                f"timeout_s > 0 (got {max_redirects}, {max_response_bytes}, {timeout_s})"
            )
        self._max_redirects = max_redirects
        self._max_bytes = max_response_bytes
        self._timeout_s = timeout_s
        self._resolver = resolver or SystemResolver()
        self._ssl_context = ssl_context
        self._exchange: HttpExchange | None = None
        self._exchange_made = anyio.Lock()

    async def _http(self) -> HttpExchange:
        """The httpx side, made once, on first use, in a worker thread (see the module doc)."""
        exchange = self._exchange
        if exchange is None:
            async with self._exchange_made:  # concurrent first fetches make one
                exchange = self._exchange
                if exchange is None:
                    exchange = await anyio.to_thread.run_sync(self._make_exchange)
                    self._exchange = exchange
        return exchange

    def _make_exchange(self) -> HttpExchange:
        from toolwire.capabilities.kinds.network._exchange import HttpExchange

        return HttpExchange(self._ssl_context)

    async def aclose(self) -> None:
        """Close pooled connections; the fetcher stays usable and reconnects on demand."""
        if self._exchange is not None:
            await self._exchange.aclose()

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
        max_bytes: int | None = None,
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
            max_bytes: Read at most this much of the final body (capped by
                ``max_response_bytes``); the rest is not downloaded and ``truncated`` is set.

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
        if max_bytes is not None and not (isinstance(max_bytes, int) and max_bytes >= 0):
            raise ValueError(f"max_bytes must be an integer >= 0, got {max_bytes!r}")
        cap = self._max_bytes if max_bytes is None else min(max_bytes, self._max_bytes)
        content = body.encode("utf-8") if isinstance(body, str) else body
        try:
            with anyio.fail_after(deadline):
                return await self._follow(url, policy, method, headers, content, allowed_hosts, cap)
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
        max_bytes: int,
    ) -> FetchResponse:
        http = await self._http()
        request_headers = http.headers(_DEFAULT_HEADERS)
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
            response = await http.send(checked, method, request_headers, content)
            try:
                location = response.headers.get("location")
                if response.status_code not in _REDIRECTS or location is None:
                    body, truncated = await http.read_capped(response, checked, max_bytes)
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
