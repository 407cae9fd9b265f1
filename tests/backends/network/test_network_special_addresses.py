"""Every entry of the IANA special-purpose address registries, through check_url."""

from __future__ import annotations

import ipaddress
import re
from pathlib import Path

import pytest

from toolwire.capabilities.kinds.network import METADATA_ADDRESSES, StaticResolver, check_url
from toolwire.capabilities.kinds.network._addresses import IpAddress
from toolwire.capabilities.kinds.network.special_addresses import (
    IPV4_SPECIAL_PURPOSE,
    IPV6_SPECIAL_PURPOSE,
    NON_UNICAST_SPACE,
    SpecialPurposeBlock,
)
from toolwire.capabilities.seams import NetworkPolicy
from toolwire.errors import HostNotAllowedError

pytestmark = pytest.mark.anyio

NO_DNS = StaticResolver({})
OPEN = NetworkPolicy()
PRIVATE_OK = NetworkPolicy(allow_private_urls=True)
DOCS = Path(__file__).parents[3] / "docs" / "network.md"

REGISTRIES = (*IPV4_SPECIAL_PURPOSE, *IPV6_SPECIAL_PURPOSE)
NON_GLOBAL = tuple(b for b in REGISTRIES if b.globally_reachable is not True)
GLOBAL = tuple(b for b in REGISTRIES if b.globally_reachable is True)
JUDGED_BY_EMBEDDED_IPV4 = {"::ffff:0:0/96", "2001::/32", "2002::/16"}
"""Blocks whose addresses are judged by the IPv4 address they carry (see the embedding tests)."""
NEVER_DESTINATIONS = {"0.0.0.0/32", "::/128", "255.255.255.255/32"}
"""Registry blocks that stay refused with ``allow_private_urls``: no server is ever there."""


def block_id(block: SpecialPurposeBlock) -> str:
    return f"{block.prefix} {block.name}"


def url_of(address: IpAddress) -> str:
    return f"http://[{address}]/" if address.version == 6 else f"http://{address}/"


def middle(block: SpecialPurposeBlock) -> IpAddress:
    return block.prefix[block.prefix.num_addresses // 2]


def samples(block: SpecialPurposeBlock) -> list[IpAddress]:
    """First and last address, and the middle one unless the embedded IPv4 decides."""
    first, last = block.prefix[0], block.prefix[-1]
    if str(block.prefix) in JUDGED_BY_EMBEDDED_IPV4:
        return [first, last]
    return [first, middle(block), last]


def inside_a_non_global_block(address: IpAddress, block: SpecialPurposeBlock) -> bool:
    return any(
        other is not block and other.prefix.version == address.version and address in other.prefix
        for other in NON_GLOBAL
    )


async def outcome(address: IpAddress, policy: NetworkPolicy) -> str:
    """``passes``, or the refusal's message."""
    try:
        checked = await check_url(url_of(address), policy, NO_DNS)
    except HostNotAllowedError as refusal:
        return str(refusal)
    assert checked.addresses == (checked.parsed.host,)
    return "passes"


def test_both_registries_are_written_out_in_full() -> None:
    # 25 IPv4 entries (192.0.0.170/32 and 192.0.0.171/32 share one, so 26 rows), 25 IPv6.
    assert (len(IPV4_SPECIAL_PURPOSE), len(IPV6_SPECIAL_PURPOSE)) == (26, 25)
    for block in (*REGISTRIES, *NON_UNICAST_SPACE):
        assert block.name
        assert block.rfc.startswith("RFC ")
    assert all(b.prefix.version == 4 for b in IPV4_SPECIAL_PURPOSE)
    assert all(b.prefix.version == 6 for b in IPV6_SPECIAL_PURPOSE)


@pytest.mark.parametrize("block", NON_GLOBAL, ids=block_id)
async def test_an_address_in_every_non_global_block_is_refused(block: SpecialPurposeBlock) -> None:
    for address in samples(block):
        message = await outcome(address, OPEN)
        assert "private/reserved range" in message or "cloud-metadata" in message


@pytest.mark.parametrize(
    "block",
    [b for b in NON_GLOBAL if str(b.prefix) not in JUDGED_BY_EMBEDDED_IPV4],
    ids=block_id,
)
async def test_the_private_opt_in_lifts_every_non_global_block_but_never_destinations(
    block: SpecialPurposeBlock,
) -> None:
    address = middle(block)
    assert address not in METADATA_ADDRESSES
    never = str(block.prefix) in NEVER_DESTINATIONS
    assert ("not a destination" if never else "passes") in await outcome(address, PRIVATE_OK)


@pytest.mark.parametrize("block", GLOBAL, ids=block_id)
async def test_globally_reachable_blocks_pass_unless_inside_a_non_global_one(
    block: SpecialPurposeBlock,
) -> None:
    # The strictest block decides: 192.0.0.9 (PCP anycast) is globally reachable by the
    # registry, but it lies in 192.0.0.0/24, and anycast reaches the nearest (local) server.
    address = middle(block)
    inside = inside_a_non_global_block(address, block)
    assert ("private/reserved range" if inside else "passes") in await outcome(address, OPEN)


@pytest.mark.parametrize("block", NON_UNICAST_SPACE, ids=block_id)
async def test_space_outside_the_registries_that_is_not_global_unicast_is_refused(
    block: SpecialPurposeBlock,
) -> None:
    assert block.globally_reachable is False
    for address in samples(block):
        assert "private/reserved range" in await outcome(address, OPEN)


@pytest.mark.parametrize("address", ["224.0.0.1", "239.255.255.250", "ff02::1", "0.0.0.0", "::"])
async def test_multicast_and_unspecified_addresses_stay_refused_with_the_opt_in(
    address: str,
) -> None:
    assert "not a destination" in await outcome(ipaddress.ip_address(address), PRIVATE_OK)


@pytest.mark.parametrize("address", sorted(METADATA_ADDRESSES, key=str), ids=str)
async def test_every_metadata_address_is_refused_even_with_the_opt_in(address: IpAddress) -> None:
    assert "cloud-metadata" in await outcome(address, PRIVATE_OK)


@pytest.mark.parametrize(
    "address", ["4000::1", "fec0::1", "::1:0:0:0", "5f00::1", "100:0:0:1::1", "192.88.99.2"]
)
async def test_addresses_python_calls_global_are_refused(address: str) -> None:
    # ipaddress.is_global says True for these (3.11); the registries say otherwise.
    assert "private/reserved range" in await outcome(ipaddress.ip_address(address), OPEN)


def test_docs_list_every_registry_entry_with_its_verdict() -> None:
    rows = re.findall(
        r"^\| `([0-9a-f:./]+)` \| ([^|]+) \| ([^|]+) \| ([a-z/]+) \|", DOCS.read_text(), re.M
    )
    documented = {prefix: (name.strip(), rfc.strip(), flag) for prefix, name, rfc, flag in rows}
    flags = {True: "yes", False: "no", None: "n/a"}
    for block in (*REGISTRIES, *NON_UNICAST_SPACE):
        assert documented.get(str(block.prefix)) == (
            block.name,
            block.rfc,
            flags[block.globally_reachable],
        ), block_id(block)
