"""Which headers cross the egress proxy: hop-by-hop ones never do."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from toolwire.capabilities.kinds.process.sandbox.egress._headers import (
    ambiguous_framing,
    end_to_end,
    has_body,
)

HOP_BY_HOP = {
    b"connection",
    b"keep-alive",
    b"proxy-connection",
    b"proxy-authenticate",
    b"proxy-authorization",
    b"te",
    b"trailer",
    b"transfer-encoding",
    b"upgrade",
}


def test_hop_by_hop_and_connection_named_headers_are_dropped() -> None:
    headers = [
        (b"Host", b"a.test"),
        (b"Connection", b"keep-alive, X-Secret"),
        (b"X-Secret", b"1"),
        (b"Proxy-Authorization", b"Basic eDp5"),
        (b"Expect", b"100-continue"),
        (b"Accept", b"*/*"),
        (b"Content-Length", b"3"),
    ]
    assert end_to_end(headers, request=True) == [(b"Accept", b"*/*"), (b"Content-Length", b"3")]
    assert end_to_end(headers, request=False) == [
        (b"Host", b"a.test"),
        (b"Expect", b"100-continue"),
        (b"Accept", b"*/*"),
        (b"Content-Length", b"3"),
    ]


def test_a_length_beside_a_transfer_coding_is_dropped() -> None:
    headers = [(b"Transfer-Encoding", b"chunked"), (b"Content-Length", b"10")]
    assert end_to_end(headers, request=False) == []
    assert ambiguous_framing(headers)
    assert not ambiguous_framing(headers[1:])


def test_has_body() -> None:
    assert has_body([(b"Content-Length", b"5")])
    assert has_body([(b"Transfer-Encoding", b"chunked")])
    assert not has_body([(b"Content-Length", b"0")])
    assert not has_body([(b"Accept", b"*/*")])


names = st.one_of(
    st.sampled_from(sorted(HOP_BY_HOP | {b"Host", b"Accept", b"X-A", b"Content-Length"})),
    st.binary(min_size=1, max_size=12),
)


@given(st.lists(st.tuples(names, st.binary(max_size=30)), max_size=8), st.booleans())
def test_no_hop_by_hop_header_ever_crosses(
    headers: list[tuple[bytes, bytes]], request: bool
) -> None:
    kept = end_to_end(headers, request=request)
    named = {
        token.strip().lower()
        for name, value in headers
        if name.lower() == b"connection"
        for token in value.split(b",")
    }
    assert all(name.lower() not in HOP_BY_HOP | named for name, _ in kept)
    assert all(pair in headers for pair in kept)
    if request:
        assert all(name.lower() not in (b"host", b"expect") for name, _ in kept)
