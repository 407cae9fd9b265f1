"""The answers the egress proxy writes itself: errors with a stable code, and their log line.

Every answer the proxy makes up (as opposed to one it relays) carries the header
``X-Toolwire-Refusal: <code>`` and a one-line ``text/plain`` body saying why, then the
connection is closed. The codes are the network policy's (`RefusalCode`, answered ``403``,
``400`` for ``malformed-url``) and the proxy's own (`ProxyCode`).
"""

from __future__ import annotations

import logging
from http import HTTPStatus
from typing import Literal, TypeAlias

from anyio.abc import ByteSendStream

from toolwire.capabilities.kinds.network._refusals import MALFORMED_CODES, RefusalCode

__all__ = [
    "REFUSAL_HEADER",
    "ProxyCode",
    "error_response",
    "log_allowed",
    "log_refused",
    "logger",
    "send_error",
    "status_for",
]

logger = logging.getLogger("toolwire.egress")
"""One line per decision: ``allowed`` or ``refused``, method, host:port, code and reason."""

REFUSAL_HEADER = "X-Toolwire-Refusal"

ProxyCode: TypeAlias = Literal[
    "malformed-request",
    "not-a-proxy-request",
    "header-too-large",
    "request-timeout",
    "too-many-connections",
    "upstream-failed",
    "upstream-timeout",
]
"""The proxy's own codes: 400, 400, 431, 408, 503, 502 and 504."""

_PROXY_STATUS: dict[ProxyCode, int] = {
    "malformed-request": 400,
    "not-a-proxy-request": 400,
    "header-too-large": 431,
    "request-timeout": 408,
    "too-many-connections": 503,
    "upstream-failed": 502,
    "upstream-timeout": 504,
}


def status_for(code: RefusalCode | ProxyCode) -> int:
    """The status of an answer: the proxy's own table, ``400`` for ``malformed-url``, or 403."""
    if code in _PROXY_STATUS:
        return _PROXY_STATUS[code]
    return 400 if code in MALFORMED_CODES else 403


def error_response(
    status: int, code: RefusalCode | ProxyCode, reason: str, *, body: bool = True
) -> bytes:
    """The bytes of an answer: status line, headers (``Connection: close``), reason body."""
    phrase = HTTPStatus(status).phrase
    text = f"{reason}\n".encode("utf-8", errors="replace")
    head = (
        f"HTTP/1.1 {status} {phrase}\r\n"
        "Content-Type: text/plain; charset=utf-8\r\n"
        f"Content-Length: {len(text)}\r\n"
        "Connection: close\r\n"
        f"{REFUSAL_HEADER}: {code}\r\n\r\n"
    )
    return head.encode("ascii") + (text if body else b"")


async def send_error(
    stream: ByteSendStream,
    code: RefusalCode | ProxyCode,
    reason: str,
    *,
    head_only: bool = False,
) -> None:
    """Write an error answer (status from `status_for`), ignoring a client already gone."""
    try:
        await stream.send(error_response(status_for(code), code, reason, body=not head_only))
    except OSError:
        pass
    except Exception as exc:  # anyio's Broken/ClosedResourceError: the client left
        logger.debug("egress: could not send a %s answer (%s)", code, type(exc).__name__)


def log_allowed(where: str, method: str, host: str, port: int, addresses: tuple[str, ...]) -> None:
    """Log an allowed destination (the host and port, never the URL's path or query)."""
    logger.info(
        "egress %s: allowed %s %s:%d via %s",
        where,
        method[:24],
        host,
        port,
        ",".join(addresses),
        extra={"egress_decision": "allowed", "egress_host": host, "egress_port": port},
    )


def log_refused(
    where: str, method: str, host: str, port: int | None, code: str, reason: str
) -> None:
    """Log a refusal with its code and reason (which names the host, never a path)."""
    logger.info(
        "egress %s: refused %s %s:%s %s: %s",
        where,
        method[:24] or "-",
        host or "-",
        port if port is not None else "-",
        code,
        reason,
        extra={
            "egress_decision": "refused",
            "egress_host": host,
            "egress_port": port,
            "egress_code": code,
        },
    )
