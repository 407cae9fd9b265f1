"""ReachScopedFs against real files and symbolic links in tmp_path."""

from __future__ import annotations

import os
import socket
import stat
from pathlib import Path

import anyio
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fifo_helpers import no_reader_holds, rescued
from toolwire.capabilities.kinds.fs_reach._scoped import (
    MAX_SYMLINK_HOPS,
    ReachScopedFs,
    canonical_path,
)
from toolwire.capabilities.seams import DirEntry, ScopedFs
from toolwire.errors import ConfigurationError, PathNotReachableError

pytestmark = pytest.mark.anyio


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fake $HOME inside tmp_path, so the deny floor is exercised on real files."""
    path = tmp_path / "home"
    (path / ".ssh").mkdir(parents=True)
    (path / ".ssh" / "id_rsa").write_text("PRIVATE KEY")
    monkeypatch.setenv("HOME", str(path))
    return path


@pytest.fixture
def root(tmp_path: Path, home: Path) -> Path:
    """An allowed work tree next to an out-of-reach sibling."""
    work = tmp_path / "work"
    work.mkdir()
    (work / "hello.txt").write_text("hello")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("secret")
    return work


def fs_for(root: Path, *, write: bool = True) -> ReachScopedFs:
    return ReachScopedFs([str(root)], [str(root)] if write else [])


def refused(exc: pytest.ExceptionInfo[PathNotReachableError]) -> str:
    message = str(exc.value)
    assert message.startswith("PATH_NOT_REACHABLE:")
    return message


async def test_it_satisfies_the_scoped_fs_protocol(root: Path) -> None:
    assert isinstance(fs_for(root), ScopedFs)


async def test_read_returns_a_file_in_reach(root: Path) -> None:
    assert await fs_for(root).read(str(root / "hello.txt")) == "hello"


async def test_read_replaces_invalid_utf8(root: Path) -> None:
    (root / "bin.dat").write_bytes(b"ok\xff\xfe")
    assert await fs_for(root).read(str(root / "bin.dat")) == "ok\ufffd\ufffd"


async def test_read_bytes_returns_raw_bytes(root: Path) -> None:
    (root / "bin.dat").write_bytes(b"\x00\xff")
    assert await fs_for(root).read_bytes(str(root / "bin.dat")) == b"\x00\xff"


async def test_read_of_a_missing_file_raises_file_not_found(root: Path) -> None:
    with pytest.raises(FileNotFoundError, match="File not found"):
        await fs_for(root).read(str(root / "missing.txt"))


async def test_read_outside_reach_is_refused(root: Path) -> None:
    with pytest.raises(PathNotReachableError) as exc:
        await fs_for(root).read(str(root.parent / "outside" / "secret.txt"))
    assert "is not permitted" in refused(exc)


async def test_refusal_is_identical_for_existing_and_missing_out_of_reach_paths(
    root: Path,
) -> None:
    fs = fs_for(root)
    messages = []
    for name in ("secret.txt", "no-such-file.txt"):
        path = str(root.parent / "outside" / name)
        with pytest.raises(PathNotReachableError) as exc:
            await fs.read(path)
        messages.append(str(exc.value).replace(name, "<name>"))
    assert messages[0] == messages[1]


async def test_a_sibling_sharing_the_prefix_text_is_refused(root: Path) -> None:
    sibling = root.parent / (root.name + "-evil")
    sibling.mkdir()
    (sibling / "x.txt").write_text("x")
    with pytest.raises(PathNotReachableError):
        await fs_for(root).read(str(sibling / "x.txt"))


async def test_an_exact_file_prefix_grants_that_file_only(root: Path) -> None:
    fs = ReachScopedFs([str(root / "hello.txt")], [])
    assert await fs.read(str(root / "hello.txt")) == "hello"
    (root / "other.txt").write_text("o")
    with pytest.raises(PathNotReachableError):
        await fs.read(str(root / "other.txt"))


@pytest.mark.parametrize(
    "evasion",
    ["{root}/../outside/secret.txt", "{root}/./../outside/secret.txt", "//{root}/../outside"],
)
async def test_dot_dot_and_slash_evasions_are_refused(root: Path, evasion: str) -> None:
    with pytest.raises(PathNotReachableError):
        await fs_for(root).read(evasion.format(root=root))


async def test_redundant_separators_inside_reach_are_accepted(root: Path) -> None:
    fs = fs_for(root)
    assert await fs.read(f"/{root}//./hello.txt") == "hello"


async def test_relative_paths_are_refused_without_a_base_dir(root: Path) -> None:
    with pytest.raises(PathNotReachableError) as exc:
        await fs_for(root).read("hello.txt")
    assert "needs an absolute path" in refused(exc)


async def test_relative_paths_resolve_against_base_dir(root: Path) -> None:
    fs = ReachScopedFs(["."], ["."], base_dir=str(root))
    assert fs.read_prefixes == (str(root),)
    assert await fs.read("hello.txt") == "hello"
    with pytest.raises(PathNotReachableError):
        await fs.read("../outside/secret.txt")


def test_a_relative_prefix_without_base_dir_is_a_configuration_error() -> None:
    with pytest.raises(ConfigurationError, match="base_dir"):
        ReachScopedFs(["work"], [])


def test_a_single_string_prefix_is_a_configuration_error() -> None:
    with pytest.raises(ConfigurationError, match="list"):
        ReachScopedFs("/tmp", [])


async def test_paths_with_nul_are_refused(root: Path) -> None:
    with pytest.raises(PathNotReachableError):
        await fs_for(root).read(f"{root}/hello.txt\0")


async def test_write_creates_parents_and_reads_back(root: Path) -> None:
    fs = fs_for(root)
    target = root / "a" / "b" / "new.txt"
    await fs.write(str(target), "content")
    assert target.read_text() == "content"


async def test_write_accepts_bytes(root: Path) -> None:
    await fs_for(root).write(str(root / "b.bin"), b"\x00\x01")
    assert (root / "b.bin").read_bytes() == b"\x00\x01"


async def test_write_replaces_atomically_and_leaves_no_temporary_file(root: Path) -> None:
    fs = fs_for(root)
    await fs.write(str(root / "hello.txt"), "replaced")
    assert (root / "hello.txt").read_text() == "replaced"
    assert sorted(os.listdir(root)) == ["hello.txt"]


async def test_write_keeps_the_permission_bits_of_an_existing_file(root: Path) -> None:
    script = root / "run.sh"
    script.write_text("#!/bin/sh\n")
    script.chmod(0o750)
    await fs_for(root).write(str(script), "#!/bin/sh\necho hi\n")
    assert stat.S_IMODE(script.stat().st_mode) == 0o750


async def test_write_into_a_directory_path_fails_and_cleans_up(root: Path) -> None:
    (root / "adir").mkdir()
    with pytest.raises(OSError):
        await fs_for(root).write(str(root / "adir"), "x")
    assert sorted(os.listdir(root)) == ["adir", "hello.txt"]


async def test_write_needs_write_reach(root: Path) -> None:
    with pytest.raises(PathNotReachableError) as exc:
        await fs_for(root, write=False).write(str(root / "x.txt"), "x")
    assert refused(exc).startswith("PATH_NOT_REACHABLE: write of")
    assert not (root / "x.txt").exists()


async def test_write_reach_does_not_grant_read(root: Path) -> None:
    fs = ReachScopedFs([], [str(root)])
    await fs.write(str(root / "w.txt"), "w")
    with pytest.raises(PathNotReachableError):
        await fs.read(str(root / "w.txt"))


@pytest.mark.parametrize(
    ("method", "kind"),
    [
        ("read", "read"),
        ("read_bytes", "read"),
        ("exists", "read"),
        ("list", "read"),
        ("list_entries", "read"),
        ("mtime", "read"),
        ("mkdir", "write"),
    ],
)
async def test_every_method_checks_its_kind_of_reach(root: Path, method: str, kind: str) -> None:
    outside = str(root.parent / "outside")
    fs = fs_for(root)
    with pytest.raises(PathNotReachableError) as exc:
        await getattr(fs, method)(outside)
    assert refused(exc).startswith(f"PATH_NOT_REACHABLE: {kind} of")


async def test_exists_reports_presence_in_reach(root: Path) -> None:
    fs = fs_for(root)
    assert await fs.exists(str(root / "hello.txt"))
    assert not await fs.exists(str(root / "nope.txt"))


async def test_list_and_list_entries_are_sorted_with_kinds(root: Path) -> None:
    (root / "zdir").mkdir()
    (root / "a.txt").write_text("a")
    fs = fs_for(root)
    assert await fs.list(str(root)) == ["a.txt", "hello.txt", "zdir"]
    assert await fs.list_entries(str(root)) == [
        DirEntry(name="a.txt", is_dir=False),
        DirEntry(name="hello.txt", is_dir=False),
        DirEntry(name="zdir", is_dir=True),
    ]


async def test_listing_a_missing_directory_is_empty(root: Path) -> None:
    assert await fs_for(root).list(str(root / "missing")) == []


async def test_mtime_is_none_when_missing_and_the_stat_time_otherwise(root: Path) -> None:
    fs = fs_for(root)
    os.utime(root / "hello.txt", (1_000_000, 1_000_000))
    assert await fs.mtime(str(root / "hello.txt")) == 1_000_000
    assert await fs.mtime(str(root / "missing")) is None


async def test_mkdir_creates_parents_and_is_idempotent(root: Path) -> None:
    fs = fs_for(root)
    await fs.mkdir(str(root / "x" / "y"))
    await fs.mkdir(str(root / "x" / "y"))
    assert (root / "x" / "y").is_dir()


# ---------------------------------------------------------------- the deny floor


async def test_the_floor_refuses_home_secrets_even_when_home_is_in_reach(home: Path) -> None:
    fs = ReachScopedFs([str(home)], [str(home)])
    with pytest.raises(PathNotReachableError) as exc:
        await fs.read(str(home / ".ssh" / "id_rsa"))
    assert "always-deny floor" in refused(exc)
    with pytest.raises(PathNotReachableError):
        await fs.write(str(home / ".ssh" / "authorized_keys"), "attacker")
    assert not (home / ".ssh" / "authorized_keys").exists()


async def test_the_floor_is_checked_before_the_allow_list(home: Path) -> None:
    fs = ReachScopedFs([str(home / ".ssh")], [])
    with pytest.raises(PathNotReachableError, match="always-deny floor"):
        await fs.read(str(home / ".ssh" / "id_rsa"))


async def test_system_entries_are_refused_with_root_in_reach(home: Path) -> None:
    fs = ReachScopedFs(["/"], [])
    for path in ("/etc/shadow", "/proc/self/environ", "/root/.ssh/id_rsa", "/etc/../etc/passwd"):
        with pytest.raises(PathNotReachableError, match="always-deny floor"):
            await fs.read(path)


async def test_extra_deny_prefixes_are_refused(root: Path) -> None:
    (root / "private").mkdir()
    (root / "private" / "p.txt").write_text("p")
    fs = ReachScopedFs([str(root)], [], deny=[str(root / "private")])
    assert await fs.read(str(root / "hello.txt")) == "hello"
    with pytest.raises(PathNotReachableError, match="always-deny floor"):
        await fs.read(str(root / "private" / "p.txt"))


# ---------------------------------------------------------------- symbolic links


async def test_a_link_in_reach_pointing_out_of_reach_is_refused(root: Path) -> None:
    (root / "escape").symlink_to(root.parent / "outside" / "secret.txt")
    with pytest.raises(PathNotReachableError) as exc:
        await fs_for(root).read(str(root / "escape"))
    message = refused(exc)
    assert "through a symbolic link" in message
    assert "secret.txt" not in message


async def test_a_linked_parent_with_an_ordinary_leaf_is_refused(root: Path) -> None:
    (root / "linkdir").symlink_to(root.parent / "outside")
    with pytest.raises(PathNotReachableError, match="through a symbolic link"):
        await fs_for(root).read(str(root / "linkdir" / "secret.txt"))


async def test_writing_a_new_file_through_a_linked_parent_is_refused(root: Path) -> None:
    (root / "linkdir").symlink_to(root.parent / "outside")
    with pytest.raises(PathNotReachableError):
        await fs_for(root).write(str(root / "linkdir" / "planted.txt"), "x")
    assert not (root.parent / "outside" / "planted.txt").exists()


async def test_a_dangling_link_pointing_out_of_reach_refuses_writes(root: Path) -> None:
    (root / "dangling").symlink_to(root.parent / "outside" / "new.txt")
    with pytest.raises(PathNotReachableError):
        await fs_for(root).write(str(root / "dangling"), "x")
    assert not (root.parent / "outside" / "new.txt").exists()


async def test_a_link_staying_in_reach_is_followed(root: Path) -> None:
    (root / "sub").mkdir()
    (root / "sub" / "data.txt").write_text("data")
    (root / "alias").symlink_to("sub")
    fs = fs_for(root)
    assert fs.check_reach(str(root / "alias" / "data.txt"), "read") == str(
        root / "sub" / "data.txt"
    )
    assert await fs.read(str(root / "alias" / "data.txt")) == "data"


async def test_a_chain_of_links_ending_outside_is_refused(root: Path) -> None:
    (root / "c").symlink_to(root.parent / "outside")
    (root / "b").symlink_to(root / "c")
    (root / "a").symlink_to("b")
    with pytest.raises(PathNotReachableError, match="through a symbolic link"):
        await fs_for(root).read(str(root / "a" / "secret.txt"))


async def test_a_chain_of_links_ending_inside_is_followed(root: Path) -> None:
    (root / "c").symlink_to("hello.txt")
    (root / "b").symlink_to("c")
    (root / "a").symlink_to(root / "b")
    assert await fs_for(root).read(str(root / "a")) == "hello"


async def test_a_link_cycle_terminates_with_a_refusal(root: Path) -> None:
    (root / "loop1").symlink_to("loop2")
    (root / "loop2").symlink_to("loop1")
    with pytest.raises(PathNotReachableError, match="too many symbolic links"):
        await fs_for(root).read(str(root / "loop1" / "x"))


async def test_a_chain_longer_than_the_hop_limit_is_refused(root: Path) -> None:
    (root / "l0").symlink_to("hello.txt")
    for i in range(1, MAX_SYMLINK_HOPS + 1):
        (root / f"l{i}").symlink_to(f"l{i - 1}")
    fs = fs_for(root)
    assert await fs.read(str(root / f"l{MAX_SYMLINK_HOPS - 1}")) == "hello"
    with pytest.raises(PathNotReachableError, match="too many symbolic links"):
        await fs.read(str(root / f"l{MAX_SYMLINK_HOPS}"))


async def test_the_floor_applies_to_a_links_resolved_target(root: Path, home: Path) -> None:
    (root / "keys").symlink_to(home / ".ssh")
    fs = ReachScopedFs([str(root), str(home)], [])
    with pytest.raises(PathNotReachableError, match="always-deny floor"):
        await fs.read(str(root / "keys" / "id_rsa"))


async def test_a_relative_link_climbing_out_is_refused(root: Path) -> None:
    (root / "sub").mkdir()
    (root / "sub" / "up").symlink_to("../../outside")
    with pytest.raises(PathNotReachableError):
        await fs_for(root).read(str(root / "sub" / "up" / "secret.txt"))


async def test_segments_above_the_prefix_are_not_walked(tmp_path: Path, home: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    (real / "f.txt").write_text("f")
    link = tmp_path / "linked-root"
    link.symlink_to(real)
    fs = ReachScopedFs([str(link)], [])
    assert await fs.read(str(link / "f.txt")) == "f"


def test_check_reach_rejects_an_unknown_kind(root: Path) -> None:
    with pytest.raises(ValueError, match="kind"):
        fs_for(root).check_reach(str(root), "execute")


def test_repr_shows_the_reach(root: Path) -> None:
    assert str(root) in repr(fs_for(root))


# ---------------------------------------------------------------- property: no escape


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("reach")
    work = base / "work"
    (work / "a" / "b").mkdir(parents=True)
    (base / "outside").mkdir()
    (work / "esc").symlink_to(base / "outside")
    (work / "a" / "up").symlink_to("../..")
    (work / "in").symlink_to("a/b")
    (work / "loop").symlink_to("loop")
    return work


SEGMENTS = st.sampled_from(["a", "b", "esc", "up", "in", "loop", "..", ".", "", "x"])


@settings(max_examples=200, deadline=None)
@given(st.lists(SEGMENTS, max_size=10), st.sampled_from(["read", "write"]))
def test_generated_relative_paths_never_escape_the_allowed_root(
    tree: Path, segments: list[str], kind: str
) -> None:
    fs = ReachScopedFs(["."], ["."], base_dir=str(tree))
    path = "/".join(segments)
    try:
        resolved = fs.check_reach(path, kind)
    except PathNotReachableError as exc:
        message = str(exc)
    else:
        message = ""
    if message:
        assert message.startswith("PATH_NOT_REACHABLE:")
        return
    assert resolved == str(tree) or resolved.startswith(str(tree) + "/")
    real, real_root = os.path.realpath(resolved), os.path.realpath(tree)
    assert real == real_root or real.startswith(real_root + "/")


@given(st.text(alphabet="ab./", max_size=20))
def test_canonical_paths_are_absolute_and_free_of_dot_segments(path: str) -> None:
    result = canonical_path(path, "/base")
    if result is None:
        assert path == ""
        return
    assert result.startswith("/")
    assert not result.startswith("//")
    assert all(seg not in (".", "..") for seg in result.split("/"))


async def test_remove_deletes_a_file_in_write_reach(root: Path) -> None:
    assert await fs_for(root).remove(str(root / "hello.txt")) is True
    assert not (root / "hello.txt").exists()


async def test_remove_of_a_missing_file_reports_false(root: Path) -> None:
    assert await fs_for(root).remove(str(root / "absent.txt")) is False


async def test_remove_needs_write_reach(root: Path) -> None:
    with pytest.raises(PathNotReachableError) as exc:
        await fs_for(root, write=False).remove(str(root / "hello.txt"))
    refused(exc)
    assert (root / "hello.txt").exists()


async def test_remove_refuses_a_directory(root: Path) -> None:
    (root / "sub").mkdir()
    with pytest.raises(IsADirectoryError):
        await fs_for(root).remove(str(root / "sub"))
    assert (root / "sub").is_dir()


async def test_remove_of_a_link_deletes_the_link_not_its_target(root: Path) -> None:
    (root / "link").symlink_to(root / "hello.txt")
    assert await fs_for(root).remove(str(root / "link")) is True
    assert (root / "hello.txt").read_text() == "hello"


async def test_size_reports_bytes_or_none_and_needs_read_reach(root: Path, tmp_path: Path) -> None:
    fs = fs_for(root)
    assert await fs.size(str(root / "hello.txt")) == 5
    assert await fs.size(str(root / "absent.txt")) is None
    with pytest.raises(PathNotReachableError) as exc:
        await fs.size(str(tmp_path / "outside" / "secret.txt"))
    refused(exc)


# ---------------------------------------------------------------- other spellings (item 14)


async def test_the_floor_refuses_other_letter_cases_of_home_secrets(home: Path) -> None:
    fs = ReachScopedFs([str(home)], [str(home)])
    for spelling in (".SSH/id_rsa", ".Ssh/id_rsa", ".Aws/credentials"):
        with pytest.raises(PathNotReachableError, match="always-deny floor"):
            await fs.read(str(home / spelling))
        with pytest.raises(PathNotReachableError, match="always-deny floor"):
            await fs.write(str(home / spelling), "attacker")
    assert not (home / ".SSH").exists()
    assert not (home / ".Aws").exists()


async def test_extra_deny_prefixes_refuse_other_letter_cases(root: Path) -> None:
    fs = ReachScopedFs([str(root)], [str(root)], deny=[str(root / "private")])
    with pytest.raises(PathNotReachableError, match="always-deny floor"):
        await fs.write(str(root / "PRIVATE" / "p.txt"), "p")


# ---------------------------------------------------------------- only regular files (item 10)
# A FIFO blocks open() until a writer comes, /dev/zero never ends and a socket cannot be opened:
# each used to hang a worker thread (or fill memory). The seam opens without blocking, checks
# the descriptor and refuses what is not a regular file.


async def test_reading_a_fifo_is_refused_at_once_and_leaves_no_reader(root: Path) -> None:
    fifo = root / "pipe"
    os.mkfifo(fifo)
    with rescued(fifo):
        with anyio.fail_after(10), pytest.raises(PathNotReachableError) as exc:
            await fs_for(root).read_bytes(str(fifo))
        assert "named pipe (FIFO)" in refused(exc)
        assert "not a regular file" in str(exc.value)
        assert no_reader_holds(fifo)


async def test_reading_a_socket_is_refused(root: Path) -> None:
    path = root / "s.sock"
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(path))
        server.listen()
        with anyio.fail_after(10), pytest.raises(PathNotReachableError) as exc:
            await fs_for(root).read_bytes(str(path))
    assert "a socket" in refused(exc)


@pytest.mark.parametrize("device", ["/dev/null", "/dev/zero"])
async def test_reading_a_character_device_is_refused(device: str) -> None:
    fs = ReachScopedFs([device], [])
    with anyio.fail_after(10), pytest.raises(PathNotReachableError) as exc:
        await fs.read_bytes(device)
    assert "character device" in refused(exc)


async def test_reading_a_directory_raises_is_a_directory(root: Path) -> None:
    (root / "d").mkdir()
    with pytest.raises(IsADirectoryError):
        await fs_for(root).read_bytes(str(root / "d"))


async def test_a_fifo_linked_in_reach_is_refused_too(root: Path) -> None:
    fifo = root / "pipe"
    os.mkfifo(fifo)
    (root / "link").symlink_to(fifo)
    with rescued(fifo):
        with anyio.fail_after(10), pytest.raises(PathNotReachableError, match="FIFO"):
            await fs_for(root).read(str(root / "link"))
        assert no_reader_holds(fifo)


# ---------------------------------------------------------------- stat (items 10, 12, 13)


async def test_stat_names_the_kind_and_the_identity_without_reading(root: Path) -> None:
    fifo = root / "pipe"
    os.mkfifo(fifo)
    (root / "d").mkdir()
    fs = fs_for(root)
    info = await fs.stat(str(root / "hello.txt"))
    real = os.stat(root / "hello.txt")
    assert (info.kind, info.size, info.mtime) == ("file", 5, real.st_mtime)
    assert (info.device, info.inode, info.links) == (real.st_dev, real.st_ino, 1)
    assert (await fs.stat(str(fifo))).kind == "fifo"
    assert no_reader_holds(fifo)
    assert (await fs.stat(str(root / "d"))).kind == "directory"
    missing = await fs.stat(str(root / "nope.txt"))
    assert missing.kind is None
    assert not missing.exists
    assert missing.path == str(root / "nope.txt")


async def test_stat_reports_the_path_a_link_resolves_to(root: Path) -> None:
    (root / "sub").mkdir()
    (root / "sub" / "f.txt").write_text("f")
    (root / "linkdir").symlink_to(root / "sub")
    (root / "dangling").symlink_to(root / "sub" / "gone.txt")
    fs = fs_for(root)
    assert (await fs.stat(str(root / "linkdir" / "f.txt"))).path == str(root / "sub" / "f.txt")
    gone = await fs.stat(str(root / "dangling"))
    assert (gone.path, gone.exists) == (str(root / "sub" / "gone.txt"), False)


async def test_stat_needs_read_or_write_reach_but_not_both(root: Path) -> None:
    write_only = ReachScopedFs([], [str(root)])
    assert (await write_only.stat(str(root / "hello.txt"))).kind == "file"
    read_only = ReachScopedFs([str(root)], [])
    assert (await read_only.stat(str(root / "hello.txt"))).kind == "file"
    with pytest.raises(PathNotReachableError) as exc:
        await write_only.stat(str(root.parent / "outside" / "secret.txt"))
    assert refused(exc).startswith("PATH_NOT_REACHABLE: read of")


async def test_stat_keeps_the_deny_floor(home: Path) -> None:
    fs = ReachScopedFs([str(home)], [str(home)])
    with pytest.raises(PathNotReachableError, match="always-deny floor"):
        await fs.stat(str(home / ".ssh" / "id_rsa"))
