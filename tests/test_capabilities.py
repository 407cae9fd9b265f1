"""The six capability declarations and ToolCapabilities.of."""

from __future__ import annotations

import pytest

from toolwire.capabilities import (
    FROM_PERSONALITY,
    AttachmentsCapability,
    FsReachCapability,
    NetworkCapability,
    ProcessCapability,
    SecretsCapability,
    StorageCapability,
    ToolCapabilities,
    attachments,
    fs_reach,
    network,
    process,
    secrets,
    storage,
)
from toolwire.errors import ToolDefinitionError


def test_network_accepts_exact_wildcard_suffix_and_star() -> None:
    caps = network(["api.github.com", "*.githubusercontent.com", "*", "[::1]", "10.0.0.1"])
    assert caps == NetworkCapability(
        allowed_hosts=("api.github.com", "*.githubusercontent.com", "*", "[::1]", "10.0.0.1")
    )


def test_network_lowercases_and_drops_a_trailing_dot() -> None:
    assert network(["API.Example.COM."]).allowed_hosts == ("api.example.com",)


@pytest.mark.parametrize(
    "host", ["https://api.example.com", "api.example.com/path", "*example.com", "a b", "ex*.com"]
)
def test_network_refuses_what_is_not_a_host_pattern(host: str) -> None:
    with pytest.raises(ToolDefinitionError, match="not a host pattern"):
        network([host])


def test_network_takes_host_patterns_with_a_port() -> None:
    """Regression (outside check, issue 23): ``network(["127.0.0.1:24010"])`` was refused as
    "not a host pattern" although network.md describes patterns with an optional port."""
    declared = network(["127.0.0.1:24010", "*.Example.com:8443", "[::1]:8000", "*:8080"])
    assert declared.allowed_hosts == (
        "127.0.0.1:24010",
        "*.example.com:8443",
        "[::1]:8000",
        "*:8080",
    )


@pytest.mark.parametrize("host", ["api.example.com:99999", "api.example.com:http", "a:b:c"])
def test_network_refuses_a_pattern_with_a_bad_port(host: str) -> None:
    with pytest.raises(ToolDefinitionError, match="maybe with a port"):
        network([host])


def test_a_single_string_instead_of_a_list_is_refused_with_a_hint() -> None:
    with pytest.raises(ToolDefinitionError, match="not a single string"):
        network("api.example.com")


@pytest.mark.parametrize("entry", ["", "   "])
def test_empty_entries_are_refused(entry: str) -> None:
    with pytest.raises(ToolDefinitionError, match="non-empty"):
        secrets([entry])


def test_secrets_keeps_exact_refs_and_prefix_grants() -> None:
    assert secrets(["providers/exa/apiKey", "providers/*"]) == SecretsCapability(
        refs=("providers/exa/apiKey", "providers/*")
    )


@pytest.mark.parametrize("scope", ["tool-private", "session", "personality"])
def test_storage_accepts_the_three_scopes(scope: str) -> None:
    caps = storage(scope)  # type: ignore[arg-type]
    assert caps == StorageCapability(scope=scope)  # type: ignore[arg-type]
    assert caps.kind == "kv"


def test_storage_refuses_an_unknown_scope() -> None:
    with pytest.raises(ToolDefinitionError, match="scope must be one of"):
        storage("global")  # type: ignore[arg-type]


def test_storage_refuses_a_kind_other_than_kv() -> None:
    with pytest.raises(ToolDefinitionError, match="'kv' is the only"):
        storage("session", kind="blob")  # type: ignore[arg-type]


@pytest.mark.parametrize("ttl", [0, -1.0])
def test_storage_refuses_a_ttl_that_is_not_positive(ttl: float) -> None:
    with pytest.raises(ToolDefinitionError, match="positive"):
        storage("session", ttl_seconds_default=ttl)


def test_storage_keeps_a_positive_default_ttl() -> None:
    assert storage("session", ttl_seconds_default=1800).ttl_seconds_default == 1800


def test_fs_reach_takes_prefixes_or_from_personality_per_side() -> None:
    caps = fs_reach(read=["/srv/data"], write=FROM_PERSONALITY)
    assert caps == FsReachCapability(read=("/srv/data",), write="from-personality")


def test_fs_reach_defaults_to_no_reach() -> None:
    assert fs_reach() == FsReachCapability(read=(), write=())


def test_process_keeps_binaries() -> None:
    assert process(["git", "/usr/bin/python3"]) == ProcessCapability(
        allowed_binaries=("git", "/usr/bin/python3")
    )


def test_attachments_accepts_known_kinds_or_star() -> None:
    assert attachments(["image", "audio"]) == AttachmentsCapability(kinds=("image", "audio"))
    assert attachments("*") == AttachmentsCapability(kinds="*")


def test_attachments_refuses_an_unknown_kind() -> None:
    with pytest.raises(ToolDefinitionError, match="video"):
        attachments(["video"])  # type: ignore[list-item]


def test_empty_declaration_means_no_side_effects() -> None:
    caps = ToolCapabilities()
    assert caps.is_empty
    assert caps.declared == ()


def test_of_combines_declarations_into_their_slots() -> None:
    caps = ToolCapabilities.of(storage("session"), network(["*"]))
    assert caps.network == NetworkCapability(allowed_hosts=("*",))
    assert caps.storage == StorageCapability(scope="session")
    assert not caps.is_empty


def test_declared_lists_kinds_in_a_fixed_order() -> None:
    caps = ToolCapabilities.of(
        attachments("*"),
        process(["git"]),
        fs_reach(),
        storage("session"),
        secrets(["a"]),
        network(["*"]),
    )
    assert caps.declared == ("network", "secrets", "storage", "fs_reach", "process", "attachments")


@pytest.mark.parametrize(
    "declaration",
    [
        network(["*"]),
        secrets(["a"]),
        storage("session"),
        fs_reach(read=["/x"]),
        process(["git"]),
        attachments("*"),
    ],
)
def test_any_single_declaration_makes_the_tool_not_empty(declaration: object) -> None:
    assert not ToolCapabilities.of(declaration).is_empty  # type: ignore[arg-type]


def test_of_refuses_the_same_kind_twice() -> None:
    with pytest.raises(ToolDefinitionError, match="declared twice"):
        ToolCapabilities.of(network(["a.com"]), network(["b.com"]))


def test_of_refuses_something_that_is_not_a_declaration() -> None:
    with pytest.raises(ToolDefinitionError, match="not a capability declaration"):
        ToolCapabilities.of({"network": ["*"]})  # type: ignore[arg-type]
