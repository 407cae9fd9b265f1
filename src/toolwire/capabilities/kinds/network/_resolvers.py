"""Name resolution behind `check_url`: the system resolver, and a fixed table.

A resolver is asked once per URL (per redirect hop); the fetch then connects to an address it
returned, so what was validated is what is reached.
"""

from __future__ import annotations

import socket
from collections.abc import Mapping, Sequence
from typing import Protocol, runtime_checkable

import anyio

__all__ = ["Resolver", "StaticResolver", "SystemResolver"]


@runtime_checkable
class Resolver(Protocol):
    """Turns a host name into IP address strings."""

    async def resolve(self, host: str) -> list[str]:
        """Every address ``host`` resolves to (IPv4 and IPv6), as strings.

        Raises:
            OSError: the lookup failed; the URL is then refused (fail closed).
        """
        ...


class SystemResolver:
    """The operating system's resolver (``getaddrinfo``, run in a worker thread by anyio)."""

    async def resolve(self, host: str) -> list[str]:
        """Every address ``host`` resolves to, in the system's preference order, deduplicated."""
        infos = await anyio.getaddrinfo(host, None, type=socket.SOCK_STREAM)
        out: dict[str, None] = {}
        for _family, _type, _proto, _name, sockaddr in infos:
            out[str(sockaddr[0])] = None
        return list(out)


class StaticResolver:
    """A fixed host → addresses table (like ``/etc/hosts``); unknown hosts fail to resolve.

    Useful to pin a service's address in configuration, and in tests to give fake host
    names real local addresses.

    Args:
        table: Host name (any case, trailing dot ignored) → its addresses.
    """

    def __init__(self, table: Mapping[str, Sequence[str]]) -> None:
        self._table = {name.lower().rstrip("."): list(addrs) for name, addrs in table.items()}

    async def resolve(self, host: str) -> list[str]:
        """The table's addresses for ``host``.

        Raises:
            socket.gaierror: ``host`` is not in the table.
        """
        addresses = self._table.get(host.lower().rstrip("."))
        if addresses is None:
            raise socket.gaierror(socket.EAI_NONAME, f"{host} is not in the static table")
        return list(addresses)
