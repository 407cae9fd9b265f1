"""Hypothesis strategies that spell hosts and URLs the odd ways browsers still accept.

Shared by the property tests: IPv4 numbers in every WHATWG spelling, hosts with
percent-encoding, IDNA and odd characters, and whole URLs with backslashes, tabs, userinfo
and ports. `whatwg_host` reads the host the WHATWG URL Standard gives (ada, the parser
Node.js uses), which our own parsing is compared against.
"""

from __future__ import annotations

import ada_url
from hypothesis import strategies as st


def spell_number(draw: st.DrawFn, value: int) -> str:
    """``value`` in decimal, ``0x``/``0X`` hex (any case, maybe zero-padded) or octal."""
    style = draw(st.sampled_from(["dec", "hex", "HEX", "oct"]))
    if style == "dec":
        return str(value)
    if style == "oct":
        return "0" + format(value, "o")
    digits = format(value, "x" if draw(st.booleans()) else "X")
    return ("0x" if style == "hex" else "0X") + "0" * draw(st.integers(0, 2)) + digits


@st.composite
def ipv4_spelling(draw: st.DrawFn, value: int) -> str:
    """``value`` written as 1 to 4 parts, each part in decimal, hex or octal, maybe a dot after."""
    octets = list(value.to_bytes(4, "big"))
    parts = draw(st.integers(1, 4))
    head = octets[: parts - 1]
    tail = int.from_bytes(bytes(octets[parts - 1 :]), "big")
    spelled = [spell_number(draw, n) for n in [*head, tail]]
    return ".".join(spelled) + ("." if draw(st.booleans()) else "")


def percent_encode_some(draw: st.DrawFn, text: str) -> str:
    """``text`` with some characters replaced by the ``%XX`` of their UTF-8 bytes."""
    out = []
    for ch in text:
        if draw(st.integers(0, 5)) == 0:
            hex_case = "{:02X}" if draw(st.booleans()) else "{:02x}"
            out.append("".join("%" + hex_case.format(b) for b in ch.encode("utf-8")))
        else:
            out.append(ch)
    return "".join(out)


LABEL_CHARS = st.sampled_from(
    [
        *"abcxyzAZ019-_",
        "\u00fc",  # ü: IDNA
        "\u00df",  # ß: UTS 46 keeps it (IDNA 2003 mapped it to "ss")
        "\uff45",  # full-width e
        "\uff11",  # full-width 1
        "\u0131",  # dotless i
        "\u00ad",  # soft hyphen: mapped to nothing
        "\ufeff",  # zero-width no-break space: mapped to nothing
        "\u3002",  # ideographic full stop: a label separator
        "\u200d",  # zero-width joiner: refused outside joining contexts
        *"$!*'(),;=~{}`",  # allowed in a WHATWG domain, never in a DNS name
        *"%^|<> ",  # forbidden domain code points
    ]
)
LABEL = st.one_of(
    st.from_regex(r"[a-zA-Z][a-zA-Z0-9_-]{0,9}", fullmatch=True),
    st.text(LABEL_CHARS, min_size=0, max_size=8),
    st.sampled_from(["xn--bcher-kva", "XN--BCHER-KVA", "xn--zca", "xn--", "xn--a", "xn--ls8h"]),
)


@st.composite
def odd_domain(draw: st.DrawFn) -> str:
    """A domain-ish host: odd labels, maybe a trailing dot, maybe percent-encoded."""
    labels = draw(st.lists(LABEL, min_size=1, max_size=4))
    domain = ".".join(labels) + ("." if draw(st.booleans()) else "")
    return percent_encode_some(draw, domain) if draw(st.booleans()) else domain


@st.composite
def odd_ipv6(draw: st.DrawFn) -> str:
    """A bracketed IPv6 literal: any case, compressed or not, maybe a dotted IPv4 tail."""
    value = draw(st.one_of(st.integers(0, 2**128 - 1), st.integers(0, 2**32 - 1)))
    pieces = [f"{(value >> (112 - 16 * i)) & 0xFFFF:x}" for i in range(8)]
    if draw(st.booleans()):
        tail = value & 0xFFFFFFFF
        pieces[6:] = [".".join(str(b) for b in tail.to_bytes(4, "big"))]
    text = ":".join(pieces)
    if draw(st.booleans()):
        text = text.replace(":0:0:", "::", 1) if ":0:0:" in text else text
    if draw(st.booleans()):
        text = text.upper()
    return f"[{text}]"


IPV4_VALUE = st.integers(0, 2**32 - 1)
RAW_HOST = st.one_of(
    odd_domain(),
    IPV4_VALUE.flatmap(ipv4_spelling),
    IPV4_VALUE.flatmap(ipv4_spelling).map(lambda h: h.replace("1", "%31")),
    odd_ipv6(),
)
"""Hosts as written inside a URL's authority (no ``/?#\\@:`` outside brackets)."""


@st.composite
def odd_url(draw: st.DrawFn) -> str:
    """A URL as a model or a server might write it: every spelling browsers still read."""
    scheme = draw(st.sampled_from(["http", "https", "HTTP", "hTtPs", "ftp", "javascript"]))
    slashes = draw(st.sampled_from(["//", "//", "//", "\\\\", "/\\", "\\/", "/", "", "///"]))
    userinfo = draw(st.sampled_from(["", "", "", "user@", "u:p@", "@", ":@", "a%40b@"]))
    host = draw(RAW_HOST)
    port = draw(
        st.sampled_from(["", "", "", ":", ":80", ":443", ":0", ":8080", ":0080", ":65536", ":x"])
        | st.integers(0, 10).map(lambda n: ":" + "9" * n)
    )
    rest = draw(st.sampled_from(["", "/", "/a/../b", "\\x\\y", "?q=1", "#frag", "/%2e%2e/", "/?"]))
    url = f"{scheme}:{slashes}{userinfo}{host}{port}{rest}"
    if draw(st.integers(0, 4)) == 0:  # a tab or newline somewhere: browsers drop them
        at = draw(st.integers(0, len(url)))
        url = url[:at] + draw(st.sampled_from(["\t", "\n", "\r"])) + url[at:]
    return url


def whatwg_host(url: str, base: str | None = None) -> str | None:
    """The host the WHATWG URL Standard gives ``url`` (no brackets); None when it fails."""
    try:
        parsed = ada_url.URL(url, base)
    except ValueError:
        return None
    return str(parsed.hostname).removeprefix("[").removesuffix("]")
