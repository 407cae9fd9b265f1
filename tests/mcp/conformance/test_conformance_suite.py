"""The official MCP conformance suite against toolwire: its server scenarios against the fixture
(``fixture/``, served by ``fixture_server.py`` with `serve_registry`) over HTTP on 127.0.0.1, its
client scenarios against `McpProvider` (``fixture/client.py``). A failing scenario fails the test
with the suite's own output. Needs Node 22 and the suite (``scripts/conformance-setup.sh``, which
``make test`` runs): without them the tests skip, or fail with ``CI=true``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from conformance_suite import (
    BASELINE,
    CLIENT_COMMAND,
    CLIENT_SCENARIOS,
    KNOWN_FAILING,
    NOT_APPLICABLE,
    SERVER_SCENARIOS,
    Served,
    Suite,
    require_suite,
    serve_fixture,
    stop_fixture,
)


@pytest.fixture(scope="module")
def suite() -> Suite:
    """The installed suite (or skip / fail in CI)."""
    return require_suite()


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory, suite: Suite) -> Iterator[Served]:
    """The fixture served (``fixture_server.py``) in a temporary directory."""
    served = serve_fixture(tmp_path_factory.mktemp("fixture"))
    yield served
    stop_fixture(served)


def _report(run: object) -> str:
    stdout = getattr(run, "stdout", "")
    stderr = getattr(run, "stderr", "")
    return f"--- suite stdout ---\n{stdout}\n--- suite stderr ---\n{stderr}"


def test_every_listed_scenario_is_accounted_for(suite: Suite, tmp_path: Path) -> None:
    """A suite version with a scenario we never classified fails here, not silently."""
    listed = suite.listed(tmp_path)
    known = set(SERVER_SCENARIOS) | set(KNOWN_FAILING) | set(NOT_APPLICABLE["server"])
    assert listed["server"] == known
    assert listed["client"] == set(CLIENT_SCENARIOS) | set(NOT_APPLICABLE["client"])


def test_server_scenarios_pass(suite: Suite, served: Served, tmp_path: Path) -> None:
    """Every server scenario (active and pending) passes against the served fixture, except those in
    the baseline, which must still fail (the suite calls a baseline that passes stale)."""
    run = suite.run(
        "server",
        "--url",
        served.url,
        "--suite",
        "all",
        "--expected-failures",
        str(BASELINE),
        "-o",
        str(tmp_path / "results"),
        cwd=tmp_path,
    )
    assert run.returncode == 0, _report(run)
    for scenario in SERVER_SCENARIOS:
        assert f"✓ {scenario}:" in run.stdout, _report(run)


@pytest.mark.parametrize("scenario", CLIENT_SCENARIOS)
def test_client_scenario_passes(suite: Suite, scenario: str, tmp_path: Path) -> None:
    """McpProvider, through a registry and the full pipeline, passes the client scenario."""
    run = suite.run(
        "client",
        "--command",
        CLIENT_COMMAND,
        "--scenario",
        scenario,
        "-o",
        str(tmp_path / "results"),
        cwd=tmp_path,
    )
    assert run.returncode == 0, _report(run)
    assert "OVERALL: PASSED" in run.stdout + run.stderr, _report(run)
