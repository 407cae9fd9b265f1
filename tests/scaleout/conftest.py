"""Fixtures: a cluster of three replicas behind HAProxy, on Redis and on PostgreSQL.

One cluster per store and test module (starting three replicas takes seconds on two cores),
stopped when the module's tests are done; a test that kills a replica starts it again before
it ends.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator

import pytest
from replica_cluster import (
    PINNED_DESCRIPTION,
    Cluster,
    claimed_postgres_database,
    claimed_redis_database,
    pinned_server_config,
    running_cluster,
)

from service_checks import missing_here, require_service


@pytest.fixture(scope="module", params=["redis", "postgres"])
def cluster(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Cluster]:
    """Three `toolwire serve` replicas on one store (a Redis or PostgreSQL database of this
    run's own) behind HAProxy (round-robin, no stickiness)."""
    if shutil.which("haproxy") is None:
        missing_here("haproxy is missing (scripts/system-deps.sh installs it: make sysdeps)")
    if request.param == "redis":
        require_service("Redis", "127.0.0.1", 6379)
        claimed = claimed_redis_database()
    else:
        require_service("PostgreSQL", "127.0.0.1", 5432)
        claimed = claimed_postgres_database()
    home = tmp_path_factory.mktemp(f"scaleout-{request.param}")
    with (
        claimed as store_url,
        running_cluster(
            home, store_url, extra_config=pinned_server_config(PINNED_DESCRIPTION)
        ) as running,
    ):
        yield running
