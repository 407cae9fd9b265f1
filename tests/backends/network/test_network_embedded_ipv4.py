"""IPv6 addresses that carry an IPv4 address get the verdict of the address they carry."""

from __future__ import annotations

import ipaddress
from collections.abc import Callable

import anyio
import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolwire.capabilities.kinds.network import METADATA_ADDRESSES, StaticResolver, check_url
from toolwire.capabilities.kinds.network._addresses import classify_address
from toolwire.capabilities.kinds.network.special_addresses import IPV4_SPECIAL_PURPOSE
from toolwire.capabilities.seams import NetworkPolicy
from toolwire.errors import HostNotAllowedError

V6 = ipaddress.IPv6Address
PUBLIC_V4 = int(ipaddress.IPv4Address("8.8.8.8"))
LOW_80_BITS = st.integers(0, 2**80 - 1)
TEREDO_FLAGS_AND_PORT = st.integers(0, 2**32 - 1)


def teredo(server: int, client: int, flags_and_port: int) -> V6:
    """RFC 4380: 2001:0000 | server | flags, port (obfuscated) | client (obfuscated)."""
    return V6((0x20010000 << 96) | (server << 64) | (flags_and_port << 32) | (~client & 0xFFFFFFFF))


EMBEDDINGS: dict[str, Callable[[int, st.DataObject], V6]] = {
    "IPv4-mapped ::ffff:0:0/96": lambda v4, _: V6((0xFFFF << 32) | v4),
    "IPv4-translated ::ffff:0:0:0/96": lambda v4, _: V6((0xFFFF << 48) | v4),
    "IPv4-compatible ::/96": lambda v4, _: V6(v4),
    "NAT64 64:ff9b::/96": lambda v4, _: V6((0x64FF9B << 96) | v4),
    "6to4 2002::/16": lambda v4, data: V6((0x2002 << 112) | (v4 << 80) | data.draw(LOW_80_BITS)),
    "Teredo server": lambda v4, data: teredo(v4, PUBLIC_V4, data.draw(TEREDO_FLAGS_AND_PORT)),
    "Teredo client": lambda v4, data: teredo(PUBLIC_V4, v4, data.draw(TEREDO_FLAGS_AND_PORT)),
}


@st.composite
def any_ipv4(draw: st.DrawFn) -> int:
    """Any IPv4, with the special blocks and the metadata addresses drawn often."""
    choice = draw(st.integers(0, 3))
    if choice == 0:
        return draw(st.sampled_from(sorted(int(a) for a in METADATA_ADDRESSES if a.version == 4)))
    if choice == 1:
        block = draw(st.sampled_from(IPV4_SPECIAL_PURPOSE)).prefix
        return int(block.network_address) + draw(st.integers(0, block.num_addresses - 1))
    return draw(st.integers(0, 2**32 - 1))


@given(data=st.data(), v4=any_ipv4())
def test_every_ipv6_embedding_of_an_ipv4_gets_the_ipv4_verdict(
    data: st.DataObject, v4: int
) -> None:
    expected = classify_address(ipaddress.IPv4Address(v4)).kind
    for form, embed in EMBEDDINGS.items():
        assert classify_address(embed(v4, data)).kind == expected, form


async def _refused(url: str, policy: NetworkPolicy) -> bool:
    try:
        await check_url(url, policy, StaticResolver({}))
    except HostNotAllowedError:
        return True
    return False


@given(data=st.data(), v4=any_ipv4(), opt_in=st.booleans())
def test_check_url_refuses_an_embedding_exactly_when_it_refuses_the_ipv4(
    data: st.DataObject, v4: int, opt_in: bool
) -> None:
    policy = NetworkPolicy(allow_private_urls=opt_in)
    expected = anyio.run(_refused, f"http://{ipaddress.IPv4Address(v4)}/", policy)
    for form, embed in EMBEDDINGS.items():
        assert anyio.run(_refused, f"http://[{embed(v4, data)}]/", policy) == expected, form


LOCAL_NAT64 = ipaddress.IPv6Network("64:ff9b:1::/48")


@given(v4=any_ipv4(), subnet=st.integers(0, 2**48 - 1))
def test_local_use_nat64_is_private_and_metadata_inside_it_is_still_metadata(
    v4: int, subnet: int
) -> None:
    # RFC 8215: 64:ff9b:1::/48 is not globally reachable, whatever IPv4 it carries.
    address = V6(int(LOCAL_NAT64.network_address) | (subnet << 32) | v4)
    verdict = classify_address(address).kind
    if ipaddress.IPv4Address(v4) in METADATA_ADDRESSES:
        assert verdict == "metadata"
    else:
        assert verdict != "public"


@pytest.mark.parametrize(
    "literal",
    [
        "::ffff:0:7f00:1",  # IPv4-translated 127.0.0.1: was served
        "::ffff:0:127.0.0.1",
        "::FFFF:0:a00:1",  # 10.0.0.1
        "64:ff9b:1::7f00:1",
        "64:ff9b:1:ffff::a9fe:a9fe",
    ],
)
def test_ipv4_translated_and_local_nat64_loopback_are_refused(literal: str) -> None:
    assert anyio.run(_refused, f"http://[{literal}]/", NetworkPolicy())


@pytest.mark.parametrize(
    "literal",
    ["::ffff:0:a9fe:a9fe", "64:ff9b::a9fe:a9fe", "64:ff9b:1::a9fe:a9fe", "2002:a9fe:a9fe::"],
)
def test_metadata_inside_any_embedding_is_refused_with_the_opt_in(literal: str) -> None:
    assert classify_address(V6(literal)).kind == "metadata"


@pytest.mark.parametrize(
    "literal", ["::ffff:808:808", "::ffff:0:808:808", "64:ff9b::8.8.8.8", "2002:808:808::1"]
)
def test_embeddings_of_a_public_ipv4_are_public(literal: str) -> None:
    assert classify_address(V6(literal)).kind == "public"
