"""Our URL and host parsing against the WHATWG URL Standard (ada, the parser in Node.js)."""

from __future__ import annotations

import re

import ada_url
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from spellings import LABEL, RAW_HOST, odd_url, whatwg_host

from toolwire.capabilities.kinds.network import ParsedUrl, host_matches, parse_url
from toolwire.capabilities.kinds.network._canonical_hosts import canonical_host
from toolwire.capabilities.kinds.network._hosts import normalise_host
from toolwire.capabilities.kinds.network._urls import resolve_location
from toolwire.errors import HostNotAllowedError

BASE = "http://a.test:8080/dir/page?x=1"
DNS_LABEL = re.compile(r"[a-z0-9_-]{1,63}")
DEFAULT_PORTS = {"http:": 80, "https:": 443}


def acceptable(host: str) -> bool:
    """The WHATWG hosts we accept: IP addresses, and DNS names (browsers allow more)."""
    if ":" in host or re.fullmatch(r"[0-9]+\.[0-9]+\.[0-9]+\.[0-9]+", host):
        return True
    name = host.removesuffix(".")
    return 0 < len(name) <= 253 and all(DNS_LABEL.fullmatch(label) for label in name.split("."))


def parsed_or_refusal(url: str) -> ParsedUrl | str:
    """The parsed URL, or the refusal's message."""
    try:
        return parse_url(url)
    except HostNotAllowedError as refusal:
        return str(refusal)


def ours(raw: str) -> str | None:
    try:
        return canonical_host(raw)[0]
    except ValueError:
        return None


@given(raw=RAW_HOST)
def test_our_canonical_host_is_the_whatwg_host(raw: str) -> None:
    theirs = whatwg_host(f"http://{raw}/")
    if theirs is not None and acceptable(theirs):
        assert ours(raw) == theirs.removesuffix(".")
    else:
        assert ours(raw) is None


@given(raw=RAW_HOST)
def test_a_host_pattern_names_the_host_browsers_read(raw: str) -> None:
    theirs = whatwg_host(f"http://{raw}/")
    assume(theirs is not None and acceptable(theirs))
    host = str(theirs).removesuffix(".")
    assert normalise_host(raw) == host
    assert host_matches(host, raw)
    assert host_matches(raw, host)


@given(url=odd_url())
def test_an_accepted_url_is_read_as_the_whatwg_standard_reads_it(url: str) -> None:
    parsed = parsed_or_refusal(url)
    if isinstance(parsed, str):
        assert "differently" not in parsed  # our parser never disagrees with WHATWG
        return
    theirs = ada_url.URL(url)
    assert (theirs.username, theirs.password) == ("", "")
    assert parsed.host == whatwg_host(url).removesuffix(".")  # type: ignore[union-attr]
    assert parsed.port == int(theirs.port or DEFAULT_PORTS[theirs.protocol])
    sent = ada_url.URL(parsed.url)  # what we send is what we checked
    assert whatwg_host(parsed.url) == parsed.host
    assert (sent.pathname, sent.search) == (theirs.pathname, theirs.search)


PLAIN_PORT = st.sampled_from(["", ":", ":80", ":443", ":8080", ":0080", ":65535"])
PLAIN_REST = st.sampled_from(["", "/", "/a/../b", "?q=1", "#frag", "/%2e%2e/", "/?", "/\\x"])


@given(
    scheme=st.sampled_from(["http", "https", "HTTP", "hTtPs"]),
    raw=RAW_HOST,
    port=PLAIN_PORT,
    rest=PLAIN_REST,
)
def test_a_plain_url_with_a_dns_name_or_ip_is_accepted_with_the_whatwg_host(
    scheme: str, raw: str, port: str, rest: str
) -> None:
    assume(raw)  # "http:///a" is the host "a" for browsers: we refuse the extra slash
    url = f"{scheme}://{raw}{port}{rest}"
    theirs = whatwg_host(url)
    assume(theirs is not None and acceptable(theirs))
    assert parse_url(url).host == str(theirs).removesuffix(".")


REFERENCE = st.one_of(
    odd_url(),
    st.builds(
        "{}{}{}".format,
        st.sampled_from(["/\\", "\\\\", "//", "\\/", "/", "", "./", "../", "http:", "https:"]),
        st.one_of(RAW_HOST, LABEL),
        st.sampled_from(["", "/x", "\\x", "?q", "#f", ":8080/"]),
    ),
)


@given(reference=REFERENCE)
def test_a_redirect_location_resolves_as_browsers_resolve_it(reference: str) -> None:
    theirs = whatwg_host(reference, BASE)
    try:
        target = resolve_location(BASE, reference)
    except HostNotAllowedError:
        assert theirs is None
        return
    assert whatwg_host(target) == theirs
    parsed = parsed_or_refusal(target)
    if isinstance(parsed, str):
        assert "differently" not in parsed
        return
    assert parsed.host == str(theirs).removesuffix(".")


@pytest.mark.parametrize(
    ("location", "target"),
    [
        ("/\\evil.example/", "http://evil.example/"),
        ("\\\\evil.example\\x", "http://evil.example/x"),
        ("http:\\\\127.0.0.1\\x", "http://127.0.0.1/x"),
        ("https:\\\\evil.example", "https://evil.example/"),
        ("/\t/evil.example/", "http://evil.example/"),
        ("//evil.example", "http://evil.example/"),
        ("http:evil.example", "http://a.test:8080/dir/evil.example"),
        ("../up", "http://a.test:8080/up"),
        ("?y=2", "http://a.test:8080/dir/page?y=2"),
    ],
)
def test_a_location_is_resolved_by_the_whatwg_rules(location: str, target: str) -> None:
    assert resolve_location(BASE, location) == target


@pytest.mark.parametrize("location", ["http://[::1/", "http://a b/", "http://1.2.3.256/"])
def test_an_unparseable_location_is_a_refusal(location: str) -> None:
    with pytest.raises(HostNotAllowedError, match="malformed redirect Location"):
        resolve_location(BASE, location)


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("http://example.com:" + "9" * 5000 + "/", "port of 5000 digits is out of range"),
        ("http://example.com:99999/", "port 99999 is out of range"),
        ("http://example.com:0/", "port 0 is out of range"),
        ("http://example.com:8x/", "malformed port"),
        ("http://\ud800.example/", "not valid Unicode"),
        ("http://exa%00mple.com/", "malformed host"),
        ("http://" + "a" * 64 + ".com/", "malformed host"),
        ("http:\\\\example.com\\", "no host"),
        ("http://example.com\\@evil.example/", "backslash"),
    ],
)
def test_a_bad_url_is_a_refusal_that_says_what_is_wrong(url: str, reason: str) -> None:
    with pytest.raises(HostNotAllowedError, match=re.escape(reason)) as refusal:
        parse_url(url)
    assert str(refusal.value).startswith("HOST_NOT_ALLOWED: ")


def test_a_port_with_thousands_of_leading_zeros_is_read_as_browsers_read_it() -> None:
    assert parse_url("http://example.com:" + "0" * 4000 + "8080/").port == 8080


@given(text=st.one_of(st.text(), odd_url(), st.text().map(lambda t: "http://" + t)))
def test_parse_url_refuses_any_bad_input_and_raises_nothing_else(text: str) -> None:
    parsed = parsed_or_refusal(text)
    assert isinstance(parsed, ParsedUrl) or parsed.startswith("HOST_NOT_ALLOWED: ")


@given(text=st.one_of(st.text(), REFERENCE))
def test_resolve_location_refuses_any_bad_input_and_raises_nothing_else(text: str) -> None:
    try:
        target = resolve_location(BASE, text)
    except HostNotAllowedError as refusal:
        target = str(refusal)
    assert target.startswith("HOST_NOT_ALLOWED: ") or ada_url.URL.can_parse(target)
