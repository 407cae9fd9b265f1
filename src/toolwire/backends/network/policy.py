"""Whether a URL may be fetched: the validation step, usable without fetching.

`check_url` runs, in order: URL syntax and scheme, the tool's declared hosts, cloud-metadata
names and addresses (always refused), the personality's deny then allow list, and the address
check — literal addresses directly, names through one DNS lookup whose every answer must pass.
It returns the validated addresses, which the fetcher then connects to (DNS pinning).
"""

from __future__ import annotations

from dataclasses import dataclass

from toolwire.backends.network.addresses import (
    IpAddress,
    classify_address,
    parse_ip_literal,
)
from toolwire.backends.network.hosts import (
    METADATA_HOSTNAMES,
    host_matches,
    is_localhost_name,
    patterns_intersection,
)
from toolwire.backends.network.resolvers import Resolver, SystemResolver
from toolwire.backends.network.urls import ParsedUrl, parse_url
from toolwire.errors import HostNotAllowedError
from toolwire.seams import NetworkPolicy

__all__ = ["CheckedUrl", "check_policy", "check_url", "resolve_allowed_hosts"]

_OPEN_POLICY = NetworkPolicy()
_SYSTEM_RESOLVER = SystemResolver()


@dataclass(frozen=True, kw_only=True, slots=True)
class CheckedUrl:
    """A URL that passed every check, and the addresses it may be fetched from.

    Attributes:
        parsed: The canonical URL, scheme, host and port.
        addresses: The validated IPs, in resolver order; connect only to these.
    """

    parsed: ParsedUrl
    addresses: tuple[str, ...]


def _refuse(reason: str) -> HostNotAllowedError:
    return HostNotAllowedError(f"HOST_NOT_ALLOWED: {reason}")


def check_policy(host: str, policy: NetworkPolicy | None) -> None:
    """Apply a personality's deny list, then its allow list (empty means every host).

    Raises:
        HostNotAllowedError: ``host`` matches a deny pattern, or an allow list exists and
            ``host`` matches none of its patterns.
    """
    policy = policy or _OPEN_POLICY
    for pattern in policy.deny:
        if host_matches(host, pattern):
            raise _refuse(f"host '{host}' is on the deny list (matched '{pattern}')")
    if policy.allow and not any(host_matches(host, pattern) for pattern in policy.allow):
        raise _refuse(f"host '{host}' is not on the personality's allow list")


def _check_address(host: str, address: IpAddress, policy: NetworkPolicy, resolved: bool) -> None:
    verdict = classify_address(address)
    where = f"host '{host}' resolves to '{address}', which" if resolved else f"host '{host}'"
    if verdict.kind == "metadata":
        raise _refuse(f"{where} is a cloud-metadata address (always denied)")
    if verdict.kind == "unusable":
        raise _refuse(
            f"{where} is in a private/reserved range ({verdict.reason}; "
            "not a destination, always denied)"
        )
    if verdict.kind == "private" and not policy.allow_private_urls:
        raise _refuse(f"{where} is in a private/reserved range ({verdict.reason})")


async def _resolve(host: str, resolver: Resolver) -> list[IpAddress]:
    try:
        answers = await resolver.resolve(host)
    except Exception as exc:  # any resolver failure refuses the URL (fail closed)
        raise _refuse(f"host '{host}' could not be resolved ({type(exc).__name__})") from exc
    addresses = [parse_ip_literal(answer) for answer in answers]
    if not addresses:
        raise _refuse(f"host '{host}' resolved to no address")
    valid = [a for a in addresses if a is not None]
    if len(valid) != len(addresses):
        raise _refuse(f"host '{host}' resolved to something that is not an IP address")
    return valid


async def check_url(
    url: str,
    policy: NetworkPolicy | None,
    resolver: Resolver | None = None,
    *,
    allowed_hosts: tuple[str, ...] | None = None,
) -> CheckedUrl:
    """Validate ``url`` for fetching and resolve its host exactly once.

    Args:
        url: The URL to check.
        policy: The personality's policy; ``None`` means open to public hosts only.
        resolver: Name resolution; the system resolver when ``None``.
        allowed_hosts: The tool's declared host patterns; ``None`` skips this check.

    Returns:
        The canonical URL and the validated addresses to connect to.

    Raises:
        HostNotAllowedError: any check refused the URL (message starts ``HOST_NOT_ALLOWED:``).
            A failed or empty DNS lookup refuses too.
    """
    policy = policy or _OPEN_POLICY
    parsed = parse_url(url)
    host = parsed.host
    if allowed_hosts is not None and not any(host_matches(host, p) for p in allowed_hosts):
        raise _refuse(f"{host} is not in the declared allowed_hosts")
    if host in METADATA_HOSTNAMES:
        raise _refuse(f"cloud-metadata host '{host}' is always denied")
    if parsed.address is not None:
        _check_address(host, parsed.address, policy, resolved=False)
    check_policy(host, policy)
    if parsed.address is not None:
        return CheckedUrl(parsed=parsed, addresses=(host,))
    if is_localhost_name(host) and not policy.allow_private_urls:
        raise _refuse(f"host '{host}' is in a private/reserved range (loopback name)")
    addresses = await _resolve(host, resolver or _SYSTEM_RESOLVER)
    for address in addresses:
        _check_address(host, address, policy, resolved=True)
    return CheckedUrl(parsed=parsed, addresses=tuple(dict.fromkeys(str(a) for a in addresses)))


def resolve_allowed_hosts(
    declared: tuple[str, ...], policy: NetworkPolicy | None
) -> tuple[str, ...]:
    """The host patterns a tool may reach: its declaration narrowed by the personality's list.

    With no policy or an empty allow list (open mode) the declaration stands as is, ``*``
    included: any public host, still subject to the deny list and the address checks at
    fetch time. With an allow list, the result is the intersection: ``*`` becomes the allow
    list, ``api.x.com`` survives under ``*.x.com``, ``*.x.com`` narrows to an allowed
    ``api.x.com``, and hosts the list does not cover are dropped.
    """
    if policy is None or not policy.allow:
        return tuple(dict.fromkeys(declared))
    return patterns_intersection(declared, policy.allow)
