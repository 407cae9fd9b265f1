"""`toolwire.mcp.revision`: the protocol revisions named once, the SDK's own lists, and what
each revision does."""

from __future__ import annotations

import pytest
from mcp_types import DEFAULT_NEGOTIATED_VERSION
from mcp_types import version as sdk

from toolwire.errors import ConfigurationError
from toolwire.mcp import revision


def test_the_revisions_are_the_sdks() -> None:
    assert revision.HANDSHAKE_REVISIONS == sdk.HANDSHAKE_PROTOCOL_VERSIONS
    assert revision.STATELESS_REVISIONS == sdk.MODERN_PROTOCOL_VERSIONS
    assert revision.KNOWN_REVISIONS == sdk.KNOWN_PROTOCOL_VERSIONS
    assert revision.LATEST == sdk.LATEST_PROTOCOL_VERSION
    assert revision.LATEST_HANDSHAKE == sdk.LATEST_HANDSHAKE_VERSION
    assert revision.STATELESS_REVISION == sdk.LATEST_MODERN_VERSION
    assert revision.DEFAULT_NEGOTIATED == DEFAULT_NEGOTIATED_VERSION


@pytest.mark.parametrize("name", revision.KNOWN_REVISIONS)
def test_each_revision_is_one_generation(name: str) -> None:
    assert revision.is_handshake(name) != revision.is_stateless(name)
    assert revision.has_result_type(name) is revision.is_stateless(name)
    assert revision.supports_core_tasks(name) is (name == revision.REVISION_2025_11_25)


def test_what_a_server_settles_on() -> None:
    assert revision.negotiate(revision.REVISION_2025_06_18) == revision.REVISION_2025_06_18
    assert revision.negotiate("2099-01-01") == revision.LATEST_HANDSHAKE
    assert revision.negotiate(revision.REVISION_2026_07_28) == revision.LATEST_HANDSHAKE
    assert revision.is_handshake(None)  # no label: the handshake era, as the SDK takes it
    assert not revision.is_stateless(None)


@pytest.mark.parametrize("name", [*revision.KNOWN_REVISIONS, "zzz", "2099-01-01", None])
def test_is_at_least_agrees_with_the_sdk(name: str | None) -> None:
    for floor in revision.KNOWN_REVISIONS:
        expected = name is not None and sdk.is_version_at_least(name, floor)
        assert revision.is_at_least(name, floor) is expected


def test_an_unknown_floor_is_a_programmer_error() -> None:
    with pytest.raises(ConfigurationError, match="known revision"):
        revision.is_at_least(revision.LATEST, "2099-01-01")


def test_the_listing_features_old_names_still_load_with_a_warning() -> None:
    from toolwire.mcp.server.listing_features import ToolListNotifier

    with pytest.warns(DeprecationWarning, match="toolwire.mcp.server.listing_features"):
        moved = revision.ToolListNotifier  # type: ignore[attr-defined]
    assert moved is ToolListNotifier
    with pytest.raises(AttributeError):
        revision.nothing_here  # type: ignore[attr-defined]  # noqa: B018
