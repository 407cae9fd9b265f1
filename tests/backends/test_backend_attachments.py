"""FilteredAttachments: kind filter, the confused-deputy guard and cache containment."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from toolwire.capabilities.kinds.attachments._filtered import (
    FilteredAttachments,
    attachment_path,
    attachment_read_dirs,
)
from toolwire.capabilities.seams import Attachment, ScopedAttachments
from toolwire.errors import CapabilityError

pytestmark = pytest.mark.anyio


@pytest.fixture
def cache(tmp_path: Path) -> Path:
    directory = tmp_path / "cache"
    directory.mkdir()
    for name in ("photo.png", "report.pdf", "voice.ogg"):
        (directory / name).write_bytes(b"data")
    return directory


@pytest.fixture
def turn(cache: Path) -> list[Attachment]:
    return [
        Attachment(ref="a1", kind="image", url=(cache / "photo.png").as_uri()),
        Attachment(ref="a2", kind="file", url=(cache / "report.pdf").as_uri()),
        Attachment(ref="a3", kind="audio", url=(cache / "voice.ogg").as_uri()),
    ]


async def test_it_satisfies_the_protocol(turn: list[Attachment]) -> None:
    assert isinstance(FilteredAttachments(turn, "*", cache_dir=None), ScopedAttachments)


async def test_only_declared_kinds_are_listed(turn: list[Attachment]) -> None:
    images = FilteredAttachments(turn, ["image"], cache_dir=None)
    assert [a.ref for a in images.list()] == ["a1"]


async def test_star_lists_every_kind_in_order(turn: list[Attachment]) -> None:
    every = FilteredAttachments(turn, "*", cache_dir=None)
    assert [a.ref for a in every.list()] == ["a1", "a2", "a3"]


def test_a_single_kind_string_is_refused(turn: list[Attachment]) -> None:
    with pytest.raises(TypeError, match="list of kinds"):
        FilteredAttachments(turn, "image", cache_dir=None)  # type: ignore[arg-type]


async def test_open_returns_the_local_path(turn: list[Attachment], cache: Path) -> None:
    scoped = FilteredAttachments(turn, ["image"], cache_dir=str(cache))
    opened = await scoped.open(turn[0])
    assert opened.path == str(cache / "photo.png")


async def test_open_by_ref_returns_the_local_path(turn: list[Attachment], cache: Path) -> None:
    scoped = FilteredAttachments(turn, ["file"], cache_dir=str(cache))
    assert (await scoped.open_by_ref("a2")).path == str(cache / "report.pdf")


async def test_a_kind_not_declared_cannot_be_opened(turn: list[Attachment]) -> None:
    scoped = FilteredAttachments(turn, ["image"], cache_dir=None)
    with pytest.raises(LookupError, match='No attachment with ref "a2"'):
        await scoped.open_by_ref("a2")
    with pytest.raises(LookupError):
        await scoped.open(turn[1])


async def test_a_listed_ref_with_a_different_url_is_refused(
    turn: list[Attachment], tmp_path: Path
) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("s")
    forged = replace(turn[0], url=secret.as_uri())
    scoped = FilteredAttachments(turn, "*", cache_dir=None)
    with pytest.raises(CapabilityError, match="not the one the user attached"):
        await scoped.open(forged)


async def test_an_unknown_ref_is_refused(turn: list[Attachment]) -> None:
    scoped = FilteredAttachments(turn, "*", cache_dir=None)
    with pytest.raises(LookupError, match='No attachment with ref "zz"'):
        await scoped.open_by_ref("zz")


async def test_non_file_urls_do_not_open() -> None:
    remote = Attachment(ref="r", kind="image", url="https://example.com/a.png")
    scoped = FilteredAttachments([remote], "*", cache_dir=None)
    with pytest.raises(ValueError, match="Unsupported URL scheme in attachment: https"):
        await scoped.open(remote)


async def test_a_file_outside_the_cache_is_refused(tmp_path: Path, cache: Path) -> None:
    stray = tmp_path / "stray.txt"
    stray.write_text("x")
    attachment = Attachment(ref="s", kind="file", url=stray.as_uri())
    scoped = FilteredAttachments([attachment], "*", cache_dir=str(cache))
    with pytest.raises(CapabilityError, match="outside the attachment cache"):
        await scoped.open_by_ref("s")


async def test_a_cache_link_pointing_outside_is_refused(tmp_path: Path, cache: Path) -> None:
    (tmp_path / "secret.txt").write_text("s")
    (cache / "innocent.txt").symlink_to(tmp_path / "secret.txt")
    attachment = Attachment(ref="l", kind="file", url=(cache / "innocent.txt").as_uri())
    scoped = FilteredAttachments([attachment], "*", cache_dir=str(cache))
    with pytest.raises(CapabilityError):
        await scoped.open_by_ref("l")


@pytest.mark.parametrize(
    ("url", "path"),
    [
        ("file:///tmp/a%20b.png", "/tmp/a b.png"),
        ("file://localhost/tmp/x", "/tmp/x"),
        ("file:///tmp/../etc/x", "/etc/x"),
        ("file://otherhost/tmp/x", None),
        ("https://example.com/x", None),
        ("file:relative", None),
    ],
)
def test_attachment_path_table(url: str, path: str | None) -> None:
    assert attachment_path(url) == path


def test_read_dirs_are_the_visible_files_themselves(turn: list[Attachment], cache: Path) -> None:
    assert attachment_read_dirs(turn, ["image", "audio"], cache_dir=str(cache)) == (
        str(cache / "photo.png"),
        str(cache / "voice.ogg"),
    )


def test_read_dirs_skip_remote_and_out_of_cache_files(tmp_path: Path, cache: Path) -> None:
    attachments = [
        Attachment(ref="r", kind="file", url="https://example.com/x"),
        Attachment(ref="o", kind="file", url=(tmp_path / "elsewhere").as_uri()),
        Attachment(ref="c", kind="file", url=(cache / "report.pdf").as_uri()),
    ]
    assert attachment_read_dirs(attachments, "*", cache_dir=str(cache)) == (
        str(cache / "report.pdf"),
    )


def test_repr_names_refs_only(turn: list[Attachment]) -> None:
    assert repr(FilteredAttachments(turn, ["image"], cache_dir=None)) == (
        "FilteredAttachments(refs=['a1'])"
    )
