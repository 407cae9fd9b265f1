"""Whatever a client sends, the egress proxy answers it and keeps serving (property tests).

The proxy runs in a blocking portal (its own event loop in a thread, on asyncio and on trio)
so hypothesis can drive it with plain sockets.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Iterator
from dataclasses import dataclass

import anyio.from_thread
import pytest
from egress_helpers import EgressCanary, raw_exchange, running_canary, status_and_code
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolwire.capabilities.kinds.process.sandbox.egress import EgressLimits, EgressProxy

ANSWERS = {200, 400, 403, 408, 431, 501, 502, 503, 504}
"""Every status the proxy may give (200 and 501 only from the canary it allows: the canary's
http.server answers 501 to a method it has no handler for, such as ``PRI`` or ``get``, and the
proxy passes that answer on)."""


class _Errors(logging.Handler):
    """Collects the proxy's error records (a connection that failed on a bug), and any line
    that carries a query string (the generated paths hold ``?token=``)."""

    def __init__(self) -> None:
        super().__init__(level=logging.INFO)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.levelno >= logging.ERROR or "token=" in record.getMessage():
            self.records.append(record)


@dataclass
class Running:
    address: tuple[str, int]
    canary: EgressCanary
    errors: _Errors


@pytest.fixture(scope="module", params=["asyncio", "trio"])
def running(request: pytest.FixtureRequest) -> Iterator[Running]:
    errors = _Errors()
    logger = logging.getLogger("toolwire.egress")
    logger.addHandler(errors)
    level = logger.level
    logger.setLevel(logging.INFO)
    limits = EgressLimits(idle_timeout_s=5, connect_timeout_s=2, response_timeout_s=5)
    try:
        with (
            running_canary() as canary,
            anyio.from_thread.start_blocking_portal(str(request.param)) as portal,
            portal.wrap_async_context_manager(EgressProxy(canary.resolver, limits=limits)) as proxy,
        ):
            listener = portal.call(functools.partial(proxy.serve_tcp, policy=canary.policy))
            assert listener.address is not None
            yield Running(listener.address, canary, errors)
    finally:
        logger.removeHandler(errors)
        logger.setLevel(level)


def _hosts(canary_port: int) -> st.SearchStrategy[bytes]:
    known = [
        *([b"canary.test"] * 8),
        b"169.254.169.254",
        b"[fd00:ec2::254]",
        b"metadata.google.internal",
        b"127.0.0.1",
        b"0x7f.1",
        b"[::1]",
        b"localhost",
        b"[::ffff:169.254.169.254]",
        b"1.2.3.256",
        b"a..b",
        b"xn--",
        b"%00",
        b"[",
        b"",
    ]
    return st.sampled_from(known)


def _mostly(
    draw: st.DrawFn, good: st.SearchStrategy[bytes], bad: st.SearchStrategy[bytes]
) -> bytes:
    """A good part four times in five, so most requests are one or two twists from valid."""
    return draw(bad) if draw(st.integers(0, 4)) == 0 else draw(good)


@st.composite
def hostile_requests(draw: st.DrawFn, canary_port: int) -> bytes:
    """A request line and headers built from plausible and hostile parts."""
    method = _mostly(
        draw,
        st.sampled_from([b"GET", b"POST", b"HEAD", b"CONNECT", b"PUT", b"DELETE"]),
        st.one_of(st.sampled_from([b"PRI", b"get", b"G\x00T"]), st.binary(max_size=12)),
    )
    host = _mostly(draw, _hosts(canary_port), st.binary(max_size=40))
    scheme = _mostly(
        draw, st.sampled_from([b"http://", b"https://"]), st.sampled_from([b"ftp://", b"", b"//"])
    )
    port = _mostly(
        draw,
        st.sampled_from([b"", b":80", b":443", *([b":%d" % canary_port] * 5)]),
        st.sampled_from([b":", b":0", b":99999", b":-1", b":8a"]),
    )
    path = _mostly(
        draw,
        st.sampled_from([b"/", b"/x?token=s", b"/echo", b""]),
        st.sampled_from([b"/\x00", b" /", b"/%2e%2e/", b"#frag", b"@evil.test/"]),
    )
    authority = host + port if method == b"CONNECT" else scheme + host + port + path
    target = _mostly(draw, st.just(authority), st.binary(max_size=60))
    version = _mostly(
        draw,
        st.sampled_from([b"HTTP/1.1", b"HTTP/1.0"]),
        st.one_of(st.sampled_from([b"HTTP/2.0", b"HTTP/1.1 ", b""]), st.binary(max_size=10)),
    )
    sep = _mostly(draw, st.just(b" "), st.sampled_from([b"  ", b"\t", b""]))
    eol = _mostly(draw, st.just(b"\r\n"), st.sampled_from([b"\n", b"\r"]))
    good_header = st.sampled_from(
        [
            (b"Accept", b": ", b"*/*"),
            (b"Content-Length", b": ", b"5"),
            (b"Transfer-Encoding", b": ", b"chunked"),
            (b"Connection", b": ", b"close"),
            (b"Connection", b": ", b"keep-alive, X-A"),
            (b"Expect", b": ", b"100-continue"),
            (b"Proxy-Authorization", b": ", b"Basic eDp5"),
        ]
    )
    bad_header = st.tuples(
        st.one_of(
            st.sampled_from([b"Content-Length", b"Transfer-Encoding", b"Connection", b"Expect"]),
            st.binary(max_size=20),
        ),
        st.sampled_from([b": ", b":", b" : ", b""]),
        st.one_of(
            st.sampled_from([b"5", b"-1", b"chunked", b"close", b"100-continue", b"1, 2"]),
            st.binary(max_size=40),
        ),
    )
    headers = [
        draw(bad_header) if draw(st.integers(0, 4)) == 0 else draw(good_header)
        for _ in range(draw(st.integers(0, 3)))
    ]
    lines = [method + sep + target + sep + version]
    if draw(st.integers(0, 9)):
        lines.append(b"Host: " + host)
    lines += [name + colon + value for name, colon, value in headers]
    body = draw(st.binary(max_size=60))
    return eol.join(lines) + eol + eol + body


def _answered(running: Running, data: bytes) -> None:
    answer = raw_exchange(running.address, data)
    if data.strip(b"\r\n"):
        assert answer.startswith(b"HTTP/1.1 "), (data, answer)
    elif not answer:
        return  # only blank lines, then the end: no request was made, nothing to answer
    status, _ = status_and_code(answer)
    assert status in ANSWERS
    assert running.errors.records == []
    healthy = raw_exchange(running.address, b"GET http://10.0.0.1/ HTTP/1.1\r\nHost: a\r\n\r\n")
    assert status_and_code(healthy) == (403, "not-on-allow-list")


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_hostile_request_lines_and_headers_always_get_an_answer(
    running: Running, data: st.DataObject
) -> None:
    _answered(running, data.draw(hostile_requests(running.canary.port)))


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(blob=st.binary(min_size=1, max_size=3000))
def test_arbitrary_bytes_always_get_an_answer(running: Running, blob: bytes) -> None:
    _answered(running, blob)
