"""One host-pattern rule for policy and capability lists; the policy; resolve_allowed_hosts."""

from __future__ import annotations

import pytest

from toolwire.capabilities.kinds.network import (
    check_policy,
    host_matches,
    pattern_covers,
    resolve_allowed_hosts,
)
from toolwire.capabilities.seams import NetworkPolicy
from toolwire.errors import HostNotAllowedError


@pytest.mark.parametrize(
    ("host", "pattern", "expected"),
    [
        ("api.github.com", "api.github.com", True),
        ("API.GitHub.com.", "api.github.com", True),
        ("api.github.com", "API.GITHUB.COM.", True),
        ("api.github.com", "*.github.com", True),
        ("a.b.github.com", "*.github.com", True),
        ("github.com", "*.github.com", False),
        ("evilgithub.com", "*.github.com", False),
        ("github.com.evil.com", "*.github.com", False),
        ("anything.example", "*", True),
        ("10.0.0.1", "*", True),
        ("api.github.com", "github.com", False),
        ("::ffff:7f00:1", "[::FFFF:127.0.0.1]", True),
        ("[::1]", "::1", True),
    ],
)
def test_host_matches_one_rule(host: str, pattern: str, expected: bool) -> None:
    assert host_matches(host, pattern) is expected


@pytest.mark.parametrize(
    ("broad", "narrow", "expected"),
    [
        ("*", "*", True),
        ("*", "*.x.com", True),
        ("*.x.com", "*", False),
        ("*.x.com", "*.x.com", True),
        ("*.x.com", "*.api.x.com", True),
        ("*.api.x.com", "*.x.com", False),
        ("*.x.com", "api.x.com", True),
        ("*.x.com", "x.com", False),
        ("api.x.com", "*.x.com", False),
        ("api.x.com", "API.x.com.", True),
    ],
)
def test_pattern_covers(broad: str, narrow: str, expected: bool) -> None:
    assert pattern_covers(broad, narrow) is expected


def test_policy_deny_wins_over_allow() -> None:
    policy = NetworkPolicy(allow=("*.x.com",), deny=("bad.x.com",))
    with pytest.raises(HostNotAllowedError, match=r"deny list \(matched 'bad\.x\.com'\)"):
        check_policy("bad.x.com", policy)
    check_policy("good.x.com", policy)


def test_policy_with_empty_allow_list_is_open() -> None:
    check_policy("anything.example", NetworkPolicy())
    check_policy("anything.example", None)


def test_policy_allow_list_refuses_unlisted_hosts() -> None:
    with pytest.raises(HostNotAllowedError, match="not on the personality's allow list"):
        check_policy("other.com", NetworkPolicy(allow=("x.com",)))


def test_policy_wildcard_does_not_match_the_apex() -> None:
    # Upstream's policy matcher let '*.x.com' match 'x.com' (unlike its capability matcher).
    with pytest.raises(HostNotAllowedError):
        check_policy("x.com", NetworkPolicy(allow=("*.x.com",)))


def test_policy_deny_star_denies_everything() -> None:
    with pytest.raises(HostNotAllowedError, match="deny list"):
        check_policy("x.com", NetworkPolicy(deny=("*",)))


def test_star_without_an_allow_list_stays_star() -> None:
    # Upstream resolved '*' to zero hosts when the personality had no allow list.
    assert resolve_allowed_hosts(("*",), None) == ("*",)
    assert resolve_allowed_hosts(("*",), NetworkPolicy()) == ("*",)


def test_declaration_stands_without_an_allow_list() -> None:
    declared = ("api.x.com", "*.y.com", "api.x.com")
    assert resolve_allowed_hosts(declared, NetworkPolicy(deny=("api.x.com",))) == (
        "api.x.com",
        "*.y.com",
    )


def test_star_becomes_the_allow_list() -> None:
    policy = NetworkPolicy(allow=("a.com", "*.b.com"))
    assert resolve_allowed_hosts(("*",), policy) == ("a.com", "*.b.com")


def test_declared_hosts_covered_by_the_allow_list_are_kept_and_others_dropped() -> None:
    policy = NetworkPolicy(allow=("*.github.com",))
    declared = ("api.github.com", "github.com", "example.com")
    assert resolve_allowed_hosts(declared, policy) == ("api.github.com",)


def test_declared_wildcard_narrows_to_the_allowed_hosts_inside_it() -> None:
    policy = NetworkPolicy(allow=("api.github.com", "example.com"))
    assert resolve_allowed_hosts(("*.github.com",), policy) == ("api.github.com",)


def test_declared_wildcard_inside_an_allowed_wildcard_is_kept() -> None:
    policy = NetworkPolicy(allow=("*.github.com",))
    assert resolve_allowed_hosts(("*.api.github.com",), policy) == ("*.api.github.com",)


@pytest.mark.parametrize(
    ("declared", "allow", "expected"),
    [
        (("127.0.0.1",), ("127.0.0.1:20300",), ("127.0.0.1:20300",)),
        (("127.0.0.1:24010",), ("127.0.0.1",), ("127.0.0.1:24010",)),
        (("127.0.0.1:24010",), ("127.0.0.1:24011",), ()),
        (("*",), ("api.x.com:8443",), ("api.x.com:8443",)),
        (("*.x.com",), ("api.x.com:8443",), ("api.x.com:8443",)),
        (("api.x.com:8443",), ("*.x.com",), ("api.x.com:8443",)),
        (("*.x.com:8080",), ("api.x.com",), ("api.x.com:8080",)),
    ],
)
def test_resolve_allowed_hosts_narrows_hosts_and_ports(
    declared: tuple[str, ...], allow: tuple[str, ...], expected: tuple[str, ...]
) -> None:
    """Regression (outside check, issue 23): a port-scoped allow entry matched no declared
    host, so a tool declaring ``127.0.0.1`` could not reach ``127.0.0.1:20300``."""
    assert resolve_allowed_hosts(declared, NetworkPolicy(allow=allow)) == expected
