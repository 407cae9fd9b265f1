"""Fixtures for the network tests: local HTTP servers and a fetcher that reaches them."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest
from network_servers import RunningServer, run_server

from toolwire.capabilities.kinds.network import SafeFetcher, StaticResolver
from toolwire.capabilities.seams import NetworkPolicy

FAKE_HOSTS = ("a.test", "b.test", "api.github.test", "github.test", "evil.test")


@pytest.fixture(scope="module")
def server() -> Iterator[RunningServer]:
    """An HTTP server on 127.0.0.1 shared by a test module."""
    with run_server() as running:
        yield running


@pytest.fixture(scope="module")
def other_server() -> Iterator[RunningServer]:
    """A second server: same address, another port (so another origin)."""
    with run_server() as running:
        yield running


@pytest.fixture
def resolver() -> StaticResolver:
    """Fake names (``a.test``, ``h0.test`` .. ``h9.test``, ...) that all resolve to 127.0.0.1."""
    names = [*FAKE_HOSTS, *(f"h{i}.test" for i in range(10))]
    return StaticResolver({name: ["127.0.0.1"] for name in names})


@pytest.fixture
def local() -> NetworkPolicy:
    """A policy that lets fetches reach the loopback servers."""
    return NetworkPolicy(allow_private_urls=True)


@pytest.fixture
async def fetcher(resolver: StaticResolver) -> AsyncIterator[SafeFetcher]:
    """A fetcher with the fake-name resolver and a short deadline."""
    async with SafeFetcher(resolver=resolver, timeout_s=5.0) as fetcher:
        yield fetcher
