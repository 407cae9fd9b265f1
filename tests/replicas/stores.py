"""The shared stores replicas run on in these tests: one SQLite file, Redis, PostgreSQL."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

from service_checks import require_service
from toolwire.stores import KeyValueBackend, create_kv_backend

__all__ = ["STORES", "shared_store_url", "store_backend"]

STORES = ("sqlite", "redis", "postgres")
_REDIS = "redis://127.0.0.1:6379/0"
_POSTGRES = "postgresql://postgres@127.0.0.1:5432/test"


def shared_store_url(kind: str, tmp_path: Path) -> str:
    """A URL of the store ``kind`` for one test (skipped, or failed in CI, when down)."""
    if kind == "sqlite":
        return f"sqlite:///{tmp_path / 'shared.db'}"
    if kind == "redis":
        require_service("Redis", "127.0.0.1", 6379)
        return _REDIS
    if kind == "postgres":
        require_service("PostgreSQL", "127.0.0.1", 5432)
        return _POSTGRES
    pytest.fail(f"unknown store {kind}")


@asynccontextmanager
async def store_backend(kind: str, tmp_path: Path) -> AsyncIterator[KeyValueBackend]:
    """A backend on the store ``kind``; closed on exit."""
    backend = create_kv_backend(shared_store_url(kind, tmp_path))
    try:
        yield backend
    finally:
        await backend.aclose()


def unique(prefix: str) -> str:
    """A name no other test (or earlier run on the same Redis/PostgreSQL) uses."""
    return f"{prefix}-{uuid.uuid4().hex[:10]}"
