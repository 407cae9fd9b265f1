"""Whether a destination may be reached: the one policy, shared by `SafeFetcher` and the proxy.

`check_destination` runs, in order: the tool's declared hosts, cloud-metadata names and
addresses (always refused), the literal address check, the personality's deny then allow
list, the port rule (when the caller gives one), and the address check of names — through one
DNS lookup whose every answer must pass. It returns the validated addresses, which the caller
then connects to, and only to (DNS pinning). `check_url` parses a URL first (`parse_url`);
the egress proxy parses a ``CONNECT`` target with `parse_authority`. Every refusal is a
`PolicyRefusal` with a stable code.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from toolwire.capabilities.kinds.network._addresses import (
    IpAddress,
    classify_address,
    parse_ip_literal,
)
from toolwire.capabilities.kinds.network._hosts import METADATA_HOSTNAMES, is_localhost_name
from toolwire.capabilities.kinds.network._ports import (
    pattern_matches,
    patterns_intersection,
    port_allowed,
)
from toolwire.capabilities.kinds.network._refusals import PolicyRefusal
from toolwire.capabilities.kinds.network._resolvers import Resolver, SystemResolver
from toolwire.capabilities.kinds.network._urls import Destination, ParsedUrl, parse_url
from toolwire.capabilities.seams import NetworkPolicy

__all__ = [
    "CheckedDestination",
    "CheckedUrl",
    "check_destination",
    "check_policy",
    "check_url",
    "resolve_allowed_hosts",
]

_OPEN_POLICY = NetworkPolicy()
_SYSTEM_RESOLVER = SystemResolver()


@dataclass(frozen=True, kw_only=True, slots=True)
class CheckedDestination:
    """A host and port that passed every check, and the addresses to connect to.

    Attributes:
        destination: The canonical host and the port.
        addresses: The validated IPs, in resolver order; connect only to these.
    """

    destination: Destination
    addresses: tuple[str, ...]


@dataclass(frozen=True, kw_only=True, slots=True)
class CheckedUrl:
    """A URL that passed every check, and the addresses it may be fetched from.

    Attributes:
        parsed: The canonical URL, scheme, host and port.
        addresses: The validated IPs, in resolver order; connect only to these.
    """

    parsed: ParsedUrl
    addresses: tuple[str, ...]


def check_policy(host: str, policy: NetworkPolicy | None, port: int | None = None) -> None:
    """Apply a personality's deny list, then its allow list (empty means every host).

    Args:
        host: The canonical host.
        policy: The lists; ``None`` allows every host.
        port: The destination's port: a pattern naming another port does not match. ``None``
            compares hosts only.

    Raises:
        PolicyRefusal: ``host`` matches a deny pattern (``deny-list``), or an allow list
            exists and ``host`` matches none of its patterns (``not-on-allow-list``).
    """
    policy = policy or _OPEN_POLICY
    for pattern in policy.deny:
        if pattern_matches(host, pattern, port):
            raise PolicyRefusal(
                f"host '{host}' is on the deny list (matched '{pattern}')", "deny-list"
            )
    if policy.allow and not any(pattern_matches(host, p, port) for p in policy.allow):
        raise PolicyRefusal(
            f"host '{host}' is not on the personality's allow list", "not-on-allow-list"
        )


def _check_address(host: str, address: IpAddress, policy: NetworkPolicy, resolved: bool) -> None:
    verdict = classify_address(address)
    where = f"host '{host}' resolves to '{address}', which" if resolved else f"host '{host}'"
    if verdict.kind == "metadata":
        raise PolicyRefusal(f"{where} is a cloud-metadata address (always denied)", "metadata")
    if verdict.kind == "unusable":
        raise PolicyRefusal(
            f"{where} is in a private/reserved range ({verdict.reason}; "
            "not a destination, always denied)",
            "reserved-address",
        )
    if verdict.kind == "private" and not policy.allow_private_urls:
        raise PolicyRefusal(
            f"{where} is in a private/reserved range ({verdict.reason})", "private-address"
        )


async def _resolve(host: str, resolver: Resolver) -> list[IpAddress]:
    try:
        answers = await resolver.resolve(host)
    except Exception as exc:  # any resolver failure refuses the URL (fail closed)
        raise PolicyRefusal(
            f"host '{host}' could not be resolved ({type(exc).__name__})", "dns-failure"
        ) from exc
    addresses = [parse_ip_literal(answer) for answer in answers]
    if not addresses:
        raise PolicyRefusal(f"host '{host}' resolved to no address", "dns-failure")
    valid = [a for a in addresses if a is not None]
    if len(valid) != len(addresses):
        raise PolicyRefusal(
            f"host '{host}' resolved to something that is not an IP address", "dns-failure"
        )
    return valid


def _check_reach(
    destination: Destination,
    policy: NetworkPolicy,
    allowed_hosts: tuple[str, ...] | None,
    ports: Collection[int] | None,
) -> None:
    """Every check that needs no DNS: declared hosts, metadata, literal address, lists, port."""
    host, port = destination.host, destination.port
    if allowed_hosts is not None and not any(pattern_matches(host, p, port) for p in allowed_hosts):
        raise PolicyRefusal(f"{host} is not in the declared allowed_hosts", "not-declared")
    if host in METADATA_HOSTNAMES:
        raise PolicyRefusal(f"cloud-metadata host '{host}' is always denied", "metadata")
    if destination.address is not None:
        _check_address(host, destination.address, policy, resolved=False)
    check_policy(host, policy, port)
    named = (*policy.allow, *(allowed_hosts or ()))
    if ports is not None and not port_allowed(host, port, named, ports):
        allowed = ", ".join(str(p) for p in sorted(ports)) or "none"
        raise PolicyRefusal(
            f"port {port} of host '{host}' is not allowed (allowed: {allowed}, "
            "or a port named by an allow pattern such as 'host:8443')",
            "port-not-allowed",
        )
    if destination.address is None and is_localhost_name(host) and not policy.allow_private_urls:
        raise PolicyRefusal(
            f"host '{host}' is in a private/reserved range (loopback name)", "private-address"
        )


async def check_destination(
    destination: Destination,
    policy: NetworkPolicy | None,
    resolver: Resolver | None = None,
    *,
    allowed_hosts: tuple[str, ...] | None = None,
    ports: Collection[int] | None = None,
) -> CheckedDestination:
    """Validate a host and port for connecting, and resolve the host exactly once.

    The one policy implementation: `check_url` (hence `SafeFetcher`) and the egress proxy
    both come here.

    Args:
        destination: A canonical host and port (`parse_url`, `parse_authority`).
        policy: The personality's policy; ``None`` means open to public hosts only.
        resolver: Name resolution; the system resolver when ``None``.
        allowed_hosts: The tool's declared host patterns; ``None`` skips this check.
        ports: The ports reachable without a pattern naming them (`DEFAULT_PORTS` for the
            proxy); ``None`` allows every port.

    Returns:
        The destination and the validated addresses to connect to (DNS pinning).

    Raises:
        PolicyRefusal: any check refused the destination (message starts
            ``HOST_NOT_ALLOWED:``). A failed or empty DNS lookup refuses too.
    """
    policy = policy or _OPEN_POLICY
    _check_reach(destination, policy, allowed_hosts, ports)
    if destination.address is not None:
        return CheckedDestination(destination=destination, addresses=(destination.host,))
    host = destination.host
    addresses = await _resolve(host, resolver or _SYSTEM_RESOLVER)
    for address in addresses:
        _check_address(host, address, policy, resolved=True)
    unique = tuple(dict.fromkeys(str(a) for a in addresses))
    return CheckedDestination(destination=destination, addresses=unique)


async def check_url(
    url: str,
    policy: NetworkPolicy | None,
    resolver: Resolver | None = None,
    *,
    allowed_hosts: tuple[str, ...] | None = None,
    ports: Collection[int] | None = None,
) -> CheckedUrl:
    """Validate ``url`` for fetching and resolve its host exactly once.

    Args:
        url: The URL to check.
        policy: The personality's policy; ``None`` means open to public hosts only.
        resolver: Name resolution; the system resolver when ``None``.
        allowed_hosts: The tool's declared host patterns; ``None`` skips this check.
        ports: See `check_destination`; ``None`` allows every port.

    Returns:
        The canonical URL and the validated addresses to connect to.

    Raises:
        PolicyRefusal: any check refused the URL (message starts ``HOST_NOT_ALLOWED:``).
            A failed or empty DNS lookup refuses too.
    """
    parsed = parse_url(url)
    checked = await check_destination(
        parsed.destination, policy, resolver, allowed_hosts=allowed_hosts, ports=ports
    )
    return CheckedUrl(parsed=parsed, addresses=checked.addresses)


def resolve_allowed_hosts(
    declared: tuple[str, ...], policy: NetworkPolicy | None
) -> tuple[str, ...]:
    """The host patterns a tool may reach: its declaration narrowed by the personality's list.

    With no policy or an empty allow list (open mode) the declaration stands as is, ``*``
    included: any public host, still subject to the deny list and the address checks at
    fetch time. With an allow list, the result is the intersection: ``*`` becomes the allow
    list, ``api.x.com`` survives under ``*.x.com``, ``*.x.com`` narrows to an allowed
    ``api.x.com``, a host narrows to an allowed ``host:port`` (and the other way round), and
    hosts the list does not cover are dropped.
    """
    if policy is None or not policy.allow:
        return tuple(dict.fromkeys(declared))
    return patterns_intersection(declared, policy.allow)
