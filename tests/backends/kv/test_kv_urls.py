"""create_kv_backend: URL → backend, with fix-it messages for bad URLs and options."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from toolwire.errors import ConfigurationError
from toolwire.stores import (
    MemoryKeyValueBackend,
    PostgresKeyValueBackend,
    RedisKeyValueBackend,
    SqliteKeyValueBackend,
    create_kv_backend,
)

pytestmark = pytest.mark.anyio


async def test_memory_url_creates_a_memory_backend() -> None:
    async with create_kv_backend("memory://") as backend:
        assert isinstance(backend, MemoryKeyValueBackend)


async def test_sqlite_url_with_three_slashes_is_relative_to_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    async with create_kv_backend("sqlite:///state/kv.db") as backend:
        assert isinstance(backend, SqliteKeyValueBackend)
        assert backend.path == "state/kv.db"
        await backend.scoped("t", "tool:t").set("k", "v")
    assert (tmp_path / "state" / "kv.db").is_file()


async def test_sqlite_url_with_four_slashes_is_absolute(tmp_path: Path) -> None:
    async with create_kv_backend(f"sqlite:///{tmp_path}/kv.db") as backend:
        assert isinstance(backend, SqliteKeyValueBackend)
        assert backend.path == f"{tmp_path}/kv.db"


@pytest.mark.parametrize("url", ["redis://127.0.0.1:6379/0", "rediss://cache.example:6380/1"])
async def test_redis_urls_create_a_redis_backend(url: str) -> None:
    async with create_kv_backend(url) as backend:
        assert isinstance(backend, RedisKeyValueBackend)


@pytest.mark.parametrize("url", ["postgresql://u@127.0.0.1/db", "postgres://u@127.0.0.1/db"])
async def test_postgres_urls_create_a_postgres_backend(url: str) -> None:
    async with create_kv_backend(url) as backend:
        assert isinstance(backend, PostgresKeyValueBackend)


@pytest.mark.parametrize("url", ["mysql://localhost/db", "kv.db", "", "file:///tmp/kv.db"])
def test_an_unknown_scheme_names_the_supported_ones(url: str) -> None:
    with pytest.raises(ConfigurationError, match=r"sqlite:///relative/kv\.db"):
        create_kv_backend(url)


@pytest.mark.parametrize("url", ["sqlite://", "sqlite:///", "sqlite://relative.db"])
def test_a_sqlite_url_without_a_path_raises_configuration_error(url: str) -> None:
    with pytest.raises(ConfigurationError, match="needs a path"):
        create_kv_backend(url)


URLS = ["memory://", "sqlite:///{tmp}/kv.db", "redis://127.0.0.1:6379/0", "postgresql://u@h/db"]


@pytest.mark.parametrize("url", URLS)
async def test_every_backend_shares_scopes_between_tools_by_default(
    url: str, tmp_path: Path
) -> None:
    async with create_kv_backend(url.format(tmp=tmp_path)) as backend:
        assert backend.isolate_tools is False
        assert "isolate_tools" not in repr(backend)


@pytest.mark.parametrize("url", URLS)
async def test_isolate_tools_reaches_every_backend(url: str, tmp_path: Path) -> None:
    async with create_kv_backend(url.format(tmp=tmp_path), isolate_tools=True) as backend:
        assert backend.isolate_tools is True
        assert repr(backend).endswith("isolate_tools=True)")


@pytest.mark.parametrize("url", URLS)
@pytest.mark.parametrize("value", ["true", 1, 0, None])
def test_a_non_bool_isolate_tools_raises_configuration_error_saying_what_to_pass(
    url: str, value: object, tmp_path: Path
) -> None:
    with pytest.raises(ConfigurationError, match=r"isolate_tools must be True or False.*=True"):
        create_kv_backend(url.format(tmp=tmp_path), isolate_tools=value)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("url", "module", "extra"),
    [
        ("redis://127.0.0.1:6379/0", "redis", "toolwire[redis]"),
        ("postgresql://127.0.0.1/test", "asyncpg", "toolwire[postgres]"),
    ],
)
def test_a_missing_driver_names_the_extra_to_install(
    monkeypatch: pytest.MonkeyPatch, url: str, module: str, extra: str
) -> None:
    for name in [m for m in sys.modules if m == module or m.startswith(f"{module}.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, module, None)  # makes `import <module>` fail
    with pytest.raises(ConfigurationError, match=extra.replace("[", r"\[").replace("]", r"\]")):
        create_kv_backend(url)
