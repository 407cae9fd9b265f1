"""`CapabilityBackends.aclose` closes the backends of every kind, once each time, in order."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolwire.capabilities._backends import CapabilityBackends
from toolwire.capabilities.defaults import create_backends


class _Recording:
    def __init__(self, name: str, log: list[str]) -> None:
        self.name = name
        self.log = log

    async def aclose(self) -> None:
        self.log.append(self.name)


@pytest.mark.anyio
async def test_kind_backends_are_closed_last_registered_first() -> None:
    log: list[str] = []
    backends = CapabilityBackends(
        kind_backends={"first": _Recording("first", log), "second": _Recording("second", log)}
    )
    await backends.aclose()
    assert log == ["second", "first"]


@pytest.mark.anyio
async def test_a_kind_backend_without_aclose_is_left_alone() -> None:
    backends = CapabilityBackends(kind_backends={"plain": object()})
    await backends.aclose()  # nothing to close, nothing raised


@pytest.mark.anyio
async def test_the_default_backends_close_their_archive_and_closing_twice_is_harmless(
    tmp_path: Path,
) -> None:
    backends = create_backends(working_dir=str(tmp_path), sandbox="off")
    archive = backends.kind_backends.get("archive")
    assert archive is not None, "create_backends builds an archive on its SQLite store"
    await archive.record("s1", "user", "hello there", 1.0)  # type: ignore[attr-defined]
    await backends.aclose()
    with pytest.raises(Exception):  # noqa: B017 - unusable once closed, whatever it says
        await archive.record("s1", "user", "again", 2.0)  # type: ignore[attr-defined]
    await backends.aclose()
